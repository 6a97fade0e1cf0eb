package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/streamtwin/streamtwin/live"
)

//go:embed maven/flink/pom.xml maven/kafka/pom.xml maven/flink-prometheus/pom.xml
var poms embed.FS

// Jars are resolved classpaths: folders of jars, used as "<dir>/*".
type Jars struct {
	Versions live.Versions
	FlinkLib string // <cache>/<FLINK_VERSION>/flink-lib
	KafkaLib string // <cache>/<KAFKA_VERSION>/kafka-lib
	// FlinkPrometheusLib holds Flink's Prometheus reporter,
	// <cache>/<FLINK_VERSION>/flink-prometheus-lib; "" unless resolved for
	// live up --prometheus.
	FlinkPrometheusLib string
}

// FlinkClasspath is the -cp of the JobManager and TaskManagers.
func (j Jars) FlinkClasspath() string { return filepath.Join(j.FlinkLib, "*") }

// KafkaClasspath is the -cp of the broker and StorageTool.
func (j Jars) KafkaClasspath() string { return filepath.Join(j.KafkaLib, "*") }

// CacheEnv overrides the jar cache folder.
const CacheEnv = "STREAMTWIN_LIVE_CACHE"

// DefaultCacheDir is $STREAMTWIN_LIVE_CACHE, else ~/.cache/streamtwin/live
// (the user cache dir: $XDG_CACHE_HOME if set).
func DefaultCacheDir() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return filepath.Abs(d)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(base, "streamtwin", "live"), nil
}

// component is one Maven-resolved lib folder.
type component struct {
	name    string // "flink" or "kafka"
	version string // folder name under the cache
	pom     string // path in poms
	props   map[string]string
	// prometheus: resolved only for a cluster with Prometheus
	prometheus bool
}

func components(v live.Versions) []component {
	return []component{
		{"flink", v.Flink, "maven/flink/pom.xml", map[string]string{
			"flink.version": v.Flink, "log4j.version": v.FlinkLog4j,
			"maven-dependency-plugin.version": v.MavenDependency,
		}, false},
		{"kafka", v.Kafka, "maven/kafka/pom.xml", map[string]string{
			"kafka.version": v.Kafka, "log4j.version": v.KafkaLog4j,
			"maven-dependency-plugin.version": v.MavenDependency,
		}, false},
		{"flink-prometheus", v.Flink, "maven/flink-prometheus/pom.xml", map[string]string{
			"flink.version": v.Flink, "maven-dependency-plugin.version": v.MavenDependency,
		}, true},
	}
}

// stampName marks a complete lib folder: the hash of the pom and its
// properties, and the size of every jar copied.
const stampName = ".streamtwin-complete.json"

type stamp struct {
	Hash  string           `json:"hash"`
	Files map[string]int64 `json:"files"`
}

func (c component) hash(pom []byte) string {
	h := sha256.New()
	h.Write(pom)
	keys := make([]string, 0, len(c.props))
	for k := range c.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "\n%s=%s", k, c.props[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Resolve makes sure the Flink and Kafka lib folders under cacheDir ("" =
// DefaultCacheDir) are complete, running Maven only for a missing or
// incomplete one. Maven uses its usual local repository (~/.m2; MAVEN_OPTS
// and ~/.m2/settings.xml apply). Concurrent callers serialise on a lock file.
func Resolve(ctx context.Context, cacheDir string) (Jars, error) {
	return resolve(ctx, cacheDir, live.Pinned(), false, func(string, ...any) {})
}

func resolve(ctx context.Context, cacheDir string, v live.Versions, prometheus bool, logf func(string, ...any)) (Jars, error) {
	if cacheDir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return Jars{}, err
		}
		cacheDir = d
	}
	cacheDir, err := filepath.Abs(cacheDir)
	if err != nil {
		return Jars{}, err
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return Jars{}, err
	}
	unlock, err := lockFile(ctx, filepath.Join(cacheDir, ".lock"))
	if err != nil {
		return Jars{}, err
	}
	defer unlock()

	jars := Jars{Versions: v}
	for _, c := range components(v) {
		if c.prometheus && !prometheus {
			continue
		}
		lib := filepath.Join(cacheDir, c.version, c.name+"-lib")
		pom, err := poms.ReadFile(c.pom)
		if err != nil {
			return Jars{}, err
		}
		if !complete(lib, c.hash(pom)) {
			start := time.Now()
			logf("resolving %s %s jars with Maven into %s", c.name, c.version, lib)
			if err := mavenCopy(ctx, c, pom, lib); err != nil {
				return Jars{}, err
			}
			logf("resolved %s %s in %.1fs", c.name, c.version, time.Since(start).Seconds())
		}
		switch c.name {
		case "flink":
			jars.FlinkLib = lib
		case "kafka":
			jars.KafkaLib = lib
		case "flink-prometheus":
			jars.FlinkPrometheusLib = lib
		}
	}
	return jars, nil
}

// complete tells whether lib has a stamp with this hash and every jar the
// stamp lists, with its size.
func complete(lib, hash string) bool {
	b, err := os.ReadFile(filepath.Join(lib, stampName))
	if err != nil {
		return false
	}
	var s stamp
	if json.Unmarshal(b, &s) != nil || s.Hash != hash || len(s.Files) == 0 {
		return false
	}
	for name, size := range s.Files {
		fi, err := os.Stat(filepath.Join(lib, name))
		if err != nil || fi.Size() != size {
			return false
		}
	}
	return true
}

// mavenCopy runs copy-dependencies into a fresh folder next to lib and
// swaps it in, so lib is either absent, old or complete.
func mavenCopy(ctx context.Context, c component, pom []byte, lib string) error {
	mvn, err := checkMaven()
	if err != nil {
		return err
	}
	parent := filepath.Dir(lib)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(parent, "."+c.name+"-resolve-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	pomPath := filepath.Join(work, "pom.xml")
	if err := os.WriteFile(pomPath, pom, 0o644); err != nil {
		return err
	}
	out := filepath.Join(work, "lib")
	args := []string{"-q", "-B", "-f", pomPath, "dependency:copy-dependencies",
		"-DincludeScope=runtime", "-DoutputDirectory=" + out}
	keys := make([]string, 0, len(c.props))
	for k := range c.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-D"+k+"="+c.props[k])
	}
	cmd := exec.CommandContext(ctx, mvn, args...)
	cmd.Dir = work
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("resolving %s jars: %w", c.name, ctx.Err())
		}
		return fmt.Errorf("resolving %s jars: mvn %s: %v\n%s", c.name, strings.Join(args, " "), err, tail(buf.String(), 30))
	}
	st := stamp{Hash: c.hash(pom), Files: map[string]int64{}}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("resolving %s jars: maven wrote nothing: %w", c.name, err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jar") {
			fi, err := e.Info()
			if err != nil {
				return err
			}
			st.Files[e.Name()] = fi.Size()
		}
	}
	if len(st.Files) == 0 {
		return fmt.Errorf("resolving %s jars: maven copied no jar into %s", c.name, out)
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	if err := os.WriteFile(filepath.Join(out, stampName), b, 0o644); err != nil {
		return err
	}
	old := lib + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(lib, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(out, lib); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

// lockFile takes an exclusive flock, polling so that ctx can cancel.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for %s (another resolve running?): %w", path, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
