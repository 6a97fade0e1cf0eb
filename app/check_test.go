package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkList writes a list file of demo.yaml and ci-variants.yaml into a
// temp folder, against the references in refDir ("" for the committed
// ones), and returns its path.
func checkList(t *testing.T, refDir string) string {
	t.Helper()
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if refDir == "" {
		refDir = abs(referenceDir)
	}
	list := filepath.Join(t.TempDir(), "check.yaml")
	body := "scenarios:\n"
	for _, name := range []string{"demo", "ci-variants"} {
		body += fmt.Sprintf("  - scenario: %s\n    reference: %s\n", abs(filepath.Join(scenarioDir, name+".yaml")), filepath.Join(refDir, name+".json"))
	}
	if err := os.WriteFile(list, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return list
}

// TestCheck: streamtwin check on the committed references of two scenarios
// exits 0; references written with --update under one constant interval,
// then checked with a much longer one, exit 1 naming the scenarios and the
// figures that got worse.
func TestCheck(t *testing.T) {
	refs := filepath.Join(t.TempDir(), "refs")
	fresh := checkList(t, refs)
	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // all in stdout
		lastLine string   // stdout's last line starts so
		stderr   []string
	}{
		{"unchanged", []string{"check", "--list", checkList(t, "")}, 0,
			[]string{"check: 2 scenarios, 5 runs", "policy: each scenario's and variant's own"},
			"nothing worse beyond tolerance (2 scenarios, 5 runs); no QoS figure changed",
			[]string{"check: [1/2] ", "check: [2/2] ", "0 worse"}},
		{"example list", []string{"check", "--list", "../examples/ci/check.yaml"}, 0,
			[]string{"check: 2 scenarios, 3 runs in ../examples/ci/check.yaml"},
			"nothing worse beyond tolerance (2 scenarios, 3 runs); no QoS figure changed", nil},
		{"update", []string{"check", "--list", fresh, "--update", "--policy", "{name: static, interval: 10s}"}, 0,
			[]string{"wrote " + filepath.Join(refs, "demo.json") + " (1 run)", "wrote " + filepath.Join(refs, "ci-variants.json") + " (4 runs)"},
			"updated 2 references", nil},
		{"same policy", []string{"check", "--list", fresh, "--policy", "{name: static, interval: 10s}"}, 0,
			[]string{"policy under test: {name: static, interval: 10s}"},
			"nothing worse beyond tolerance", nil},
		{"worse policy", []string{"check", "--list", fresh, "--policy", "{name: static, interval: 2m}"}, 1,
			[]string{"RUN", "VERDICT", "demo ", "ci-variants/ci10 ", "recovery_mean_s", "latency_p99_ms", "worse", "better"},
			"worse: 5 runs of 2 scenarios: demo (recovery_mean_s +",
			[]string{"streamtwin: 2 of 2 scenarios got worse beyond tolerance: demo, ci-variants"}},
	}
	for _, c := range cases { // in order: update before the checks against it
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, _ := runCLI(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout, stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, c.lastLine) {
				t.Errorf("last line %q, want it to start %q", last, c.lastLine)
			}
			for _, w := range c.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestCheckBadInput: what check refuses exits 2 with a message that says
// what to fix.
func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	badList := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badList, []byte("scenarios:\n  - {scenario: nope.yaml, reference: refs/nope.json}\n"), 0o644)
	missingRef := filepath.Join(dir, "missing-ref.yaml")
	demo, _ := filepath.Abs(filepath.Join(scenarioDir, "demo.yaml"))
	os.WriteFile(missingRef, []byte("scenarios:\n  - {scenario: "+demo+", reference: refs/demo.json}\n"), 0o644)
	good := checkList(t, "")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"no list file", []string{"check", "--list", filepath.Join(dir, "none.yaml")}, []string{"--list", "none.yaml: no such file"}},
		{"scenario not found", []string{"check", "--list", badList}, []string{"bad.yaml:2: scenarios[0].scenario:", "nope.yaml not found"}},
		{"reference not written", []string{"check", "--list", missingRef}, []string{"missing-ref.yaml:2: scenarios[0].reference:", "not found", "--update"}},
		{"policy not a section", []string{"check", "--list", good, "--policy", "static"}, []string{"--policy:", "{name: static, interval: 30s}"}},
		{"unknown policy", []string{"check", "--list", good, "--policy", "{name: nope}"}, []string{"--policy:", `unknown policy "nope"`}},
		{"empty policy", []string{"check", "--list", good, "--policy", ""}, []string{"--policy is empty"}},
		{"argument", []string{"check", "scenarios/demo.yaml"}, []string{"check takes no arguments", "--list"}},
		{"unknown flag", []string{"check", "--lst", good}, []string{"streamtwin check: unknown flag --lst; did you mean --list?"}},
		{"update of streamtwin's references with another policy", []string{"check", "--update", "--policy", "{name: static, interval: 10s}"}, []string{"would rewrite streamtwin's own references", "--list"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, _ := runCLI(t, c.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "refs")); err == nil {
		t.Error("bad input wrote references")
	}
}
