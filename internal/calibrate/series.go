package calibrate

import (
	"fmt"
	"math"
	"sort"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/sim"
)

// khaosBaselineS is the pre-fault window of Khaos's detector and averages.
const khaosBaselineS = 300

// Series is a measured run's series and what the points made from it
// share.
type Series struct {
	Name    string           // the file it was read from, for errors
	Samples []results.Sample // in time order
	// CI is the run's checkpoint interval (s); 0: each fault's from the
	// series' own checkpoint_interval_s (our timeseries.parquet), the CI in
	// force in the last sample before it.
	CI    float64
	Label string // the points' label
	// Latency is the column averaged into each point's latency_ms, one of
	// results.LatencyKinds; "": the latency markers if the series has them
	// (what Khaos recorded), else the event-time p99.
	Latency string
}

// Point makes the measured point of the fault at `at`: its recovery time
// detected by the one detector the twin's and the live runs' rows pass
// through too (measure.DetectRecovery) and the
// throughput and latency over the 300 s before it. A fault that has not
// recovered by the end of the series is an error.
func (s Series) Point(at sim.Duration) (Point, error) {
	return s.point(at, khaosBaselineS)
}

// Points makes the points of several faults of the series, in time order.
// Each fault's pre-fault behaviour (throughput, latency, lag) is taken over
// at most Khaos's 300 s, never from before the previous fault's recovery
// ended, nor from a sample the series marks as recovering or not RUNNING
// (a fault or reconfiguration not in the list), and never across a step
// of the input rate: a window reaching back into a recovery would average
// its downtime and catch-up into the baseline, and its lag peak into the
// lag level that ends the next recovery; one reaching across a step would
// average two loads. A fault whose baseline would be shorter than
// minBaselineS is an error.
func (s Series) Points(faults []sim.Duration) ([]Point, error) {
	sorted := append([]sim.Duration(nil), faults...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var pts []Point
	calmSince := math.Inf(-1) // when the previous fault's recovery ended
	for i, at := range sorted {
		window := math.Min(khaosBaselineS, float64(at)-calmSince)
		if window < minBaselineS && i > 0 {
			return nil, fmt.Errorf("%s: the fault at %v leaves %.0f s after the recovery from the fault at %v; a baseline needs %d s: space the faults further apart",
				s.Name, at, math.Max(window, 0), sorted[i-1], minBaselineS)
		}
		if d := disturbedUntil(s.Samples, float64(at)); float64(at)-d < window {
			window = float64(at) - d
			if window < minBaselineS {
				return nil, fmt.Errorf("%s: the fault at %v comes %.0f s after the series was last recovering or not RUNNING; a baseline needs %d s: space the faults further apart", s.Name, at, window, minBaselineS)
			}
		}
		if step := loadSince(s.Samples, float64(at)); float64(at)-step < window {
			window = float64(at) - step
			if window < minBaselineS {
				return nil, fmt.Errorf("%s: the fault at %v comes %.0f s after the input rate changed; a baseline needs %d s of steady load", s.Name, at, window, minBaselineS)
			}
		}
		p, err := s.point(at, window)
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

// disturbedUntil is the end of the sample after the last one before at
// that the series marks as recovering or whose job was not RUNNING (−Inf
// if none, as in a CSV series without these columns): the sample in which
// a recovery ends still holds part of its catch-up.
func disturbedUntil(samples []results.Sample, at float64) float64 {
	// strictly before at: a sample closed at the fault's instant already
	// carries the fault's own state
	last := sort.Search(len(samples), func(i int) bool { return samples[i].TimeS >= at }) - 1
	for i := last; i >= 0; i-- {
		if samples[i].Recovering || samples[i].JobState != "" && samples[i].JobState != "RUNNING" {
			return samples[min(i+1, last)].TimeS
		}
	}
	return math.Inf(-1)
}

// minBaselineS is the shortest pre-fault window SeriesPoints accepts: a
// quarter of a minute of 1-s samples.
const minBaselineS = 15

func (s Series) point(at sim.Duration, baselineS float64) (Point, error) {
	r, err := measure.DetectRecovery(s.Samples, float64(at), measure.RecoveryOptions{Baseline: baselineS, Latency: s.Latency})
	if err != nil {
		return Point{}, fmt.Errorf("%s, fault at %v: %w", s.Name, at, err)
	}
	if math.IsNaN(r.RecoveryS) {
		return Point{}, fmt.Errorf("%s: the fault at %v has not recovered by the end of the series; cut it off or measure longer", s.Name, at)
	}
	ci := s.CI
	if ci == 0 {
		for i := sort.Search(len(s.Samples), func(i int) bool { return s.Samples[i].TimeS >= float64(at) }) - 1; i >= 0 && ci == 0; i-- {
			ci = s.Samples[i].CheckpointIntervalS
		}
		if !(ci > 0) {
			return Point{}, fmt.Errorf("%s: no checkpoint interval in the series before the fault at %v; give the run's with --ci", s.Name, at)
		}
	}
	return Point{Label: s.Label, Throughput: r.PreThroughput, CheckpointIntervalS: ci,
		RecoveryS: r.RecoveryS, LatencyMs: r.PreLatencyMs, FaultAtS: float64(at)}, nil
}
