package twin

import (
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// TestRestartStrategies checks the delays each strategy applies to a series
// of failures, and that an exhausted strategy leaves the job FAILED.
func TestRestartStrategies(t *testing.T) {
	faults := "faults:\n  - {at: 100s}\n  - {at: 200s}\n  - {at: 300s}\n  - {at: 400s}\n"
	cases := []struct {
		name, restart string
		want          []float64 // restart delays
		jitter        float64
		failed        bool
	}{
		{"exponential-delay grows ×1.5", "{strategy: exponential-delay, initial_backoff: 1s, backoff_multiplier: 1.5, max_backoff: 3s, jitter_factor: 0.1}",
			[]float64{1, 1.5, 2.25, 3}, 0.1, false},
		{"exponential-delay resets after stable running", "{strategy: exponential-delay, initial_backoff: 2s, backoff_multiplier: 2, jitter_factor: 0, reset_backoff_after: 60s}",
			[]float64{2, 2, 2, 2}, 0, false},
		{"fixed-delay", "{strategy: fixed-delay, delay: 4s, attempts: 0}", []float64{4, 4, 4, 4}, 0, false},
		{"fixed-delay runs out of attempts", "{strategy: fixed-delay, delay: 4s, attempts: 2}", []float64{4, 4}, 0, true},
		{"failure-rate", "{strategy: failure-rate, delay: 3s, max_failures: 1, failure_rate_interval: 150s}", []float64{3}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "duration: 8m\nworkload: {shape: constant, rate: 10000/s}\n" +
				strings.Replace(handJob, "restart: {strategy: fixed-delay, delay: 2s, attempts: 0}", "restart: "+c.restart, 1) + faults
			m, _ := runYAML(t, src)
			restarts := m.kind(results.KindRestart)
			if len(restarts) != len(c.want) {
				t.Fatalf("%d restarts, want %d", len(restarts), len(c.want))
			}
			for i, e := range restarts {
				near(t, "restart delay", *e.DurationS, c.want[i], c.want[i]*c.jitter+1e-9)
			}
			last := m.samples[len(m.samples)-1]
			if (last.JobState == "FAILED") != c.failed {
				t.Errorf("final state %s, want failed=%v", last.JobState, c.failed)
			}
		})
	}
}

// TestDetection: a TaskManager whose peers share channels with it is noticed
// at once; a job alone on one TaskManager waits for the heartbeat RPCs, at a
// random phase of the 10 s heartbeat period (TestHeartbeatDetectionPhase).
func TestDetection(t *testing.T) {
	cases := []struct {
		name, job string
		lo, hi    float64
	}{
		{"single TaskManager: heartbeat interval × (RPC failure threshold − 1 + phase)", "job: {parallelism: 1, checkpoint: {interval: 10s}}", 10, 20},
		{"distributed keyed job: connection loss", "job: {parallelism: 4, checkpoint: {interval: 10s}}", 1, 1},
		{"forced heartbeat timeout: timeout − interval × (1 − phase)", "job: {parallelism: 4, checkpoint: {interval: 10s}, detection: {mode: heartbeat}}", 40, 50},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 10000/s}\n"+c.job+"\nfaults:\n  - {at: 60s}\n")
			if d := one(t, m, results.KindDetected).TimeS - 60; d < c.lo-1e-9 || d > c.hi+1e-9 {
				t.Errorf("detection delay %v s, want %g–%g s", d, c.lo, c.hi)
			}
		})
	}
}

// TestAlignedFault: a Khaos-style fault fires N s before the next checkpoint.
func TestAlignedFault(t *testing.T) {
	m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 10000/s}\n"+handJob+
		"faults:\n  - {at: 101s, before_checkpoint: 3s}\n")
	// triggers at 10 s, 20 s, …; armed at 101 s, the next trigger is 110 s
	near(t, "fault time", one(t, m, results.KindFault).TimeS, 107, 1e-9)
	m, _ = runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 10000/s}\n"+handJob+
		"faults:\n  - {at: 108s, before_checkpoint: 3s}\n")
	// too late for 110 s: aligned to the trigger at 120 s
	near(t, "fault time", one(t, m, results.KindFault).TimeS, 117, 1e-9)
}

// TestRandomFaultsAreSeeded: the MTBF process gives about duration/MTBF
// faults and the same times for the same seed.
func TestRandomFaultsAreSeeded(t *testing.T) {
	src := "duration: 24h\nworkload: {shape: constant, rate: 1000/s}\njob: {parallelism: 4}\nfaults:\n  - random: {mtbf: 1h}\n"
	a, sa := runYAML(t, src)
	b, _ := runYAML(t, src)
	if sa.Faults < 12 || sa.Faults > 40 {
		t.Errorf("%d faults in 24 h at MTBF 1 h", sa.Faults)
	}
	fa, fb := a.kind(results.KindFault), b.kind(results.KindFault)
	for i := range fa {
		if fa[i].TimeS != fb[i].TimeS || *fa[i].TaskManager != *fb[i].TaskManager {
			t.Fatalf("fault %d differs between two runs of the same seed", i)
		}
	}
	c, _ := runYAML(t, strings.Replace(src, "duration:", "seed: 99\nduration:", 1))
	if fc := c.kind(results.KindFault); len(fc) > 0 && fc[0].TimeS == fa[0].TimeS {
		t.Error("another seed gave the same first fault")
	}
}

// TestRescaleRaisesCapacity: a forced rescale from 1 to 2 goes through
// savepoint + resubmit, waits for the new TaskManager and doubles capacity.
func TestRescaleRaisesCapacity(t *testing.T) {
	m, sum := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+
		strings.Replace(handJob, "partitions: 1", "partitions: 2", 1)+"actions:\n  - {at: 60s, parallelism: 2}\n")
	near(t, "capacity before", m.at(59).Capacity, 100000, 1e-6)
	near(t, "capacity after", m.at(200).Capacity, 200000, 1e-6)
	if got := m.at(200).Workers; got != 2 {
		t.Errorf("%d workers after rescale, want 2", got)
	}
	// savepoint 0.5 s; the new TaskManager registers 10 s after the request
	rc := one(t, m, results.KindReconfigured)
	near(t, "downtime", *rc.DurationS, 10+2+1, 1e-9)
	if sum.Reconfigurations != 1 {
		t.Errorf("%d reconfigurations", sum.Reconfigurations)
	}
}
