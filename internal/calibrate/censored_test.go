package calibrate

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/sim"
)

// TestAPE: a censored recovery is a lower bound. Demeter's cap is 360 s: a
// prediction at or above it is exact, 300 s is 60/360 off; an uncensored
// 360 s is off either way.
func TestAPE(t *testing.T) {
	cases := []struct {
		name     string
		censored bool
		pred     float64
		want     float64
	}{
		{"censored, above the cap", true, 400, 0},
		{"censored, at the cap", true, 360, 0},
		{"censored, below the cap", true, 300, 60.0 / 360},
		{"censored, the horizon", true, 1800, 0},
		{"uncensored, above", false, 400, 40.0 / 360},
		{"uncensored, below", false, 300, 60.0 / 360},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ape(Point{RecoveryS: 360, Censored: c.censored}, c.pred); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("ape = %v, want %v", got, c.want)
			}
		})
	}
	// the MAPE of two points: 0 and 60/360, as a percentage
	pts := []Point{{RecoveryS: 360, Censored: true}, {RecoveryS: 360, Censored: true}}
	if got := CensoredMAPE(pts, []float64{500, 300}); math.Abs(got-100*30.0/360) > 1e-9 {
		t.Errorf("CensoredMAPE = %v, want %v", got, 100*30.0/360)
	}
}

// TestCoverageCensored: an interval reaching a censored point's cap covers
// it, however far below the cap its lower end is.
func TestCoverageCensored(t *testing.T) {
	pts := []PointResult{
		{Point: Point{RecoveryS: 360, Censored: true}, RecoveryLo: 200, RecoveryHi: 400},
		{Point: Point{RecoveryS: 360, Censored: true}, RecoveryLo: 200, RecoveryHi: 300},
		{Point: Point{RecoveryS: 100}, RecoveryLo: 120, RecoveryHi: 130},
		{Point: Point{RecoveryS: 100}, RecoveryLo: 90, RecoveryHi: 130},
	}
	if got := Coverage(pts); got != 0.5 {
		t.Errorf("coverage %v, want 0.5 (the first and the last)", got)
	}
}

// TestDaedalusModel: d = 10 s, c = 1,000 records/s per subtask. At p = 4
// (C = 4,000/s), λ = 2,000/s and CI 30 s: 2·10 + 2,000·(30 + 10)/(4,000 −
// 2,000) = 60 s. Fitted on exact points of the model, it finds d and c
// again and predicts a point it did not see.
func TestDaedalusModel(t *testing.T) {
	m := DaedalusModel{DowntimeS: 10, CapacityPerSubtask: 1000}
	if got := m.Predict(Point{Throughput: 2000, CheckpointIntervalS: 30, Parallelism: 4}); math.Abs(got-60) > 1e-9 {
		t.Fatalf("predict %v, want 60 s", got)
	}
	if got := m.Predict(Point{Throughput: 4000, CheckpointIntervalS: 30, Parallelism: 4}); !math.IsInf(got, 1) {
		t.Errorf("at capacity: %v, want +Inf", got)
	}
	var pts []Point
	for _, c := range [][3]float64{{2000, 30, 4}, {1000, 10, 2}, {5000, 60, 8}, {3000, 20, 6}, {1500, 90, 4}} {
		p := Point{Throughput: c[0], CheckpointIntervalS: c[1], Parallelism: c[2]}
		p.RecoveryS = m.Predict(p)
		pts = append(pts, p)
	}
	fit, err := FitDaedalus(pts)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fit.DowntimeS-10) > 0.01 || math.Abs(fit.CapacityPerSubtask-1000) > 1 {
		t.Errorf("fitted d = %.3f s, c = %.1f; want 10 s, 1000", fit.DowntimeS, fit.CapacityPerSubtask)
	}
	if _, err := FitDaedalus(pts[:2]); err == nil {
		t.Error("two points: fitted, want an error")
	}
}

// TestLinearConfigColumns: points on the plane rec = 50 + 0.001·λ + 2·CI −
// 3·p, memory the same everywhere: the OLS regresses on the three columns
// that vary (memory is no regressor) and lands on the plane.
func TestLinearConfigColumns(t *testing.T) {
	plane := func(thr, ci, p float64) float64 { return 50 + 0.001*thr + 2*ci - 3*p }
	var pts []Point
	for _, c := range [][3]float64{{40000, 10, 8}, {60000, 30, 12}, {20000, 50, 16}, {80000, 70, 8}, {50000, 90, 24}, {30000, 30, 20}} {
		pts = append(pts, Point{Throughput: c[0], CheckpointIntervalS: c[1], Parallelism: c[2], MemoryMiB: 4096, RecoveryS: plane(c[0], c[1], c[2])})
	}
	l, err := FitLinear(pts)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"throughput", "checkpoint_interval_s", "parallelism"}; !slices.Equal(l.Columns, want) {
		t.Fatalf("columns %v, want %v", l.Columns, want)
	}
	got := l.Predict(Point{Throughput: 70000, CheckpointIntervalS: 40, Parallelism: 10})
	if want := plane(70000, 40, 10); math.Abs(got-want) > 1e-6 {
		t.Errorf("predict %v, want %v (%s)", got, want, l)
	}
}

func TestParseFault(t *testing.T) {
	cases := []struct {
		text, kind      string
		duration, delay sim.Duration
		share           float64
		err             string
	}{
		{text: "", kind: scenario.FaultTaskManager},
		{text: "kill", kind: scenario.FaultTaskManager},
		{text: "network_delay:60s/30s", kind: scenario.FaultNetworkDelay, delay: 60, duration: 30},
		{text: "freeze:40s", kind: scenario.FaultFreeze, duration: 40},
		{text: "cpu_throttle:0.25/1m", kind: scenario.FaultCPUThrottle, share: 0.25, duration: 60},
		{text: "kill:5s", err: `fault "kill:5s": kill takes 0 setting(s) after the colon`},
		{text: "network_delay:60s", err: "network_delay takes 2 setting(s)"},
		{text: "network_delay:1h/30s", err: "the delay must be at most 600s"},
		{text: "freeze:soon", err: `duration "soon" is not a duration such as 30s`},
		{text: "cpu_throttle:2/30s", err: "the CPU share left must be in (0, 1)"},
		{text: "kafka_broker:30s", err: `fault "kafka_broker:30s": unknown; a measured point's fault hits one TaskManager`},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			f, err := ParseFault(c.text)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil || f.Kind != c.kind || f.Duration != c.duration || f.Delay != c.delay || f.Share != c.share {
				t.Errorf("got %+v, %v; want kind %s, duration %g, delay %g, share %g", f, err, c.kind, c.duration, c.delay, c.share)
			}
		})
	}
}

// TestConfigure: a point's parallelism, slots and cores replace the base's,
// with as many TaskManagers as they need; an empty column keeps the base's.
func TestConfigure(t *testing.T) {
	var sc scenario.Scenario
	sc.Job.Parallelism, sc.Job.Cluster.Slots, sc.Job.Cluster.Cores, sc.Job.Cluster.TaskManagers = 24, 1, 1, 24
	configure(&sc, Point{Parallelism: 8, TaskSlots: 4, CPUCores: 2})
	c := sc.Job.Cluster
	if sc.Job.Parallelism != 8 || c.Slots != 4 || c.Cores != 2 || c.TaskManagers != 0 {
		t.Errorf("parallelism %d, slots %d, cores %g, TaskManagers %d; want 8, 4, 2, 0 (as many as needed)", sc.Job.Parallelism, c.Slots, c.Cores, c.TaskManagers)
	}
	sc.Job.Cluster.TaskManagers = 5
	configure(&sc, Point{})
	if sc.Job.Parallelism != 8 || sc.Job.Cluster.TaskManagers != 5 {
		t.Errorf("an unconfigured point changed the scenario: %+v", sc.Job.Cluster)
	}
}

// TestFoldsByColumn: --cv experiment leaves one experiment out per fold,
// in the order the experiments first appear.
func TestFoldsByColumn(t *testing.T) {
	pts := []Point{{Experiment: "2"}, {Experiment: "1"}, {Experiment: "2"}, {Experiment: "3"}}
	spec, err := ParseCV("experiment")
	if err != nil {
		t.Fatal(err)
	}
	fold, labels, err := Folds(pts, spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fold, []int{0, 1, 0, 2}) || !slices.Equal(labels, []string{"experiment 2", "experiment 1", "experiment 3"}) {
		t.Errorf("folds %v %v", fold, labels)
	}
	if _, _, err := Folds(pts[:1], spec, 1); err == nil {
		t.Error("one experiment: folds, want an error")
	}
	if _, err := ParseCV("experiments"); err == nil {
		t.Error("--cv experiments (no such column): accepted")
	}
	held, err := HoldoutValues("experiment", []string{"3"}, pts)
	if err != nil || !held(pts[3]) || held(pts[0]) {
		t.Errorf("holdout experiment 3: %v", err)
	}
	if _, err := HoldoutValues("experiment", []string{"4"}, pts); err == nil {
		t.Error("holdout experiment 4 (no such row): accepted")
	}
}
