package calibrate_test

import (
	"context"
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// detectorSink keeps a run in memory.
type detectorSink struct {
	samples []results.Sample
	events  []results.Event
}

func (m *detectorSink) WriteSample(s results.Sample) error {
	m.samples = append(m.samples, s)
	return nil
}

func (m *detectorSink) WriteEvent(e results.Event) error {
	m.events = append(m.events, e)
	return nil
}

func (m *detectorSink) only(t *testing.T, kind string) results.Event {
	t.Helper()
	var found []results.Event
	for _, e := range m.events {
		if e.Kind == kind {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s events, want 1", len(found), kind)
	}
	return found[0]
}

// TestDetectorAgreesWithSimulator: measure.DetectRecovery, run on the
// simulator's own samples, finds the recovery time the simulator reports
// (within the 1-s sample resolution, 2 s allowed), so measured and simulated
// recoveries follow the same rule when the calibration compares them.
func TestDetectorAgreesWithSimulator(t *testing.T) {
	cases := []struct{ name, duration, workload, ci, at string }{
		{"Khaos-like: 50000/s, CI 60 s", "1200s", "{shape: constant, rate: 50000/s}", "60s", "400s"},
		// after the restart the checkpoint stalls land just before sample
		// ends, so the lag shows them (see measure.RecoveryOptions.LagFloor)
		{"high load: 90000/s, CI 10 s", "1200s", "{shape: constant, rate: 90000/s}", "10s", "400s"},
		{"30000/s, CI 120 s", "1200s", "{shape: constant, rate: 30000/s}", "120s", "400s"},
		// a varying input: the throughput band follows the input rate
		{"daily curve, rising load", "2h", "{shape: daily, period: 2h, peak: 120000/s, min: 20000/s}", "10s", "35m"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "name: detector\nduration: " + c.duration + "\nworkload: " + c.workload + "\n" +
				"job:\n  template: ysb\n  checkpoint: {interval: " + c.ci + "}\n" +
				"faults: [{at: " + c.at + ", before_checkpoint: 3s, operator: sink}]\n"
			m := simulate(t, src)
			fault := m.only(t, results.KindFault).TimeS
			rec := m.only(t, results.KindRecovered)
			if rec.DurationS == nil || math.Abs(rec.TimeS-fault-*rec.DurationS) > 1e-6 {
				t.Fatalf("recovered event %+v does not measure from the fault at %gs", rec, fault)
			}
			got, err := measure.DetectRecovery(m.samples, fault, measure.RecoveryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("fault at %.3fs: simulator %.3fs, detector %.3fs (pre-fault %.0f records/s, lag %.0f)",
				fault, *rec.DurationS, got.RecoveryS, got.PreThroughput, got.PreLag)
			if math.IsNaN(got.RecoveryS) || math.Abs(got.RecoveryS-*rec.DurationS) > 2 {
				t.Errorf("detector %v s, simulator %v s: want within 2 s", got.RecoveryS, *rec.DurationS)
			}
		})
	}
}

func simulate(t *testing.T, src string) *detectorSink {
	t.Helper()
	f, err := scenario.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Runs()[0]
	sched, err := sc.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	m := &detectorSink{}
	if _, err := run.Stream(context.Background(), twin.Backend{}, sc, sched, m); err != nil {
		t.Fatal(err)
	}
	return m
}
