package profile

import (
	"math"
	"os"
	"testing"

	"github.com/streamtwin/streamtwin/internal/scenario"
	_ "github.com/streamtwin/streamtwin/models/policy/all"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
)

func TestCopyIntervalsAreKhaos(t *testing.T) {
	// the logged profiling's copies (docs/reference/khaos.md §4)
	want := []float64{10, 25.714, 41.428, 57.142, 72.856, 88.57, 104.284, 119.998}
	got := CopyIntervals(8, 10, 120)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("copies %v, want %v", got, want)
		}
	}
}

// TestProfileLearnsTheCheckpointTradeOff profiles a YSB job on the YSB day
// (phase 1 needs a real day: its stability band is set for one): recovery must grow and latency fall with the
// CI, as on the real cluster, and every copy must be killed at every point.
func TestProfileLearnsTheCheckpointTradeOff(t *testing.T) {
	src := `
name: p
seed: 5
duration: 24h
workload: {name: ysb-day}
kafka: {partitions: 4}
job: {template: ysb, latency: {window: 0s}, restart: {strategy: fixed-delay, delay: 1s, attempts: 0}}
`
	sc, err := scenario.ParseRun("p.yaml", []byte(src), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(sc, Config{Steady: khaos.SteadyConfig{Failures: 4}, Copies: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 4 || len(r.Samples)+r.Missed != 20 {
		t.Fatalf("%d points, %d samples + %d missed; want 4 points × 5 copies", len(r.Points), len(r.Samples), r.Missed)
	}
	for _, s := range r.Samples {
		if s.FaultAtS < float64(pointOf(r, s.FaultAtS)) || s.FaultAtS > float64(pointOf(r, s.FaultAtS))+s.CheckpointIntervalS {
			t.Errorf("fault at %v s is not within one CI after its point", s.FaultAtS)
		}
	}
	if m := r.Models; m.Recovery.CIms <= 0 || m.Recovery.Throughput <= 0 || m.Latency.CIms >= 0 {
		t.Errorf("models %+v: want recovery rising with CI and load, latency falling with CI", m)
	}
	if r.CV.Folds != 5 || (r.CV.Better != "ols" && r.CV.Better != "physics") {
		t.Errorf("cross-validation %+v", r.CV)
	}
	dir := t.TempDir()
	files, err := r.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
}

func pointOf(r *Result, at float64) int {
	best := 0
	for _, p := range r.Points {
		if float64(p.Second) <= at {
			best = p.Second
		}
	}
	return best
}
