package twin

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
)

const dirScenario = `
name: dir
duration: 30s
workload: {shape: constant, rate: 1000/s}
`

// TestRunToDirWith: whatever executes the run, its folder holds the rows
// the executor streamed, its summary and the resolved scenario; an executor
// that fails leaves no folder. RunToDir is the same path with the simulator.
func TestRunToDirWith(t *testing.T) {
	f, err := scenario.Parse("dir.yaml", []byte(dirScenario))
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Runs()[0]
	resolved, err := yaml.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	fake := func(sc scenario.Scenario, sched *scenario.Schedule, sink Sink) (results.Summary, error) {
		for i := 1; i <= 3; i++ {
			if err := sink.WriteSample(results.Sample{TimeS: float64(i), InputRate: sched.Rates.RateAt(float64(i))}); err != nil {
				return results.Summary{}, err
			}
		}
		if err := sink.WriteEvent(results.Event{TimeS: 2, Kind: results.KindFault}); err != nil {
			return results.Summary{}, err
		}
		return results.Summary{Scenario: sc.Name, Backend: "fake", DurationS: 3, Faults: 1}, nil
	}
	failing := func(scenario.Scenario, *scenario.Schedule, Sink) (results.Summary, error) {
		return results.Summary{}, errors.New("the backend went away")
	}
	cases := []struct {
		name    string
		exec    Executor
		wantErr string
		samples int
		backend string
	}{
		{"fake backend", fake, "", 3, "fake"},
		{"simulator", Run, "", int(float64(sc.Duration) / float64(sc.MetricInterval)), "sim"}, // one sample per metric interval
		{"failing backend", failing, "the backend went away", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			sum, err := RunToDirWith(c.exec, sc, dir, Output{})
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
			if got.Backend != c.backend || got.Scenario != sum.Scenario || got.Faults != sum.Faults {
				t.Errorf("summary.json %+v, returned %+v; want backend %s", got, sum, c.backend)
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

// TestRunToDirIsTheSimulatorPath: RunToDir writes what RunToDirWith(Run)
// writes, byte for byte (summary.json included: it holds no wall time).
func TestRunToDirIsTheSimulatorPath(t *testing.T) {
	f, err := scenario.Parse("dir.yaml", []byte(dirScenario+"faults:\n  - {at: 10s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Runs()[0]
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if _, err := RunToDir(sc, a, Output{}); err != nil {
		t.Fatal(err)
	}
	if _, err := RunToDirWith(Run, sc, b, Output{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{results.TimeseriesFile, results.EventsFile, results.SummaryFile, results.ScenarioFile} {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between RunToDir and RunToDirWith(Run)", name)
		}
	}
}
