package driver

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/internal/control"
	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
)

// Capabilities is what a live run on env can carry out: every action, with
// a parallelism up to the cluster's slots, rescales by savepoint only, and
// TaskManager kills on a local cluster only.
// What needs no cluster is filled in even when the JobManager does not
// answer (err), so a scenario's own problems can be told first.
func Capabilities(ctx context.Context, env Env) (control.Capabilities, error) {
	caps := control.Everything("this live cluster")
	// rescaling from a checkpoint needs the adaptive scheduler and
	// TaskManagers the driver can start and stop (checked below)
	caps.RescaleFromCheckpoint = false
	caps.Actions[policy.RescaleVertices] = false
	caps.VerticesBySavepoint = false // the job is resubmitted with --parallelism
	// per-TaskManager metrics map subtasks to the local cluster's
	// TaskManager processes
	caps.Detail = env.Cluster != nil
	if env.Cluster == nil {
		caps.Backend = "an external cluster"
		caps.Faults, caps.NoFaultsWhy = false, "its TaskManagers are not ours to kill; use a local cluster (streamtwin live up, --dir)"
	} else {
		caps.TaskManagers = env.Cluster.TaskManagers()
		caps.NoFaultKinds = env.Cluster.FaultLimits()
	}
	o, err := env.REST.Overview(ctx)
	if err != nil {
		return caps, err
	}
	caps.MaxParallelism = o.SlotsTotal
	if env.Cluster != nil && o.TaskManagers > 0 {
		if cfg, err := env.REST.JobManagerConfig(ctx); err == nil && cfg["jobmanager.scheduler"] == "adaptive" {
			caps.RescaleFromCheckpoint = true
			caps.Actions[policy.RescaleVertices] = true // per-vertex resource requirements
			// every TaskManager of the cluster can be started
			caps.MaxParallelism = env.Cluster.TaskManagers() * (o.SlotsTotal / o.TaskManagers)
		}
	}
	return caps, nil
}

// The run is the controller's live backend. Its methods are called on the
// clock's loop; state the sampler and other goroutines share is behind mu.

func (r *run) Now() float64                           { return r.clock.Now() }
func (r *run) At(t float64, fn func())                { r.clock.At(t, fn) }
func (r *run) Every(start, period float64, fn func()) { r.clock.Every(start, period, fn) }
func (r *run) Start()                                 {}
func (r *run) OnCheckpointTrigger(fn func())          { r.hooks = append(r.hooks, fn) }
func (r *run) Record(e results.Event)                 { r.event(e) }

func (r *run) Fail(err error) {
	select {
	case r.errs <- err:
	default:
	}
	r.stop()
}

// Detail is the per-TaskManager and per-operator metrics of the sample
// just observed (detail.go); the clock loop sets it with the sample.
func (r *run) Detail() results.Detail { return r.detail }

// Status is the job as the last sample saw it.
func (r *run) Status() policy.JobStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	js := policy.JobStatus{State: r.state, Parallelism: r.par, Vertices: r.vertices, CheckpointInterval: time.Duration(r.ci * float64(time.Second)),
		Restarts: int(r.restarts), Faults: r.faults}
	if r.state == "RUNNING" {
		js.Uptime = time.Since(r.runningAt)
	}
	for i := len(r.events) - 1; i >= 0; i-- {
		e := r.events[i]
		if e.Kind == results.KindCheckpointCompleted && e.DurationS != nil {
			js.LastCheckpoint = &policy.Checkpoint{ID: *e.CheckpointID, CompletedAt: time.Duration(e.TimeS * float64(time.Second)),
				Duration: time.Duration(*e.DurationS * float64(time.Second)), SizeBytes: *e.SizeBytes}
			break
		}
	}
	return js
}

// NextCheckpointDue is the first trigger time still to come: the last
// completed checkpoint's trigger (or the job's start) plus whole CIs, from
// the REST checkpoint statistics.
func (r *run) NextCheckpointDue() (float64, bool) {
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	cp, err := r.env.REST.Checkpoints(ctx, r.currentJob())
	if err != nil {
		return math.NaN(), false
	}
	r.mu.Lock()
	last, ci := r.runningAt.UnixMilli(), r.ci
	r.mu.Unlock()
	if c := cp.Latest.Completed; c != nil && c.TriggerTimestamp > last {
		last = c.TriggerTimestamp
	}
	due := float64(last-r.start.UnixMilli())/1000 + ci
	for due < r.now() {
		due += ci
	}
	return due, true
}

// TaskManagers is the local cluster's TaskManager count.
func (r *run) TaskManagers() int {
	if r.env.Cluster == nil {
		return 0
	}
	return r.env.Cluster.TaskManagers()
}

// largest is a job's parallelism, its largest vertex's: par, or a
// vertex's own.
func largest(par int, vertices map[string]int) int {
	for _, p := range vertices {
		par = max(par, p)
	}
	return par
}

// vertexLike is the ID of the job's vertex a scenario's operator name
// stands for: the one whose REST name is it, else the first whose name
// contains it (any case), the sink's writer for "sink"; "" when none.
func vertexLike(j rest.Job, op string) string {
	for _, v := range j.Vertices {
		if v.Name == op {
			return v.ID
		}
	}
	if strings.EqualFold(op, "sink") {
		if id := sinkVertex(j); id != "" {
			return id
		}
	}
	for _, v := range j.Vertices {
		if strings.Contains(strings.ToLower(v.Name), strings.ToLower(op)) {
			return v.ID
		}
	}
	return ""
}

// restVertices is a vertices request by the job's REST vertex names: a
// key names a vertex as vertexLike finds it (a policy reading the live
// detail uses the REST names, a scenario's action its operator names).
func restVertices(j rest.Job, vertices map[string]int) (map[string]int, error) {
	if vertices == nil {
		return nil, nil
	}
	out := make(map[string]int, len(vertices))
	for _, op := range slices.Sorted(maps.Keys(vertices)) {
		id := vertexLike(j, op)
		i := slices.IndexFunc(j.Vertices, func(v rest.Vertex) bool { return v.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("the job has no vertex named like %q", op)
		}
		out[j.Vertices[i].Name] = vertices[op]
	}
	return out, nil
}

// TaskManagerOf is the TaskManager (0-based; the cluster's resource ids are
// tm-1, tm-2, …) running a subtask of the named operator (Khaos: the
// sink's): the lowest-numbered one of its vertex.
func (r *run) TaskManagerOf(op string) (int, error) {
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	j, err := r.env.REST.Job(ctx, r.currentJob())
	if err != nil {
		return 0, err
	}
	vertex := vertexLike(j, op)
	if vertex == "" {
		return 0, fmt.Errorf("the job has no vertex named like %q", op)
	}
	ids, err := r.env.REST.VertexTaskManagers(ctx, r.currentJob(), vertex)
	if err != nil {
		return 0, err
	}
	sort.Strings(ids)
	for _, id := range ids {
		if n, err := strconv.Atoi(strings.TrimPrefix(id, "tm-")); err == nil {
			return n - 1, nil
		}
	}
	return 0, fmt.Errorf("no TaskManager of vertex %q has a resource id tm-N (%v)", op, ids)
}

// Reconfigure checks that the cluster can host par, then stops the job with
// a savepoint and resubmits it in the background; a request while one is
// under way replaces any queued one, as in the simulator.
func (r *run) Reconfigure(ci float64, par int, vertices map[string]int, reason string) error {
	if ci <= 0 {
		return fmt.Errorf("checkpoint interval must be positive, got %gs", ci)
	}
	// the job is resubmitted with one parallelism (--parallelism): vertices
	// of their own exist only through the adaptive scheduler's requirements
	r.mu.Lock()
	curCI := r.ci
	r.mu.Unlock()
	if vertices != nil && (r.sc.Job.Rescale.Mode != flink.RescaleCheckpoint || ci != curCI) {
		return fmt.Errorf("a live job gives its vertices their own parallelism only in a rescale from a checkpoint (job.rescale.mode: %s, the checkpoint interval unchanged): a resubmission runs them all at one", flink.RescaleCheckpoint)
	}
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	o, err := r.env.REST.Overview(ctx)
	cancel()
	// The local cluster grows only by the TaskManagers a rescale from a
	// checkpoint starts: refuse a parallelism its slots cannot host before
	// stopping a job that could then not come back.
	slots := o.SlotsTotal
	if err == nil && r.sc.Job.Rescale.Mode == flink.RescaleCheckpoint && o.TaskManagers > 0 && r.env.Cluster != nil {
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

// background runs fn on its own goroutine until the run ends.
func (r *run) background(fn func(context.Context)) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		fn(r.ctx)
	}()
}

var _ control.Backend = (*run)(nil)
