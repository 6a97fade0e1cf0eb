package driver

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
)

type memSink struct {
	samples []results.Sample
	events  []results.Event
}

func (m *memSink) WriteSample(s results.Sample) error { m.samples = append(m.samples, s); return nil }
func (m *memSink) WriteEvent(e results.Event) error   { m.events = append(m.events, e); return nil }

// A live fault whose lag never comes back is unrecovered (censored at the
// end, a violation), and a job that never runs again is down to the end.
func TestFinishUnrecovered(t *testing.T) {
	cases := []struct {
		name     string
		state    string // after the fault
		downtime float64
	}{
		// the job runs again at 45 s but never catches up
		{"overloaded", "RUNNING", 0},
		// the job fails for good: down from the fault at 40 s to 100 s
		{"failed", "FAILED", 60},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sc scenario.Scenario
			sc.Duration = 100
			sc.QoS.Recovery = 240
			r := &run{sc: sc}
			var samples []results.Sample
			for i := 1; i <= 100; i++ {
				s := results.Sample{TimeS: float64(i), InputRate: 1000, Throughput: 1000, JobState: "RUNNING",
					LatencyMeanMs: 10, LatencyP50Ms: 10, LatencyP99Ms: 20, LatencyMarkerP99Ms: math.NaN(), OutputRate: 1000}
				if i > 40 {
					s.Throughput, s.Lag = 0, float64(i-40)*1000
					s.LatencyMeanMs, s.LatencyP50Ms, s.LatencyP99Ms, s.OutputRate = math.NaN(), math.NaN(), math.NaN(), 0
					if i < 45 || c.state == "FAILED" {
						s.JobState = "RESTARTING"
						if i > 45 {
							s.JobState = c.state
						}
					} else {
						s.Throughput = 500 // running, but slower than the input
					}
				}
				samples = append(samples, s)
			}
			tm := int32(0)
			r.samples = samples
			r.events = []results.Event{{TimeS: 40, Kind: results.KindFault, TaskManager: &tm, Reason: "faults[0] (SIGKILL)"}}
			sink := &memSink{}
			sum, err := r.finish(sink, 1)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Faults != 1 || sum.Recoveries != 0 || sum.UnrecoveredFaults != 1 || sum.QoS.RecoveryViolations != 1 {
				t.Errorf("faults %d, recoveries %d, unrecovered %d, violations %d; want 1, 0, 1, 1",
					sum.Faults, sum.Recoveries, sum.UnrecoveredFaults, sum.QoS.RecoveryViolations)
			}
			if sum.RecoveryMaxS != 60 || sum.FinalState != c.state || sum.DowntimeS != c.downtime {
				t.Errorf("recovery max %g, final state %s, downtime %g; want 60, %s, %g", sum.RecoveryMaxS, sum.FinalState, sum.DowntimeS, c.state, c.downtime)
			}
			if last := sink.events[len(sink.events)-1]; last.Kind != results.KindRunEnd {
				t.Errorf("last event %s, want run_end", last.Kind)
			}
		})
	}
}
