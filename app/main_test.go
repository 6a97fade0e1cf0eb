package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMain lets tests run the CLI in a child process: with
// STREAMTWIN_MAIN=1 the test binary is the streamtwin command.
func TestMain(m *testing.M) {
	if os.Getenv("STREAMTWIN_MAIN") == "1" {
		os.Args = append([]string{"streamtwin"}, os.Args[1:]...)
		Main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runCLI runs streamtwin with args in a child process and returns its output,
// exit code and peak resident memory (KiB).
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int, maxRSSKiB int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "STREAMTWIN_MAIN=1")
	var o, e limitedBuffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	code = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxRSSKiB = ru.Maxrss
	}
	return o.String(), e.String(), code, maxRSSKiB
}

type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if len(l.b) < 1<<20 {
		l.b = append(l.b, p...)
	}
	return len(p), nil
}
func (l *limitedBuffer) String() string { return string(l.b) }

// TestWeekPeakMemory runs the 7-day benchmark scenario and reports its peak
// memory (make bench). Goal: under 200 MiB.
func TestWeekPeakMemory(t *testing.T) {
	if os.Getenv("STREAMTWIN_BENCH") == "" {
		t.Skip("set STREAMTWIN_BENCH=1 (make bench)")
	}
	out := filepath.Join(t.TempDir(), "week")
	stdout, stderr, code, rss := runCLI(t, "run", "../scenarios/bench-week.yaml", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("%s", stdout)
	t.Logf("peak memory of a 7-day run: %.1f MiB (goal < 200 MiB)", float64(rss)/1024)
	if rss > 200*1024 {
		t.Errorf("peak memory %.1f MiB is above 200 MiB", float64(rss)/1024)
	}
}
