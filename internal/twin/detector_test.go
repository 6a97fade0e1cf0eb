package twin

import (
	"math"
	"os"
	"slices"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// runFile simulates the first run of a committed scenario.
func runFile(t *testing.T, path string) (*memSink, results.Summary) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return runYAML(t, string(src))
}

// reconfigured is the demo's load with a fault and two reconfigurations
// (a CI change by savepoint, a rescale) so that both kinds of recovery and
// a job held down are in one run.
const reconfigured = `
seed: 3
duration: 40m
workload: {shape: constant, rate: 60000/s}
kafka: {partitions: 4}
job: {parallelism: 4, checkpoint: {interval: 30s}}
faults:
  - {at: 10m, before_checkpoint: 3s, operator: sink}
actions:
  - {at: 20m, checkpoint_interval: 60s}
  - {at: 30m, parallelism: 2}
`

// TestRecoveryIsTheDetectorOnTheSeries: the twin's recovered and
// unrecovered events are measure.DetectRecovery applied to the samples the
// twin wrote (a fault from its time; a reconfiguration from its stop
// request, no earlier than it ran again), its samples' recovering flag is
// set exactly in (start, end] of a recovery, and the events are in time
// order, run_end last.
func TestRecoveryIsTheDetectorOnTheSeries(t *testing.T) {
	for name, load := range map[string]func(t *testing.T) (*memSink, results.Summary){
		"demo":         func(t *testing.T) (*memSink, results.Summary) { return runFile(t, "../../scenarios/demo.yaml") },
		"reconfigured": func(t *testing.T) (*memSink, results.Summary) { return runYAML(t, reconfigured) },
	} {
		t.Run(name, func(t *testing.T) {
			m, sum := load(t)
			type span struct{ at, end float64 }
			var spans []span
			check := func(at, resumed float64, reason string) {
				want, err := measure.DetectRecovery(m.samples, at, measure.RecoveryOptions{ResumedS: resumed})
				if err != nil {
					t.Fatal(err)
				}
				var got *results.Event
				for _, e := range m.events {
					if (e.Kind == results.KindRecovered || e.Kind == results.KindUnrecovered) && e.Reason == reason &&
						math.Abs(e.TimeS-*e.DurationS-at) < 1e-6 {
						got = &e
					}
				}
				switch {
				case got == nil:
					t.Errorf("%s at %g s: no recovered or unrecovered event", reason, at)
				case math.IsNaN(want.RecoveryS):
					if got.Kind != results.KindUnrecovered {
						t.Errorf("%s at %g s: %s after %g s, DetectRecovery finds no recovery", reason, at, got.Kind, *got.DurationS)
					}
					spans = append(spans, span{at, math.Inf(1)})
				case got.Kind != results.KindRecovered || *got.DurationS != want.RecoveryS:
					t.Errorf("%s at %g s: %s after %g s, DetectRecovery says %g s", reason, at, got.Kind, *got.DurationS, want.RecoveryS)
				default:
					spans = append(spans, span{at, at + want.RecoveryS})
				}
			}
			faults, reconfigs := 0, 0
			for _, e := range m.events {
				switch e.Kind {
				case results.KindFault:
					faults++
					check(e.TimeS, 0, e.Reason)
				case results.KindReconfigured:
					reconfigs++
					check(e.TimeS-*e.DurationS, e.TimeS, "reconfiguration: "+e.Reason)
				}
			}
			if faults == 0 || sum.Recoveries == 0 || name == "reconfigured" && reconfigs != 2 {
				t.Fatalf("%d faults, %d recoveries, %d reconfigurations: nothing to compare", faults, sum.Recoveries, reconfigs)
			}
			for _, s := range m.samples {
				want := slices.ContainsFunc(spans, func(sp span) bool { return s.TimeS > sp.at && s.TimeS <= sp.end+1e-9 })
				if s.Recovering != want {
					t.Errorf("sample %g s: recovering %v, want %v", s.TimeS, s.Recovering, want)
				}
			}
			if !slices.IsSortedFunc(m.events, func(a, b results.Event) int { return cmpFloat(a.TimeS, b.TimeS) }) ||
				m.events[len(m.events)-1].Kind != results.KindRunEnd {
				t.Error("events are not in time order with run_end last")
			}
		})
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestModelRecoveryDiagnostic: on the demo run the model's exact recovery
// (model_recovered) and the detector's differ by less than one metric
// interval (1 s) for each fault: the detector ends a recovery at the end of
// the sample before its first normal one, so up to a sample after the
// model's instant (fault at 88 m: 109 s against 108.29 s), or a fraction of
// a second before it when the backlog left is within the lag floor, a tenth
// of a second's input (fault at 35 m: 45.62 s against 45.69 s).
func TestModelRecoveryDiagnostic(t *testing.T) {
	m, _ := runFile(t, "../../scenarios/demo.yaml")
	for _, f := range measure.FaultRecoveries(m.events) {
		var model *results.Event
		for _, e := range m.kind(results.KindModelRecovered) {
			if math.Abs(e.TimeS-*e.DurationS-f.AtS) < 1e-6 {
				model = &e
			}
		}
		if model == nil {
			t.Errorf("fault at %g s: no model_recovered event", f.AtS)
			continue
		}
		t.Logf("fault at %.1f s: detector %.3f s, model %.3f s", f.AtS, f.RecoveryS, *model.DurationS)
		if d := f.RecoveryS - *model.DurationS; !(math.Abs(d) < 1) {
			t.Errorf("fault at %g s: detector %g s, model %g s: %g s apart, want less than the 1-s interval", f.AtS, f.RecoveryS, *model.DurationS, d)
		}
	}
}
