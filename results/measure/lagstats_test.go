package measure

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// TestLagStatsOf by hand: 0…19 and a NaN; mean 9.5, 95th percentile at
// h = 0.95·19 = 18.05: 18.05 (Quantile's type 7).
func TestLagStatsOf(t *testing.T) {
	var lags []float64
	for i := range 20 {
		lags = append(lags, float64(i))
	}
	got := LagStatsOf(append(lags, math.NaN()))
	if math.Abs(got.Mean-9.5) > 1e-12 || math.Abs(got.P95-18.05) > 1e-12 {
		t.Errorf("got %+v, want mean 9.5, p95 18.05", got)
	}
	if got := LagStatsOf([]float64{math.NaN()}); !math.IsNaN(got.Mean) {
		t.Errorf("no lag: %+v, want NaN", got)
	}
	if got := PartitionLag(results.Sample{Lag: 2400}, 24); got != 100 {
		t.Errorf("PartitionLag = %g, want 100", got)
	}
}
