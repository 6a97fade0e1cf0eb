package twin

import (
	"context"
	"testing"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
)

// memSink keeps every row in memory for assertions.
type memSink struct {
	samples []results.Sample
	events  []results.Event
}

func (m *memSink) WriteSample(s results.Sample) error { m.samples = append(m.samples, s); return nil }
func (m *memSink) WriteEvent(e results.Event) error   { m.events = append(m.events, e); return nil }

func (m *memSink) kind(k string) []results.Event {
	var out []results.Event
	for _, e := range m.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// at returns the sample ending at time t (s).
func (m *memSink) at(t float64) results.Sample {
	for _, s := range m.samples {
		if s.TimeS >= t-1e-9 {
			return s
		}
	}
	return m.samples[len(m.samples)-1]
}

// runYAML loads a scenario from text and simulates its first run.
func runYAML(t *testing.T, src string) (*memSink, results.Summary) {
	t.Helper()
	f, err := scenario.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	sc := f.Runs()[0]
	sched, err := sc.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	sum, err := simulate(sc, sched, sink)
	if err != nil {
		t.Fatal(err)
	}
	return sink, sum
}

// simulate runs sc on the twin as every caller does: through the run
// lifecycle (internal/run), which builds the policy and checks the
// scenario.
func simulate(sc scenario.Scenario, sched *scenario.Schedule, sink run.Sink) (results.Summary, error) {
	return run.Stream(context.Background(), Backend{}, sc, sched, sink)
}
