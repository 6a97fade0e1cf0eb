package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// markerFile marks a run folder as streamtwin's and lists the files the run
// wrote, with their sizes and hashes: a later run may replace them, and
// never anything else.
const markerFile = ".streamtwin.json"

// runFileNames are the files a run folder's writers own: the results, the
// figure of `run --plot`, a sweep run's params.json and a monitoring
// section's files and figure.
var runFileNames = map[string]bool{
	TimeseriesFile: true, EventsFile: true, SummaryFile: true, ScenarioFile: true,
	FigurePNG: true, figureSVG: true, "figure.pdf": true, "params.json": true, markerFile: true,
	HostMetricsFile: true, TradeoffCSV: true, MonitoringLiveCSV: true, TradeoffParquet: true, "tradeoff.png": true, "tradeoff.svg": true, "tradeoff.pdf": true,
}

// runMarker is the content of markerFile.
type runMarker struct {
	WrittenBy string             `json:"written_by"`
	Files     map[string]fileSum `json:"files"`
}

// fileSum identifies a file's content.
type fileSum struct {
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// RefusedError is an output folder streamtwin will not write into: one
// holding files it did not write, or one another process is writing. The
// CLI exits 2 on it.
type RefusedError struct {
	Dir string
	Why string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refusing to write into %s: %s", e.Dir, e.Why)
}

// keptDirs are streamtwin's own subfolders of a run folder, kept across
// runs: the Khaos profile `run` writes before it simulates.
var keptDirs = map[string]bool{"profile": true}

// inspectOut looks at dir before a run is written there. A missing or empty
// folder, or one a run wrote, is fine; keep lists the entries there that no
// run writes (left untouched). Anything foreign is refused unless force,
// which writes the run's files beside it.
func inspectOut(dir string, force bool) (keep []string, err error) {
	st, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &RefusedError{dir, "it is a file, not a folder; choose another --out"}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	ours := false
	var foreign []string
	var others []os.DirEntry // the entries of foreign
	for _, e := range entries {
		switch {
		case e.Name() == markerFile:
			ours = true
		case e.IsDir() && keptDirs[e.Name()]:
			keep = append(keep, e.Name())
		case !runFileNames[e.Name()] || e.IsDir():
			foreign = append(foreign, e.Name())
			others = append(others, e)
		}
	}
	// Folders of earlier versions have no marker but only the run's files.
	if len(foreign) == 0 || ours || force {
		return append(keep, foreign...), nil
	}
	return nil, &RefusedError{dir, refusal(contentsOf(dir, others, 2))}
}

// refusal says why a run is not written into a folder: what streamtwin
// wrote there (a sweep, the run folders of variants, an evaluation …) and
// what it did not, and how to go on. --force writes the run's files beside
// what is there and touches none of it; nothing is ever replaced but a
// run folder's own files.
func refusal(c folderContents) string {
	what := c.what()
	switch {
	case what == "":
		return fmt.Sprintf("it holds %s, which streamtwin did not write; choose another --out, or pass --force to write the run's files beside them (nothing else is touched)",
			shortList(c.unknown, 5))
	case len(c.unknown) == 0:
		return fmt.Sprintf("it is %s, not a run folder; choose another --out for the run, or pass --force to write the run's files beside these (none of them is touched or replaced)", what)
	}
	return fmt.Sprintf("it is %s, and holds %s, which streamtwin did not write; choose another --out, or pass --force to write the run's files beside them (nothing else is touched)",
		what, shortList(c.unknown, 5))
}

// markFolder writes markerFile into dir, listing every run file in it.
func markFolder(dir, by string, durable bool) error {
	m := runMarker{WrittenBy: by, Files: map[string]fileSum{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !runFileNames[e.Name()] || e.Name() == markerFile || e.IsDir() {
			continue
		}
		sum, err := sumFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		m.Files[e.Name()] = sum
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeSynced(filepath.Join(dir, markerFile), append(b, '\n'), durable)
}

func sumFile(path string) (fileSum, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileSum{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return fileSum{Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, err
}

// VerifyRun checks that every file the marker of run folder dir lists is
// there with its size and hash; a sweep's resume reruns a run that fails.
func VerifyRun(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, markerFile))
	if err != nil {
		return err
	}
	var m runMarker
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, markerFile), err)
	}
	for _, name := range []string{TimeseriesFile, EventsFile, SummaryFile, ScenarioFile} {
		if _, ok := m.Files[name]; !ok {
			return fmt.Errorf("%s: the marker does not list %s", dir, name)
		}
	}
	names := make([]string, 0, len(m.Files))
	for n := range m.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got, err := sumFile(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		if got != m.Files[n] {
			return fmt.Errorf("%s: %s changed since the run wrote it (%d bytes, was %d)", dir, n, got.Bytes, m.Files[n].Bytes)
		}
	}
	return nil
}

// folderLock is an exclusive flock on dir+".lock", so a second writer of
// the same folder fails at once instead of racing the first.
type folderLock struct {
	f    *os.File
	path string
}

func lockFolder(dir string) (*folderLock, error) {
	path := dir + ".lock"
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &RefusedError{dir, fmt.Sprintf("another streamtwin process is writing it (it holds %s); wait for it to finish or choose another --out", path)}
			}
			return nil, err
		}
		// the holder before us may have removed the file after we opened
		// it: then our lock is on a deleted file, so take it again
		a, errA := f.Stat()
		b, errB := os.Stat(path)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return &folderLock{f: f, path: path}, nil
		}
		f.Close()
	}
}

func (l *folderLock) release() {
	if l == nil {
		return
	}
	os.Remove(l.path)
	l.f.Close()
}

// ClaimFolder makes the caller dir's only writer for a command whose
// output folder is marked by the file mark (a validation's summary, say):
// dir must be new, empty, or hold mark from an earlier run of the command;
// anything else is a *RefusedError (the user's files are not ours to
// overwrite). A flock on dir+".lock" refuses a second concurrent writer.
// release gives the folder up.
func ClaimFolder(dir, mark string) (release func(), err error) {
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	lock, err := lockFolder(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	switch {
	case os.IsNotExist(err):
		err = os.Mkdir(dir, 0o755)
	case err == nil && len(entries) > 0:
		if _, statErr := os.Stat(filepath.Join(dir, mark)); statErr != nil {
			err = &RefusedError{dir, fmt.Sprintf("it holds files that streamtwin did not write here (no %s); choose another --out or empty it", mark)}
		}
	}
	if err != nil {
		lock.release()
		return nil, err
	}
	return lock.release, nil
}
