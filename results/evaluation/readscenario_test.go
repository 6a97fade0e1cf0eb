package evaluation

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamtwin/streamtwin/internal/decode"
)

// TestReadScenarioProblems: what is wrong with a run's scenario.yaml comes
// back as decode.Problems, file:line: field: message (no go-yaml position or
// source excerpt); a missing or empty file leaves the fields unknown.
func TestReadScenarioProblems(t *testing.T) {
	cases := []struct {
		name, yaml, want string // want "" for no error
	}{
		{"syntax", "job: [\n", ":1: sequence end token ']' not found"},
		{"not a mapping", "- a\n", ":1: sequence was used where mapping is expected"},
		{"job of the wrong type", "name: x\njob: 3\n", ":2: job: int was used where mapping is expected"},
		{"policy of the wrong type", "name: x\npolicy: static\n", ":2: policy: string was used where mapping is expected"},
		{"bad interval", "name: x\njob:\n  checkpoint:\n    interval: 5x\n",
			`:4: job.checkpoint.interval: invalid duration "5x"; write e.g. 30s, 2h or 1d`},
		{"interval a list", "name: x\njob:\n  checkpoint:\n    interval: [1, 2]\n",
			":4: job.checkpoint.interval: expected a single value, got a list"},
		{"bad static interval", "name: x\npolicy:\n  name: static\n  interval: 10x\n",
			`:4: policy.interval: invalid duration "10x"; write e.g. 30s, 2h or 1d`},
		{"empty", "", ""},
		{"comment only", "# nothing\n", ""},
		{"good", "job:\n  checkpoint:\n    interval: 30s\npolicy:\n  name: static\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "scenario.yaml")
			if err := os.WriteFile(path, []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			v := VariantEvaluation{CheckpointIntervalS: math.NaN(), StaticCIS: math.NaN()}
			err := v.readScenario(path)
			if c.want == "" {
				if err != nil {
					t.Fatalf("readScenario: %v", err)
				}
				return
			}
			var ps decode.Problems
			if !errors.As(err, &ps) || err.Error() != path+c.want {
				t.Errorf("readScenario:\n got %v (%T)\nwant %s", err, err, path+c.want)
			}
		})
	}
	v := VariantEvaluation{CheckpointIntervalS: math.NaN(), StaticCIS: math.NaN()}
	if err := v.readScenario(filepath.Join(t.TempDir(), "scenario.yaml")); err != nil || !math.IsNaN(v.CheckpointIntervalS) {
		t.Errorf("no scenario.yaml: %v, CI %v; want no error and the CI unknown", err, v.CheckpointIntervalS)
	}
}
