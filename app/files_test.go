package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingFilesNameTheirArgument: a file that is not there is bad input
// (exit 2) naming the argument, flag or field that named it, not a bare
// "open …: no such file or directory".
func TestMissingFilesNameTheirArgument(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte(goodScenario), 0o644)
	trace := filepath.Join(dir, "trace.yaml")
	os.WriteFile(trace, []byte(strings.Replace(goodScenario, "  shape: constant\n  rate: 20000/s\n", "  shape: trace\n  file: traces/nope.csv\n", 1)), 0o644)
	sweepFile := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweepFile, []byte("scenario: nope.yaml\nparameters:\n  job.parallelism: [1, 2]\n"), 0o644)
	nope := filepath.Join(dir, "nope.yaml")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", nope}, "run: scenario file " + nope + ": no such file"},
		{[]string{"scenario", "validate", nope}, "scenario validate: scenario file " + nope + ": no such file"},
		{[]string{"sweep", nope}, "sweep: sweep file " + nope + ": no such file"},
		{[]string{"sweep", sweepFile}, sweepFile + ":1: scenario: file nope.yaml not found: no " + nope + " (paths are relative to the sweep file's folder)"},
		{[]string{"run", trace, "--out", filepath.Join(dir, "out")}, trace + ":5: workload.file: file traces/nope.csv not found: no " + filepath.Join(dir, "traces/nope.csv")},
		{[]string{"calibrate", "--scenario", nope, "--measured", good}, "calibrate: --scenario " + nope + ": no such file"},
		{[]string{"calibrate", "--scenario", good, "--measured", filepath.Join(dir, "m.csv")}, "calibrate: --measured " + filepath.Join(dir, "m.csv") + ": no such file"},
		{[]string{"calibrate", "convert", "--khaos", filepath.Join(dir, "f.txt"), "--out", filepath.Join(dir, "m.csv")}, "calibrate convert: --khaos " + filepath.Join(dir, "f.txt") + ": no such file"},
		{[]string{"profile", good, "--input", filepath.Join(dir, "in.csv")}, "profile: --input " + filepath.Join(dir, "in.csv") + ": no such file"},
		{[]string{"workload", "show", filepath.Join(dir, "t.csv")}, "workload show: trace file " + filepath.Join(dir, "t.csv") + ": no such file"},
	}
	for _, c := range cases {
		_, stderr, code, _ := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "no such file or directory") {
			t.Errorf("%v: exit %d, stderr %q\nwant exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
