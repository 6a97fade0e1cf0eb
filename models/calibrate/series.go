package calibrate

import (
	"fmt"
	"math"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// SeriesPoint makes the measured point of the fault at `at` in a measured
// run's series (samples, read from the file series; ci is the run's
// checkpoint interval): its recovery time detected by the simulator's rule
// (results.DetectRecovery) and the throughput and latency before it. A fault
// that has not recovered by the end of the series is an error.
func SeriesPoint(series string, samples []results.Sample, at sim.Duration, ci float64, label string) (Point, error) {
	r, err := results.DetectRecovery(samples, float64(at), results.RecoveryOptions{})
	if err != nil {
		return Point{}, fmt.Errorf("%s, fault at %v: %w", series, at, err)
	}
	if math.IsNaN(r.RecoveryS) {
		return Point{}, fmt.Errorf("%s: the fault at %v has not recovered by the end of the series; cut it off or measure longer", series, at)
	}
	return Point{Label: label, Throughput: r.PreThroughput, CheckpointIntervalS: ci,
		RecoveryS: r.RecoveryS, LatencyMs: r.PreLatencyMs, FaultAtS: float64(at)}, nil
}
