package calibrate

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

func names(ps []Param) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// TestWithDefaults: what a Go caller leaving Options zero gets is what
// `streamtwin calibrate` runs with; set fields stay.
func TestWithDefaults(t *testing.T) {
	noLatency := []Point{{Throughput: 1, CheckpointIntervalS: 10, LatencyMs: math.NaN()}}
	withLatency := append(slices.Clone(noLatency), Point{Throughput: 2, CheckpointIntervalS: 20, LatencyMs: 80})
	recoveryFit := []string{"cost_scale", "restart_delay", "warmup"}
	allFit := append(slices.Clone(recoveryFit), "cpu_overhead", "queueing", "latency_base")
	cases := []struct {
		name    string
		in      Options
		pts     []Point
		fit     []string
		maxEval int
	}{
		{"recovery only", Options{}, noLatency, recoveryFit, 450},
		{"latency measured", Options{}, withLatency, allFit, 900},
		{"fit given", Options{Fit: params(t, "warmup")}, withLatency, []string{"warmup"}, 150},
		{"bound given", Options{MaxEvaluations: 7}, noLatency, recoveryFit, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.in.WithDefaults(c.pts)
			if got := names(o.Fit); !slices.Equal(got, c.fit) {
				t.Errorf("fit %v, want %v", got, c.fit)
			}
			if o.MaxEvaluations != c.maxEval {
				t.Errorf("max evaluations %d, want %d", o.MaxEvaluations, c.maxEval)
			}
			if o.BeforeCheckpoint != 3 || o.Settle != 400 || o.Horizon != 1800 || o.Window != 300 ||
				o.Latency != "marker" || o.LatencyWeight != 1 || o.Replications != 1 || o.Workers != runtime.GOMAXPROCS(0) {
				t.Errorf("defaults %+v", o)
			}
			if again := o.WithDefaults(c.pts); !slices.Equal(names(again.Fit), names(o.Fit)) || again.MaxEvaluations != o.MaxEvaluations {
				t.Error("WithDefaults is not idempotent")
			}
		})
	}
	if !slices.Equal(DefaultFitFor(noLatency), DefaultFit) || HasLatency(noLatency) || !HasLatency(withLatency) {
		t.Errorf("DefaultFitFor %v, HasLatency %v/%v", DefaultFitFor(noLatency), HasLatency(noLatency), HasLatency(withLatency))
	}
	if _, err := LookupParams(append(slices.Clone(DefaultFit), DefaultLatencyFit...)); err != nil {
		t.Errorf("a default parameter is unknown: %v", err)
	}
}

func TestHoldoutIntervals(t *testing.T) {
	pts := []Point{{CheckpointIntervalS: 10}, {CheckpointIntervalS: 60}, {CheckpointIntervalS: 60.0000001}, {CheckpointIntervalS: 120}}
	cases := []struct {
		list string
		held []bool // per point
		err  string
	}{
		{"60s", []bool{false, true, true, false}, ""},
		{"10s, 2m", []bool{true, false, false, true}, ""},
		{"60s,90s", nil, "--holdout: no measured point has a checkpoint interval of 1m30s"},
		{"60s,x", nil, `--holdout: "x" is not a checkpoint interval such as 60s`},
		{"0s", nil, `--holdout: "0s" is not a checkpoint interval such as 60s`},
		{"90s,x", nil, "--holdout: no measured point has a checkpoint interval of 1m30s"}, // the first problem
	}
	for _, c := range cases {
		t.Run(c.list, func(t *testing.T) {
			held, err := HoldoutIntervals(c.list, pts)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range pts {
				if held(p) != c.held[i] {
					t.Errorf("point at CI %v s held out %v, want %v", p.CheckpointIntervalS, held(p), c.held[i])
				}
			}
			o := Options{Holdout: held}
			if n := len(o.Fitted(pts)); n != len(pts)-countTrue(c.held) {
				t.Errorf("%d points fitted, want %d", n, len(pts)-countTrue(c.held))
			}
		})
	}
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// TestSeriesPoint: a fault in a measured series becomes a point with the
// recovery the simulator's rule detects and the load before it.
func TestSeriesPoint(t *testing.T) {
	// 1000 records/s, lag 0; the fault at 400 s stops the job for 20 s, the
	// backlog drains at 2000 records/s until 440 s
	var samples []results.Sample
	for s := 1; s <= 900; s++ {
		x := results.Sample{TimeS: float64(s), InputRate: 1000, Throughput: 1000, LatencyMarkerP99Ms: 20, LatencyP99Ms: 50, LatencyMeanMs: 40, LatencyP50Ms: 30}
		switch {
		case s > 400 && s <= 420:
			x.Throughput, x.Lag = 0, float64(s-400)*1000
		case s > 420 && s <= 440:
			x.Throughput, x.Lag = 2000, float64(440-s)*1000
		}
		samples = append(samples, x)
	}
	p, err := Series{Name: "m.csv", Samples: samples, CI: 30, Label: "run1"}.Point(sim.Duration(400))
	if err != nil {
		t.Fatal(err)
	}
	if p.Label != "run1" || p.CheckpointIntervalS != 30 || p.FaultAtS != 400 || math.Abs(p.Throughput-1000) > 1e-9 {
		t.Errorf("point %+v", p)
	}
	if p.RecoveryS < 20 || p.RecoveryS > 60 {
		t.Errorf("recovery %v s, want the 20 s outage plus the catch-up", p.RecoveryS)
	}
	for kind, want := range map[string]float64{"": 20, "marker": 20, "p99": 50, "p50": 30, "mean": 40} {
		p, err := Series{Name: "m.csv", Samples: samples, CI: 30, Latency: kind}.Point(400)
		if err != nil || p.LatencyMs != want {
			t.Errorf("latency %q: %v ms (%v), want %v ms", kind, p.LatencyMs, err, want)
		}
	}
	cases := []struct {
		name    string
		samples []results.Sample
		at      sim.Duration
		err     string
	}{
		{"not recovered", samples[:430], 400, "m.csv: the fault at 6m40s has not recovered by the end of the series; cut it off or measure longer"},
		{"fault after the series", samples[:300], 400, "m.csv, fault at 6m40s: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Series{Name: "m.csv", Samples: c.samples, CI: 30, Label: ""}.Point(c.at)
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("error %v, want %q…", err, c.err)
			}
		})
	}
}

// TestSeriesPoints: the second fault's baseline starts where the first
// recovery ended, so neither the first outage nor its catch-up enters it.
// 1000 records/s at 50 ms; each fault stops the job for 20 s, the backlog of
// 20,000 records drains at 2000 records/s in 20 s at 5000 ms: recovery 40 s
// (the hold of 15 normal samples starts right after). The first fault at
// 400 s recovers at 440 s; the second, at 520 s, averages (440, 520]:
// 1000 records/s at 50 ms, where Khaos's 300 s window averages the first
// catch-up's 20 s at 5000 ms into the latency before the fault.
func TestSeriesPoints(t *testing.T) {
	var samples []results.Sample
	for s := 1; s <= 900; s++ {
		x := results.Sample{TimeS: float64(s), InputRate: 1000, Throughput: 1000, LatencyMarkerP99Ms: 50}
		for _, f := range []int{400, 520} {
			switch {
			case s > f && s <= f+20:
				x.Throughput, x.Lag = 0, float64(s-f)*1000
			case s > f+20 && s <= f+40:
				x.Throughput, x.Lag = 2000, float64(f+40-s)*1000
				x.LatencyMarkerP99Ms = 5000
			}
		}
		samples = append(samples, x)
	}
	pts, err := Series{Name: "m.csv", Samples: samples, CI: 30, Label: "run"}.Points([]sim.Duration{520, 400})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || pts[0].FaultAtS != 400 || pts[1].FaultAtS != 520 {
		t.Fatalf("points %+v", pts)
	}
	for _, p := range pts {
		if p.RecoveryS != 40 || p.Throughput != 1000 || p.LatencyMs != 50 {
			t.Errorf("fault at %v s: recovery %v s, throughput %v/s, latency %v ms; want 40 s, 1000/s, 50 ms", p.FaultAtS, p.RecoveryS, p.Throughput, p.LatencyMs)
		}
	}
	// The same second fault with Khaos's 300 s window sees the first outage.
	p, err := Series{Name: "m.csv", Samples: samples, CI: 30, Label: "run"}.Point(520)
	if err != nil {
		t.Fatal(err)
	}
	// (220, 520]: 280 samples at 50 ms and 20 at 5000 ms.
	if want := (280*50.0 + 20*5000) / 300; math.Abs(p.LatencyMs-want) > 1e-9 {
		t.Errorf("300 s window: latency %v ms, want %v", p.LatencyMs, want)
	}
	if _, err := (Series{Name: "m.csv", Samples: samples, CI: 30, Label: ""}).Points([]sim.Duration{400, 445}); err == nil || !strings.Contains(err.Error(), "leaves 5 s after the recovery from the fault at 6m40s") {
		t.Errorf("faults too close: %v", err)
	}
	// A step of the input from 1000/s to 2000/s at 300 s: the fault at 350 s
	// averages (300, 350] only, 2000/s; one at 305 s has no steady baseline.
	var step []results.Sample
	for s := 1; s <= 600; s++ {
		in := 1000.0
		if s > 300 {
			in = 2000
		}
		x := results.Sample{TimeS: float64(s), InputRate: in, Throughput: in, LatencyMarkerP99Ms: 50}
		if s > 350 && s <= 360 {
			x.Throughput, x.Lag = 0, float64(s-350)*2000
		}
		step = append(step, x)
	}
	pts, err = Series{Name: "m.csv", Samples: step, CI: 30, Label: ""}.Points([]sim.Duration{350})
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].Throughput != 2000 {
		t.Errorf("after a step to 2000/s: throughput %v/s, want 2000", pts[0].Throughput)
	}
	if _, err := (Series{Name: "m.csv", Samples: step, CI: 30, Label: ""}).Points([]sim.Duration{305}); err == nil || !strings.Contains(err.Error(), "5 s after the input rate changed") {
		t.Errorf("fault right after a step: %v", err)
	}
	// A reconfiguration the fault list does not name (marked recovering by
	// the series, stopped at 400–405 s, catching up at 3000/s until the
	// sample ending at 410 s): the fault at 450 s averages the samples
	// ending at 411–450 s, 1000/s, not the one in which the catch-up ended. Without the marks
	// the window reaches back over it.
	var reconf []results.Sample
	for s := 1; s <= 600; s++ {
		x := results.Sample{TimeS: float64(s), InputRate: 1000, Throughput: 1000, LatencyMarkerP99Ms: 50, JobState: "RUNNING"}
		switch {
		case s > 400 && s <= 405:
			x.Throughput, x.Lag, x.JobState, x.Recovering = 0, float64(s-400)*1000, "STOPPED", true
		case s > 405 && s <= 409:
			x.Throughput, x.Lag, x.Recovering = 2250, float64(409-s)*1250, true
		case s == 410:
			x.Throughput = 2000 // the catch-up's last records, the lag already 0
		case s > 450 && s <= 460:
			x.Throughput, x.Lag = 0, float64(s-450)*1000
		}
		reconf = append(reconf, x)
	}
	pts, err = Series{Name: "m.csv", Samples: reconf, CI: 30}.Points([]sim.Duration{450})
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].Throughput != 1000 {
		t.Errorf("after an unlisted reconfiguration: throughput %v/s, want 1000", pts[0].Throughput)
	}
	for i := range reconf {
		reconf[i].Recovering, reconf[i].JobState = false, ""
	}
	if pts, err = (Series{Name: "m.csv", Samples: reconf, CI: 30}).Points([]sim.Duration{450}); err != nil || pts[0].Throughput == 1000 {
		t.Errorf("without the marks: throughput %v/s (%v), want the reconfiguration averaged in", pts[0].Throughput, err)
	}
}

// TestWriteScenario: the calibrated scenario is the base file with the
// fitted values and name patched in, under a header that names its inputs.
func TestWriteScenario(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "syn-base.yaml")
	src := []byte("# the base\n" + synthetic)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	base := baseScenario(t)
	r := &Result{Values: []Value{{Param: params(t, "cost_scale")[0], Initial: 1, Fitted: 1.25}}}
	r.Fit.RecoveryMAPE = 4.25
	for _, held := range []bool{false, true} {
		if held {
			r.Held = Metrics{N: 2, RecoveryMAPE: 9.5}
		}
		out := filepath.Join(dir, "out", "syn-calibrated.yaml")
		info := ReportInfo{Scenario: path, Measured: filepath.Join(dir, "m.csv"), Base: base}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := WriteScenario(out, src, r, info, filepath.Join(dir, "out", "syn-calibrated-fit")); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		header := "# Calibrated by `streamtwin calibrate` from syn-base.yaml on m.csv\n# (fit report: syn-calibrated-fit/report.md). Fitted: cost_scale 1.25; recovery MAPE 4.2 % on the fitted points"
		if held {
			header += ", 9.5 % held out"
		}
		header += ".\n"
		if !strings.HasPrefix(string(got), header+"# the base\n") {
			t.Errorf("calibrated scenario starts\n%s\nwant\n%s", got[:min(len(got), 300)], header)
		}
		sc, err := scenario.ParseRun(out, got, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Name != "synthetic-calibrated" || math.Abs(params(t, "cost_scale")[0].Get(&sc)-1.25) > 1e-9 {
			t.Errorf("name %q, cost_scale %v; want synthetic-calibrated, 1.25", sc.Name, params(t, "cost_scale")[0].Get(&sc))
		}
	}
}
