package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSet: --set overrides a field over the file's and its variants'
// values (commas and all: a flow mapping), and a set the scenario cannot
// take is bad input that names it.
func TestRunSet(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "v.yaml")
	os.WriteFile(file, []byte(goodScenario+"variants:\n  - {name: ci5, job: {checkpoint: {interval: 5s}}}\n"), 0o644)
	out := filepath.Join(dir, "out")
	if _, stderr, code, _ := runCLI(t, "run", file, "--out", out, "--set", "job.checkpoint.interval=20s",
		"--set", "policy={name: static, interval: 20s}"); code != 0 {
		t.Fatal(stderr)
	}
	resolved, err := os.ReadFile(filepath.Join(out, "ci5", "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"interval: 20s\n", "name: static\n"} {
		if !strings.Contains(string(resolved), want) {
			t.Errorf("the resolved scenario lacks %q:\n%s", want, resolved)
		}
	}
	for _, tc := range []struct{ set, want string }{
		{"job.checkpoint.intervall=20s", `job.checkpoint.intervall: unknown field "intervall"; did you mean "interval"?`},
		{"job.checkpoint.interval=-1s", "job.checkpoint.interval: value -1s: must be positive"},
		{"job.parallelism", `"job.parallelism" is not PATH=VALUE`},
	} {
		_, stderr, code, _ := runCLI(t, "run", file, "--out", filepath.Join(dir, "bad"), "--set", tc.set)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("--set %s: exit %d, stderr %q; want 2 and %q", tc.set, code, stderr, tc.want)
		}
	}
}

// TestGymRefuses: the gym command needs one variant of a scenario with
// several, and an interval it can step.
func TestGymRefuses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "v.yaml")
	os.WriteFile(file, []byte(goodScenario+"variants:\n  - {name: ci5, job: {checkpoint: {interval: 5s}}}\n  - {name: ci9, job: {checkpoint: {interval: 9s}}}\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gym", file}, "has 2 variants: give one with --variant"},
		{[]string{"gym", file, "--variant", "ci6"}, `has no variant "ci6"`},
		{[]string{"gym", file, "--variant", "ci5", "--interval", "0s"}, "--interval: \"0s\" is not a step interval"},
	} {
		_, stderr, code, _ := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
