package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarningsOnTheCommandLine: run, scenario validate and sweep print an
// implausible setting as "warning: FILE:LINE: FIELD: why" on stderr, a
// sweep's parameter value at the parameter's line, and still do their
// work with exit 0.
func TestWarningsOnTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte(strings.NewReplacer("    interval: 10s", "    interval: 300ms", "before_checkpoint: 3s", "taskmanager: 1").Replace(goodScenario)+"qos: {recovery: 4m, latency: 1s}\n"), 0o644)
	ciWarning := "warning: " + file + ":9: job.checkpoint.interval: 300ms is below 1s"
	for _, args := range [][]string{{"scenario", "validate", file}, {"run", file, "--out", filepath.Join(dir, "run")}, {"scenario", "print", file}} {
		stdout, stderr, code, _ := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(stderr, ciWarning) || strings.Count(stderr, "warning:") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 0 and %q…", args, code, stderr, ciWarning)
		}
		if strings.Contains(stdout, "warning") {
			t.Errorf("%v: a warning on stdout:\n%s", args, stdout)
		}
	}
	sweep := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweep, []byte("scenario: s.yaml\nreplications: 1\nparameters:\n  job.checkpoint.interval: [500ms, 20s]\n  kafka.partitions: [1, 4]\n"), 0o644)
	_, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", filepath.Join(dir, "sweep"), "--workers", "1")
	for _, w := range []string{
		ciWarning,
		"warning: " + sweep + ":4: parameters.job.checkpoint.interval: value 500ms: 500ms is below 1s",
		"warning: " + sweep + ":5: parameters.kafka.partitions: value 1: 2 source subtasks read 1 Kafka partition (kafka.partitions): 1 of them gets no partition and sits idle",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("sweep: stderr lacks %q:\n%s", w, stderr)
		}
	}
	if code != 0 || strings.Count(stderr, "warning:") != 3 {
		t.Errorf("sweep: exit %d, stderr:\n%s\nwant 0 and 3 warnings", code, stderr)
	}
}
