package twin

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/cat"
)

// handJob is a job whose numbers can be worked out on paper: one source
// operator of 10 µs per record on one single-core TaskManager, so the
// capacity is exactly 100,000 records/s; checkpoints cost nothing but a
// 0.5 s async phase; every recovery step has a fixed length.
const handJob = `
kafka: {partitions: 1}
job:
  parallelism: 1
  operators:
    - {name: source, cost: 10us}
  checkpoint:
    interval: 10s
    initial_delay: interval   # triggers at 10 s, 20 s, 30 s, …
    alignment: 0s
    inflight_drain: 0s
    sync_base: 0s
    async_base: 500ms
    cpu_overhead: 0
  restart: {strategy: fixed-delay, delay: 2s, attempts: 0}
  detection: {mode: connection, connection_loss: 1s}
  cluster: {restart_delay: 10s, deploy: 2s, restore_base: 1s, submit: 2s}
`

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %g", what, got, want, tol)
	}
}

func one(t *testing.T, m *memSink, kind string) results.Event {
	t.Helper()
	es := m.kind(kind)
	if len(es) != 1 {
		t.Fatalf("want one %s event, got %d: %+v", kind, len(es), es)
	}
	return es[0]
}

func TestConstantLoadBelowCapacity(t *testing.T) {
	m, sum := runYAML(t, "duration: 10m\nworkload: {shape: constant, rate: 40000/s}\n"+handJob)
	for _, s := range m.samples {
		near(t, "throughput", s.Throughput, 40000, 1e-6)
		near(t, "input", s.InputRate, 40000, 1e-6)
		near(t, "lag", s.Lag, 0, 1e-3)
		near(t, "capacity", s.Capacity, 100000, 1e-6)
		near(t, "cpu busy", s.CPUBusyMax, 0.4, 1e-9) // 40k × 10 µs on one core
	}
	near(t, "records in", float64(sum.RecordsIn), 40000*600, 1e-3)
	near(t, "worker-seconds", sum.WorkerSeconds, 600, 1e-9)
	if sum.CheckpointsCompleted != 59 { // 10 s … 590 s complete; 600 s is still uploading
		t.Errorf("checkpoints completed = %d, want 59", sum.CheckpointsCompleted)
	}
}

func TestLoadAboveCapacityGrowsLagAtTheExcess(t *testing.T) {
	m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 130000/s}\n"+handJob)
	for _, s := range m.samples {
		near(t, "throughput", s.Throughput, 100000, 1e-6)
		near(t, "lag", s.Lag, 30000*s.TimeS, 1e-3) // (130k − 100k) per second
		near(t, "backpressure", s.Backpressure, 1, 1e-9)
	}
	// FIFO queueing: the record read at t arrived when 100k·t records had
	// arrived, i.e. at t·100/130, so its latency grows as t·30/130.
	s := m.at(260)
	near(t, "queueing latency at 260 s (ms)", s.LatencyP50Ms-50, 1000*259.5*30/130, 5) // + 50 ms base latency
}

func TestCrashBacklogAndRecoveryTime(t *testing.T) {
	m, sum := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+handJob+
		"faults:\n  - {at: 125s, taskmanager: 0}\n")
	// Last completed checkpoint: triggered at 120 s. Fault 125 s, detected
	// 126 s, restart after 2 s at 128 s, TaskManager back at 135 s, deploy
	// 2 s + restore 1 s: RUNNING at 138 s. Downtime 13 s.
	running := one(t, m, results.KindRunning)
	near(t, "running at", running.TimeS, 138, 1e-9)
	near(t, "downtime", *running.DurationS, 13, 1e-9)
	// backlog = input since the checkpoint (5 s) + input during downtime (13 s)
	near(t, "backlog", *running.Value, 50000*(5+13), 1e-3)
	// recovery = downtime + backlog / (capacity − input) = 13 + 900k/50k
	rec := one(t, m, results.KindRecovered)
	near(t, "recovery time", *rec.DurationS, 13+900000.0/50000, 1)
	near(t, "recovered at", rec.TimeS, 125+31, 1)
	if sum.Recoveries != 1 || sum.Faults != 1 {
		t.Errorf("summary: %d recoveries, %d faults", sum.Recoveries, sum.Faults)
	}
	for _, s := range m.samples {
		switch {
		case s.TimeS > 126 && s.TimeS <= 138:
			if s.Throughput != 0 || !math.IsNaN(s.LatencyP99Ms) {
				t.Errorf("t=%v: job down but throughput %v, latency %v", s.TimeS, s.Throughput, s.LatencyP99Ms)
			}
		case s.TimeS > 139 && s.TimeS < 156:
			near(t, "catch-up throughput", s.Throughput, 100000, 1e-6)
			if !s.Recovering {
				t.Errorf("t=%v: recovering flag not set during catch-up", s.TimeS)
			}
		case s.TimeS > 157:
			near(t, "throughput after recovery", s.Throughput, 50000, 1e-6)
		}
	}
	// Reprocessing: the sources read the 250k records after the checkpoint twice.
	near(t, "records processed", float64(sum.RecordsProcessed), 50000*300+250000, 1)
}

// TestRestartOnSpareTaskManager: with a spare TaskManager the restart
// does not wait for the killed one (Flink's slot pool deploys on any free
// slots); the restarted process becomes the spare, and killing a spare
// touches no task.
func TestRestartOnSpareTaskManager(t *testing.T) {
	job := strings.Replace(handJob, "cluster: {restart_delay", "cluster: {taskmanagers: 2, restart_delay", 1)
	m, sum := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+job+
		"faults:\n  - {at: 125s, taskmanager: 0}\n  - {at: 185s, taskmanager: 1}\n  - {at: 245s, taskmanager: 1}\n")
	// 125 s: detected 126 s, restart 128 s on TaskManager 1 (spare), deploy
	// 2 s + restore 1 s: RUNNING at 131 s, not at 138 s as without the spare.
	// TaskManager 0 is back at 135 s as the spare, so the kill of TaskManager
	// 1 at 185 s moves the job back to 0 likewise (RUNNING 191 s), and the
	// kill of TaskManager 1 at 245 s (back at 195 s as the spare) stops
	// nothing.
	running := m.kind(results.KindRunning)
	if len(running) != 2 {
		t.Fatalf("%d running events, want 2", len(running))
	}
	for i, want := range []float64{131, 191} {
		near(t, "running at", running[i].TimeS, want, 1e-9)
		near(t, "downtime", *running[i].DurationS, 6, 1e-9)
	}
	// every fault is measured, as live: the spare's kill has a recovery of
	// 0 s (no sample after it is anomalous), the model has none to close
	if sum.Faults != 3 || sum.Recoveries != 3 || sum.RecoveryTimesS[2] != 0 || len(m.kind(results.KindModelRecovered)) != 2 {
		t.Errorf("summary: %d faults, %d recoveries %v, %d model recoveries; want 3, 3 (the last 0 s), 2",
			sum.Faults, sum.Recoveries, sum.RecoveryTimesS, len(m.kind(results.KindModelRecovered)))
	}
	near(t, "throughput after the spare's kill", m.at(250).Throughput, 50000, 1e-6)
}

// TestHeartbeatDetectionPhase: a TaskManager dies at a random point of the
// 2 s periods of two heartbeat loops (the JobMaster's and the
// ResourceManager's, independent phases), so RPC-failure detection
// (threshold 2) takes 2–4 s and a 10 s heartbeat timeout 8–10 s, the first
// loop to give up winning: lo + 2·min(U₁, U₂), 2/3 s above lo on average.
func TestHeartbeatDetectionPhase(t *testing.T) {
	for _, c := range []struct {
		mode   string
		lo, hi float64
	}{{"rpc", 2, 4}, {"heartbeat", 8, 10}, {"auto", 2, 4}} {
		t.Run(c.mode, func(t *testing.T) {
			job := strings.Replace(handJob, "detection: {mode: connection, connection_loss: 1s}",
				"detection: {mode: "+c.mode+", heartbeat_interval: 2s, rpc_failure_threshold: 2, heartbeat_timeout: 10s}", 1)
			var sum float64
			const n = 60
			for seed := 1; seed <= n; seed++ {
				m, _ := runYAML(t, fmt.Sprintf("seed: %d\nduration: 3m\nworkload: {shape: constant, rate: 50000/s}\n%s", seed, job)+
					"faults:\n  - {at: 125s, taskmanager: 0}\n")
				d := one(t, m, results.KindDetected).TimeS - 125
				if d < c.lo || d > c.hi {
					t.Fatalf("seed %d: detected after %.3f s, want %g–%g s", seed, d, c.lo, c.hi)
				}
				sum += d
			}
			near(t, "mean detection delay", sum/n, c.lo+(c.hi-c.lo)/3, 0.2)
		})
	}
}

// TestHeartbeatLoop: the heartbeat requests run in periodic loops, so
// within a run the RPC-failure detection of a kill at t depends only on t
// modulo the 2 s interval: kills 120 s apart are detected equally fast.
// How a shift within the period plays out on the two loops is worked out
// by hand in models/flink (TestHeartbeatLoss).
func TestHeartbeatLoop(t *testing.T) {
	job := strings.Replace(handJob, "detection: {mode: connection, connection_loss: 1s}",
		"detection: {mode: rpc, heartbeat_interval: 2s, rpc_failure_threshold: 2}", 1)
	m, _ := runYAML(t, "seed: 3\nduration: 10m\nworkload: {shape: constant, rate: 50000/s}\n"+job+
		"faults:\n  - {at: 100s, taskmanager: 0}\n  - {at: 220s, taskmanager: 0}\n")
	var d []float64
	for _, f := range cat.FaultSummaries(m.events) {
		d = append(d, f.DetectedAtS-f.AtS)
	}
	if len(d) != 2 {
		t.Fatalf("%d detections, want 2", len(d))
	}
	near(t, "the second kill's detection", d[1], d[0], 1e-9)
}

// TestWarmupRamp: as in TestCrashBacklogAndRecoveryTime the job runs
// again at 138 s with a 900k backlog, and its capacity ramps linearly over
// 16 s from warmup_start of the full 100k/s. From 0 the ramp consumes
// 100k·16/2 = 800k while 800k arrive, so the backlog is still 900k at 154 s
// and drains at 50k/s in 18 s more: recovered at 172 s, 47 s after the
// fault. From 0.5 it consumes 100k·16·0.75 = 1.2M: 500k are left at 154 s,
// drained by 164 s, 39 s after the fault. The first of the 8 ramp steps
// runs at its midpoint level.
func TestWarmupRamp(t *testing.T) {
	for _, c := range []struct {
		start               string
		recovery, firstStep float64
		lagAtRampEnd        float64
	}{
		{"0", 13 + 16 + 900000.0/50000, 100000 * 0.5 / 8, 900000},
		{"0.5", 13 + 16 + 500000.0/50000, 100000 * (0.5 + 0.5*0.5/8), 500000},
	} {
		t.Run("from-"+c.start, func(t *testing.T) {
			job := strings.Replace(handJob, "submit: 2s}", "submit: 2s, warmup: 16s, warmup_start: "+c.start+"}", 1)
			m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+job+
				"faults:\n  - {at: 125s, taskmanager: 0}\n")
			near(t, "recovery time", *one(t, m, results.KindRecovered).DurationS, c.recovery, 1e-6)
			near(t, "throughput in the first ramp step", m.at(139).Throughput, c.firstStep, 1e-6)
			near(t, "throughput at full capacity", m.at(158).Throughput, 100000, 1e-6)
			near(t, "lag at the end of the ramp", m.at(154).Lag, c.lagAtRampEnd, 1e-3)
		})
	}
}

// TestStatePerLag: as TestLoadAboveCapacityGrowsLagAtTheExcess, 130k/s
// against 100k/s, so the lag is 30k·t. With 10 B of state per record of
// lag the full checkpoint of 120 s holds 30k·120·10 B = 36 MB (snapshot and
// upload at 1 TB/s: microseconds). As in TestCrashBacklogAndRecoveryTime
// the killed TaskManager is back at 135 s, deploy 2 s + restore 1 s, and
// now the lag's 36 MB at 10 MB/s: RUNNING at 141.6 s, not 138 s. Bent at
// state_lag_scale 1,000,000 records the 3.6 M records of lag hold
// 10 B·1e6·ln(1 + 3.6) = 15.26 MB: RUNNING at 139.526 s.
func TestStatePerLag(t *testing.T) {
	for _, c := range []struct {
		scale    string
		size, up float64
	}{{"", 30000 * 120 * 10, 138 + 3.6}, {"\n  state_lag_scale: 1000000", 10 * 1e6 * math.Log(1+3.6), 138 + math.Log(1+3.6)}} {
		job := strings.Replace(handJob, "    cpu_overhead: 0\n", "    cpu_overhead: 0\n    incremental: false\n    sync_bandwidth: 1TB/s\n    upload_bandwidth: 1TB/s\n", 1)
		job = strings.Replace(job, "submit: 2s}", "submit: 2s, restore_bandwidth: 10MB/s}\n  state_per_lag: 10B"+c.scale, 1)
		m, _ := runYAML(t, "duration: 4m\nworkload: {shape: constant, rate: 130000/s}\n"+job+"faults:\n  - {at: 125s, taskmanager: 0}\n")
		var at120 *results.Event
		for _, e := range m.kind(results.KindCheckpointCompleted) {
			if e.TimeS > 120 && e.TimeS < 121 {
				at120 = &e
			}
		}
		if at120 == nil {
			t.Fatal("no checkpoint completed just after 120 s")
		}
		near(t, "checkpoint size at 120 s (B)"+c.scale, *at120.SizeBytes, c.size, 1e3)
		near(t, "running again at"+c.scale, one(t, m, results.KindRunning).TimeS, c.up, 1e-3)
	}
}

// TestPartLoadCPU: one core, 10 µs per record (100k/s), and a record
// costs half its CPU while the job keeps up (cluster.part_load_cpu 0.5).
// At 50k/s the TaskManager uses 0.5·50k·10 µs = 0.25 of its core; at
// 130k/s it is saturated: 1. At 120 s the input drops to 20k/s with
// 30k·60 s = 1.8M records behind, drained at 80k/s in 22.5 s at full CPU;
// the second ending at 143 s is half draining (1) and half keeping up
// (0.5·20k·10 µs = 0.1): 0.55; then 0.1. Capacity never changes.
func TestPartLoadCPU(t *testing.T) {
	job := strings.Replace(handJob, "submit: 2s}", "submit: 2s, part_load_cpu: 0.5}", 1)
	m, _ := runYAML(t, "duration: 3m\nworkload: {shape: step, rate: 50000/s, steps: [{at: 60s, rate: 130000/s}, {at: 120s, rate: 20000/s}]}\n"+job)
	for _, c := range []struct {
		at, cpu, throughput float64
	}{{30, 0.25, 50000}, {90, 1, 100000}, {130, 1, 100000}, {143, 0.55, 0.5*100000 + 0.5*20000}, {170, 0.1, 20000}} {
		near(t, fmt.Sprintf("cpu_busy_mean at %g s", c.at), m.at(c.at).CPUBusyMean, c.cpu, 1e-9)
		near(t, fmt.Sprintf("throughput at %g s", c.at), m.at(c.at).Throughput, c.throughput, 1e-6)
	}
}

// TestJITCPU: TestPartLoadCPU's TaskManager at 50k/s (0.5 of its core,
// every record at full CPU) with a JIT taking 0.5 of its core from its
// first deployment, decaying over 10 s: over the second (k − 1, k] it adds
// 0.5·10·(e^(−(k−1)/10) − e^(−k/10)): 0.4758 in the first, 0.02617 in the
// thirtieth; 0.25 at 40k/s in the first and 1 (clamped) at 60k/s.
func TestJITCPU(t *testing.T) {
	jit := func(k float64) float64 { return 5 * (math.Exp(-(k-1)/10) - math.Exp(-k/10)) }
	for _, c := range []struct {
		rate   string
		at     []float64
		work   float64
		capped bool
	}{{"50000/s", []float64{1, 30, 100}, 0.5, false}, {"40000/s", []float64{1}, 0.4, false}, {"60000/s", []float64{1}, 0.6, true}} {
		job := strings.Replace(handJob, "submit: 2s}", "submit: 2s, jit_cpu: 0.5, jit_time: 10s}", 1)
		m, _ := runYAML(t, "duration: 2m\nworkload: {shape: constant, rate: "+c.rate+"}\n"+job)
		for _, k := range c.at {
			want := c.work + jit(k)
			if c.capped {
				want = 1
			}
			near(t, fmt.Sprintf("%s: cpu_busy_mean at %g s", c.rate, k), m.at(k).CPUBusyMean, want, 1e-9)
		}
	}
}

// TestCPUNoise: TestPartLoadCPU's TaskManager at 50k/s reads 0.5 of its
// core exactly; with cluster.cpu_noise 0.1 its 180 per-second readings
// scatter about 0.5 with a standard deviation near 0.1·√(0.5·0.5) = 0.05
// (a 99.9 % band for 180 normal draws: mean within 0.015, s.d. within
// 0.01), the same for the same seed, and every other column is
// unchanged. Saturated (at 130k/s) it reads 1 exactly, as live.
func TestCPUNoise(t *testing.T) {
	in := "duration: 3m\nworkload: {shape: constant, rate: 50000/s}\n"
	exact, _ := runYAML(t, in+handJob)
	noisy := strings.Replace(handJob, "submit: 2s}", "submit: 2s, cpu_noise: 0.1}", 1)
	m, _ := runYAML(t, in+noisy)
	again, _ := runYAML(t, in+noisy)
	var xs []float64
	for k := 1.0; k <= 180; k++ {
		near(t, fmt.Sprintf("exact cpu_busy_mean at %g s", k), exact.at(k).CPUBusyMean, 0.5, 1e-9)
		near(t, fmt.Sprintf("the same seed's cpu at %g s", k), again.at(k).CPUBusyMean, m.at(k).CPUBusyMean, 0)
		near(t, fmt.Sprintf("throughput at %g s", k), m.at(k).Throughput, exact.at(k).Throughput, 0)
		xs = append(xs, m.at(k).CPUBusyMean)
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	near(t, "mean of the noisy readings", mean, 0.5, 0.015)
	near(t, "their standard deviation", sd, 0.05, 0.01)
	full, _ := runYAML(t, "duration: 1m\nworkload: {shape: constant, rate: 130000/s}\n"+noisy)
	for k := 1.0; k <= 60; k++ {
		near(t, fmt.Sprintf("saturated cpu at %g s", k), full.at(k).CPUBusyMean, 1, 1e-6)
	}
}

// TestDeployCV: with cluster.deploy_cv each deployment takes its nominal
// time times a gamma variate of mean 1 and standard deviation deploy_cv.
// The savepoint reconfiguration of the test below is down 0.5 s (savepoint)
// + 2 s (submit) + 3 s (deploy 2 s, restore 1 s) × M: over 200 of them the
// factors M must have mean 1 and standard deviation 0.3, the same seed must
// draw the same ones, and nothing else may vary. In place (in_place_share
// 0.5: the resubmission goes to the TaskManagers that ran the job) it is
// 1.5 s × M with the same spread in seconds, 0.9 s: M's s.d. is 0.6.
func TestDeployCV(t *testing.T) {
	for _, tc := range []struct {
		share      string
		deploy, cv float64
	}{{"", 3, 0.3}, {"in_place_share: 0.5, ", 1.5, 0.6}} {
		var b strings.Builder
		const n = 200
		fmt.Fprintf(&b, "duration: %dm\nworkload: {shape: constant, rate: 50000/s}\n", n+1)
		b.WriteString(strings.Replace(handJob, "submit: 2s}", "submit: 2s, "+tc.share+"deploy_cv: 0.3}", 1))
		b.WriteString("actions:\n")
		for k := 1; k <= n; k++ {
			fmt.Fprintf(&b, "  - {at: %ds, checkpoint_interval: %ds}\n", 60*k-30, 10+10*(k%2))
		}
		m, sum := runYAML(t, b.String())
		again, _ := runYAML(t, b.String())
		down, same := m.kind(results.KindReconfigured), again.kind(results.KindReconfigured)
		if len(down) != n || len(same) != n || sum.Reconfigurations != n {
			t.Fatalf("%s: %d and %d reconfigurations, want %d", tc.share, len(down), len(same), n)
		}
		var factors []float64
		for i, e := range down {
			near(t, fmt.Sprintf("%sreconfiguration %d with the same seed", tc.share, i+1), *same[i].DurationS, *e.DurationS, 0)
			factors = append(factors, (*e.DurationS-2.5)/tc.deploy)
		}
		mean, sd := stat.MeanStdDev(factors, nil)
		near(t, tc.share+"mean deployment factor", mean, 1, 3*tc.cv/math.Sqrt(n))
		near(t, tc.share+"its standard deviation", sd, tc.cv, tc.cv/6)
		if lo := slices.Min(factors); lo <= 0 {
			t.Errorf("%sa deployment took %g of its nominal time", tc.share, lo)
		}
	}
}

// TestCatchupCV: with cluster.catchup_cv each restore's catch-up takes a
// gamma variate g of mean 1 and that standard deviation times its nominal
// time. A crash every 60 s at 20k records/s on a job of capacity 100k/s:
// the job runs again with backlog B (the running event's value), which
// drains in B / 80k nominally, so g = T·80k / B for a measured catch-up T;
// over 200 crashes g must have mean 1 and standard deviation 0.2, and the
// steady state between catch-ups must run at the input rate.
func TestCatchupCV(t *testing.T) {
	var b strings.Builder
	const n = 200
	fmt.Fprintf(&b, "duration: %dm\nworkload: {shape: constant, rate: 20000/s}\n", n+1)
	b.WriteString(strings.Replace(handJob, "submit: 2s}", "submit: 2s, catchup_cv: 0.2}", 1))
	b.WriteString("faults:\n")
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, "  - {at: %ds, taskmanager: 0}\n", 60*k-25)
	}
	m, _ := runYAML(t, b.String())
	running, done := m.kind(results.KindRunning), m.kind(results.KindModelRecovered)
	if len(running) != n || len(done) != n {
		t.Fatalf("%d restores and %d catch-ups, want %d", len(running), len(done), n)
	}
	var factors []float64
	for i, r := range running {
		factors = append(factors, (done[i].TimeS-r.TimeS)*80000 / *r.Value)
	}
	mean, sd := stat.MeanStdDev(factors, nil)
	near(t, "mean catch-up time factor", mean, 1, 3*0.2/math.Sqrt(n))
	near(t, "its standard deviation", sd, 0.2, 0.2/6)
	for _, s := range m.samples {
		if k := math.Mod(s.TimeS, 60); k > 10 && k < 30 { // between a catch-up and the next crash
			near(t, fmt.Sprintf("throughput at %g s", s.TimeS), s.Throughput, 20000, 1e-6)
		}
	}
}

func TestCheckpointIntervalChangeBySavepointAndResubmit(t *testing.T) {
	m, sum := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+handJob+
		"actions:\n  - {at: 100s, checkpoint_interval: 20s}\n")
	// stop-with-savepoint 0.5 s (async phase, no state), submit 2 s, deploy
	// 2 s, restore 1 s: downtime 5.5 s, no reprocessing.
	sp := one(t, m, results.KindSavepoint)
	near(t, "savepoint done", sp.TimeS, 100.5, 1e-9)
	rc := one(t, m, results.KindReconfigured)
	near(t, "downtime", *rc.DurationS, 5.5, 1e-9)
	near(t, "backlog", *rc.Value, 50000*5.5, 1e-3)
	rec := one(t, m, results.KindRecovered)
	near(t, "catch-up done", rec.TimeS, 105.5+50000*5.5/50000, 1e-6)
	if !strings.HasPrefix(rec.Reason, "reconfiguration") || sum.Recoveries != 0 || sum.Reconfigurations != 1 {
		t.Errorf("reconfiguration booked as %q; %d recoveries, %d reconfigurations", rec.Reason, sum.Recoveries, sum.Reconfigurations)
	}
	near(t, "records processed", float64(sum.RecordsProcessed), 50000*300, 1) // nothing read twice
	near(t, "CI before", m.at(99).CheckpointIntervalS, 10, 0)
	near(t, "CI after", m.at(200).CheckpointIntervalS, 20, 0)
	// the new job checkpoints every 20 s from when it turns RUNNING, once
	// submitted at 102.5 s (its tasks then deploy and restore until 105.5 s)
	var after []float64
	for _, e := range m.kind(results.KindCheckpointCompleted) {
		if e.TimeS > 105.5 {
			after = append(after, e.TimeS)
		}
	}
	if len(after) < 2 {
		t.Fatalf("no checkpoints after the resubmit")
	}
	near(t, "first checkpoint after resubmit", after[0], 102.5+20+0.5, 1e-6)
	near(t, "spacing", after[1]-after[0], 20, 1e-6)
}

// TestUpgradeWarmupRamp: TestCheckpointIntervalChangeBySavepointAndResubmit
// with cluster.upgrade_warmup 16 s from 0.5: RUNNING at 105.5 s with 275k
// to read at 100k/s ramping over 8 steps of 2 s at their midpoint levels
// (0.53125, 0.59375, … of full): the first six drain 2 s × (3,125 +
// 9,375 + 15,625 + 21,875 + 28,125 + 34,375)/s = 225k by 117.5 s, the
// seventh (90,625/s, 40,625/s spare) the last 50k in 1.2308 s: caught up
// 18.73 s after the request at 100 s. The crash at 200 s restarts the job on the JVMs that
// ran it: cluster.warmup (0) applies, full capacity as soon as it runs
// (restart_delay 10 s + deploy 2 s + restore 1 s: RUNNING at 213 s).
func TestUpgradeWarmupRamp(t *testing.T) {
	job := strings.Replace(handJob, "submit: 2s}", "submit: 2s, upgrade_warmup: 16s, upgrade_warmup_start: 0.5}", 1)
	m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+job+
		"actions:\n  - {at: 100s, checkpoint_interval: 20s}\nfaults:\n  - {at: 200s, taskmanager: 0}\n")
	model := m.kind(results.KindModelRecovered)
	if len(model) != 2 {
		t.Fatalf("%d model recoveries, want 2", len(model))
	}
	near(t, "upgrade: caught up, from the request", *model[0].DurationS, 5.5+12+50000.0/(90625-50000), 1e-6)
	near(t, "upgrade: throughput in the first ramp step", m.at(107).Throughput, 53125, 1e-6)
	near(t, "crash: throughput right after the restart", m.at(214).Throughput, 100000, 1e-6)
}

// TestRescaleFromCheckpoint: the adaptive scheduler's rescale, by hand.
// 50k/s into 2 partitions, 10 µs per record per subtask, one slot and core
// per TaskManager: 100k/s at parallelism 1, 200k/s at 2. Checkpoints every
// 10 s from the start (initial_delay: interval), 0.5 s each.
// Up at 105 s: TaskManager 1 starts and registers within up_delay (10 s),
// the job goes down at 115 s and restarts from the checkpoint of 110 s:
// up_deploy 2 s + restore 1 s, RUNNING at 118 s with 50k·8 s = 400k to
// read, gone at the spare 150k/s after 2.667 s. Down at 203 s: down at
// once (down_delay 0 s), from the checkpoint the new job took at 195 s
// (its schedule restarted at 115 s), down_deploy 2 s + restore 1 s,
// RUNNING at 206 s with 550k, read at the spare 50k/s in 11 s: 14 s after
// the decision.
func TestRescaleFromCheckpoint(t *testing.T) {
	job := strings.Replace(handJob, "partitions: 1", "partitions: 2", 1)
	reactive := strings.Replace(job, "  restart:", "  rescale: {mode: checkpoint, up_delay: 10s, on_checkpoint: false}\n  restart:", 1)
	for _, twice := range []string{"", "  - {at: 110s, parallelism: 2}\n"} {
		// asking again while the scale-up waits for its TaskManagers changes nothing
		rescaleFromCheckpoint(t, reactive, twice)
	}
	// Flink 2's rescale trigger: after its delay a rescale waits for the
	// next completed checkpoint. Up: 115 s → the checkpoint of 120 s
	// completes at 120.5 s, RUNNING at 123.5 s with 3.5 s of input (175k)
	// to read at 150k/s. Down at 203 s: the checkpoint scheduler restarted
	// with the restart at 120.5 s (the job is RUNNING while its tasks
	// deploy), so the next trigger is 210.5 s, complete at 211 s: RUNNING
	// at 214 s with 50k·3.5 s.
	m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+
		strings.Replace(job, "  restart:", "  rescale: {mode: checkpoint, up_delay: 10s}\n  restart:", 1)+
		"actions:\n  - {at: 105s, parallelism: 2}\n  - {at: 203s, parallelism: 1}\n")
	rc := m.kind(results.KindReconfigured)
	if len(rc) != 2 {
		t.Fatalf("%d reconfigurations, want 2", len(rc))
	}
	near(t, "on checkpoint, up: running at", rc[0].TimeS, 123.5, 1e-9)
	near(t, "on checkpoint, up: backlog", *rc[0].Value, 175000, 1e-3)
	near(t, "on checkpoint, down: running at", rc[1].TimeS, 214, 1e-9)
	near(t, "on checkpoint, down: backlog", *rc[1].Value, 175000, 1e-3)
}

// TestUpWarmupRamp: TestRescaleFromCheckpoint's scale-up with
// rescale.up_warmup 16 s from 0.5. RUNNING at 118 s with 400k to read, two
// TaskManagers at 200k/s ramping over 8 steps of 2 s at their midpoint
// levels: 0.53125 (106,250/s) drains 56,250/s, 112.5k by 120 s; 0.59375
// (118,750/s) drains 68,750/s, 137.5k by 122 s; 0.65625 (131,250/s)
// drains the last 150k at 81,250/s in 1.846 s. The scale-down at 203 s
// starts no TaskManager, so cluster.warmup (0) applies and its recovery is
// TestRescaleFromCheckpoint's 14 s.
func TestUpWarmupRamp(t *testing.T) {
	job := strings.Replace(handJob, "partitions: 1", "partitions: 2", 1)
	job = strings.Replace(job, "  restart:", "  rescale: {mode: checkpoint, up_delay: 10s, on_checkpoint: false, up_warmup: 16s, up_warmup_start: 0.5}\n  restart:", 1)
	m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+job+
		"actions:\n  - {at: 105s, parallelism: 2}\n  - {at: 203s, parallelism: 1}\n")
	model := m.kind(results.KindModelRecovered)
	if len(model) != 2 {
		t.Fatalf("%d model recoveries, want 2", len(model))
	}
	near(t, "up: model recovered, from the restart", *model[0].DurationS, 3+4+150000.0/81250, 1e-6)
	near(t, "up: throughput in the first ramp step", m.at(119).Throughput, 106250, 1e-6)
	near(t, "down: model recovered", *model[1].DurationS, 3+550000.0/50000, 1e-6)
}

// TestRescaleReleasesIdleAfterACrashMovedATask: a crash while a scale-up
// waits moves the job to the new TaskManager 1 (the rescale is abandoned,
// the job restarts at parallelism 1 on the only live one), and TaskManager
// 0 comes back idle. Up to 2 at 200 s and down to 1 at 260 s: the
// rescale's tasks deploy from TaskManager 0 up, so TaskManager 1 is left
// idle and stopped, one worker after; placed where it ran before, the task
// would have stayed on 1 with the idle 0 below it, and both would count.
func TestRescaleReleasesIdleAfterACrashMovedATask(t *testing.T) {
	job := strings.Replace(handJob, "partitions: 1", "partitions: 2", 1)
	job = strings.Replace(job, "  restart:", "  rescale: {mode: checkpoint, up_delay: 10s, on_checkpoint: false}\n  restart:", 1)
	job = strings.Replace(job, "cluster: {", "cluster: {taskmanagers: 2, ", 1)
	m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+job+
		"faults:\n  - {at: 105s, taskmanager: 0}\n"+
		"actions:\n  - {at: 100s, parallelism: 2}\n  - {at: 200s, parallelism: 2}\n  - {at: 260s, parallelism: 1}\n")
	for _, k := range []struct {
		at           float64
		workers, par int32
	}{{150, 2, 1}, {250, 2, 2}, {290, 1, 1}} {
		s := m.at(k.at)
		if s.Workers != k.workers || s.Parallelism != k.par {
			t.Errorf("at %g s: %d workers at parallelism %d, want %d at %d", k.at, s.Workers, s.Parallelism, k.workers, k.par)
		}
	}
}

func rescaleFromCheckpoint(t *testing.T, job, extra string) {
	m, sum := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+job+
		"actions:\n  - {at: 105s, parallelism: 2}\n"+extra+"  - {at: 203s, parallelism: 1}\n")
	rc := m.kind(results.KindReconfigured)
	rec := m.kind(results.KindRecovered)
	if len(rc) != 2 || len(rec) != 2 {
		t.Fatalf("%d reconfigurations, %d recoveries; want 2 and 2", len(rc), len(rec))
	}
	near(t, "up: running at", rc[0].TimeS, 118, 1e-9)
	near(t, "up: downtime", *rc[0].DurationS, 3, 1e-9)
	near(t, "up: backlog", *rc[0].Value, 400000, 1e-3)
	// the model's exact end; the detector resolves it to the whole second
	// after (1-s samples: the first normal one starts there)
	model := m.kind(results.KindModelRecovered)
	near(t, "up: model recovered, from the restart", *model[0].DurationS, 3+400000.0/150000, 1e-6)
	near(t, "up: recovered, from the restart", *rec[0].DurationS, math.Ceil(115+3+400000.0/150000)-115, 1e-6)
	near(t, "down: running at", rc[1].TimeS, 206, 1e-9)
	near(t, "down: backlog", *rc[1].Value, 550000, 1e-3)
	near(t, "down: recovered", *rec[1].DurationS, 14, 1e-6)
	near(t, "parallelism in between", float64(m.at(150).Parallelism), 2, 0)
	near(t, "parallelism after", float64(m.at(250).Parallelism), 1, 0)
	// the 5 s since 120 s and the 8 s since 195 s are read twice
	near(t, "records processed", float64(sum.RecordsProcessed), 50000*(300+5+8), 1)
}

func TestHotKeyMakesItsSubtaskTheBottleneck(t *testing.T) {
	job := func(hot string) string {
		return `
duration: 2m
workload: {shape: constant, rate: 200000/s}
kafka: {partitions: 4}
job:
  parallelism: 4
  operators:
    - {name: source, cost: 1us}
    - {name: window, cost: 10us, partitioning: hash, hot_key_share: ` + hot + `}
  checkpoint: {interval: 1h, cpu_overhead: 0}
`
	}
	// Uniform keys: per TaskManager ¼·1 µs + ¼·10 µs per source record on
	// one core ⇒ 363,636 records/s, enough for 200k.
	m, _ := runYAML(t, job("0"))
	near(t, "uniform capacity", m.at(60).Capacity, 1/(0.25e-6+2.5e-6), 1e-3)
	near(t, "uniform lag", m.at(60).Lag, 0, 1e-3)
	// Hot key with half the records: subtask 0 receives ½ + ½/4 = 0.625 of
	// them ⇒ TaskManager 0 needs ¼·1 + 0.625·10 µs ⇒ 153,846 records/s.
	m, _ = runYAML(t, job("0.5"))
	capacity := 1 / (0.25e-6 + 6.25e-6)
	s := m.at(60)
	near(t, "hot-key capacity", s.Capacity, capacity, 1e-3)
	near(t, "lag growth", s.Lag, (200000-capacity)*60, 1)
	near(t, "bottleneck TaskManager busy", s.CPUBusyMax, 1, 1e-9)
	// the other TaskManagers idle at ¼·1 + 0.125·10 µs per record
	near(t, "mean busy", s.CPUBusyMean, (1+3*capacity*(0.25e-6+1.25e-6))/4, 1e-9)
}

// TestCheckpointsDuringCatchUpStall: a checkpoint triggered while the
// sources read backlog waits for the backpressured in-flight buffers before
// its barriers align (inflight_drain), and processing stalls meanwhile. The
// fault at 123 s loses the 3 s since the checkpoint at 120 s (CI 5 s and
// 10 s alike); detected 124 s, restart delay 2.5 s, TaskManager back 133 s,
// deploy and restore 3 s: RUNNING at 136 s, down 13 s, with a backlog of
// 50k·16 s that drains at 50k/s by 152 s. The checkpoint scheduler restarts
// when the restart delay ends (126.5 s), as Flink's does when the job turns
// RUNNING again, and declines triggers until the tasks run. A stall of 1 s
// at full capacity leaves 100k records unread, which take 2 s to drain at
// the spare 50k/s: each backpressured checkpoint costs
// capacity/(capacity − input) = 2 s. CI 10 s: 136.5 and 146.5 s stall, 156.5
// s finds no backlog: 13 + 16 + 2·2 = 33 s. CI 5 s: 131.5 s is declined
// (restoring); 136.5 … 161.5 s stall, as each pushes the drain past the next:
// 13 + 16 + 6·2 = 41 s. Without the drain: 29 s. With inflight_block 0.5 the
// second of draining runs at 50k/s, the input: 1 s each, 13 + 16 + 2 = 31 s.
// So the recovery grows as the CI shrinks and with the load.
func TestCheckpointsDuringCatchUpStall(t *testing.T) {
	for _, c := range []struct {
		ci, drain, block string
		recovery         float64
	}{{"10s", "1s", "1", 33}, {"5s", "1s", "1", 41}, {"5s", "0s", "1", 29}, {"10s", "1s", "0.5", 31}} {
		t.Run(c.ci+"-drain-"+c.drain+"-block-"+c.block, func(t *testing.T) {
			job := strings.Replace(handJob, "inflight_drain: 0s", "inflight_drain: "+c.drain+"\n    inflight_block: "+c.block, 1)
			job = strings.Replace(job, "interval: 10s", "interval: "+c.ci, 1)
			job = strings.Replace(job, "delay: 2s", "delay: 2.5s", 1)
			m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+job+
				"faults:\n  - {at: 123s, taskmanager: 0}\n")
			near(t, "running at", one(t, m, results.KindRunning).TimeS, 136, 1e-9)
			near(t, "recovery time", *one(t, m, results.KindRecovered).DurationS, c.recovery, 1e-6)
			// while a checkpoint stalls the catch-up the tasks drain in-flight
			// records: the CPU stays where the catch-up keeps it
			near(t, "CPU in a stalled second", m.at(137).CPUBusyMax, m.at(141).CPUBusyMax, 1e-9)
			// the first checkpoint after the fault is the one triggered at
			// 136.5 s, which takes the drain and the 0.5 s async phase
			drain, _ := strconv.ParseFloat(strings.TrimSuffix(c.drain, "s"), 64)
			for _, e := range m.kind(results.KindCheckpointCompleted) {
				if e.TimeS > 123 {
					near(t, "first checkpoint after the fault", e.TimeS, 136.5+drain+0.5, 1e-9)
					break
				}
			}
		})
	}
}

// TestRestoreTimeGrowsWithStateSize: the restore downloads the state, so
// downtime grows with it. 100 MiB at 50 MiB/s adds 2 s to the fault of
// TestCrashBacklogAndRecoveryTime: RUNNING at 140 s, down 15 s, backlog
// 50k·(5 + 15) s = 1M, drained in 20 s: recovery 35 s. (The sync phase
// reads the state at 1 TiB/s: 0.1 ms per checkpoint, within the tolerance.)
func TestRestoreTimeGrowsWithStateSize(t *testing.T) {
	job := strings.Replace(handJob, "{name: source, cost: 10us}", "{name: source, cost: 10us, state_size: 100MiB}", 1)
	job = strings.Replace(job, "sync_base: 0s", "sync_base: 0s\n    sync_bandwidth: 1TiB/s", 1)
	job = strings.Replace(job, "restore_base: 1s", "restore_base: 1s, restore_bandwidth: 50MiB/s", 1)
	m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: 50000/s}\n"+job+
		"faults:\n  - {at: 125s, taskmanager: 0}\n")
	running := one(t, m, results.KindRunning)
	near(t, "running at", running.TimeS, 140, 1e-9)
	near(t, "backlog", *running.Value, 1e6, 1)
	near(t, "recovery time", *one(t, m, results.KindRecovered).DurationS, 35, 0.01)
}

// TestWindowStateGrowsWithTheRate: a window operator that keeps each
// record's 100 B for 20 s holds 50k/s × 20 s × 100 B = 100 MB at 50k/s and
// 40 MB at 20k/s; restored at 50 MB/s that is 2 s and 0.8 s on top of the
// 3 s deploy and restore base. Fault at 125 s as in
// TestCrashBacklogAndRecoveryTime: RUNNING at 140 s and 138.8 s.
func TestWindowStateGrowsWithTheRate(t *testing.T) {
	for _, c := range []struct {
		rate    string
		running float64
	}{{"50000/s", 140}, {"20000/s", 138.8}} {
		t.Run(c.rate, func(t *testing.T) {
			job := strings.Replace(handJob, "{name: source, cost: 10us}", "{name: source, cost: 10us, state_per_record: 100B, state_retention: 20s}", 1)
			job = strings.Replace(job, "sync_base: 0s", "sync_base: 0s\n    sync_bandwidth: 1TB/s\n    upload_bandwidth: 1TB/s", 1)
			job = strings.Replace(job, "restore_base: 1s", "restore_base: 1s, restore_bandwidth: 50MB/s", 1)
			m, _ := runYAML(t, "duration: 5m\nworkload: {shape: constant, rate: "+c.rate+"}\n"+job+
				"faults:\n  - {at: 125s, taskmanager: 0}\n")
			near(t, "running at", one(t, m, results.KindRunning).TimeS, c.running, 1e-6)
		})
	}
}

// TestHostLoadTakesCapacity: processes on the TaskManagers' hosts spend
// 5 µs of CPU per input record. The job (10 µs per record on one core)
// keeps 1 − 50k·5 µs = 75 % of its core at 50k/s: 75k/s of capacity; at
// 100k/s it keeps half, 50k/s, and the lag grows by 50k every second.
func TestHostLoadTakesCapacity(t *testing.T) {
	job := strings.Replace(handJob, "submit: 2s}", "submit: 2s, host_cpu_per_record: 5us}", 1)
	for _, c := range []struct {
		rate      string
		capacity  float64
		lagGrowth float64
	}{{"50000/s", 75000, 0}, {"100000/s", 50000, 50000}} {
		m, _ := runYAML(t, "duration: 2m\nworkload: {shape: constant, rate: "+c.rate+"}\n"+job)
		near(t, c.rate+": capacity", m.at(60).Capacity, c.capacity, 1e-6)
		near(t, c.rate+": lag growth", m.at(61).Lag-m.at(60).Lag, c.lagGrowth, 1e-3)
	}
}

// TestRestartDelayCV: each crash of handJob's only TaskManager waits for
// it to come back (restart_delay 10 s × M) and then deploys (2 s + 1 s
// restore): running again 13 s after the restart's start on average. Over
// 100 crashes the factors M must have mean 1 and standard deviation 0.4,
// and the same seed must draw the same ones.
func TestRestartDelayCV(t *testing.T) {
	var b strings.Builder
	const n = 100
	fmt.Fprintf(&b, "duration: %dm\nworkload: {shape: constant, rate: 10000/s}\n", 2*n+1)
	b.WriteString(strings.Replace(handJob, "restart_delay: 10s,", "restart_delay: 10s, restart_delay_cv: 0.4,", 1))
	b.WriteString("faults:\n")
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, "  - {at: %ds, taskmanager: 0}\n", 120*k)
	}
	m, _ := runYAML(t, b.String())
	again, _ := runYAML(t, b.String())
	up, same := m.kind(results.KindTaskManagerUp), again.kind(results.KindTaskManagerUp)
	if len(up) != n || len(same) != n {
		t.Fatalf("%d and %d TaskManager restarts, want %d", len(up), len(same), n)
	}
	var factors []float64
	for k, e := range up {
		near(t, fmt.Sprintf("restart %d with the same seed", k+1), same[k].TimeS, e.TimeS, 0)
		factors = append(factors, (e.TimeS-float64(120*(k+1)))/10)
	}
	mean, sd := stat.MeanStdDev(factors, nil)
	near(t, "mean restart factor", mean, 1, 3*0.4/math.Sqrt(n))
	near(t, "its standard deviation", sd, 0.4, 0.08)
}

// TestVerticesOfTheirOwn by hand: 80k/s into 2 partitions, a source and a
// rebalanced map of 10 µs per record each, one-slot one-core TaskManagers.
// At parallelism 2 each TaskManager runs half of both: 10 µs per record of
// the whole rate, 100k/s, above the input. At 100 s the vertices action
// keeps the source at 2 and gives the map 1 (stop-with-savepoint and
// resubmit, as the operator applies its overrides): TaskManager 0 now runs
// half the source and all the map, 15 µs per record, so the job reads
// 66,667/s and its lag grows. Still two TaskManagers (the largest
// parallelism). A checkpoint-interval change at 200 s keeps the vertices;
// the job-level rescale to 2 at 300 s gives the map 2 again: 100k/s.
func TestVerticesOfTheirOwn(t *testing.T) {
	job := strings.Replace(strings.Replace(handJob, "partitions: 1", "partitions: 2", 1), "parallelism: 1", "parallelism: 2", 1)
	job = strings.Replace(job, "    - {name: source, cost: 10us}\n", "    - {name: source, cost: 10us}\n    - {name: map, cost: 10us, partitioning: rebalance}\n", 1)
	m, _ := runYAML(t, "duration: 400s\nworkload: {shape: constant, rate: 80000/s}\n"+job+
		"actions:\n  - {at: 100s, vertices: {source: 2, map: 1}}\n  - {at: 200s, checkpoint_interval: 20s}\n  - {at: 300s, parallelism: 2}\n")
	if n := len(m.kind(results.KindReconfigured)); n != 3 {
		t.Fatalf("%d reconfigurations, want 3", n)
	}
	near(t, "throughput at parallelism 2", m.at(90).Throughput, 80000, 1e-6)
	near(t, "throughput, map at 1", m.at(150).Throughput, 1e5/1.5, 1e-6)
	near(t, "throughput after the CI change", m.at(250).Throughput, 1e5/1.5, 1e-6)
	near(t, "throughput, map at 2 again (catching up)", m.at(320).Throughput, 1e5, 1e-6)
	for _, at := range []float64{150, 250, 320} {
		if w := m.at(at).Workers; w != 2 {
			t.Errorf("%g s: %d TaskManagers, want 2", at, w)
		}
	}
	// A vertex it does not name keeps the job's parallelism, also across a
	// CI change: 3 partitions, 120k/s. The map to 3 at 100 s leaves the
	// source at 2 (shares 2/3 and 1/3): TaskManager 0 runs ⅔ of the source
	// and ⅓ of the map, 10 µs per record: 100k/s, lagging. After the CI
	// change at 200 s still 100k/s (the source at 3 too would give 150k/s).
	job = strings.Replace(job, "partitions: 2", "partitions: 3", 1)
	m, _ = runYAML(t, "duration: 300s\nworkload: {shape: constant, rate: 120000/s}\n"+job+
		"actions:\n  - {at: 100s, vertices: {map: 3}}\n  - {at: 200s, checkpoint_interval: 20s}\n")
	near(t, "throughput, map at 3", m.at(150).Throughput, 1e5, 1e-6)
	near(t, "throughput after the CI change", m.at(250).Throughput, 1e5, 1e-6)
	if w := m.at(250).Workers; w != 3 {
		t.Errorf("250 s: %d TaskManagers, want 3", w)
	}
}
