package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Class-data sharing (AppCDS). Four JVMs starting at once on two cores are
// CPU-bound: class loading and verification is a large part of it. A
// dynamic CDS archive per role (jobmanager, taskmanager, kafka) cuts the
// JobManager's start from ~8 to ~5 CPU-seconds. The first Up of a jar set
// and JDK runs one JVM per role with -XX:ArchiveClassesAtExit; the JVM
// writes the archive when it exits on SIGTERM, and Down moves it in place.
// Later Ups start with -XX:SharedArchiveFile. A mismatching archive (other
// JDK or jars) is keyed away by cdsKey; a bad one only makes the JVM warn
// and start without it.

// cdsDumpGrace is Down's grace period while a JVM writes its archive.
const cdsDumpGrace = 90 * time.Second

// cdsKey identifies the JDK and the jars an archive was made with.
func cdsKey(javaVersion string, lib string) string {
	h := sha256.New()
	h.Write([]byte(javaVersion))
	stampBytes, _ := os.ReadFile(filepath.Join(lib, stampName))
	h.Write(stampBytes)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// cdsPlan returns the JVM flags for role: use the archive when it exists,
// else (when dump) write one at exit to a private path.
func cdsPlan(dir, role, key string, dump bool) (flags []string, archive, dumpPath string) {
	archive = filepath.Join(dir, role+"-"+key+".jsa")
	if fi, err := os.Stat(archive); err == nil && fi.Size() > 0 {
		return []string{"-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"}, "", ""
	}
	if !dump {
		return nil, "", ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", ""
	}
	f, err := os.CreateTemp(dir, role+"-"+key+".jsa.dump-")
	if err != nil {
		return nil, "", ""
	}
	dumpPath = f.Name()
	f.Close()
	os.Remove(dumpPath) // the JVM creates it
	return []string{"-XX:ArchiveClassesAtExit=" + dumpPath, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"}, archive, dumpPath
}

// keepArchive moves a dump written by a cleanly exited JVM into place, or
// removes it.
func keepArchive(p Process, clean bool) {
	if p.CDSDump == "" {
		return
	}
	fi, err := os.Stat(p.CDSDump)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if clean && err == nil && fi.Size() > 0 && p.CDSArchive != "" {
		if _, err := os.Stat(p.CDSArchive); errors.Is(err, fs.ErrNotExist) {
			if os.Rename(p.CDSDump, p.CDSArchive) == nil {
				return
			}
		}
	}
	os.Remove(p.CDSDump)
}
