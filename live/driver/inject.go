package driver

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
)

// faultEffects is what the injected faults changed that the samples and
// the restart tracking must know.
type faultEffects struct {
	faults int // injected so far
	// jobLost: a jobmanager fault took the job with it (no HA); the
	// samples call it FAILED
	jobLost bool
	// brokerBack is when a kafka_broker fault's broker is started again:
	// the reader's kafkaGrace runs from then
	brokerBack time.Time
	// lateFaults are the times of the faults that do not stop the job
	// themselves (storage, broker, CPU): a failover they cause is down
	// from its detection, not from the fault
	lateFaults map[float64]bool
}

// Inject starts fault f on the local cluster and records its fault event.
// A fault that lasts is undone in the background after its duration, or
// at once when the run ends first (r.wg holds the run's end until then):
// the cluster is left as it was found.
func (r *run) Inject(f scenario.ScheduledFault, tm int, reason string) error {
	c := r.env.Cluster
	if c == nil {
		return fmt.Errorf("an external cluster's processes are not ours to fault; use a local cluster (streamtwin live up, --dir)")
	}
	if scenario.TargetsTaskManager(f.Kind) {
		if n := c.TaskManagers(); tm < 0 || tm >= n {
			return fmt.Errorf("no TaskManager %d (the cluster has %d)", tm, n)
		}
	}
	// the fault's time is when it starts, not when the process has died
	// (a broker's controlled shutdown takes most of a second)
	at := r.now()
	i := tm + 1 // the cluster numbers TaskManagers from 1 (tm-1, …)
	d := f.Duration.Std()
	var what string
	var undo func() error
	switch f.Kind {
	case scenario.FaultTaskManager:
		return r.kill(tm, at, reason)
	case scenario.FaultFreeze:
		if err := c.FreezeTaskManager(i); err != nil {
			return fmt.Errorf("freezing TaskManager tm-%d: %w", i, err)
		}
		what, undo = fmt.Sprintf("freeze for %gs; SIGSTOP", f.Duration), func() error { return c.ThawTaskManager(i) }
	case scenario.FaultCPUThrottle:
		cores := f.Share * r.tmCores()
		if err := c.ThrottleTaskManager(i, cores); err != nil {
			return fmt.Errorf("throttling TaskManager tm-%d: %w", i, err)
		}
		what, undo = fmt.Sprintf("CPU throttled to %g for %gs; CFS quota %.3g cores", f.Share, f.Duration, cores), func() error { return c.UnthrottleTaskManager(i) }
	case scenario.FaultKafkaBroker:
		r.mu.Lock()
		r.brokerBack = time.Now().Add(d)
		r.mu.Unlock()
		if err := c.StopKafka(); err != nil {
			return fmt.Errorf("stopping the Kafka broker: %w", err)
		}
		what, undo = fmt.Sprintf("Kafka broker down for %gs; SIGTERM", f.Duration), c.StartKafka
	case scenario.FaultJobManager:
		r.mu.Lock()
		r.jobLost = true
		r.mu.Unlock()
		if err := c.KillJobManager(); err != nil {
			return fmt.Errorf("killing the JobManager: %w", err)
		}
		// started again at once, as Kubernetes restarts its pod: without
		// HA it knows no job
		what, undo, d = "JobManager crash; SIGKILL", c.StartJobManager, 0
	case scenario.FaultCheckpointStorage:
		dir := r.checkpointDir()
		if err := c.ReadOnly(dir); err != nil {
			return fmt.Errorf("making checkpoint storage read-only: %w", err)
		}
		what, undo = fmt.Sprintf("checkpoint storage refuses writes for %gs; read-only bind mount", f.Duration), func() error { return c.Writable(dir) }
	default:
		return fmt.Errorf("unknown fault kind %q", f.Kind)
	}
	r.mu.Lock()
	r.faults++
	if f.Kind != scenario.FaultFreeze && f.Kind != scenario.FaultJobManager {
		if r.lateFaults == nil {
			r.lateFaults = map[float64]bool{}
		}
		r.lateFaults[at] = true
	}
	r.mu.Unlock()
	e := results.Event{TimeS: at, Kind: results.KindFault, Reason: reason + " (" + what + ")"}
	if f.Duration > 0 { // it lasts: its recovery is confirmed after its end (measure.RecoveryOptions.UntilS)
		lasts := f.Duration.Seconds()
		e.DurationS = &lasts
	}
	if scenario.TargetsTaskManager(f.Kind) {
		t32 := int32(tm)
		e.TaskManager = &t32
	}
	r.event(e)
	r.logf("%s at %.1f s (%s)", what, at, reason)
	r.background(func(ctx context.Context) {
		_ = sleepCtx(ctx, d) // cut short when the run ends: undo it now
		if err := undo(); err != nil {
			r.logf("undoing the %s fault: %v", f.Kind, err)
			return
		}
		r.logf("%s fault undone at %.1f s", f.Kind, r.now())
	})
	return nil
}

// kill SIGKILLs TaskManager tm (0-based) at run time at, and it comes
// back after job.cluster.restart_delay, as a pod would.
func (r *run) kill(tm int, at float64, reason string) error {
	if err := r.env.Cluster.KillTaskManager(tm + 1); err != nil {
		return fmt.Errorf("killing TaskManager tm-%d: %w", tm+1, err)
	}
	t32 := int32(tm)
	r.mu.Lock()
	r.faults++
	r.down = true // the next return to RUNNING ends this fault's downtime
	r.mu.Unlock()
	r.event(results.Event{TimeS: at, Kind: results.KindFault, TaskManager: &t32, Reason: reason + " (SIGKILL)"})
	r.logf("killed TaskManager tm-%d at %.1f s (%s)", tm+1, at, reason)
	delay := time.Duration(float64(r.sc.Job.Cluster.RestartDelay) * float64(time.Second))
	r.background(func(ctx context.Context) {
		// also when the run ends first: the cluster is left as it was found
		_ = sleepCtx(ctx, delay)
		if err := r.env.Cluster.RestartTaskManager(tm + 1); err != nil {
			r.logf("restarting TaskManager tm-%d: %v", tm+1, err)
			return
		}
		r.event(results.Event{Kind: results.KindTaskManagerUp, TaskManager: &t32})
	})
	return nil
}

// tmCores is the CPU a TaskManager has in the scenario (job.cluster.cores,
// one per slot by default): what a cpu_throttle fault's share is of.
func (r *run) tmCores() float64 {
	return cmp.Or(r.sc.Job.Cluster.Cores, float64(r.sc.Job.Cluster.Slots))
}

// checkpointDir is the folder the run's jobs write checkpoints to.
func (r *run) checkpointDir() string { return filepath.Join(r.env.StateDir, "checkpoints") }
