package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateBadInput: what is wrong with a dataset folder is the user's
// to fix, exit 2, named by file and line, and nothing is written.
func TestValidateBadInput(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	os.MkdirAll(ds, 0o755)
	os.WriteFile(filepath.Join(ds, "measured.csv"), []byte("throughput,checkpoint_interval_s,recovery_s\n1000,10,20\n"), 0o644)
	scen, _ := filepath.Abs("../scenarios/demo.yaml")
	cases := []struct{ name, protocol, want string }{
		{"unknown parameter", "scenario: " + scen + "\nmeasured: measured.csv\nfit: [cost_scal]\n", `protocol.yaml:3: fit: unknown parameter "cost_scal"`},
		{"holdout value no row has", "scenario: " + scen + "\nmeasured: measured.csv\nfit: [cost_scale]\nholdout: {column: checkpoint_interval_s, values: [\"30\"]}\n",
			"protocol.yaml:4: holdout.values: holdout: no measured point has checkpoint_interval_s 30"},
		{"bad fault", "scenario: " + scen + "\nmeasured: faults.csv\nfit: [cost_scale]\n", "faults.csv:2: fault \"melt\": unknown"},
	}
	os.WriteFile(filepath.Join(ds, "faults.csv"), []byte("throughput,checkpoint_interval_s,recovery_s,fault\n1000,10,20,melt\n"), 0o644)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(ds, "protocol.yaml"), []byte(c.protocol), 0o644)
			out := filepath.Join(dir, "out")
			_, stderr, code, _ := runCLI(t, "validate", ds, "--out", out)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("bad input wrote an output folder")
			}
		})
	}
	if _, stderr, code, _ := runCLI(t, "validate", filepath.Join(dir, "nope")); code != 2 || !strings.Contains(stderr, "is not a dataset folder") {
		t.Errorf("a missing folder: exit %d, %q", code, stderr)
	}
}
