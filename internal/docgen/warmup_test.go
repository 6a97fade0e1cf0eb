package docgen

import (
	"math"
	"testing"
)

func TestRampShare(t *testing.T) {
	for _, c := range []struct{ tau, w, s0, want float64 }{
		{0, 40, 0.3, 0.3},
		{20, 40, 0.3, 0.65}, // halfway: 0.3 + 0.7/2
		{40, 40, 0.3, 1},
		{90, 40, 0.3, 1},
		{5, 0, 0.3, 1}, // no ramp
	} {
		if got := rampShare(c.tau, c.w, c.s0); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("rampShare(%g, %g, %g) = %g, want %g", c.tau, c.w, c.s0, got, c.want)
		}
	}
}

// TestFitRamp: shares drawn from a ramp on the grid are fitted back
// exactly, and shares at full capacity fit no ramp.
func TestFitRamp(t *testing.T) {
	var tau, y, flat []float64
	for k := 0; k < 60; k++ {
		tau = append(tau, float64(k)+0.5)
		y = append(y, rampShare(float64(k)+0.5, 37, 0.28))
		flat = append(flat, 1)
	}
	if w, s0 := fitRamp(tau, y); w != 37 || math.Abs(s0-0.28) > 1e-9 {
		t.Errorf("fitRamp on a 37 s ramp from 0.28 = %g s, %g", w, s0)
	}
	if w, _ := fitRamp(tau, flat); w != 0 {
		t.Errorf("fitRamp at full capacity = %g s, want no ramp", w)
	}
}

// TestFitStatePerLag: checkpoints 100 B per record of lag above the
// baseline's state at the same rate fit 100 B; one at a rate the
// baseline never ran at is left out.
func TestFitStatePerLag(t *testing.T) {
	base := warmupRun{before: []warmupCheckpoint{
		{trigger: 10, size: 3.6e6, rate: 3000},
		{trigger: 100, size: 14.4e6, rate: 12000},
	}}
	live := warmupRun{before: []warmupCheckpoint{
		{trigger: 11, size: 3.6e6, lag: 0, rate: 3000},
		{trigger: 101, size: 14.4e6 + 100*20000, lag: 20000, rate: 12000},
		{trigger: 111, size: 14.4e6 + 100*60000, lag: 60000, rate: 12000},
		{trigger: 121, size: 99e6, lag: 70000, rate: 7000},
	}}
	perLag, n := fitStatePerLag(live, base)
	if math.Abs(perLag-100) > 1e-9 || n != 2 {
		t.Errorf("fitStatePerLag = %g B over %d checkpoints, want 100 B over 2", perLag, n)
	}
}
