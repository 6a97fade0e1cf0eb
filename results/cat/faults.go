package cat

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// FaultSummary is one fault of a run and how the job came back from it.
// The recovery is FaultRecoveries's, the one pairing of a fault with its
// recovered (or unrecovered) event; the detection and the return to
// running are the first failure_detected and the first running event
// after the fault and before the next one. They may come after the
// recovery: live, a job can read its backlog before its last subtask
// reports RUNNING. Times in s since the run start; NaN when there is no
// such event.
type FaultSummary struct {
	measure.FaultRecovery
	TaskManager             *int32 // the TaskManager killed, nil if the event names none
	Reason                  string
	DetectedAtS, RunningAtS float64
	RecoveredAtS            float64 // AtS + RecoveryS
	// DowntimeS is the running event's duration: the outage the run's
	// summary adds up (downtime_s), from the fault, or from the failure
	// it caused when it did not stop the job itself
	DowntimeS float64
}

// FaultSummaries lists the faults of events in time order, each with its
// detection, return to running and recovery.
func FaultSummaries(events []results.Event) []FaultSummary {
	sorted := slices.Clone(events)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].TimeS < sorted[j].TimeS })
	var faults []results.Event
	for _, e := range sorted {
		if e.Kind == results.KindFault {
			faults = append(faults, e)
		}
	}
	recs := measure.FaultRecoveries(events) // the same faults in the same order
	out := make([]FaultSummary, len(faults))
	for i, f := range faults {
		fs := FaultSummary{FaultRecovery: recs[i], TaskManager: f.TaskManager, Reason: f.Reason,
			DetectedAtS: math.NaN(), RunningAtS: math.NaN(), RecoveredAtS: math.NaN(), DowntimeS: math.NaN()}
		if fs.Recovered() {
			fs.RecoveredAtS = fs.AtS + fs.RecoveryS
		}
		next := math.Inf(1)
		if i+1 < len(faults) {
			next = faults[i+1].TimeS
		}
		for _, e := range sorted {
			if e.TimeS < fs.AtS || e.TimeS >= next {
				continue
			}
			switch {
			case e.Kind == results.KindDetected && math.IsNaN(fs.DetectedAtS):
				fs.DetectedAtS = e.TimeS
			case e.Kind == results.KindRunning && math.IsNaN(fs.RunningAtS):
				fs.RunningAtS = e.TimeS
				if e.DurationS != nil {
					fs.DowntimeS = *e.DurationS
				}
			}
		}
		out[i] = fs
	}
	return out
}

// writeFaultSummary prints one row per fault: an aligned table with a
// closing count, or CSV with exact values (empty for none).
func writeFaultSummary(w io.Writer, faults []FaultSummary, asCSV bool) error {
	header := []string{"fault", "at_s", "taskmanager", "detected_s", "running_s", "recovered_s", "recovery_s"}
	if asCSV {
		cw := csv.NewWriter(w)
		cw.Write(append(header, "unrecovered_s", "reason"))
		num := func(x float64) string {
			if math.IsNaN(x) {
				return ""
			}
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		for i, f := range faults {
			tm := ""
			if f.TaskManager != nil {
				tm = strconv.Itoa(int(*f.TaskManager))
			}
			cw.Write([]string{strconv.Itoa(i + 1), num(f.AtS), tm, num(f.DetectedAtS), num(f.RunningAtS),
				num(f.RecoveredAtS), num(f.RecoveryS), num(f.UnrecoveredS), f.Reason})
		}
		cw.Flush()
		return cw.Error()
	}
	if len(faults) == 0 {
		_, err := io.WriteString(w, "no faults\n")
		return err
	}
	// a time with its delay after the fault: 2,102.384 (+1.000)
	at := func(t, fault float64) string {
		if math.IsNaN(t) {
			return textfmt.NoValue
		}
		return catFigure("time_s", t) + " (+" + catFigure("time_s", t-fault) + ")"
	}
	rows := [][]string{append(header, "reason")}
	recovered, unrecovered, neither := 0, 0, 0
	for i, f := range faults {
		tm := textfmt.NoValue
		if f.TaskManager != nil {
			tm = strconv.Itoa(int(*f.TaskManager))
		}
		rec := textfmt.NoValue
		switch {
		case f.Recovered():
			rec = catFigure("recovery_s", f.RecoveryS)
			recovered++
		case !math.IsNaN(f.UnrecoveredS):
			rec = "unrecovered (>" + catFigure("recovery_s", f.UnrecoveredS) + ")"
			unrecovered++
		default:
			neither++
		}
		recAt := textfmt.NoValue
		if f.Recovered() {
			recAt = catFigure("time_s", f.RecoveredAtS)
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), catFigure("time_s", f.AtS), tm,
			at(f.DetectedAtS, f.AtS), at(f.RunningAtS, f.AtS), recAt, rec, formatText([]byte(f.Reason), false)})
	}
	right := []bool{true, true, true, true, true, true, true, false}
	var b strings.Builder
	textfmt.WriteAligned(&b, rows, right)
	fmt.Fprintf(&b, "%s: %s recovered, %s unrecovered", textfmt.Plural(len(faults), "fault"), textfmt.Count(float64(recovered)), textfmt.Count(float64(unrecovered)))
	if neither > 0 {
		fmt.Fprintf(&b, ", %s with neither (no recovered or unrecovered event began at the fault: e.g. a TaskManager already down or running no task)", textfmt.Count(float64(neither)))
	}
	b.WriteString("\n")
	if unrecovered > 0 {
		b.WriteString("unrecovered (>T): still recovering when the run ended, T s after the fault; its recovery time is longer\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
