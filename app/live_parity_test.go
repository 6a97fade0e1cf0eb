package app

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// parityScenario is one quarter-core TaskManager (live up --taskmanagers 1
// --slots 1 --tm-cpu 0.25; the twin's cluster.cores 0.25, cost_scale and
// part_load_cpu as scenarios/live-capacity.yaml fits them: about 9,850
// records/s) near idle for 30 s, at about half its capacity for 180 s, past
// it (14,000/s) for 60 s, then draining at 2,000/s. idle_cpu is the CPU an
// idle TaskManager JVM used live with no job (0.42 CPU-seconds in 20 s,
// /proc, 2026-12-05).
const parityScenario = `name: live-parity
description: one quarter-core TaskManager near idle, at half load, past its capacity, draining
seed: 3
duration: 320s
workload: {shape: step, rate: 200/s, steps: [{at: 30s, rate: 5000/s}, {at: 210s, rate: 14000/s}, {at: 270s, rate: 2000/s}]}
kafka: {partitions: 2}
job:
  template: traffic-monitoring
  parallelism: 1
  checkpoint: {interval: 10s, incremental: false}
  restart: {strategy: fixed-delay, delay: 2s, attempts: 0}
  detection: {heartbeat_interval: 2s, heartbeat_timeout: 10s}
  cluster: {taskmanagers: 1, slots: 1, cores: 0.25, idle_cpu: 0.021, part_load_cpu: 0.621, jit_cpu: 0.66, jit_time: 44s, cpu_noise: 0.4, restart_delay: 5s, deploy: 0.266401s, restore_bandwidth: 4.5MiB/s, warmup: 1.69973s}
  cost_scale: 0.393
  latency: {base: 0ms}
qos: {latency: 10s, recovery: 600s}
`

// parityWindow is a stretch of the parity schedule compared by its means:
// the live clock jitters by a few hundred ms and Flink's counters by a
// refresh, so single seconds differ by a second's worth of records where
// their means over tens of seconds do not. The half-load window starts
// 120 s after its step: a fresh quarter-core JVM compiles its hot code
// for 60–90 s, and its CPU meanwhile varies from run to run by more than
// half its core (make live-capacity, make live-warmup), which the twin
// does not model (docs/model.md, "Observed quantities"). The overload one
// starts 15 s after its step (before the window state of the overload
// slows the TaskManager, docs/autoscaling.md "Live"); both end 2 s before
// the next step (the live sample of second k can already hold its
// records).
type parityWindow struct {
	name     string
	from, to float64 // seconds, (from, to]
}

var (
	parityHalf = parityWindow{"half load", 150, 208}
	parityOver = parityWindow{"past capacity", 225, 268}
)

// TestLiveParity drives the twin and the live cluster over parityScenario
// and compares every observed quantity (docs/model.md, "Observed
// quantities") within the tolerances below; the acceptance of issue 33: a
// --tm-cpu 0.25 TaskManager driven past its capacity reads a CPU
// utilisation of about 1.0 in both. STREAMTWIN_LIVE=1 runs it (about
// 7 min; STREAMTWIN_LIVE_PARITY_OUT keeps its run folder there);
// STREAMTWIN_LIVE_PARITY_RUN names a live run folder of the scenario to
// compare instead of starting a cluster.
func TestLiveParity(t *testing.T) {
	run := os.Getenv("STREAMTWIN_LIVE_PARITY_RUN")
	if os.Getenv("STREAMTWIN_LIVE") == "" && run == "" {
		t.Skip("set STREAMTWIN_LIVE=1 to start a real Flink and Kafka (make live-parity)")
	}
	dir := t.TempDir()
	sc := filepath.Join(dir, "live-parity.yaml")
	if err := os.WriteFile(sc, []byte(parityScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	if run == "" {
		cl := liveClusterDir(dir)
		startLiveCluster(t, cl, "--taskmanagers", "1", "--slots", "1", "--tm-cpu", "0.25")
		run = filepath.Join(dir, "live")
		if d := os.Getenv("STREAMTWIN_LIVE_PARITY_OUT"); d != "" {
			run = d // kept for a look after a failure (make live-parity)
			if err := os.RemoveAll(run); err != nil {
				t.Fatal(err)
			}
		}
		stdout, stderr, code, _ := runCLI(t, "live", "run", sc, "--dir", cl, "--out", run, "--jar", "../"+defaultJobJar)
		if code != 0 {
			t.Fatalf("live run: exit %d\n%s%s", code, stdout, stderr)
		}
	}
	twin := filepath.Join(dir, "twin")
	if _, stderr, code, _ := runCLI(t, "run", sc, "--out", twin); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	live := must(results.ReadSamples(filepath.Join(run, results.TimeseriesFile)))
	sim := must(results.ReadSamples(filepath.Join(twin, results.TimeseriesFile)))
	for _, f := range parityFailures(t, sim, live) {
		t.Error(f)
	}
}

// parityFailures compares the twin's samples with the live ones and
// returns what lies outside its tolerance; it logs every comparison.
func parityFailures(t *testing.T, sim, live []results.Sample) []string {
	var fails []string
	check := func(ok bool, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		t.Log(msg)
		if !ok {
			fails = append(fails, msg)
		}
	}
	var (
		input   = func(s results.Sample) float64 { return s.InputRate }
		through = func(s results.Sample) float64 { return s.Throughput }
		lag     = func(s results.Sample) float64 { return s.Lag }
		cpu     = func(s results.Sample) float64 { return s.CPUBusyMean }
		cpuMax  = func(s results.Sample) float64 { return s.CPUBusyMax }
		bp      = func(s results.Sample) float64 { return s.Backpressure }
		p99     = func(s results.Sample) float64 { return s.LatencyP99Ms }
	)
	// every second: the job's state, workers, parallelism
	bySec := map[float64]results.Sample{}
	for _, s := range live {
		bySec[s.TimeS] = s
	}
	states := 0
	for _, s := range sim {
		l, ok := bySec[s.TimeS]
		if !ok || s.TimeS <= 10 { // the live job deploys in its first seconds
			continue
		}
		if l.JobState != s.JobState || l.Workers != s.Workers || l.Parallelism != s.Parallelism {
			states++
		}
	}
	check(states == 0, "job_state, workers, parallelism: %d seconds after 10 s differ (tolerance 0)", states)

	for _, w := range []parityWindow{parityHalf, parityOver} {
		// input rate: the producer follows the schedule within 5 %
		si, li := windowMean(sim, w, input), windowMean(live, w, input)
		check(relDiff(li, si) <= 0.05, "%s: input_rate live %.0f, twin %.0f records/s (tolerance 5 %%)", w.name, li, si)
		// CPU utilisation: one TaskManager, so mean and max are one number
		sc, lc := windowMean(sim, w, cpu), windowMean(live, w, cpu)
		scm, lcm := windowMean(sim, w, cpuMax), windowMean(live, w, cpuMax)
		check(math.Abs(lc-lcm) < 1e-9 && math.Abs(sc-scm) < 1e-9, "%s: cpu_busy_max = cpu_busy_mean on one TaskManager (live %.3f/%.3f, twin %.3f/%.3f)", w.name, lcm, lc, scm, sc)
		if w == parityOver {
			// the acceptance: utilisation about 1 at capacity in both
			check(math.Abs(lc-1) <= 0.1 && math.Abs(sc-1) <= 0.1, "%s: cpu_busy_mean live %.3f, twin %.3f (tolerance 1 ± 0.1)", w.name, lc, sc)
		} else {
			check(math.Abs(lc-sc) <= 0.15, "%s: cpu_busy_mean live %.3f, twin %.3f (tolerance ± 0.15)", w.name, lc, sc)
		}
		st, lt := windowMean(sim, w, through), windowMean(live, w, through)
		sl0, sl1 := at(sim, w.from, lag), at(sim, w.to, lag)
		ll0, ll1 := at(live, w.from, lag), at(live, w.to, lag)
		if w == parityHalf {
			check(relDiff(lt, st) <= 0.05, "%s: throughput live %.0f, twin %.0f records/s (tolerance 5 %%)", w.name, lt, st)
			sm, lm := windowMean(sim, w, lag), windowMean(live, w, lag)
			check(sm <= si && lm <= li, "%s: lag mean live %.0f, twin %.0f records (tolerance: below one second of input, %.0f)", w.name, lm, sm, si)
			sb, lb := windowMean(sim, w, bp), windowMean(live, w, bp)
			check(sb <= 0.05 && lb <= 0.05, "%s: backpressure live %.3f, twin %.3f (tolerance ≤ 0.05)", w.name, lb, sb)
			sp, lp := windowMean(sim, w, p99), windowMean(live, w, p99)
			check(relDiff(lp, sp) <= 0.35, "%s: latency_p99_ms live %.0f, twin %.0f (tolerance 35 %%)", w.name, lp, sp)
		} else {
			// saturated in both: the sources read below the input and the
			// lag grows; the rate they read is the TaskManager's capacity
			check(lt < 0.95*li && st < 0.95*si, "%s: throughput below the input in both: live %.0f of %.0f, twin %.0f of %.0f records/s", w.name, lt, li, st, si)
			check(ll1 > ll0 && sl1 > sl0, "%s: lag grows in both: live %.0f → %.0f, twin %.0f → %.0f records", w.name, ll0, ll1, sl0, sl1)
			check(relDiff(lt, st) <= 0.35, "%s: capacity (throughput) live %.0f, twin %.0f records/s (tolerance 35 %%: make live-capacity reads it over 10 s, the live throughput is bursty)", w.name, lt, st)
		}
	}
	return fails
}

// windowMean is the mean of f over the samples in (w.from, w.to], NaN
// values left out (an interval without a record at the sink has no
// latency).
func windowMean(ss []results.Sample, w parityWindow, f func(results.Sample) float64) float64 {
	var xs []float64
	for _, s := range ss {
		if s.TimeS > w.from && s.TimeS <= w.to {
			xs = append(xs, f(s))
		}
	}
	return statistics.FiniteMean(statistics.FiniteValues(xs))
}

// at is f of the sample at second t (NaN if none).
func at(ss []results.Sample, t float64, f func(results.Sample) float64) float64 {
	for _, s := range ss {
		if s.TimeS == t {
			return f(s)
		}
	}
	return math.NaN()
}

// relDiff is |a − b| / |b| (+Inf when either is NaN).
func relDiff(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.Inf(1)
	}
	return math.Abs(a-b) / math.Abs(b)
}
