package measure

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// TestWorkersOf by hand: 1-s samples of 24 TaskManagers for 300 s, a dip
// to 23 for 30 s (a lost TaskManager, not a rescale), 24 again for 200 s,
// then a rescale to 12 passing through 0 and a registration ramp 4, 8
// (20 s each), 12 for 400 s.
func TestWorkersOf(t *testing.T) {
	var s []results.Sample
	add := func(n int32, secs int) {
		for range secs {
			s = append(s, results.Sample{TimeS: float64(len(s) + 1), Workers: n})
		}
	}
	add(24, 300)
	add(23, 30)
	add(24, 200)
	add(0, 10)
	add(4, 20)
	add(8, 20)
	add(12, 400)
	w := WorkersOf(s, 120)
	if want := 24.0*500 + 23*30 + 4*20 + 8*20 + 12*400; w.Seconds != want {
		t.Errorf("TaskManager-seconds %v, want %v", w.Seconds, want)
	}
	if w.Rescales != 1 {
		t.Errorf("rescales %d, want 1 (24 → 12)", w.Rescales)
	}
	positive := 970.0
	for n, want := range map[int]float64{24: 500 / positive, 23: 30 / positive, 4: 20 / positive, 8: 20 / positive, 12: 400 / positive} {
		if math.Abs(w.TimeAt[n]-want) > 1e-12 {
			t.Errorf("time at %d: %v, want %v", n, w.TimeAt[n], want)
		}
	}
	var z Summarizer
	for _, x := range s {
		z.Sample(x)
	}
	if z.s.WorkerSeconds != w.Seconds {
		t.Errorf("the run summary counts %v TaskManager-seconds, WorkersOf %v", z.s.WorkerSeconds, w.Seconds)
	}
	if d := TotalVariation(map[int]float64{24: 0.9, 12: 0.1}, map[int]float64{24: 0.6, 8: 0.4}); math.Abs(d-0.4) > 1e-12 {
		t.Errorf("total variation %v, want 0.4", d)
	}
}
