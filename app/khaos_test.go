package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// TestKhaosYSBEvaluation is the paper's YSB evaluation end to end through
// the CLI: profile (8 copies × 24 h), then the day with 12 kills for Khaos,
// the static CIs and the analytic baselines. Khaos must have fewer recovery
// violations (R = 240 s) than static 60, 90 and 120 s and a lower mean
// latency than static 10 s, as the paper found; the whole pipeline must
// take under a minute.
func TestKhaosYSBEvaluation(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	stdout, stderr, code, _ := runCLI(t, "profile", "../scenarios/khaos-ysb.yaml", "--out", filepath.Join(dir, "profile"))
	if code != 0 {
		t.Fatalf("profile: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Log(stdout)
	stdout, stderr, code, _ = runCLI(t, "run", "../scenarios/khaos-ysb.yaml", "--out", dir)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	wall := time.Since(start)
	if !strings.Contains(stderr, "using the profile in") {
		t.Errorf("run did not reuse the profile written by `profile`: %s", stderr)
	}
	if wall > time.Minute {
		t.Errorf("profiling + evaluation took %v, the goal is under a minute", wall)
	}
	t.Logf("profiling + 8 variants × 24 h: %.1f s wall", wall.Seconds())
	sum := map[string]results.Summary{}
	for _, v := range []string{"khaos", "ci10", "ci30", "ci60", "ci90", "ci120", "young", "daly"} {
		s, err := results.ReadSummary(filepath.Join(dir, v))
		if err != nil {
			t.Fatal(err)
		}
		sum[v] = s
		t.Logf("%-6s recovery > 240 s: %d, median %.0f s; latency-marker mean %.0f ms; reconfigurations %d; mean CI %.1f s",
			v, s.QoS.RecoveryViolations, s.RecoveryMedianS, s.LatencyMarkerMeanMs, s.Reconfigurations, s.CheckpointIntervalMeanS)
	}
	k := sum["khaos"]
	for _, v := range []string{"ci60", "ci90", "ci120"} {
		if k.QoS.RecoveryViolations >= sum[v].QoS.RecoveryViolations {
			t.Errorf("khaos has %d recovery violations, static %s %d: want fewer", k.QoS.RecoveryViolations, v, sum[v].QoS.RecoveryViolations)
		}
	}
	if k.LatencyMarkerMeanMs >= sum["ci10"].LatencyMarkerMeanMs {
		t.Errorf("khaos mean latency %.1f ms, static 10 s %.1f ms: want lower", k.LatencyMarkerMeanMs, sum["ci10"].LatencyMarkerMeanMs)
	}
	if k.Reconfigurations == 0 {
		t.Error("khaos never moved the CI from 119 s")
	}
	// The run folder replays on its own: the models are inlined.
	resolved, err := os.ReadFile(filepath.Join(dir, "khaos", results.ScenarioFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resolved), "models:") {
		t.Error("the khaos run's scenario.yaml does not carry the models")
	}
}

// TestKhaosProfileIsRedoneWhenStale: a profile of another job is not used.
func TestKhaosProfileIsRedoneWhenStale(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code, _ := runCLI(t, "profile", "../scenarios/khaos-iot.yaml", "--out", filepath.Join(dir, "profile"), "--copies", "3"); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code, _ := runCLI(t, "run", "../scenarios/khaos-ysb.yaml", "--variant", "khaos", "--out", dir)
	if code != 0 || !strings.Contains(stderr, "profiled on another job or input; profiling again") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestKhaosScenariosStayInStep: khaos-ysb.yaml runs the calibrated job,
// and khaos-iot.yaml's kills are phase 1's points for its day and seed.
func TestKhaosScenariosStayInStep(t *testing.T) {
	load := func(path string) scenario.Scenario {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenario.ParseRun(path, data, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	ysb, cal := load("../scenarios/khaos-ysb.yaml"), load("../scenarios/khaos-ysb-calibrated.yaml")
	a, _ := json.Marshal(ysb.Job)
	b, _ := json.Marshal(cal.Job)
	if string(a) != string(b) {
		t.Errorf("scenarios/khaos-ysb.yaml's job differs from khaos-ysb-calibrated.yaml's: copy the calibrated values over\n%s\n%s", a, b)
	}
	if len(ysb.Faults) != len(cal.Faults) {
		t.Errorf("khaos-ysb.yaml has %d faults, the calibrated scenario %d", len(ysb.Faults), len(cal.Faults))
	}
	iot := load("../scenarios/khaos-iot.yaml")
	sched, err := iot.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pts, err := khaos.SteadyState(sched.Rates.Rates, khaos.SteadyConfig{}, sim.Seeds{Root: iot.Seed}.Stream("khaos.steady-state"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != len(iot.Faults) {
		t.Fatalf("phase 1 gives %d points, khaos-iot.yaml has %d faults", len(pts), len(iot.Faults))
	}
	for i, p := range pts {
		if f := iot.Faults[i]; f.At == nil || float64(*f.At) != float64(p.Second) {
			t.Errorf("fault %d at %v, phase 1 point at %d s: regenerate with streamtwin profile scenarios/khaos-iot.yaml", i, f.At, p.Second)
		}
	}
}

func TestProfileBadInput(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"profile", "../scenarios/khaos-ysb.yaml", "--copies", "1"}, "--copies must be at least 2"},
		{[]string{"profile", "../scenarios/khaos-ysb.yaml", "--min-ci", "2m"}, "--max-ci (120s) must be above --min-ci"},
		{[]string{"profile", "../scenarios/khaos-ysb.yaml", "--points", "10,x"}, `--points: "x"`},
		{[]string{"profile", "../scenarios/khaos-ysb.yaml", "--variant", "nope"}, `no variant "nope"`},
	}
	for _, c := range cases {
		_, stderr, code, _ := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", c.args, code, stderr, c.msg)
		}
	}
}
