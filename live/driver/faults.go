package driver

import (
	"math"
	"sort"

	"github.com/streamtwin/streamtwin/results"
)

// finish adds the recoveries (the simulator's rule, on the measured
// series), summarises and writes everything in time order.
func (r *run) finish(sink Sink, wallS float64) (results.Summary, error) {
	r.mu.Lock()
	samples, events := r.samples, append([]results.Event(nil), r.events...)
	r.mu.Unlock()
	end := float64(r.sc.Duration)
	if n := len(samples); n > 0 {
		end = math.Max(end, samples[n-1].TimeS)
	}
	events = append(events, r.runEnd(samples, events, end))
	for _, e := range events {
		if e.Kind != results.KindFault && e.Kind != results.KindReconfigured {
			continue
		}
		at, opt := e.TimeS, results.RecoveryOptions{}
		reason := e.Reason
		if e.Kind == results.KindReconfigured {
			// from the stop request; it ends once the new job runs at the earliest
			at, opt.ResumedS = e.TimeS-*e.DurationS, e.TimeS
			reason = "reconfiguration: " + reason // as the simulator names its recovery
		}
		rec, err := results.DetectRecovery(samples, at, opt)
		if err != nil || math.IsNaN(rec.RecoveryS) {
			// not recovered by the end: censored at the run's end
			d := math.Max(0, end-at)
			events = append(events, results.Event{TimeS: end, Kind: results.KindUnrecovered, DurationS: &d, Reason: reason})
			for i := range samples {
				if samples[i].TimeS > at {
					samples[i].Recovering = true
				}
			}
			continue
		}
		d := rec.RecoveryS
		events = append(events, results.Event{TimeS: at + d, Kind: results.KindRecovered, DurationS: &d, Reason: reason})
		for i := range samples {
			if samples[i].TimeS > at && samples[i].TimeS <= at+d {
				samples[i].Recovering = true
			}
		}
	}
	// run_end is the last event (a TaskManager restarted while the run
	// stopped may come a moment after the end)
	sort.SliceStable(events, func(i, j int) bool {
		if ei, ej := events[i].Kind == results.KindRunEnd, events[j].Kind == results.KindRunEnd; ei != ej {
			return ej
		}
		return events[i].TimeS < events[j].TimeS
	})
	sum := results.NewSummarizer(r.sc.Name, r.sc.Variant, "live", r.sc.Seed, 1000*float64(r.sc.QoS.Latency), float64(r.sc.QoS.Recovery), len(samples))
	ei := 0
	for _, s := range samples {
		for ei < len(events) && events[ei].TimeS <= s.TimeS {
			sum.Event(events[ei])
			if err := sink.WriteEvent(events[ei]); err != nil {
				return results.Summary{}, err
			}
			ei++
		}
		sum.Sample(s)
		if err := sink.WriteSample(s); err != nil {
			return results.Summary{}, err
		}
	}
	for ; ei < len(events); ei++ {
		sum.Event(events[ei])
		if err := sink.WriteEvent(events[ei]); err != nil {
			return results.Summary{}, err
		}
	}
	s := sum.Summary(float64(r.sc.Duration), wallS)
	s.RecordsReplayed = max(0, s.RecordsProcessed-(s.RecordsIn-s.FinalLag))
	return s, nil
}

// runEnd is the run_end event: the job's state in the last sample and, if
// it is down then, for how long: from the fault that took it down (Flink
// still reports RUNNING until it detects the loss, seconds later) or else
// from the last sample that saw it running.
func (r *run) runEnd(samples []results.Sample, events []results.Event, end float64) results.Event {
	state := "UNKNOWN"
	if n := len(samples); n > 0 {
		state = samples[n-1].JobState
	}
	down := 0.0
	if state != "RUNNING" {
		since := 0.0
		for _, s := range samples {
			if s.JobState == "RUNNING" {
				since = s.TimeS
			}
		}
		last := since
		for _, e := range events {
			if e.Kind == results.KindFault && e.TimeS <= last && e.TimeS > last-detectionLimit {
				since = e.TimeS
			}
		}
		down = math.Max(0, end-since)
	}
	return results.Event{TimeS: end, Kind: results.KindRunEnd, DurationS: &down, Reason: state}
}

// detectionLimit bounds how long Flink may report a job RUNNING after a
// kill (heartbeat.timeout of the local cluster, with margin).
const detectionLimit = 30
