package compare

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

func decisionEvent(t float64, reason string, v *float64) results.Event {
	return results.Event{TimeS: t, Kind: results.KindPolicyDecision, Value: v, Reason: reason}
}

// TestDecisions: a run folder's decision events, parsed; other events are
// not decisions.
func TestDecisions(t *testing.T) {
	samples, events, sum := resultstest.SyntheticRun(100)
	events = append(events,
		decisionEvent(61, "set_checkpoint_interval: lag rising: optimum 30 s", resultstest.Ptr(30.0)),
		decisionEvent(80, "rescale: load high (rejected: parallelism 200 above max_parallelism 128)", resultstest.Ptr(200.0)),
		decisionEvent(85, "note: optimum too close to act", resultstest.Ptr(0.0)),
		decisionEvent(90, "reconfiguration failed: savepoint timed out", nil),
	)
	dir := t.TempDir()
	resultstest.WriteRun(t, dir, samples, events, sum)
	got, err := Decisions(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Decision{
		{61, "set_checkpoint_interval", 30, "lag rising: optimum 30 s", false},
		{80, "rescale", 200, "load high (rejected: parallelism 200 above max_parallelism 128)", true},
		{85, "note", 0, "optimum too close to act", false},
		{90, "other", math.NaN(), "reconfiguration failed: savepoint timed out", false},
	}
	if !resultstest.Same(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if _, err := Decisions(t.TempDir()); err == nil {
		t.Error("a folder without events.parquet: no error")
	}
}

// TestDecisionsCITimeline: the CI timeline, a step at the first sample and at each change.
func TestDecisionsCITimeline(t *testing.T) {
	samples, _, _ := resultstest.SyntheticRun(100) // 10 s, 30 s after 70 s
	samples = append(samples, results.Sample{TimeS: 101, CheckpointIntervalS: 30 * (1 + 1e-12)}, results.Sample{TimeS: 102, CheckpointIntervalS: 5})
	want := []CIStep{{1, 10}, {71, 30}, {102, 5}}
	if got := CITimeline(samples); !resultstest.Same(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := CITimeline(nil); len(got) != 0 {
		t.Errorf("no samples: %v", got)
	}
}

// TestWriteDecisionTable: the first divergence (or its absence) on
// hand-made decision logs.
func TestWriteDecisionTable(t *testing.T) {
	ci := func(v float64) results.Event {
		return decisionEvent(61, "set_checkpoint_interval: lag rising", resultstest.Ptr(v))
	}
	note := decisionEvent(120, "note: optimum too close to act", resultstest.Ptr(0.0))
	long := "set_checkpoint_interval: " + strings.Repeat("the lag has been rising for ten minutes; ", 3)
	cases := []struct {
		name string
		a, b []results.Event
		want []string // each must appear
		not  []string
	}{
		{"identical logs", []results.Event{ci(10), note}, []results.Event{shifted(ci(10), 2.1), shifted(note, -0.5)},
			[]string{"no divergence: 2 decisions agree in kind and value; largest time difference 2.1 s", "+2.1", "-0.5", "A, B: lag rising"},
			[]string{"first divergence"}},
		{"values equal within 1e-9", []results.Event{ci(10)}, []results.Event{ci(10 * (1 + 1e-12))},
			[]string{"no divergence: 1 decision agrees"}, nil},
		{"divergent value", []results.Event{ci(10), note}, []results.Event{shifted(ci(20), 1), note},
			[]string{"first divergence: decision 1: A set_checkpoint_interval 10 s at 61.0 s, B set_checkpoint_interval 20 s at 62.0 s\n",
				"  A reason: lag rising\n", "  B reason: lag rising\n"}, nil},
		{"one side with an extra decision", []results.Event{ci(10), note}, []results.Event{ci(10)},
			[]string{"first divergence: decision 2: A note at 120.0 s, B none\n", "  A reason: optimum too close to act\n"},
			[]string{"B reason"}},
		{"a rejected decision", []results.Event{decisionEvent(30, "rescale: load high (rejected: parallelism 200 above max_parallelism 128)", resultstest.Ptr(200.0))},
			[]results.Event{decisionEvent(30, "rescale: load high", resultstest.Ptr(4.0))},
			[]string{"first divergence: decision 1: A rescale 200 at 30.0 s (rejected), B rescale 4 at 30.0 s\n",
				"  A reason: load high (rejected: parallelism 200 above max_parallelism 128)\n"}, nil},
		{"a non-action decision reason", []results.Event{ci(10)}, []results.Event{ci(10), decisionEvent(70, "reconfiguration failed: savepoint timed out", nil)},
			[]string{"2   –          none     ", "other", "first divergence: decision 2: A none, B other at 70.0 s\n",
				"  B reason: reconfiguration failed: savepoint timed out\n"}, nil},
		{"long reasons: truncated in the table, in full at the divergence", []results.Event{decisionEvent(61, long, resultstest.Ptr(10.0))}, nil,
			[]string{"    A: the lag has been rising for ten minutes; the lag has been r…\n", "  A reason: " + long[len("set_checkpoint_interval: "):] + "\n"}, nil},
		{"no decisions", nil, nil, []string{"no divergence: neither run has a policy decision"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			ciA, ciB := []CIStep{{1, 30}, {68.2, 10}}, []CIStep(nil)
			if err := WriteDecisionTable(&b, decisionsOf(c.a), decisionsOf(c.b), ciA, ciB, "sim", "live"); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, w := range append(c.want, "policy decisions (A = sim, B = live)\n", "CI timeline A: 30 s from 1.0 s, 10 s from 68.2 s\n", "CI timeline B: no samples\n") {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.not {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}

func shifted(e results.Event, dt float64) results.Event { e.TimeS += dt; return e }

func decisionsOf(events []results.Event) []Decision {
	var out []Decision
	for _, e := range events {
		out = append(out, decision(e))
	}
	return out
}

func ExampleWriteDecisionTable() {
	sim := []Decision{
		{TimeS: 61, Kind: "set_checkpoint_interval", Value: 10, Reason: "lag rising: optimum CI 10 s"},
		{TimeS: 300, Kind: "note", Reason: "optimum too close to act"},
	}
	live := []Decision{
		{TimeS: 63.1, Kind: "set_checkpoint_interval", Value: 10, Reason: "lag rising: optimum CI 10 s"},
		{TimeS: 300.4, Kind: "set_checkpoint_interval", Value: 20, Reason: "recovery above the bound: optimum CI 20 s"},
	}
	WriteDecisionTable(os.Stdout, sim, live,
		[]CIStep{{1, 30}, {68.2, 10}}, []CIStep{{1, 30}, {71.5, 10}, {309, 20}}, "runs/sim", "runs/live")
	// Output:
	// policy decisions (A = runs/sim, B = runs/live)
	// #   A time (s) A kind                   A value  B time (s) B kind                   B value  Δt (s)
	// 1   61.0       set_checkpoint_interval  10 s     63.1       set_checkpoint_interval  10 s     +2.1
	//     A, B: lag rising: optimum CI 10 s
	// 2   300.0      note                     –        300.4      set_checkpoint_interval  20 s     +0.4
	//     A: optimum too close to act
	//     B: recovery above the bound: optimum CI 20 s
	// first divergence: decision 2: A note at 300.0 s, B set_checkpoint_interval 20 s at 300.4 s
	//   A reason: optimum too close to act
	//   B reason: recovery above the bound: optimum CI 20 s
	// CI timeline A: 30 s from 1.0 s, 10 s from 68.2 s
	// CI timeline B: 30 s from 1.0 s, 10 s from 71.5 s, 20 s from 309.0 s
}
