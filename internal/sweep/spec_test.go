package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodBase = `name: b
duration: 1h
workload: {shape: constant, rate: 1000/s}
job:
  parallelism: 2
  checkpoint:
    interval: 30s
`

const variants = "variants:\n  - {name: a}\n  - {name: b, job: {parallelism: 4}}\n"

// TestVariantParameter: a sweep over variants runs each of them, with the
// other parameters on top, replications fastest.
func TestVariantParameter(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(goodBase+variants), 0o644)
	path := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(path, []byte("scenario: base.yaml\nreplications: 2\nparameters:\n  variant: [a, b]\n  job.checkpoint.interval: [10s]\n"), 0o644)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Runs() {
		sc, err := s.RunScenario(r)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s p%d ci%g seed%d", r.Params[0].Text, sc.Job.Parallelism, float64(sc.Job.Checkpoint.Interval), sc.Seed))
	}
	want := "[a p2 ci10 seed1 a p2 ci10 seed2 b p4 ci10 seed1 b p4 ci10 seed2]"
	if fmt.Sprint(got) != want {
		t.Errorf("runs %v\nwant %s", got, want)
	}
}

// TestJSONSweep: a sweep and its scenario written as JSON (which is YAML,
// every key quoted, as the Python API writes a dict) run as the same files
// in block style do: a quoted key is its value, not its source text.
func TestJSONSweep(t *testing.T) {
	dir := t.TempDir()
	base := `{"name": "b", "duration": "1h", "workload": {"shape": "constant", "rate": "1000/s"},
 "job": {"parallelism": 2, "checkpoint": {"interval": "30s"}},
 "variants": [{"name": "a"}, {"name": "b", "job": {"parallelism": 4}}]}`
	os.WriteFile(filepath.Join(dir, "base.json.yaml"), []byte(base), 0o644)
	path := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(path, []byte(`{"scenario": "base.json.yaml", "replications": 1, "parameters": {"variant": ["a", "b"], "job.checkpoint.interval": ["10s"]}}`), 0o644)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Runs() {
		sc, err := s.RunScenario(r)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s p%d ci%g", r.Params[0].Text, sc.Job.Parallelism, float64(sc.Job.Checkpoint.Interval)))
	}
	if want := "a p2 ci10 b p4 ci10"; strings.Join(got, " ") != want {
		t.Errorf("runs %q, want %q", strings.Join(got, " "), want)
	}
}

// TestLoadProblems: what is wrong in a sweep, in its base scenario or in
// what a parameter sets is named by file, line and field, with the nearest
// field for a typo and no leftovers of how values are tried (v:, line 1 of
// a scratch document).
func TestLoadProblems(t *testing.T) {
	cases := []struct {
		name, sweep, base string
		want              string
	}{
		{"typo in the base", "scenario: base.yaml\nparameters:\n  job.parallelism: [1, 2]\n",
			strings.Replace(goodBase, "interval:", "intervall:", 1),
			`base.yaml:7: job.checkpoint.intervall: unknown field "intervall"; did you mean "interval"?`},
		{"problem in the base", "scenario: base.yaml\nparameters:\n  job.parallelism: [1, 2]\n",
			strings.Replace(goodBase, "interval: 30s", "interval: 0s", 1),
			"base.yaml:7: job.checkpoint.interval: must be positive"},
		{"typo in a parameter path", "scenario: base.yaml\nparameters:\n  job.checkpoint.intreval: [10s, 20s]\n", goodBase,
			`sweep.yaml:3: parameters.job.checkpoint.intreval: unknown field "intreval"; did you mean "interval"? (known: `},
		{"typo in a new part of the path", "scenario: base.yaml\nparameters:\n  job.restart.dealy: [1s]\n", goodBase,
			`sweep.yaml:3: parameters.job.restart.dealy: unknown field "dealy"; did you mean "delay"?`},
		{"bad parameter value", "scenario: base.yaml\nparameters:\n  job.parallelism: [2, 0]\n", goodBase,
			"sweep.yaml:3: parameters.job.parallelism: value 0: must be at least 1, got 0"},
		{"value without unit", "scenario: base.yaml\nparameters:\n\n  job.checkpoint.interval: [10]\n", goodBase,
			`sweep.yaml:4: parameters.job.checkpoint.interval: value 10: duration "10" has no unit`},
		{"typo in the sweep", "scenario: base.yaml\nreplicatons: 3\nparameters:\n  job.parallelism: [1]\n", goodBase,
			`sweep.yaml:2: replicatons: unknown field "replicatons"; did you mean "replications"?`},
		{"typo in a grid", "scenario: base.yaml\nparameters:\n  job.parallelism: {from: 1, to: 4, stpes: 4}\n", goodBase,
			`sweep.yaml:3: parameters.job.parallelism: a parameter is a list [a, b, …], a grid {from, to, steps} or {random: [lo, hi]}: unknown field "stpes"; did you mean "steps"?`},
		{"unknown variant", "scenario: base.yaml\nparameters:\n  variant: [a, c]\n", goodBase + variants,
			`sweep.yaml:3: parameters.variant: DIR/base.yaml has no variant "c" (variants: [a b])`},
		{"variant twice", "scenario: base.yaml\nvariant: a\nparameters:\n  variant: [a, b]\n", goodBase + variants,
			"sweep.yaml:4: parameters.variant: the sweep already fixes variant: a; drop one of the two"},
		{"missing base", "scenario: nope.yaml\nparameters:\n  job.parallelism: [1]\n", goodBase,
			"sweep.yaml:1: scenario: file nope.yaml not found: no DIR/nope.yaml (paths are relative to the sweep file's folder)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(c.base), 0o644)
			path := filepath.Join(dir, "sweep.yaml")
			os.WriteFile(path, []byte(c.sweep), 0o644)
			_, err := Load(path)
			want := strings.ReplaceAll(c.want, "DIR/", dir+"/")
			want = strings.ReplaceAll(want, "base.yaml:", filepath.Join(dir, "base.yaml")+":")
			want = strings.ReplaceAll(want, "sweep.yaml:", path+":")
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %v\nwant %s…", err, want)
			}
			for _, leftover := range []string{" v:", ".yaml:1: v"} {
				if strings.Contains(err.Error(), leftover) {
					t.Errorf("error %q has %q", err, leftover)
				}
			}
		})
	}
}
