package twin

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
)

// ddBase is the scenario every `run` case is merged onto: handJob's numbers
// (model_test.go). One source of 10 µs per record on one single-core
// TaskManager: capacity 100,000 records/s; input 50,000/s; checkpoints
// triggered at 10 s, 20 s, … and done 0.5 s later; a crash is detected 1 s
// after it, the restart waits 2 s, the TaskManager is back 10 s after its
// crash, deploy 2 s, restore 1 s.
const ddBase = `name: dd
seed: 1
duration: 3m
workload: {shape: constant, rate: 50000/s}` + handJob

// ddCase is the variant name a case's fragment is merged under.
const ddCase = "case"

// TestDataDriven runs the cases under testdata/twin: each file pins one
// behaviour of the twin as a scenario fragment and the events and summary
// lines the run gives. `go test ./internal/twin -run TestDataDriven
// -rewrite` writes the actual output in place of the expected one.
//
// Commands:
//
//	run [whole] [events=(kind, …)] [checkpoints]
//	    simulates the input, a YAML fragment merged onto ddBase as a
//	    variant is merged onto its scenario (mappings key by key,
//	    operators by name, lists and values replace), or with whole the
//	    input alone as the scenario; prints the events (all but completed
//	    checkpoints, unless checkpoints or events= says otherwise) and the
//	    summary lines
//	events [kinds=(kind, …)] [from=S] [to=S]
//	    the last run's events of those kinds (default all) in [from, to] s
//	samples at=(S, …) | samples from=S to=S [every=S]
//	    the last run's samples at those times: state, parallelism, CI,
//	    input, throughput, capacity, lag
//	summary
//	    the last run's summary, every line (latency and CPU too)
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/twin", func(t *testing.T, path string) {
		var last *ddRun
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "run" && last == nil {
				d.Fatalf(t, "%s before any run", d.Cmd)
			}
			switch d.Cmd {
			case "run":
				last = ddSimulate(t, d)
				keep := ddKinds(d, "events")
				if _, ok := d.Arg("events"); !ok && !d.HasArg("checkpoints") {
					keep = func(kind string) bool { return kind != results.KindCheckpointCompleted }
				}
				return ddEvents(last, keep, math.Inf(-1), math.Inf(1)) + ddSummary(last, false)
			case "events":
				from, to := math.Inf(-1), math.Inf(1)
				d.MaybeScanArgs(t, "from", &from)
				d.MaybeScanArgs(t, "to", &to)
				return ddEvents(last, ddKinds(d, "kinds"), from, to)
			case "samples":
				return ddSamples(t, d, last)
			case "summary":
				return ddSummary(last, true)
			}
			d.Fatalf(t, "unknown command %q (run, events, samples, summary)", d.Cmd)
			return ""
		})
	})
}

// ddRun is one simulated case.
type ddRun struct {
	sink *memSink
	sum  results.Summary
}

// ddSimulate resolves the case's scenario and runs it.
func ddSimulate(t *testing.T, d *datadriven.TestData) *ddRun {
	var sc scenario.Scenario
	var err error
	if d.HasArg("whole") {
		sc, err = scenario.ParseRun(d.Pos, []byte(d.Input+"\n"), "", nil)
	} else {
		src := ddBase + "variants:\n  - name: " + ddCase + "\n" + ddIndent(d.Input, "    ")
		sc, err = scenario.ParseRun(d.Pos, []byte(src), ddCase, nil)
		if err != nil {
			err = fmt.Errorf("%w\nthe merged scenario:\n%s", err, src)
		}
	}
	if err != nil {
		d.Fatalf(t, "scenario: %v", err)
	}
	sched, err := sc.Resolve()
	if err != nil {
		d.Fatalf(t, "schedule: %v", err)
	}
	r := &ddRun{sink: &memSink{}}
	if r.sum, err = run.Stream(context.Background(), Backend{}, sc, sched, r.sink); err != nil {
		d.Fatalf(t, "run: %v", err)
	}
	return r
}

// ddIndent indents every non-blank line of s, to nest a fragment under the
// variant it is merged as.
func ddIndent(s, by string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if strings.TrimSpace(line) != "" {
			b.WriteString(by)
		}
		b.WriteString(strings.TrimRight(line, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

// ddKinds keeps the event kinds listed in argument key, every kind when
// there is no such argument.
func ddKinds(d *datadriven.TestData, key string) func(kind string) bool {
	arg, ok := d.Arg(key)
	if !ok {
		return func(string) bool { return true }
	}
	kinds := make([]string, len(arg.Vals))
	for i, v := range arg.Vals {
		kinds[i] = strings.TrimSpace(v)
	}
	return func(kind string) bool { return slices.Contains(kinds, kind) }
}

// ddEvents prints one event a line, those of the kinds kept in [from, to]
// s: time, kind, and the fields it has.
func ddEvents(r *ddRun, keep func(kind string) bool, from, to float64) string {
	var b strings.Builder
	for _, e := range r.sink.events {
		if !keep(e.Kind) || e.TimeS < from-1e-9 || e.TimeS > to+1e-9 {
			continue
		}
		fmt.Fprintf(&b, "%s %s", ddNum(e.TimeS), e.Kind)
		if e.TaskManager != nil {
			fmt.Fprintf(&b, " tm=%d", *e.TaskManager)
		}
		if e.CheckpointID != nil {
			fmt.Fprintf(&b, " id=%d", *e.CheckpointID)
		}
		if e.DurationS != nil {
			fmt.Fprintf(&b, " dur=%s", ddNum(*e.DurationS))
		}
		if e.SizeBytes != nil {
			fmt.Fprintf(&b, " size=%s", ddNum(*e.SizeBytes))
		}
		if e.Value != nil {
			fmt.Fprintf(&b, " value=%s", ddNum(*e.Value))
		}
		if e.Reason != "" {
			fmt.Fprintf(&b, " reason=%q", e.Reason)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "no events\n"
	}
	return b.String()
}

// ddSummary prints the summary lines a case pins: with all, latency, CPU
// and QoS as well.
func ddSummary(r *ddRun, all bool) string {
	s := r.sum
	decisions := len(r.sink.kind(results.KindPolicyDecision))
	var b strings.Builder
	fmt.Fprintf(&b, "faults %d, recovered %d%s, unrecovered %d; recovery max %s s; downtime %s s\n",
		s.Faults, s.Recoveries, ddSeconds(s.RecoveryTimesS), s.UnrecoveredFaults, ddNum(s.RecoveryMaxS), ddNum(s.DowntimeS))
	fmt.Fprintf(&b, "records in %d, processed %d, replayed %d; throughput mean %s/s; lag max %d, final %d\n",
		s.RecordsIn, s.RecordsProcessed, s.RecordsReplayed, ddNum(s.ThroughputMean), s.LagMax, s.FinalLag)
	fmt.Fprintf(&b, "checkpoints %d completed, %d failed; decisions %d, reconfigurations %d; final state %s\n",
		s.CheckpointsCompleted, s.CheckpointsFailed, decisions, s.Reconfigurations, s.FinalState)
	if all {
		fmt.Fprintf(&b, "latency ms: mean %s, p50 %s, p99 %s, steady mean %s; coverage %s\n",
			ddNum(s.LatencyMeanMs), ddNum(s.LatencyP50Ms), ddNum(s.LatencyP99Ms), ddNum(s.LatencySteadyMeanMs), ddNum(s.LatencyCoverage))
		fmt.Fprintf(&b, "worker-seconds %s, cpu busy mean %s; checkpoint interval mean %s s, duration mean %s s\n",
			ddNum(s.WorkerSeconds), ddNum(s.CPUBusyMean), ddNum(s.CheckpointIntervalMeanS), ddNum(s.CheckpointMeanS))
		fmt.Fprintf(&b, "qos: %+v\n", s.QoS)
	}
	return b.String()
}

// ddSamples prints the samples ending at the times asked for.
func ddSamples(t *testing.T, d *datadriven.TestData, r *ddRun) string {
	var times []float64
	if !d.MaybeScanArgs(t, "at", &times) {
		var from, to float64
		every := 1.0
		d.ScanArgs(t, "from", &from)
		d.ScanArgs(t, "to", &to)
		d.MaybeScanArgs(t, "every", &every)
		for x := from; x <= to+1e-9; x += every {
			times = append(times, x)
		}
	}
	var b strings.Builder
	for _, x := range times {
		s := r.sink.at(x)
		fmt.Fprintf(&b, "%s %s par=%d ci=%s in=%s thr=%s cap=%s lag=%s\n", ddNum(s.TimeS), s.JobState, s.Parallelism,
			ddNum(s.CheckpointIntervalS), ddNum(s.InputRate), ddNum(s.Throughput), ddNum(s.Capacity), ddNum(s.Lag))
	}
	return b.String()
}

// ddNum rounds x to what a hand check can tell apart and no platform's
// floating point can: whole numbers from 1,000 up, else 3 decimals,
// trailing zeros dropped.
func ddNum(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return strconv.FormatFloat(x, 'f', -1, 64)
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	s := strconv.FormatFloat(x, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// ddSeconds lists the recovery times, " (31 s, 40 s)"; none, nothing.
func ddSeconds(xs []float64) string {
	if len(xs) == 0 {
		return ""
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = ddNum(x) + " s"
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
