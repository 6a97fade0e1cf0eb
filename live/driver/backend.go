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
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/sim"
)

// capabilities is what a live run on env can carry out: every action, with
// a parallelism up to the cluster's slots, rescales by savepoint only, and
// TaskManager kills on a local cluster only.
// What needs no cluster is filled in even when the JobManager does not
// answer (err), so a scenario's own problems can be told first.
func capabilities(ctx context.Context, env Env) (control.Capabilities, error) {
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

func (r *run) Now() sim.Duration            { return sim.Duration(r.clock.Now()) }
func (r *run) At(t sim.Duration, fn func()) { r.clock.At(t.Seconds(), fn) }
func (r *run) Every(start, period sim.Duration, fn func()) {
	r.clock.Every(start.Seconds(), period.Seconds(), fn)
}
func (r *run) Start()                        {}
func (r *run) OnCheckpointTrigger(fn func()) { r.hooks = append(r.hooks, fn) }
func (r *run) Record(e results.Event)        { r.event(e) }

func (r *run) Fail(err error) {
	select {
	case r.errs <- err:
	default:
	}
	r.stop()
}

// Detail is the per-TaskManager and per-operator metrics of the sample
// just observed (detail.go); the clock loop sets it with the sample.
func (r *run) Detail() measure.Detail { return r.detail }

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
func (r *run) NextCheckpointDue() (sim.Duration, bool) {
	due, ok := r.nextCheckpointDue()
	return sim.Duration(due), ok
}

func (r *run) nextCheckpointDue() (float64, bool) {
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

// background runs fn on its own goroutine until the run ends.
func (r *run) background(fn func(context.Context)) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		fn(r.ctx)
	}()
}

var _ control.Backend = (*run)(nil)
