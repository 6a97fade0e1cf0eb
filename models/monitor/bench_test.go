package monitor

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/sim"
)

// BenchmarkMonitoringWeek is issue 23's goal (under 5 s, make bench): a
// compressed week (10,080 s) of decisions of the probabilistic-forecast
// rule for the 4 default metrics at 20 thresholds, forecaster included
// (the seasonal one, daily), after a training week; one op is one Evaluate.
func BenchmarkMonitoringWeek(b *testing.B) {
	load := make([]float64, 2*10080)
	for i := range load {
		day := math.Sin(2 * math.Pi * float64(i) / 1440)
		load[i] = 500 + 200*day*day + 50*math.Sin(float64(i)/37)
	}
	thresholds := make([]float64, 20)
	for i := range thresholds {
		thresholds[i] = 0.005 + 0.0025*float64(i)
	}
	spec := Spec{Train: 10080, Samplers: []SamplerSpec{{Kind: "forecast", Forecaster: "seasonal", Thresholds: thresholds}}}
	b.ResetTimer()
	for range b.N {
		if _, err := Evaluate(spec, load, sim.Seeds{Root: 1}, 0); err != nil {
			b.Fatal(err)
		}
	}
}
