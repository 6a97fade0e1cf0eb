package run_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/streamtwin/streamtwin/internal/control"
	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
)

const dirScenario = `
name: dir
duration: 30s
workload: {shape: constant, rate: 1000/s}
`

// fake is a backend that executes runs with exec and carries out what
// caps says.
type fake struct {
	caps control.Capabilities
	exec func(p *run.Plan, sink run.Sink) (results.Summary, error)
}

func (fake) Name() string { return "fake" }

func (f fake) Capabilities(context.Context) (control.Capabilities, error) { return f.caps, nil }

func (f fake) Execute(_ context.Context, p *run.Plan, sink run.Sink) (results.Summary, error) {
	return f.exec(p, sink)
}

// TestToDir: whatever executes the run, its folder holds the rows the
// backend streamed, its summary and the resolved scenario; a backend that
// fails, or one that cannot carry out what the scenario asks, leaves no
// folder (the refusal comes before the run starts, with the field).
func TestToDir(t *testing.T) {
	f, err := scenario.Parse("dir.yaml", []byte(dirScenario))
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Runs()[0]
	resolved, err := yaml.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	f, err = scenario.Parse("dir.yaml", []byte(dirScenario+"faults:\n  - {at: 10s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	withFault := f.Runs()[0]
	writes := fake{caps: control.Everything("a fake"), exec: func(p *run.Plan, sink run.Sink) (results.Summary, error) {
		for i := 1; i <= 3; i++ {
			if err := sink.WriteSample(results.Sample{TimeS: float64(i), InputRate: p.Schedule.Rates.RateAt(float64(i))}); err != nil {
				return results.Summary{}, err
			}
		}
		if err := sink.WriteEvent(results.Event{TimeS: 2, Kind: results.KindFault}); err != nil {
			return results.Summary{}, err
		}
		return results.Summary{Scenario: p.Scenario.Name, Backend: "fake", DurationS: 3, Faults: 1}, nil
	}}
	failing := fake{caps: control.Everything("a fake"), exec: func(*run.Plan, run.Sink) (results.Summary, error) {
		return results.Summary{}, errors.New("the backend went away")
	}}
	noFaults := writes
	noFaults.caps.Faults, noFaults.caps.NoFaultsWhy = false, "it has no TaskManagers to kill"
	cases := []struct {
		name    string
		backend run.Backend
		sc      scenario.Scenario
		wantErr string
		samples int
		kind    string
	}{
		{"fake backend", writes, sc, "", 3, "fake"},
		{"simulator", twin.Backend{}, sc, "", int(float64(sc.Duration) / float64(sc.MetricInterval)), "sim"}, // one sample per metric interval
		{"failing backend", failing, sc, "the backend went away", 0, ""},
		{"refused fault", noFaults, withFault, "a fake cannot run this scenario: faults[0]: a fake cannot inject faults: it has no TaskManagers to kill", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			sum, err := run.ToDir(context.Background(), c.backend, c.sc, dir, run.Output{})
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("a failed run left %s (%v)", dir, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := results.ReadSummary(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got.Backend != c.kind || got.Scenario != sum.Scenario || got.Faults != sum.Faults {
				t.Errorf("summary.json %+v, returned %+v; want backend %s", got, sum, c.kind)
			}
			samples, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != c.samples {
				t.Errorf("%d samples, want %d", len(samples), c.samples)
			}
			text, err := os.ReadFile(filepath.Join(dir, results.ScenarioFile))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(text, resolved) {
				t.Errorf("scenario.yaml is not the resolved scenario:\n%s\nwant\n%s", text, resolved)
			}
		})
	}
}
