package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/internal/decode"
)

// FuzzLoad feeds arbitrary bytes to the sweep decoder (make fuzz; plain go
// test replays the seeds and testdata/fuzz/). Load takes a path, so each
// input is written as sweeps/fuzz.yaml in a folder that also holds a copy of
// every scenario of scenarios/, which the seeds name as ../NAME.yaml. Its
// errors are decode.Problems, each at a line of the sweep file or (a base
// scenario it refuses) of the file the sweep names; a sweep it
// accepts expands into runs numbered in order, with the parameters it lists,
// random draws within their bounds and the seeds of the replications.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"scenario: ../sweep-base.yaml\nparameters:\n  job.checkpoint.interval: [10s, 30s]\n",
		"scenario: ../sweep-base.yaml\nreplications: 2\nseed: 5\nshard: 1/3\nparameters:\n  workload.rate: {from: 60000/s, to: 140000/s, steps: 3}\n  job.parallelism: 2\n",
		"scenario: ../sweep-base.yaml\nsamples: 3\nparameters:\n  job.latency.base: {random: [10ms, 100ms]}\n  faults[0].at: {random: [1m, 0.5h]}\n",
		"scenario: ../ci-variants.yaml\nvariant: ci10\nparameters:\n  job.parallelism: [2, 4]\n",
		"scenario: ../sweep-base.yaml\nparameters:\n  job.nope: [1]\n",
		"scenario: ../sweep-base.yaml\nparameters:\n  job.parallelism: {from: 1, to: 4, steps: 0}\n",
		"scenario: ../sweep-base.yaml\nparameters:\n  job.latency.base: {random: [10ms, 1/s]}\n",
		"scenario: ../sweep-base.yaml\nparameters: {}\n",
		"scenario: ../sweep-base.yaml\nparameters:\n  job.parallelism: {from: 1, to: 4, steps: 100000000000}\n",
		"scenario: ../sweep-base.yaml\nreplications: 1000000000000\nparameters:\n  job.parallelism: [1, 2]\n",
		"scenario: ../sweep-base.yaml\nsamples: 9000000000000000000\nparameters:\n  job.latency.base: {random: [10ms, 100ms]}\n",
		"scenario: ../missing.yaml\nparameters:\n  job.parallelism: [1]\n",
		"name: x\nduration: 1h\nworkload: {shape: constant, rate: 1/s}\n",
		"scenario: [\n",
		"",
	} {
		f.Add([]byte(s))
	}
	sweeps, _ := filepath.Glob("../../scenarios/sweeps/*.yaml")
	if len(sweeps) == 0 {
		f.Fatal("no sweeps in ../../scenarios/sweeps")
	}
	for _, p := range sweeps {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	dir := f.TempDir()
	scenarios, _ := filepath.Glob("../../scenarios/*.yaml")
	for _, p := range scenarios {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sweeps"), 0o755); err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(dir, "sweeps", "fuzz.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path)
		if err != nil {
			var ps decode.Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error is not a list of problems: %v", err)
			}
			for _, p := range ps {
				if p.File == "" || p.Line < 1 {
					t.Fatalf("problem without a file or a line: %+v", p)
				}
			}
			return
		}
		checkSpec(t, s)
	})
}

func checkSpec(t *testing.T, s *Spec) {
	t.Helper()
	switch {
	case s.Replications < 1:
		t.Fatalf("replications %d", s.Replications)
	case s.Shard.N < 1 || s.Shard.I < 0 || s.Shard.I >= s.Shard.N:
		t.Fatalf("shard %v", s.Shard)
	case len(s.Params) == 0:
		t.Fatal("no parameters")
	case s.Samples < 0:
		t.Fatalf("samples %d", s.Samples)
	}
	total := float64(s.Replications) * float64(max(1, s.Samples))
	for _, p := range s.Params {
		if p.Random == nil {
			total *= float64(len(p.Values))
		}
	}
	if total > maxRuns {
		t.Fatalf("accepted a sweep of %v runs (at most %d)", total, maxRuns)
	}
	want, random := s.Replications, false
	for _, p := range s.Params {
		if p.Random != nil {
			random = true
			continue
		}
		if len(p.Values) == 0 {
			t.Fatalf("parameter %s has no values", p.Path)
		}
		want *= len(p.Values)
		if want > 5000 {
			return // too many runs to expand per input
		}
	}
	if random != (s.Samples > 0) {
		t.Fatalf("random parameters %v, samples %d", random, s.Samples)
	}
	want *= max(1, s.Samples)
	if want > 5000 {
		return
	}
	runs := s.Runs()
	if len(runs) != want {
		t.Fatalf("%d runs, want %d", len(runs), want)
	}
	ids := map[string]bool{}
	for i, r := range runs {
		if r.Index != i || ids[r.ID] || r.Replication < 0 || r.Replication >= s.Replications || r.Seed != s.Seed+uint64(r.Replication) {
			t.Fatalf("run %d: %+v", i, r)
		}
		ids[r.ID] = true
		if len(r.Params) != len(s.Params) {
			t.Fatalf("run %d has %d parameters, want %d", i, len(r.Params), len(s.Params))
		}
		for j, p := range s.Params {
			v := r.Params[j]
			if v.Name != p.Path {
				t.Fatalf("run %d parameter %d is %s, want %s", i, j, v.Name, p.Path)
			}
			if p.Random == nil {
				continue
			}
			lo, hi := min(p.Random[0], p.Random[1]), max(p.Random[0], p.Random[1])
			x, _, err := number(v.Text, "")
			// drawn values are printed to 10 digits
			if err != nil || x < lo-1e-9*max(1, -lo, hi) || x > hi+1e-9*max(1, -lo, hi) {
				t.Fatalf("run %d: %s = %q outside [%v, %v] (%v)", i, p.Path, v.Text, lo, hi, err)
			}
		}
	}
}

// FuzzParseShard: an accepted i/n is 0 ≤ i < n and prints back to itself.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "0/4", "3/4", "4/4", "-1/2", "1/0", "a/b", "1", "", "01/+4", " 1/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			if !strings.Contains(err.Error(), "shard") {
				t.Fatalf("ParseShard(%q): %v", s, err)
			}
			return
		}
		if sh.N < 1 || sh.I < 0 || sh.I >= sh.N {
			t.Fatalf("ParseShard(%q) = %v", s, sh)
		}
		back, err := ParseShard(sh.String())
		if err != nil || back != sh {
			t.Fatalf("ParseShard(%q) = %v, whose String() parses to %v, %v", s, sh, back, err)
		}
	})
}
