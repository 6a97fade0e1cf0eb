package app

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/live/cluster"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// TestLiveFaults replays scenarios/live-faults.yaml, one fault of every
// kind, on a real cluster (make live-test), checks each fault's effect in
// the run's rows, and that every one was undone: no process left stopped,
// no CPU quota, no read-only mount, and a JobManager serving again with
// both TaskManagers. STREAMTWIN_LIVE_FAULTS_OUT keeps the run folder.
func TestLiveFaults(t *testing.T) {
	if os.Getenv("STREAMTWIN_LIVE") == "" {
		t.Skip("set STREAMTWIN_LIVE=1 to start a real Flink and Kafka (make live-test)")
	}
	cl := liveClusterDir(t.TempDir())
	startLiveCluster(t, cl)
	run := liveRunInto(t, cl, "live-faults", "STREAMTWIN_LIVE_FAULTS_OUT")
	checkFaultsUndone(t, cl)
	checkFaultsRun(t, run)
}

// checkFaultsUndone: nothing a fault did outlives the run.
func checkFaultsUndone(t *testing.T, cl string) {
	t.Helper()
	for _, pid := range processesNaming("-Dstreamtwin.live=" + cl) {
		if b, err := os.ReadFile(filepath.Join("/proc", pid, "stat")); err == nil {
			// state is the field after the parenthesised command
			if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "T" {
				t.Errorf("process %s is still stopped after the run", pid)
			}
		}
	}
	if b, err := os.ReadFile("/proc/mounts"); err == nil && strings.Contains(string(b), cl) {
		t.Errorf("a mount under %s is left after the run:\n%s", cl, b)
	}
	c, err := cluster.Attach(cl)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= c.TaskManagers(); i++ {
		if q, err := c.CPULimit(i); err == nil && q != 0 {
			t.Errorf("tm-%d keeps a CPU quota of %g cores after the run", i, q)
		}
	}
	// the JobManager serves again, with every TaskManager registered
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.WaitTaskManagers(ctx, c.TaskManagers()); err != nil {
		t.Errorf("after the run: %v", err)
	}
}

// checkFaultsRun: each fault's effect, as the run's rows show it.
func checkFaultsRun(t *testing.T, run string) {
	t.Helper()
	sum, err := results.ReadSummary(run)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Faults != 6 || sum.UnrecoveredFaults < 1 || sum.FinalState != "FAILED" {
		t.Errorf("%d faults, %d unrecovered, final state %s; want 6, ≥ 1 (the JobManager's), FAILED",
			sum.Faults, sum.UnrecoveredFaults, sum.FinalState)
	}
	events, err := results.ReadEvents(filepath.Join(run, results.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadSamples(filepath.Join(run, results.TimeseriesFile))
	if err != nil {
		t.Fatal(err)
	}
	in := func(kind string, from, to float64) int {
		n := 0
		for _, e := range events {
			if e.Kind == kind && e.TimeS >= from && e.TimeS < to {
				n++
			}
		}
		return n
	}
	// minThroughput counts an unmeasured second (NaN: Kafka's offsets could
	// not be read, so the job could not read either) as 0
	minThroughput := func(from, to float64) float64 {
		m := 1e18
		for _, s := range samples {
			if s.TimeS > from && s.TimeS <= to {
				if math.IsNaN(s.Throughput) {
					m = 0
				} else {
					m = min(m, s.Throughput)
				}
			}
		}
		return m
	}
	// a 4 s freeze: the job stalls and Flink does not notice
	if n := in(results.KindDetected, 40, 60); n != 0 {
		t.Errorf("the 4 s freeze at 40 s made Flink detect %d failures, want none", n)
	}
	if m := minThroughput(40, 46); m > 1500 {
		t.Errorf("the 4 s freeze at 40 s left throughput at ≥ %.0f records/s, want a stall", m)
	}
	// the broker outage: no read in it
	if m := minThroughput(120, 135); m > 1500 {
		t.Errorf("the Kafka broker outage at 120 s left throughput at ≥ %.0f records/s", m)
	}
	// read-only storage: a checkpoint fails, and with it the job
	if in(results.KindCheckpointFailed, 165, 185) == 0 || in(results.KindDetected, 165, 185) == 0 {
		t.Errorf("the storage outage at 165 s: %d checkpoints failed, %d failures detected; want ≥ 1 of each",
			in(results.KindCheckpointFailed, 165, 185), in(results.KindDetected, 165, 185))
	}
	// a 20 s freeze: the heartbeat timeout (10 s) fails the job over
	if in(results.KindDetected, 215+8, 215+14) == 0 || in(results.KindRunning, 215, 270) == 0 {
		t.Errorf("the 20 s freeze at 215 s: no failover detected 8–14 s later, or no return to RUNNING")
	}
	for _, f := range measure.FaultRecoveries(events) {
		if f.AtS == 275 && f.Recovered() {
			t.Errorf("the JobManager crash at 275 s recovered in %g s; without HA the job is lost", f.RecoveryS)
		}
	}
}
