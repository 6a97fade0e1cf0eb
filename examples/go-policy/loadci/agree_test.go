package loadci_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/streamtwin/streamtwin/examples/go-policy/loadci"
	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
)

func init() { loadci.Register() }

const externalScenario = "../../../scenarios/external-policy.yaml"

// TestGoAndPythonAgree runs scenarios/external-policy.yaml as it is (the
// Python rule, over the protocol) and with the Go rule in process: the two
// runs write byte-identical timeseries and events.
func TestGoAndPythonAgree(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed for the Python policy:", err)
	}
	data, err := os.ReadFile(externalScenario)
	if err != nil {
		t.Fatal(err)
	}
	python, err := scenario.ParseRun(externalScenario, data, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	goRule, err := scenario.ParseRun(externalScenario, data, "", []scenario.Set{{Path: "policy",
		Value: "{name: load-ci, high_rate: 100000, low_rate: 40000, short_ci: 10s, long_ci: 60s, average: 60s}"}})
	if err != nil {
		t.Fatal(err)
	}
	if python.Policy.Name != scenario.ExternalPolicy || goRule.Policy.Name != loadci.Name {
		t.Fatalf("policies %q and %q; want external and load-ci", python.Policy.Name, goRule.Policy.Name)
	}
	dirs := map[string]string{}
	for name, sc := range map[string]scenario.Scenario{"python": python, "go": goRule} {
		dirs[name] = filepath.Join(t.TempDir(), name)
		if _, err := run.ToDir(context.Background(), twin.Backend{}, sc, dirs[name], run.Output{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, f := range []string{"timeseries.parquet", "events.parquet"} {
		a, errA := os.ReadFile(filepath.Join(dirs["python"], f))
		b, errB := os.ReadFile(filepath.Join(dirs["go"], f))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the Python and the Go rule", f)
		}
	}
	events, _ := os.ReadFile(filepath.Join(dirs["go"], "events.parquet"))
	if !bytes.Contains(events, []byte("load-ci: mean input")) {
		t.Error("the rule took no decision: the comparison proves nothing")
	}
}
