package check

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/results/compare"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// QoSFigure is a summary figure check judges; lower is better for each.
type QoSFigure struct {
	Name string // the summary.json figure (qos.* as qos_*), as in tolerance files
	What string // what it stands for
}

// QoSFigures are the figures of the table, in its order. The checkpoint
// overhead is the time checkpoints were in flight (each costs the async
// upload's CPU, job.checkpoint.cpu_overhead, and an alignment) and the
// failed ones (work thrown away).
var QoSFigures = []QoSFigure{
	{"recovery_mean_s", "recovery time: mean over faults, unrecovered ones censored at the run's end"},
	{"unrecovered_faults", "faults whose recovery had not finished when the run ended"},
	{"qos_recovery_violations", "recoveries longer than qos.recovery, and unrecovered faults"},
	{"qos_latency_violation_seconds", "seconds whose latency p99 exceeded qos.latency"},
	{"latency_p99_ms", "99th percentile of the per-second latency p99"},
	{"checkpoint_time_s", "checkpoint overhead: seconds completed checkpoints were in flight, summed"},
	{"checkpoints_failed", "checkpoint overhead: checkpoints that failed"},
	{"worker_seconds", "resources: TaskManager-seconds alive"},
}

func qosRank(figure string) int {
	return slices.IndexFunc(QoSFigures, func(q QoSFigure) bool { return q.Name == figure })
}

// Verdict is which way a figure moved against its reference.
type Verdict string

const (
	Same    Verdict = "="      // within tolerance (changed or not)
	Better  Verdict = "better" // lower, beyond tolerance
	Worse   Verdict = "worse"  // higher (or not a number any more), beyond tolerance
	New     Verdict = "new"    // the reference lacks the figure (an older file)
	Missing Verdict = "gone"   // the run lacks the figure
)

// Report is what Run found.
type Report struct {
	List    string   // the list file; "" for the default set
	Skipped []string // references of the default set without their scenario
	// Policy is the policy under test as swapped into every run (flow
	// YAML); "" when each scenario kept its own.
	Policy  string
	Update  bool
	Out     string // where the runs were kept; "" when they were removed
	Entries []EntryReport
}

// EntryReport is one scenario of the list.
type EntryReport struct {
	Name      string
	Reference string
	Tolerance string   // the tolerance file used; "" for the default tolerances
	Runs      []string // run keys (variant, or the scenario's name)
	Rows      []Row    // every QoS figure of every run, by run then QoSFigures
	Wall      time.Duration
	Written   int // runs written into the reference (Update)
}

// Row is one QoS figure of one run.
type Row struct {
	Run    string // the entry's name, with /variant for a scenario with variants
	Figure string
	// Ref and Now are the reference's value and the fresh run's; InRef and
	// InNow are false for a figure one of them lacks.
	Ref, Now     float64
	InRef, InNow bool
	Abs, Rel     float64 // Now − Ref and (Now − Ref)/|Ref|
	Tol          compare.Tolerance
	Verdict      Verdict
}

// Changed: the figure differs from its reference at all (within tolerance
// or not), or is on one side only.
func (r Row) Changed() bool {
	return !r.InRef || !r.InNow || r.Ref != r.Now && !(math.IsNaN(r.Ref) && math.IsNaN(r.Now))
}

// qosRows picks the QoS figures out of a comparison of the entry's runs,
// in the order of keys (the scenario's runs), each run's figures in the
// order of QoSFigures.
func qosRows(name string, keys []string, variants bool, c *compare.Comparison) []Row {
	var rows []Row
	for _, key := range keys {
		start := len(rows)
		for _, d := range c.Diffs {
			if qosRank(d.Figure) < 0 || d.Run != key && len(keys) > 1 {
				continue
			}
			run := name
			if variants {
				run += "/" + key
			}
			r := Row{Run: run, Figure: d.Figure, Ref: d.A, Now: d.B, InRef: d.InA, InNow: d.InB, Abs: d.Abs, Rel: d.Rel, Tol: d.Tol}
			switch {
			case !d.InA:
				r.Verdict = New
			case !d.InB:
				r.Verdict = Missing
			case !d.Beyond:
				r.Verdict = Same
			case d.B < d.A:
				r.Verdict = Better
			default:
				r.Verdict = Worse
			}
			rows = append(rows, r)
		}
		slices.SortStableFunc(rows[start:], func(a, b Row) int { return qosRank(a.Figure) - qosRank(b.Figure) })
	}
	return rows
}

// Rows are the rows of every entry, in list order.
func (r *Report) Rows() []Row {
	var out []Row
	for _, e := range r.Entries {
		out = append(out, e.Rows...)
	}
	return out
}

// Worse are the rows that got worse beyond tolerance.
func (r *Report) Worse() []Row {
	var out []Row
	for _, row := range r.Rows() {
		if row.Verdict == Worse {
			out = append(out, row)
		}
	}
	return out
}

// WorseEntries names the entries with a figure that got worse.
func (r *Report) WorseEntries() []string {
	var out []string
	for _, e := range r.Entries {
		if slices.ContainsFunc(e.Rows, func(row Row) bool { return row.Verdict == Worse }) {
			out = append(out, e.Name)
		}
	}
	return out
}

func (r *Report) runCount() int {
	n := 0
	for _, e := range r.Entries {
		n += len(e.Runs)
	}
	return n
}

// WriteTable prints the report: what was checked, a table of the QoS
// figures that changed (all of them with all), reference against now with
// the change, the tolerance and the verdict, and a last line naming what
// got worse, or saying nothing did. With Update it lists the references
// written.
func (r *Report) WriteTable(w io.Writer, all bool) error {
	bw := bufio.NewWriter(w)
	set := "the committed references (" + ReferenceDir + ")"
	if r.List != "" {
		set = r.List
	}
	fmt.Fprintf(bw, "check: %s, %s in %s\n", plural(len(r.Entries), "scenario"), plural(r.runCount(), "run"), set)
	if r.Policy != "" {
		fmt.Fprintf(bw, "policy under test: %s, in every scenario and variant\n", r.Policy)
	} else {
		fmt.Fprintln(bw, "policy: each scenario's and variant's own")
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(bw, "skipped %s: its source scenario is not there\n", s)
	}
	if r.Out != "" {
		fmt.Fprintf(bw, "runs: %s\n", r.Out)
	}
	if r.Update {
		for _, e := range r.Entries {
			fmt.Fprintf(bw, "wrote %s (%s)\n", e.Reference, plural(e.Written, "run"))
		}
		fmt.Fprintf(bw, "updated %s\n", plural(len(r.Entries), "reference"))
		return bw.Flush()
	}

	rows := [][]string{{"RUN", "FIGURE", "REF", "NOW", "CHANGE", "REL", "TOL", "VERDICT"}}
	var better, within int
	for _, row := range r.Rows() {
		switch {
		case row.Verdict == Better:
			better++
		case row.Verdict == Same && row.Changed():
			within++
		}
		if !all && !row.Changed() {
			continue
		}
		scale := textfmt.Scale(row.Ref, row.Now)
		cells := []string{row.Run, row.Figure, "-", "-", "", "", row.Tol.String(), string(row.Verdict)}
		if row.InRef {
			cells[2] = textfmt.Figure(row.Figure, row.Ref, scale)
		}
		if row.InNow {
			cells[3] = textfmt.Figure(row.Figure, row.Now, scale)
		}
		if row.InRef && row.InNow {
			cells[4], cells[5] = compare.ChangeCells(row.Figure, row.Abs, row.Rel, scale)
		}
		rows = append(rows, cells)
	}
	if len(rows) > 1 {
		fmt.Fprintln(bw)
		textfmt.WriteAligned(bw, rows, []bool{false, false, true, true, true, true, true, false})
		fmt.Fprintln(bw)
	}
	fmt.Fprintln(bw, r.Verdict(better, within))
	return bw.Flush()
}

// Verdict is the report's last line.
func (r *Report) Verdict(better, within int) string {
	worse := r.Worse()
	if len(worse) == 0 {
		s := fmt.Sprintf("nothing worse beyond tolerance (%s, %s)", plural(len(r.Entries), "scenario"), plural(r.runCount(), "run"))
		if better+within == 0 {
			return s + "; no QoS figure changed"
		}
		return s + fmt.Sprintf("; %s better, %d changed within tolerance", plural(better, "QoS figure"), within)
	}
	var parts []string
	for i := 0; i < len(worse); {
		run := worse[i].Run
		var figs []string
		for ; i < len(worse) && worse[i].Run == run; i++ {
			figs = append(figs, worse[i].Figure+" "+worseChange(worse[i]))
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", run, strings.Join(figs, ", ")))
	}
	return fmt.Sprintf("worse: %s of %s: %s", plural(len(parts), "run"), plural(len(r.WorseEntries()), "scenario"), strings.Join(parts, "; "))
}

// worseChange is how much a figure got worse, for the last line: the
// relative change, or the change itself for a count or from 0.
func worseChange(row Row) string {
	abs, rel := compare.ChangeCells(row.Figure, row.Abs, row.Rel, textfmt.Scale(row.Ref, row.Now))
	if textfmt.IsCount(row.Figure) || rel == textfmt.NoValue {
		return abs
	}
	return rel
}
