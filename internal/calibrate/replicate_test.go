package calibrate

import (
	"math"
	"testing"
)

// TestSpanOf: the 90 % interval of ten replicas 10, 11, …, 19 s interpolates
// between order statistics: 10 + 0.45·1 and 18 + 0.55·1.
func TestSpanOf(t *testing.T) {
	var reps []Prediction
	for r := 19.0; r >= 10; r-- { // unsorted on purpose
		reps = append(reps, Prediction{RecoveryS: r})
	}
	if s := spanOf(reps); math.Abs(s.Lo-10.45) > 1e-12 || math.Abs(s.Hi-18.55) > 1e-12 {
		t.Errorf("span %+v, want [10.45, 18.55]", s)
	}
	if s := spanOf(reps[:1]); !math.IsNaN(s.Lo) || !math.IsNaN(s.Hi) {
		t.Errorf("one replica: span %+v, want none", s)
	}
}

// TestCoverage: measured inside (15), on the edge (20, counts as inside),
// outside (21) and a point without an interval (not counted): 2 of 3.
func TestCoverage(t *testing.T) {
	in := func(measured, lo, hi float64) PointResult {
		return PointResult{Point: Point{RecoveryS: measured}, RecoveryLo: lo, RecoveryHi: hi}
	}
	nan := math.NaN()
	cases := []struct {
		name string
		pts  []PointResult
		want float64
	}{
		{"hand-made set", []PointResult{in(15, 10, 20), in(20, 10, 20), in(21, 10, 20), in(15, nan, nan)}, 2.0 / 3},
		{"all outside", []PointResult{in(5, 10, 20), in(25, 10, 20)}, 0},
		{"no intervals", []PointResult{in(15, nan, nan)}, nan},
	}
	for _, c := range cases {
		got := Coverage(c.pts)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s: coverage %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPredictSpreadMatchesPredict: the final pass's mean over the replicas
// is Predict's prediction to the bit, and its interval holds every seed's
// spread; with more interval seeds (IntervalReplications) the prediction
// stays the same and the interval is that of all of them.
func TestPredictSpreadMatchesPredict(t *testing.T) {
	sc := baseScenario(t)
	sc.Job.Detection.Mode = "rpc" // a random heartbeat phase: seeds differ
	pts := []Point{{Throughput: 60000, CheckpointIntervalS: 30}, {Throughput: 45000, CheckpointIntervalS: 60}}
	o := Options{Replications: 4}
	preds, spans, err := predictSpread(sc, pts, o, o.Replications)
	if err != nil {
		t.Fatal(err)
	}
	wide, wideSpans, err := predictSpread(sc, pts, o, 12)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pts {
		want, err := Predict(sc, p, o)
		if err != nil {
			t.Fatal(err)
		}
		if preds[i] != want || wide[i] != want {
			t.Errorf("point %d: %+v and with 12 interval seeds %+v, Predict %+v", i, preds[i], wide[i], want)
		}
		if !(spans[i].Lo <= want.RecoveryS && want.RecoveryS <= spans[i].Hi && spans[i].Lo < spans[i].Hi) {
			t.Errorf("point %d: interval %+v around a mean of %v s", i, spans[i], want.RecoveryS)
		}
		reps, err := predictReplicas(sc, p, Options{Replications: 12})
		if err != nil {
			t.Fatal(err)
		}
		if s := spanOf(reps); s != wideSpans[i] {
			t.Errorf("point %d: interval %+v with 12 interval seeds, want the 12 seeds' %+v", i, wideSpans[i], s)
		}
	}
}
