package twin

import (
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// A fault that never recovers must be counted as unrecovered and as a
// violation, with a censored recovery time (fault → end of run), never as
// a recovery of 0 s.
func TestUnrecoveredFaults(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		state string
		// downtime and censored recovery time, by hand
		downtime, censored float64
		downTol            float64
		coverage           float64 // share of the run with output
	}{
		{
			// 150,000/s on a job of capacity 100,000/s: lag grows all run
			// long, so the crash at 10 m can never catch up. Down for
			// detection 1 s + restart 2 s + deploy 2 s + restore 1 s = 6 s.
			name: "overloaded, hand job", src: "duration: 30m\nworkload: {shape: constant, rate: 150000/s}\n" + handJob +
				"faults: [{at: 10m, taskmanager: 0}]\n",
			state: "RUNNING", downtime: 13, censored: 1200, downTol: 1e-6, coverage: 1787.0 / 1800,
		},
		{
			// the example: 1M/s on parallelism 4 of the default job
			name: "overloaded, 1M/s at parallelism 4", src: "duration: 30m\nworkload: {shape: constant, rate: 1000000/s}\n" +
				"job: {parallelism: 4}\nfaults: [{at: 10m}]\n",
			state: "RUNNING", censored: 1200, downtime: -1,
		},
		{
			// restart strategy none: the job fails for good at 10 m and is
			// down from the fault to the end of the run, 1,200 s
			name: "restart none", src: "duration: 30m\nworkload: {shape: constant, rate: 10000/s}\n" +
				strings.Replace(handJob, "{strategy: fixed-delay, delay: 2s, attempts: 0}", "{strategy: none}", 1) +
				"faults: [{at: 10m, taskmanager: 0}]\n",
			state: "FAILED", downtime: 1200, censored: 1200, downTol: 1e-6, coverage: 600.0 / 1800,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, sum := runYAML(t, c.src)
			if sum.Faults != 1 || sum.UnrecoveredFaults != 1 || sum.Recoveries != 0 {
				t.Fatalf("faults %d, unrecovered %d, recoveries %d; want 1, 1, 0", sum.Faults, sum.UnrecoveredFaults, sum.Recoveries)
			}
			if sum.QoS.RecoveryViolations < 1 {
				t.Errorf("recovery violations %d, want ≥ 1", sum.QoS.RecoveryViolations)
			}
			near(t, "recovery_max_s", sum.RecoveryMaxS, c.censored, 1e-6)
			near(t, "recovery_mean_s", sum.RecoveryMeanS, c.censored, 1e-6)
			near(t, "recovery_median_s", sum.RecoveryMedianS, c.censored, 1e-6)
			if len(sum.RecoveryTimesS) != 0 {
				t.Errorf("recovery_times_s %v lists an unfinished recovery", sum.RecoveryTimesS)
			}
			if c.downtime >= 0 {
				near(t, "downtime_s", sum.DowntimeS, c.downtime, c.downTol)
			}
			if c.coverage > 0 {
				near(t, "latency_coverage", sum.LatencyCoverage, c.coverage, 1e-9)
			}
			if sum.FinalState != c.state {
				t.Errorf("final_state %q, want %q", sum.FinalState, c.state)
			}
			u := one(t, m, results.KindUnrecovered)
			near(t, "unrecovered at", u.TimeS, 1800, 1e-9)
			near(t, "unrecovered duration", *u.DurationS, c.censored, 1e-6)
			end := one(t, m, results.KindRunEnd)
			if end.Reason != c.state || m.events[len(m.events)-1].Kind != results.KindRunEnd {
				t.Errorf("run_end %+v must be the last event, with state %s", end, c.state)
			}
		})
	}
}
