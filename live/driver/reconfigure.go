package driver

import (
	"context"
	"fmt"
	"maps"
	"math"
	"time"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// The reconfigurer: the controller's reconfigurations and savepoints, each
// on a goroutine of its own. A savepoint reconfiguration stops the job with
// a savepoint and resubmits it (reconfigure); a rescale from a checkpoint
// goes through the adaptive scheduler (rescale.go).

// reconfigurer is the reconfigurations under way.
type reconfigurer struct {
	queued *reconfig // the next reconfiguration to carry out
	// reconfiguring: a goroutine is carrying out the queued ones
	reconfiguring bool
	// stopped are the TaskManagers (1-based) rescales stopped; cleanup
	// starts them again
	stopped map[int]bool
}

// Reconfigure checks that the cluster can host par, then stops the job with
// a savepoint and resubmits it in the background; a request while one is
// under way replaces any queued one, as in the simulator.
func (r *run) Reconfigure(interval sim.Duration, par int, vertices map[string]int, reason string) error {
	ci := interval.Seconds()
	if ci <= 0 {
		return fmt.Errorf("checkpoint interval must be positive, got %gs", ci)
	}
	// the job is resubmitted with one parallelism (--parallelism): vertices
	// of their own exist only through the adaptive scheduler's requirements
	r.mu.Lock()
	curCI := r.ci
	r.mu.Unlock()
	if vertices != nil && (!r.sc.Job.Rescale.FromCheckpoint() || ci != curCI) {
		return fmt.Errorf("a live job gives its vertices their own parallelism only in a rescale from a checkpoint (job.rescale.mode: checkpoint, the checkpoint interval unchanged): a resubmission runs them all at one")
	}
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	o, err := r.env.REST.Overview(ctx)
	cancel()
	// The local cluster grows only by the TaskManagers a rescale from a
	// checkpoint starts: refuse a parallelism its slots cannot host before
	// stopping a job that could then not come back.
	slots := o.SlotsTotal
	if err == nil && r.sc.Job.Rescale.FromCheckpoint() && o.TaskManagers > 0 && r.env.Cluster != nil {
		slots = r.env.Cluster.TaskManagers() * (o.SlotsTotal / o.TaskManagers)
	}
	if top := largest(par, vertices); err == nil && top > slots {
		return fmt.Errorf("parallelism %d needs %d slots, the cluster has %d (start it with more: streamtwin live up --taskmanagers/--slots)", top, top, slots)
	}
	r.mu.Lock()
	r.queued = &reconfig{ci: ci, par: par, vertices: vertices, reason: reason}
	busy := r.reconfiguring
	r.reconfiguring = true
	r.mu.Unlock()
	if !busy {
		r.background(r.reconfigureQueued)
	}
	return nil
}

type reconfig struct {
	ci       float64
	par      int
	vertices map[string]int // nil: every vertex at par
	reason   string
}

// reconfigureQueued carries out queued reconfigurations one after the
// other, each once the job runs.
func (r *run) reconfigureQueued(ctx context.Context) {
	for {
		r.mu.Lock()
		q := r.queued
		r.queued = nil
		if q == nil {
			r.reconfiguring = false
		}
		r.mu.Unlock()
		if q == nil {
			return
		}
		if err := r.waitState(ctx, "RUNNING", 2*time.Minute); err != nil {
			r.event(results.Event{Kind: results.KindPolicyDecision, Reason: "reconfiguration failed: " + err.Error()})
			continue
		}
		if err := r.reconfigure(ctx, q.ci, q.par, q.vertices, q.reason); err != nil && ctx.Err() == nil {
			r.event(results.Event{Kind: results.KindPolicyDecision, Reason: "reconfiguration failed: " + err.Error()})
			r.logf("reconfiguration failed: %v", err)
		}
	}
}

// TriggerSavepoint takes a savepoint while the job runs; the event is
// written when Flink reports it complete. A job that is down takes none,
// as in the simulator.
func (r *run) TriggerSavepoint(reason string) error {
	r.mu.Lock()
	state, job := r.state, r.jobID
	r.mu.Unlock()
	if state != "RUNNING" {
		return nil
	}
	r.background(func(ctx context.Context) {
		loc, err := r.env.REST.TriggerSavepoint(ctx, job, fileURI(r.env.StateDir+"/savepoints"))
		if err != nil {
			if ctx.Err() == nil {
				r.event(results.Event{Kind: results.KindPolicyDecision, Reason: "savepoint failed: " + err.Error()})
			}
			return
		}
		r.savepointDone(ctx, job, loc, reason)
	})
	return nil
}

// waitState waits until the sampler has seen the job in state.
func (r *run) waitState(ctx context.Context, state string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		r.mu.Lock()
		s := r.state
		r.mu.Unlock()
		if s == state {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the job is %s, not %s, after %v", s, state, limit)
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// reconfigure is a stop-with-savepoint and a resubmission from it with CI
// ci and parallelism par, as Khaos does.
func (r *run) reconfigure(ctx context.Context, ci float64, par int, vertices map[string]int, why string) error {
	r.mu.Lock()
	fromCheckpoint := r.sc.Job.Rescale.FromCheckpoint() && ci == r.ci && (par != r.par || !maps.Equal(vertices, r.vertices))
	r.mu.Unlock()
	if fromCheckpoint {
		return r.rescaleFromCheckpoint(ctx, par, vertices, why)
	}
	start := r.now()
	old := r.currentJob()
	loc, err := r.env.REST.StopWithSavepoint(ctx, old, fileURI(r.env.StateDir+"/savepoints"), false)
	if err != nil {
		return err
	}
	r.savepointDone(ctx, old, loc, why)
	id, err := r.submit(ctx, ci, par, loc)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.jobID, r.ci, r.par, r.vertices, r.restarts = id, ci, par, nil, 0
	r.mu.Unlock()
	j, err := r.waitRunning(ctx, id)
	if err != nil {
		return err
	}
	back, runningAt := r.now(), time.Now()
	if t, ok := r.tasksRunningAt(ctx, j); ok && t <= back {
		back = t
	}
	if ts := j.Timestamps["RUNNING"]; ts > 0 {
		runningAt = time.UnixMilli(ts) // its checkpoint scheduler's start
	}
	r.mu.Lock()
	r.runningAt = runningAt
	r.mu.Unlock()
	down := back - start
	r.event(results.Event{TimeS: back, Kind: results.KindReconfigured, DurationS: &down, Reason: why})
	r.logf("reconfigured in %.1f s: job %s, CI %gs, parallelism %d", down, id, ci, par)
	return nil
}

// savepointDone writes the savepoint_completed event of the savepoint at
// loc, with its id, duration and size from the job's checkpoint
// statistics when Flink still has them.
func (r *run) savepointDone(ctx context.Context, job, loc, reason string) {
	r.logf("savepoint %s", loc)
	e := results.Event{Kind: results.KindSavepoint, Reason: reason}
	if cp, err := r.env.REST.Checkpoints(ctx, job); err == nil {
		for _, h := range cp.History {
			if h.IsSavepoint && h.ExternalPath == loc {
				id, d, size := h.ID, float64(h.EndToEndDuration)/1000, float64(h.CheckpointedSize)
				e.TimeS = math.Max(float64(checkpointEnd(h)-r.start.UnixMilli())/1000, 1e-3)
				e.CheckpointID, e.DurationS, e.SizeBytes = &id, &d, &size
			}
		}
	}
	r.event(e)
}
