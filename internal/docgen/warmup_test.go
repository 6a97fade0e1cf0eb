package docgen

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/models/flink"
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

// TestFitLagState: checkpoints whose size above the baseline's state at
// the same rate is 100·50,000·ln(1 + lag/50,000) bytes fit a = 100 B and
// L = 50,000 records; on a line, 100 B per record of lag, they fit L = 0
// (the line); one at a rate the baseline never ran at is left out; the
// fitted model's RMSE is 0 and the baseline's (no lag state) is not.
func TestFitLagState(t *testing.T) {
	base := warmupRun{before: []warmupCheckpoint{
		{trigger: 10, size: 3.6e6, rate: 3000},
		{trigger: 100, size: 14.4e6, rate: 12000},
	}}
	bent := flink.JobConfig{StatePerLag: 100, StateLagScale: 50000}
	for _, c := range []struct {
		name  string
		state func(lag float64) float64
		want  flink.JobConfig
	}{{"bent", bent.LagState, bent}, {"line", func(lag float64) float64 { return 100 * lag }, flink.JobConfig{StatePerLag: 100}}} {
		live := warmupRun{}
		for i, lag := range []float64{0, 20000, 60000, 300000, 900000} {
			live.all = append(live.all, warmupCheckpoint{trigger: 101 + 10*float64(i), size: 14.4e6 + c.state(lag), lag: lag, rate: 12000})
		}
		live.all = append(live.all, warmupCheckpoint{trigger: 171, size: 99e6, lag: 70000, rate: 7000})
		perLag, scale, n := fitLagState(live, base)
		if math.Abs(perLag-float64(c.want.StatePerLag)) > 1e-6 || scale != c.want.StateLagScale || n != 4 {
			t.Errorf("%s: fitLagState = %g B, L = %g over %d checkpoints, want %v B, L = %g over 4", c.name, perLag, scale, n, c.want.StatePerLag, c.want.StateLagScale)
		}
		if r := lagStateRMSE(live, base, c.want); r > 1e-3 {
			t.Errorf("%s: the fitted model's RMSE = %g B, want 0", c.name, r)
		}
		if r := lagStateRMSE(live, base, flink.JobConfig{}); r < 1e6 {
			t.Errorf("%s: no lag state's RMSE = %g B, want megabytes", c.name, r)
		}
	}
}
