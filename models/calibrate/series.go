package calibrate

import (
	"fmt"
	"math"
	"sort"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// khaosBaselineS is the pre-fault window of Khaos's detector and averages.
const khaosBaselineS = 300

// SeriesPoint makes the measured point of the fault at `at` in a measured
// run's series (samples, read from the file series; ci is the run's
// checkpoint interval): its recovery time detected by the simulator's rule
// (results.DetectRecovery) and the throughput and latency over the 300 s
// before it. A fault that has not recovered by the end of the series is an
// error.
func SeriesPoint(series string, samples []results.Sample, at sim.Duration, ci float64, label string) (Point, error) {
	return seriesPoint(series, samples, at, ci, label, khaosBaselineS)
}

// SeriesPoints makes the points of several faults of one series, in time
// order. Each fault's pre-fault behaviour (throughput, latency, lag) is
// taken over at most Khaos's 300 s, never from before the previous fault's
// recovery ended, and never across a step of the input rate: a window
// reaching back into that recovery would average its downtime and catch-up
// into the baseline, and its lag peak into the lag level that ends the next
// recovery; one reaching across a step would average two loads. A fault
// whose baseline would be shorter than minBaselineS is an error.
func SeriesPoints(series string, samples []results.Sample, faults []sim.Duration, ci float64, label string) ([]Point, error) {
	sorted := append([]sim.Duration(nil), faults...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var pts []Point
	calmSince := math.Inf(-1) // when the previous fault's recovery ended
	for i, at := range sorted {
		window := math.Min(khaosBaselineS, float64(at)-calmSince)
		if window < minBaselineS && i > 0 {
			return nil, fmt.Errorf("%s: the fault at %v leaves %.0f s after the recovery from the fault at %v; a baseline needs %d s: space the faults further apart",
				series, at, math.Max(window, 0), sorted[i-1], minBaselineS)
		}
		if step := loadSince(samples, float64(at)); float64(at)-step < window {
			window = float64(at) - step
			if window < minBaselineS {
				return nil, fmt.Errorf("%s: the fault at %v comes %.0f s after the input rate changed; a baseline needs %d s of steady load", series, at, window, minBaselineS)
			}
		}
		p, err := seriesPoint(series, samples, at, ci, label, window)
		if err != nil {
			return nil, err
		}
		pts = append(pts, p)
		calmSince = p.FaultAtS + p.RecoveryS
	}
	return pts, nil
}

// loadSteadyTol is how far (relative) the input rate may move before a
// fault and still count as the same load.
const loadSteadyTol = 0.1

// loadSince is the end of the last sample before at whose input rate is more
// than loadSteadyTol away from the rate just before at: the start of the
// steady load the fault hit (−Inf when the series has no input rate or it
// never moved).
func loadSince(samples []results.Sample, at float64) float64 {
	i := sort.Search(len(samples), func(i int) bool { return samples[i].TimeS > at }) - 1
	if i < 0 || !(samples[i].InputRate > 0) {
		return math.Inf(-1)
	}
	ref := samples[i].InputRate
	for ; i >= 0; i-- {
		if math.Abs(samples[i].InputRate-ref) > loadSteadyTol*ref {
			return samples[i].TimeS
		}
	}
	return math.Inf(-1)
}

// minBaselineS is the shortest pre-fault window SeriesPoints accepts: a
// quarter of a minute of 1-s samples.
const minBaselineS = 15

func seriesPoint(series string, samples []results.Sample, at sim.Duration, ci float64, label string, baselineS float64) (Point, error) {
	r, err := results.DetectRecovery(samples, float64(at), results.RecoveryOptions{Baseline: baselineS})
	if err != nil {
		return Point{}, fmt.Errorf("%s, fault at %v: %w", series, at, err)
	}
	if math.IsNaN(r.RecoveryS) {
		return Point{}, fmt.Errorf("%s: the fault at %v has not recovered by the end of the series; cut it off or measure longer", series, at)
	}
	return Point{Label: label, Throughput: r.PreThroughput, CheckpointIntervalS: ci,
		RecoveryS: r.RecoveryS, LatencyMs: r.PreLatencyMs, FaultAtS: float64(at)}, nil
}
