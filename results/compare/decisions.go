package compare

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// Decision is one policy decision of a run, parsed from a policy_decision
// event.
type Decision struct {
	TimeS float64
	// Kind is the action kind (set_checkpoint_interval, rescale,
	// trigger_savepoint, note), or "other" for a decision the backend wrote
	// itself, e.g. "reconfiguration failed: …".
	Kind string
	// Value is the new CI (s) for set_checkpoint_interval, the parallelism
	// for rescale, 0 for the others; NaN when the event has none.
	Value float64
	// Reason is the event's reason without the kind prefix; a refused action
	// keeps the backend's "(rejected: …)" at its end.
	Reason   string
	Rejected bool
}

// actionKinds are the prefixes of a decision's reason: models/policy's
// ActionKind values (not imported: this package depends on results only).
var actionKinds = []string{"set_checkpoint_interval", "rescale", "trigger_savepoint", "note"}

// Decisions reads the decision log of a run folder, in time order.
func Decisions(dir string) ([]Decision, error) {
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return nil, err
	}
	var out []Decision
	for _, e := range events {
		if e.Kind == results.KindPolicyDecision {
			out = append(out, decision(e))
		}
	}
	return out, nil
}

func decision(e results.Event) Decision {
	d := Decision{TimeS: e.TimeS, Kind: "other", Value: math.NaN(), Reason: e.Reason}
	if e.Value != nil {
		d.Value = *e.Value
	}
	for _, k := range actionKinds {
		if r, ok := strings.CutPrefix(e.Reason, k+": "); ok {
			d.Kind, d.Reason = k, r
			break
		}
	}
	// the simulator appends "(rejected: …)"; the live backend "(not
	// supported live)" for an action it cannot carry out
	d.Rejected = d.Kind != "other" && (strings.Contains(d.Reason, " (rejected: ") || strings.HasSuffix(d.Reason, " (not supported live)"))
	return d
}

// CIStep is one step of a CI timeline: the checkpoint interval in force
// from FromS on.
type CIStep struct{ FromS, IntervalS float64 }

// CITimeline is the CI in force over a run, from its timeseries: a step at
// the first sample and at every sample whose checkpoint_interval_s differs
// from the previous one (FromS is that sample's time, the end of the
// interval in which the CI changed).
func CITimeline(samples []results.Sample) []CIStep {
	var out []CIStep
	for i, s := range samples {
		if i == 0 || !sameDecisionValue(s.CheckpointIntervalS, out[len(out)-1].IntervalS) {
			out = append(out, CIStep{s.TimeS, s.CheckpointIntervalS})
		}
	}
	return out
}

// WriteDecisionTable prints the decision logs of two runs side by side (A
// the baseline, e.g. the simulator; B the candidate, e.g. live), matched by
// order, then the first decision where they differ in kind or value and
// both CI timelines.
func WriteDecisionTable(w io.Writer, a, b []Decision, ciA, ciB []CIStep, labelA, labelB string) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "policy decisions (A = %s, B = %s)\n", labelA, labelB)
	fmt.Fprintf(&sb, "%-3s %-10s %-24s %-8s %-10s %-24s %-8s %s\n", "#", "A time (s)", "A kind", "A value", "B time (s)", "B kind", "B value", "Δt (s)")
	n := max(len(a), len(b))
	cells := func(ds []Decision, i int) (string, string, string) {
		if i >= len(ds) {
			return "–", "none", "–"
		}
		return clock(ds[i].TimeS), ds[i].Kind, decisionValue(ds[i])
	}
	for i := range n {
		ta, ka, va := cells(a, i)
		tb, kb, vb := cells(b, i)
		dt := "–"
		if i < len(a) && i < len(b) {
			dt = fmt.Sprintf("%+.1f", b[i].TimeS-a[i].TimeS)
		}
		fmt.Fprintf(&sb, "%-3d %-10s %-24s %-8s %-10s %-24s %-8s %s\n", i+1, ta, ka, va, tb, kb, vb, dt)
		switch {
		case i < len(a) && i < len(b) && a[i].Reason == b[i].Reason:
			fmt.Fprintf(&sb, "    A, B: %s\n", truncate(a[i].Reason, 60))
		default:
			for _, s := range []struct {
				name string
				ds   []Decision
			}{{"A", a}, {"B", b}} {
				if i < len(s.ds) {
					fmt.Fprintf(&sb, "    %s: %s\n", s.name, truncate(s.ds[i].Reason, 60))
				}
			}
		}
	}
	if i, ok := firstDivergence(a, b); ok {
		fmt.Fprintf(&sb, "first divergence: decision %d: A %s, B %s\n", i+1, describe(a, i), describe(b, i))
		if i < len(a) {
			fmt.Fprintf(&sb, "  A reason: %s\n", a[i].Reason)
		}
		if i < len(b) {
			fmt.Fprintf(&sb, "  B reason: %s\n", b[i].Reason)
		}
	} else if n == 0 {
		sb.WriteString("no divergence: neither run has a policy decision\n")
	} else {
		var dt float64
		for i := range n {
			dt = max(dt, math.Abs(b[i].TimeS-a[i].TimeS))
		}
		fmt.Fprintf(&sb, "no divergence: %s %s in kind and value; largest time difference %s s\n", textfmt.Plural(n, "decision"), map[bool]string{true: "agrees", false: "agree"}[n == 1], clock(dt))
	}
	for _, t := range []struct {
		name  string
		steps []CIStep
	}{{"A", ciA}, {"B", ciB}} {
		parts := []string{"no samples"}
		if len(t.steps) > 0 {
			parts = parts[:0]
		}
		for _, s := range t.steps {
			parts = append(parts, fmt.Sprintf("%g s from %s s", s.IntervalS, clock(s.FromS)))
		}
		fmt.Fprintf(&sb, "CI timeline %s: %s\n", t.name, strings.Join(parts, ", "))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// firstDivergence is the first index where the logs differ in kind or
// value, or where one has no more decisions.
func firstDivergence(a, b []Decision) (int, bool) {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i].Kind != b[i].Kind || !sameDecisionValue(a[i].Value, b[i].Value) {
			return i, true
		}
	}
	return 0, false
}

// sameDecisionValue: equal within 1e-9 relative (NaN equals NaN).
func sameDecisionValue(x, y float64) bool {
	return x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)) || (math.IsNaN(x) && math.IsNaN(y))
}

// decisionValue is a decision's value with its unit, "–" for kinds without one.
func decisionValue(d Decision) string {
	switch {
	case math.IsNaN(d.Value):
		return "–"
	case d.Kind == "set_checkpoint_interval":
		return fmt.Sprintf("%g s", d.Value)
	case d.Kind == "rescale":
		return fmt.Sprintf("%g", d.Value)
	}
	return "–"
}

// describe is decision i of a log in a sentence: "set_checkpoint_interval
// 10 s at 61.0 s (rejected)", or "none".
func describe(ds []Decision, i int) string {
	if i >= len(ds) {
		return "none"
	}
	d := ds[i]
	s := d.Kind
	if v := decisionValue(d); v != "–" {
		s += " " + v
	}
	s += " at " + clock(d.TimeS) + " s"
	if d.Rejected {
		s += " (rejected)"
	}
	return s
}

// truncate shortens s to n characters, ending in … when cut, on one line.
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
