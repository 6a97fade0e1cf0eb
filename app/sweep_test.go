package app

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testSweep writes a small sweep (24 runs of 20 min) and its base scenario.
func testSweep(t *testing.T) (dir, sweepFile string) {
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, "base.yaml"), []byte(`name: base
duration: 20m
workload: {shape: constant, rate: 100000/s}
job: {parallelism: 4, checkpoint: {interval: 30s}}
faults:
  - {at: 10m, before_checkpoint: 3s}
  - random: {mtbf: 20m}
`), 0o644)
	sweepFile = filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweepFile, []byte(`scenario: base.yaml
replications: 2
parameters:
  job.checkpoint.interval: [10s, 30s, 60s]
  workload.rate: {from: 60000/s, to: 120000/s, steps: 2}
  faults[0].at: [8m, 12m]
`), 0o644)
	return dir, sweepFile
}

func TestSweepResumeAfterKill(t *testing.T) {
	dir, sweep := testSweep(t)
	whole := filepath.Join(dir, "whole")
	if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", whole, "--workers", "2"); code != 0 {
		t.Fatal(stderr)
	}
	ref, err := os.ReadFile(filepath.Join(whole, "runs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	// the same sweep, killed with SIGKILL once a few runs are complete
	killed := filepath.Join(dir, "killed")
	cmd := exec.Command(os.Args[0], "sweep", sweep, "--out", killed, "--workers", "1")
	cmd.Env = append(os.Environ(), "STREAMTWIN_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		done, _ := filepath.Glob(filepath.Join(killed, "runs", "*", "params.json"))
		if len(done) >= 3 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	done, _ := filepath.Glob(filepath.Join(killed, "runs", "*", "params.json"))
	if len(done) == 0 || len(done) == 24 {
		t.Skipf("could not kill the sweep midway (%d of 24 runs complete)", len(done))
	}
	// without --resume the folder is protected
	if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", killed); code == 0 || !strings.Contains(stderr, "--resume") {
		t.Errorf("re-running into a used folder: exit %d, %s", code, stderr)
	}
	out, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", killed, "--resume")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(out, "already complete") {
		t.Errorf("resume did not report skipped runs: %s", out)
	}
	got, _ := os.ReadFile(filepath.Join(killed, "runs.parquet"))
	if !bytes.Equal(got, ref) {
		t.Errorf("runs.parquet after kill + resume differs from the uninterrupted sweep")
	}
	// 4 shards, merged, equal the whole sweep too
	var shards []string
	for i := 0; i < 4; i++ {
		s := filepath.Join(dir, "shard"+string(rune('0'+i)))
		if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", s, "--shard", string(rune('0'+i))+"/4"); code != 0 {
			t.Fatal(stderr)
		}
		shards = append(shards, s)
	}
	merged := filepath.Join(dir, "merged")
	if _, stderr, code, _ := runCLI(t, append([]string{"results", "merge", "--out", merged}, shards...)...); code != 0 {
		t.Fatal(stderr)
	}
	got, _ = os.ReadFile(filepath.Join(merged, "runs.parquet"))
	if !bytes.Equal(got, ref) {
		t.Errorf("merged shards differ from the unsharded sweep")
	}
	// statistics over the replications
	stdout, stderr, code, _ := runCLI(t, "results", "summarize", whole, "--by", "job.checkpoint.interval", "--pool", "workload.rate,faults[0].at", "--figure", "recovery_mean_s")
	if code != 0 || strings.Count(stdout, "recovery_mean_s") != 3 {
		t.Errorf("summarize: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestBadSweepFiles(t *testing.T) {
	cases := []struct {
		name, replace, with, want string
	}{
		{"unknown parameter path", "  job.checkpoint.interval:", "  job.checkpoint.intervall:", `sweep.yaml:4: parameters.job.checkpoint.intervall: `},
		{"empty grid", "[10s, 30s, 60s]", "[]", "sweep.yaml:4: parameters.job.checkpoint.interval: the list of values is empty"},
		{"empty range", "steps: 2", "steps: 0", "sweep.yaml:5: parameters.workload.rate: the grid is empty"},
		{"invalid shard", "replications: 2\n", "replications: 2\nshard: 3/2\n", "sweep.yaml:3: shard: shard \"3/2\": i must be in 0..1"},
		{"index out of range", "faults[0].at", "faults[4].at", "sweep.yaml:6: parameters.faults[4].at: "},
		{"unknown key", "replications: 2\n", "replications: 2\nrepetitions: 3\n", `sweep.yaml:3: repetitions: unknown field "repetitions"`},
		{"wrong type", "replications: 2", "replications: many", `sweep.yaml:2: replications: cannot unmarshal string into int`},
		{"syntax", "replications: 2", "replications: [2", `sweep.yaml:3: ',' or ']' must be specified`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, sweep := testSweep(t)
			b, _ := os.ReadFile(sweep)
			os.WriteFile(sweep, []byte(strings.Replace(string(b), c.replace, c.with, 1)), 0o644)
			_, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", filepath.Join(filepath.Dir(sweep), "out"))
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(sweep), "out")); err == nil {
				t.Error("a bad sweep created its output folder")
			}
		})
	}
	_, sweep := testSweep(t)
	if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--shard", "3/2"); code != 2 || !strings.Contains(stderr, "--shard") {
		t.Errorf("--shard 3/2: exit %d %s", code, stderr)
	}
}
