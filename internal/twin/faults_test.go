package twin

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// The faults beyond a crash on handJob (capacity 100,000 records/s, input
// 50,000/s, checkpoints at 10 s, 20 s, …): each test works the run out on
// paper, as TestCrashBacklogAndRecoveryTime does for a crash.

// heartbeatJob is handJob with the live cluster's heartbeat (2 s interval,
// 10 s timeout): a frozen TaskManager is lost 8–10 s after it froze.
var heartbeatJob = strings.Replace(handJob, "detection: {mode: connection, connection_loss: 1s}",
	"detection: {mode: auto, heartbeat_interval: 2s, heartbeat_timeout: 10s, rpc_failure_threshold: 2}", 1)

func faultRun(t *testing.T, job, faults string) (*memSink, results.Summary) {
	t.Helper()
	return runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+job+"faults:\n"+faults)
}

// TestFreezeBelowTheHeartbeatTimeout: frozen 125–130 s, the job stalls
// (nothing is read: 250k records wait) and Flink notices nothing; it
// catches up at 100k − 50k = 50k/s in 5 s, so the lag is back at 135 s,
// 10 s after the fault, with no restart.
func TestFreezeBelowTheHeartbeatTimeout(t *testing.T) {
	m, _ := faultRun(t, heartbeatJob, "  - {at: 125s, kind: freeze, duration: 5s, taskmanager: 0}\n")
	if len(m.kind(results.KindRestart)) != 0 || len(m.kind(results.KindDetected)) != 0 || len(m.kind(results.KindRunning)) != 0 {
		t.Errorf("a 5 s freeze below the 10 s timeout restarted the job: %d restarts, events %+v", len(m.kind(results.KindRestart)), m.events)
	}
	near(t, "model recovery", *one(t, m, results.KindModelRecovered).DurationS, 10, 1e-6)
	near(t, "measured recovery", *one(t, m, results.KindRecovered).DurationS, 10, 1)
	for _, s := range m.samples {
		switch {
		case s.TimeS > 125 && s.TimeS <= 130:
			near(t, "throughput while frozen", s.Throughput, 0, 1e-9)
		case s.TimeS > 130 && s.TimeS <= 135:
			near(t, "catch-up throughput", s.Throughput, 100000, 1e-6)
		}
	}
	near(t, "lag at the thaw", m.at(130).Lag, 250000, 1e-3)
}

// TestBeyondTheHeartbeatTimeout: a TaskManager silent past the heartbeat
// timeout, frozen or behind a network delay. Its heartbeat answers stop,
// the timeout fires 10 s after the last answered request, 8–10 s after
// the fault, and the job fails over. The restart (2 s later) waits for
// slots until the TaskManager is back and registers again; deploy 2 s and
// restore 1 s. The checkpoint due at 130 s waits for the silent
// TaskManager and is aborted by the failover, so the job restores the one
// of 120 s, and the backlog since then drains at 50k/s.
//   - freeze at 125 s for 30 s: thawed at 155 s, RUNNING at 158 s, down
//     33 s; backlog 50k × 38 s = 1.9M, drained in 38 s more;
//   - network_delay at 125 s, 30 s for 10 s (Demeter's fault shape): the
//     answers stop for 30 s, the last delayed packet is in at 165 s
//     (10 s + 30 s): RUNNING at 168 s, down 43 s; backlog 50k × 48 s =
//     2.4M, drained in 48 s more.
func TestBeyondTheHeartbeatTimeout(t *testing.T) {
	for _, c := range []struct {
		name, fault         string
		back, down, backlog float64
	}{
		{"freeze", "{at: 125s, kind: freeze, duration: 30s, taskmanager: 0}", 155, 33, 38},
		{"network_delay", "{at: 125s, kind: network_delay, delay: 30s, duration: 10s, taskmanager: 0}", 165, 43, 48},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := faultRun(t, heartbeatJob, "  - "+c.fault+"\n")
			det := one(t, m, results.KindDetected).TimeS - 125
			if det <= 8-1e-9 || det > 10+1e-9 {
				t.Errorf("detected %.3f s after the fault, want in (8, 10] s", det)
			}
			running := one(t, m, results.KindRunning)
			near(t, "running at", running.TimeS, 125+c.down, 1e-9)
			near(t, "downtime", *running.DurationS, c.down, 1e-9)
			near(t, "backlog", *running.Value, 50000*c.backlog, 1e-3)
			near(t, "model recovery", *one(t, m, results.KindModelRecovered).DurationS, c.down+c.backlog, 1e-6)
			near(t, "registered again at", one(t, m, results.KindTaskManagerUp).TimeS, c.back, 1e-9)
			if len(m.kind(results.KindRestart)) != 1 {
				t.Errorf("restarts = %d, want 1", len(m.kind(results.KindRestart)))
			}
		})
	}
}

// TestNetworkDelayBelowTheHeartbeatTimeout: from 125 s every packet
// TaskManager 0 sends arrives 4 s late, for 3 s. Nothing it sends is in
// before 129 s, and the last delayed packet at 132 s: the job stalls for
// 7 s (350k records wait) and catches up at 50k/s in 7 s more, back at
// 139 s, 14 s after the fault. Its heartbeat answers are 4 s late, well
// inside the 10 s timeout: no restart.
func TestNetworkDelayBelowTheHeartbeatTimeout(t *testing.T) {
	m, _ := faultRun(t, heartbeatJob, "  - {at: 125s, kind: network_delay, delay: 4s, duration: 3s, taskmanager: 0}\n")
	if len(m.kind(results.KindRestart)) != 0 || len(m.kind(results.KindDetected)) != 0 {
		t.Errorf("a 4 s delay below the 10 s timeout restarted the job: events %+v", m.events)
	}
	near(t, "model recovery", *one(t, m, results.KindModelRecovered).DurationS, 14, 1e-6)
	near(t, "measured recovery", *one(t, m, results.KindRecovered).DurationS, 14, 1)
	near(t, "lag when the last delayed packet is in", m.at(132).Lag, 350000, 1e-3)
	near(t, "throughput while delayed", m.at(130).Throughput, 0, 1e-9)
	near(t, "catch-up throughput", m.at(135).Throughput, 100000, 1e-6)
}

// TestCPUThrottle: a quarter of its core leaves the TaskManager 25k/s of
// capacity for 20 s: the lag grows at 25k/s to 500k at 145 s and drains at
// 50k/s by 155 s; the TaskManager reads 25 % busy meanwhile.
func TestCPUThrottle(t *testing.T) {
	m, _ := faultRun(t, handJob, "  - {at: 125s, kind: cpu_throttle, share: 0.25, duration: 20s, taskmanager: 0}\n")
	near(t, "lag when the quota is lifted", m.at(145).Lag, 500000, 1e-3)
	near(t, "model recovery", *one(t, m, results.KindModelRecovered).DurationS, 30, 1e-6)
	for _, s := range m.samples {
		if s.TimeS > 126 && s.TimeS <= 145 {
			near(t, "throughput while throttled", s.Throughput, 25000, 1e-6)
			near(t, "CPU while throttled", s.CPUBusyMax, 0.25, 1e-9)
		}
	}
	if len(m.kind(results.KindRestart)) != 0 {
		t.Errorf("restarts = %d, want 0", len(m.kind(results.KindRestart)))
	}
}

// TestKafkaBrokerDown: the broker is down 10 s and takes broker_start 5 s
// to serve again, so nothing is read 125–140 s (750k wait), drained at
// 50k/s by 155 s: recovered 30 s after the fault, without a restart.
func TestKafkaBrokerDown(t *testing.T) {
	m, _ := faultRun(t, "kafka: {broker_start: 5s}\n"+strings.Replace(handJob, "kafka: {partitions: 1}\n", "", 1),
		"  - {at: 125s, kind: kafka_broker, duration: 10s}\n")
	near(t, "lag when the broker serves again", m.at(140).Lag, 750000, 1e-3)
	near(t, "model recovery", *one(t, m, results.KindModelRecovered).DurationS, 30, 1e-6)
	if len(m.kind(results.KindRestart)) != 0 {
		t.Errorf("restarts = %d, want 0", len(m.kind(results.KindRestart)))
	}
}

// TestJobManagerCrash: without high availability the job is gone: it never
// runs again, and the fault is unrecovered and a recovery violation.
func TestJobManagerCrash(t *testing.T) {
	m, sum := faultRun(t, handJob+"qos: {latency: 1s, recovery: 60s}\n", "  - {at: 125s, kind: jobmanager}\n")
	if sum.Faults != 1 || sum.Recoveries != 0 || sum.UnrecoveredFaults != 1 || sum.QoS.RecoveryViolations != 1 {
		t.Errorf("summary: %d faults, %d recoveries, %d unrecovered, %d recovery violations; want 1, 0, 1, 1",
			sum.Faults, sum.Recoveries, sum.UnrecoveredFaults, sum.QoS.RecoveryViolations)
	}
	last := m.samples[len(m.samples)-1]
	if last.JobState != "FAILED" || last.Throughput != 0 {
		t.Errorf("at the end the job is %s with throughput %v, want FAILED and 0", last.JobState, last.Throughput)
	}
	near(t, "lag at the end", last.Lag, 50000*(300-125), 1e-3)
}

// TestCheckpointStorage: storage refuses writes 125–145 s. With no
// tolerable failure the checkpoint of 130 s fails the job at once; it runs
// again at 135 s (restart 2 s, deploy 2 s, restore 1 s) from the
// checkpoint of 120 s, and the first checkpoint after the restart, at
// 142 s, fails it again: running at 147 s with 50k × 27 s to drain, done
// at 174 s. Tolerating one failure, the checkpoint of 130 s is let go and
// the one of 140 s fails the job: running at 145 s, 1.25M to drain, done
// at 170 s. Tolerating two, nothing fails but checkpoints.
func TestCheckpointStorage(t *testing.T) {
	for _, c := range []struct {
		tolerable, restarts int
		running             []float64 // when the job runs again
		recovered           float64   // s after the fault (NaN: no recovery)
	}{{0, 2, []float64{135, 147}, 174 - 125}, {1, 1, []float64{145}, 170 - 125}, {2, 0, nil, math.NaN()}} {
		job := strings.Replace(handJob, "cpu_overhead: 0", "cpu_overhead: 0\n    tolerable_failures: "+string(rune('0'+c.tolerable)), 1)
		m, _ := faultRun(t, job, "  - {at: 125s, kind: checkpoint_storage, duration: 20s}\n")
		if len(m.kind(results.KindRestart)) != c.restarts {
			t.Errorf("tolerable %d: %d restarts, want %d", c.tolerable, len(m.kind(results.KindRestart)), c.restarts)
		}
		var running []float64
		for _, e := range m.kind(results.KindRunning) {
			running = append(running, e.TimeS)
		}
		if !slices.Equal(running, c.running) {
			t.Errorf("tolerable %d: running again at %v s, want %v", c.tolerable, running, c.running)
		}
		if math.IsNaN(c.recovered) {
			if n := len(m.kind(results.KindModelRecovered)); n != 0 {
				t.Errorf("tolerable %d: %d recoveries, want none", c.tolerable, n)
			}
			continue
		}
		// the model's recoveries run from each failure; the measured one
		// from the fault
		for _, e := range m.kind(results.KindModelRecovered) {
			near(t, "model recovered at", e.TimeS, 125+c.recovered, 1e-6)
		}
		if c.tolerable == 0 {
			// tolerating one, the job runs normally for 15 s after the
			// fault, which the detector's hold (15 samples) takes as
			// recovered before the job fails
			near(t, "measured recovery", *one(t, m, results.KindRecovered).DurationS, c.recovered, 1)
		}
	}
}

// TestRepeatingFaults: a freeze every 60 s from 30 s until 200 s fires at
// 30, 90 and 150 s, each delayed by a seeded draw in [0, 5 s); a seeded
// random target picks among the two TaskManagers; a busiest target hits
// the TaskManager that hosts the job (the other idles): TaskManager 1,
// since a crash of 0 at 10 s moved the job to the spare.
func TestRepeatingFaults(t *testing.T) {
	job := strings.Replace(heartbeatJob, "cluster: {", "cluster: {taskmanagers: 2, ", 1)
	const schedule = "  - {at: 10s, taskmanager: 0}\n" +
		"  - {at: 30s, every: 60s, until: 200s, jitter: 5s, kind: freeze, duration: 2s, target: random}\n" +
		"  - {at: 250s, kind: cpu_throttle, share: 0.5, duration: 5s, target: busiest}\n"
	m, _ := faultRun(t, job, schedule)
	faults := m.kind(results.KindFault)
	if len(faults) != 5 {
		t.Fatalf("%d faults, want 5: %+v", len(faults), faults)
	}
	faults = faults[1:]
	for k, f := range faults[:3] {
		if d := f.TimeS - float64(30+60*k); d < 0 || d >= 5 {
			t.Errorf("firing %d at %.3f s, want in [%d, %d) s", k+1, f.TimeS, 30+60*k, 35+60*k)
		}
	}
	if hosting := *faults[3].TaskManager; hosting != 1 {
		t.Errorf("the busiest TaskManager is %d, want 1 (the one hosting the job)", hosting)
	}
	m2, _ := faultRun(t, job, schedule)
	for k, f := range m2.kind(results.KindFault)[1:] {
		if f.TimeS != faults[k].TimeS || *f.TaskManager != *faults[k].TaskManager {
			t.Errorf("firing %d differs between two runs of one seed: %v/%d against %v/%d", k+1, f.TimeS, *f.TaskManager, faults[k].TimeS, *faults[k].TaskManager)
		}
	}
}

// TestInPlaceShare: cluster.in_place_share 0.5 halves a deployment (2 s
// deploy + 1 s restore) only where the JVMs ran the job before. Storage
// refusing writes from 125 s, tolerating one failure, fails the job at
// 140 s on its own TaskManager: running at 140 + 2 (restart) + 0.5 × 3 =
// 143.5 s, and the 50k × 23.5 s replayed since the checkpoint of 120 s
// drain at 50k/s net by 167 s. A crash at 125 s deploys on the fresh JVM
// of the restarted TaskManager (back at 135 s): 3 s, running at 138 s. A
// 20 s freeze from 125 s, past the 10 s heartbeat timeout, has the
// TaskManager declared lost, which frees the job's slots and class loader
// there: the job restarts (by about 137 s) and waits for slots until it
// thaws at 145 s, then deploys whole on the same JVM: running at 148 s.
func TestInPlaceShare(t *testing.T) {
	job := strings.Replace(handJob, "deploy: 2s,", "deploy: 2s, in_place_share: 0.5,", 1)
	storage := strings.Replace(job, "cpu_overhead: 0", "cpu_overhead: 0\n    tolerable_failures: 1", 1)
	m, _ := faultRun(t, storage, "  - {at: 125s, kind: checkpoint_storage, duration: 20s}\n")
	near(t, "running again after the storage failure", one(t, m, results.KindRunning).TimeS, 143.5, 1e-6)
	near(t, "model recovered at", one(t, m, results.KindModelRecovered).TimeS, 167, 1e-6)
	m, _ = faultRun(t, job, "  - {at: 125s, taskmanager: 0}\n")
	near(t, "running again after the crash", one(t, m, results.KindRunning).TimeS, 138, 1e-6)
	frozen := strings.Replace(heartbeatJob, "deploy: 2s,", "deploy: 2s, in_place_share: 0.5,", 1)
	m, _ = faultRun(t, frozen, "  - {at: 125s, kind: freeze, duration: 20s, taskmanager: 0}\n")
	near(t, "running again after the freeze", one(t, m, results.KindRunning).TimeS, 148, 1e-6)
}
