package driver

import (
	"math"
	"sort"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// finish writes the run in time order through measure.RecoveryStream, the
// detector the simulator's rows pass through too: a fault begins a
// recovery, a reconfiguration's begins at its stop request (the reconfigured
// event's time minus its downtime) and ends no earlier than the job ran
// again; the stream sets the samples' recovering flag and adds the
// recovered and unrecovered events. It summarises what it writes.
func (r *run) finish(sink Sink, wallS float64) (results.Summary, error) {
	r.mu.Lock()
	samples, events := r.samples, append([]results.Event(nil), r.events...)
	r.mu.Unlock()
	end := float64(r.sc.Duration)
	if n := len(samples); n > 0 {
		end = math.Max(end, samples[n-1].TimeS)
	}
	runEnd := r.runEnd(samples, events, end)
	sort.SliceStable(events, func(i, j int) bool { return events[i].TimeS < events[j].TimeS })
	type begin struct {
		atS, resumedS float64
		reason        string
	}
	var begins []begin
	for _, e := range events {
		if e.Kind == results.KindReconfigured && e.DurationS != nil {
			// as the simulator names its recovery
			begins = append(begins, begin{e.TimeS - *e.DurationS, e.TimeS, "reconfiguration: " + e.Reason})
		}
	}
	sort.SliceStable(begins, func(i, j int) bool { return begins[i].atS < begins[j].atS })
	sum := measure.NewSummarizer(r.sc.Name, r.sc.Variant, "live", r.sc.Seed, 1000*float64(r.sc.QoS.Latency), float64(r.sc.QoS.Recovery), len(samples))
	st, err := measure.NewRecoveryStream(measure.RecoveryOptions{}, measure.Summarized{Summary: sum, Out: sink})
	if err != nil {
		return results.Summary{}, err
	}
	ei, bi := 0, 0
	// the events and begins up to t (a sample's end) go before its sample
	upTo := func(t float64) error {
		for ei < len(events) && events[ei].TimeS <= t || bi < len(begins) && begins[bi].atS <= t {
			if bi < len(begins) && (ei == len(events) || begins[bi].atS <= events[ei].TimeS) {
				b := begins[bi]
				bi++
				if err := st.Begin(b.atS, b.resumedS, b.reason); err != nil {
					return err
				}
				continue
			}
			ei++
			if err := st.Event(events[ei-1]); err != nil {
				return err
			}
		}
		return nil
	}
	for _, s := range samples {
		if err := upTo(s.TimeS); err != nil {
			return results.Summary{}, err
		}
		if err := st.Sample(s); err != nil {
			return results.Summary{}, err
		}
	}
	if err := upTo(math.Inf(1)); err != nil {
		return results.Summary{}, err
	}
	// run_end is the last event (a TaskManager restarted while the run
	// stopped may come a moment after the end)
	if err := st.Event(runEnd); err != nil {
		return results.Summary{}, err
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
