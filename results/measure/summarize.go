package measure

import (
	"math"
	"sort"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// Summarizer folds a run's samples and events, in time order, into its
// Summary. It keeps one float per interval for the latency percentiles and
// nothing else per row.
type Summarizer struct {
	s                   results.Summary
	lastT, lastEnd      float64
	thrT                float64 // time of the latest sample with a throughput
	latW, latSum        float64
	markerSum           float64
	markerN             int
	steadyW, steadySum  float64
	p50s, p99s          []float64
	ciSum, cpuSum, cpuT float64
	ckptDurSum          float64
	latT                float64 // time of intervals with output
	processed, lagMax   float64 // records, expected (the fluid model's)
	finalLag            float64
	censored            []float64 // unrecovered faults: time from fault to the end
}

// NewSummarizer starts a summary with the run's identity and QoS bounds;
// samples is the number of intervals expected (sizes the percentile buffers
// once instead of growing them).
func NewSummarizer(scenario, variant, backend string, seed uint64, latencyBoundMs, recoveryBoundS float64, samples int) *Summarizer {
	return &Summarizer{p50s: make([]float64, 0, samples), p99s: make([]float64, 0, samples), s: results.Summary{Scenario: scenario, Variant: variant, Backend: backend, Seed: seed,
		RecoveryTimesS: []float64{}, QoS: results.QoSSummary{LatencyBoundMs: latencyBoundMs, RecoveryBoundS: recoveryBoundS}}}
}

// Sample adds one timeseries row.
func (z *Summarizer) Sample(x results.Sample) {
	dt := x.TimeS - z.lastT
	z.lastT = x.TimeS
	s := &z.s
	// A sample the backend could not measure (a stopped Kafka broker: no
	// offsets) has NaN there. The next measured throughput is a rate over
	// the whole gap, so it counts from the last measured sample.
	if !math.IsNaN(x.Throughput) {
		z.processed += x.Throughput * (x.TimeS - z.thrT)
		z.thrT = x.TimeS
	}
	if !math.IsNaN(x.Lag) {
		z.finalLag = x.Lag
		z.lagMax = math.Max(z.lagMax, x.Lag)
	}
	if !math.IsNaN(x.EndOffset) {
		z.lastEnd = x.EndOffset
	}
	z.ciSum += x.CheckpointIntervalS * dt
	s.WorkerSeconds += float64(x.Workers) * dt
	if x.Workers > 0 {
		z.cpuSum += x.CPUBusyMean * dt
		z.cpuT += dt
	}
	if !math.IsNaN(x.LatencyMeanMs) && x.OutputRate > 0 {
		w := x.Throughput * dt
		z.latW += w
		z.latT += dt
		z.latSum += w * x.LatencyMeanMs
		if !x.Recovering {
			z.steadyW += w
			z.steadySum += w * x.LatencyMeanMs
		}
		if !math.IsNaN(x.LatencyMarkerP99Ms) {
			z.markerSum += x.LatencyMarkerP99Ms
			z.markerN++
		}
		z.p50s = append(z.p50s, x.LatencyP50Ms)
		z.p99s = append(z.p99s, x.LatencyP99Ms)
		if x.LatencyP99Ms > s.QoS.LatencyBoundMs {
			s.QoS.LatencyViolationSeconds++
		}
	}
}

// Event adds one event.
func (z *Summarizer) Event(e results.Event) {
	s := &z.s
	switch e.Kind {
	case results.KindFault:
		s.Faults++
	case results.KindRecovered:
		if e.DurationS != nil && !e.IsReconfiguration() {
			s.Recoveries++
			s.RecoveryTimesS = append(s.RecoveryTimesS, *e.DurationS)
			if *e.DurationS > s.QoS.RecoveryBoundS {
				s.QoS.RecoveryViolations++
			}
		}
	case results.KindUnrecovered:
		if e.DurationS != nil && !e.IsReconfiguration() {
			s.UnrecoveredFaults++
			s.QoS.RecoveryViolations++
			z.censored = append(z.censored, *e.DurationS)
		}
	case results.KindRunEnd:
		s.FinalState = e.Reason
		if e.DurationS != nil {
			s.DowntimeS += *e.DurationS
		}
	case results.KindRunning, results.KindReconfigured:
		if e.DurationS != nil {
			s.DowntimeS += *e.DurationS
		}
		if e.Kind == results.KindReconfigured {
			s.Reconfigurations++
		}
	case results.KindCheckpointCompleted:
		s.CheckpointsCompleted++
		if e.DurationS != nil {
			z.ckptDurSum += *e.DurationS
		}
	case results.KindCheckpointFailed:
		s.CheckpointsFailed++
	}
}

// Violations is the QoS violations and worker-seconds so far: the costs a
// learner is charged per step (internal/stepper), which add up to the
// Summary's, without the percentiles Summary sorts for.
func (z *Summarizer) Violations() (qos results.QoSSummary, workerSeconds float64) {
	return z.s.QoS, z.s.WorkerSeconds
}

// Summary returns the figures of the run so far.
func (z *Summarizer) Summary(durationS, wallTimeS float64) results.Summary {
	s := z.s
	s.DurationS, s.WallTimeS = durationS, wallTimeS
	s.RecordsIn, s.RecordsProcessed = results.CountOf(z.lastEnd), results.CountOf(z.processed)
	s.FinalLag, s.LagMax = results.CountOf(z.finalLag), results.CountOf(z.lagMax)
	if z.lastT > 0 {
		s.ThroughputMean = z.processed / z.lastT
		s.CheckpointIntervalMeanS = z.ciSum / z.lastT
		s.LatencyCoverage = math.Min(1, z.latT/z.lastT)
	}
	if z.cpuT > 0 {
		s.CPUBusyMean = z.cpuSum / z.cpuT
	}
	s.LatencyMeanMs, s.LatencySteadyMeanMs = nanDiv(z.latSum, z.latW), nanDiv(z.steadySum, z.steadyW)
	s.LatencyP50Ms, s.LatencyP99Ms = statistics.Quantile(z.p50s, 0.5), statistics.Quantile(z.p99s, 0.99)
	s.LatencyMarkerMeanMs = nanDiv(z.markerSum, float64(z.markerN))
	s.CheckpointTimeS = z.ckptDurSum
	if s.CheckpointsCompleted > 0 {
		s.CheckpointMeanS = z.ckptDurSum / float64(s.CheckpointsCompleted)
	}
	s.RecoveryTimesS = append([]float64{}, s.RecoveryTimesS...)
	if n := len(s.RecoveryTimesS) + len(z.censored); n > 0 {
		sorted := append(append([]float64(nil), s.RecoveryTimesS...), z.censored...)
		sort.Float64s(sorted)
		for _, r := range sorted {
			s.RecoveryMeanS += r / float64(n)
		}
		s.RecoveryMedianS = statistics.Quantile(sorted, 0.5)
		s.RecoveryMaxS = sorted[n-1]
	}
	return s
}

func nanDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Summarized passes each row to Summary and then to Out: the one way both
// backends keep the summary of exactly the rows they write.
type Summarized struct {
	Summary *Summarizer
	Out     RowWriter
}

// WriteSample adds s to the summary and writes it.
func (w Summarized) WriteSample(s results.Sample) error {
	w.Summary.Sample(s)
	return w.Out.WriteSample(s)
}

// WriteEvent adds e to the summary and writes it.
func (w Summarized) WriteEvent(e results.Event) error {
	w.Summary.Event(e)
	return w.Out.WriteEvent(e)
}
