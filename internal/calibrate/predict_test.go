package calibrate

import (
	"errors"
	"math"
	"os"
	"testing"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/ingest"
)

// fullRun hides the sink's request to stop: the point runs to its horizon,
// as every point did before early stop.
type fullRun struct{ *pointSink }

func (f fullRun) WriteEvent(e results.Event) error {
	if err := f.pointSink.WriteEvent(e); !errors.Is(err, twin.ErrStopRun) {
		return err
	}
	return nil
}

// runBoth simulates p twice: stopped once the recovery is in (as Predict
// does) and to the horizon.
func runBoth(t *testing.T, sc scenario.Scenario, p Point, o Options) (early, full *pointSink) {
	t.Helper()
	early, full = newPointSink(o.Latency), newPointSink(o.Latency)
	if err := simulatePoint(sc, p, o, early); err != nil {
		t.Fatal(err)
	}
	if err := simulatePoint(sc, p, o, fullRun{full}); err != nil {
		t.Fatal(err)
	}
	return early, full
}

func predictionOf(t *testing.T, s *pointSink, o Options) Prediction {
	t.Helper()
	pr, err := s.prediction(o)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

func lastSample(s *pointSink) float64 { return s.t[len(s.t)-1] }

// TestEarlyStopPredictsAsTheFullRun: a point stopped at its recovery
// predicts exactly what the run to the horizon predicts. The synthetic job
// (the ysb template) handles about 134,000 records/s: below that a point
// recovers and its run ends with the sample that saw the recovery (the
// second after fault + recovery time); above it the point never recovers
// and runs to the end (settle + CI + horizon).
func TestEarlyStopPredictsAsTheFullRun(t *testing.T) {
	base := baseScenario(t)
	o := Options{Horizon: 900}.withDefaults()
	cases := []struct {
		name        string
		throughput  float64
		ci          float64
		wantRecover bool
	}{
		{"light load, CI 10 s", 40000, 10, true},
		{"medium load, CI 60 s", 80000, 60, true},
		{"high load, CI 120 s", 110000, 120, true},
		{"above capacity: no recovery, to the horizon", 200000, 30, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Point{Throughput: c.throughput, CheckpointIntervalS: c.ci}
			early, full := runBoth(t, base, p, o)
			got, want := predictionOf(t, early, o), predictionOf(t, full, o)
			if got != want {
				t.Errorf("stopped early %+v, full run %+v", got, want)
			}
			if got.Recovered != c.wantRecover {
				t.Fatalf("recovered %v, want %v (%+v)", got.Recovered, c.wantRecover, got)
			}
			end := o.Settle + c.ci + o.Horizon
			if lastFull := lastSample(full); lastFull != end {
				t.Errorf("the full run's last sample at %g s, want the end %g s", lastFull, end)
			}
			stop := end
			if c.wantRecover {
				// the recovery ends at a sample's end; the 15th normal sample
				// after it (measure.RecoveryOptions.Hold) confirms it
				stop = math.Ceil(early.faultAt+got.RecoveryS) + 15
			}
			if lastEarly := lastSample(early); lastEarly != stop {
				t.Errorf("the stopped run's last sample at %g s, want %g s (fault at %g s, recovery %g s)",
					lastEarly, stop, early.faultAt, got.RecoveryS)
			}
		})
	}
}

// TestEarlyStopKhaosPoints: the same on every point of the bench
// calibration (the 60 Khaos YSB failures on the uncalibrated base).
func TestEarlyStopKhaosPoints(t *testing.T) {
	sc, pts := khaosPoints(t)
	o := Options{}.withDefaults()
	for _, p := range pts {
		early, full := runBoth(t, sc, p, o)
		if got, want := predictionOf(t, early, o), predictionOf(t, full, o); got != want {
			t.Errorf("line %d: stopped early %+v, full run %+v", p.Line, got, want)
		}
	}
}

// khaosPoints is the bench calibration's input: the Khaos YSB base scenario
// and its 60 measured failures.
func khaosPoints(tb testing.TB) (scenario.Scenario, []Point) {
	tb.Helper()
	const path = "../../scenarios/khaos-ysb-base.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := scenario.ParseRun(path, data, "", nil)
	if err != nil {
		tb.Fatal(err)
	}
	pts, err := ingest.ReadMeasured("../../scenarios/measured/khaos-ysb-failures.csv")
	if err != nil {
		tb.Fatal(err)
	}
	return sc, pts
}

// BenchmarkPredictAll is one loss evaluation of the bench calibration: the
// 60 Khaos YSB points on one worker.
func BenchmarkPredictAll(b *testing.B) {
	sc, pts := khaosPoints(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PredictAll(sc, pts, Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
