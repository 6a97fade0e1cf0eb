package driver

import (
	"context"
	"fmt"
	"time"

	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// rescaleFromCheckpoint is the adaptive scheduler's rescale on the local
// cluster, to parallelism par (vertices' own, when not nil, for those it
// names), the way Daedalus drives Flink's reactive mode on Kubernetes: a
// scale-up starts stopped TaskManager processes and waits for them to
// register; then the job's resource requirements are set to the new
// parallelism (PUT /jobs/{id}/resource-requirements) and Flink restarts it
// from its latest completed checkpoint; after a scale-down the
// TaskManagers left without tasks are stopped. The reconfigured event is
// written when the job runs again at the new parallelism, with the time it
// was not running as its duration.
func (r *run) rescaleFromCheckpoint(ctx context.Context, par int, vertices map[string]int, why string) error {
	cl := r.env.Cluster
	o, err := r.env.REST.Overview(ctx)
	if err != nil || o.TaskManagers == 0 {
		return fmt.Errorf("reading the cluster's slots: %v", err)
	}
	slots := o.SlotsTotal / o.TaskManagers
	top := largest(par, vertices) // the slots the job takes: its largest vertex's
	need := (top + slots - 1) / slots
	alive := 0
	for i := 1; i <= cl.TaskManagers(); i++ {
		if cl.Running(i) {
			alive++
		}
	}
	for i := 1; i <= cl.TaskManagers() && alive < need; i++ {
		if !cl.Running(i) {
			if err := cl.RestartTaskManager(i); err != nil {
				return err
			}
			r.mu.Lock()
			delete(r.stopped, i)
			r.mu.Unlock()
			alive++
			t := r.now()
			tm := int32(i - 1)
			r.event(results.Event{TimeS: t, Kind: results.KindTaskManagerUp, TaskManager: &tm, Reason: "started to rescale: " + why})
		}
	}
	if alive < need {
		return fmt.Errorf("parallelism %d needs %s of %s, the cluster has %s", top, textfmt.Plural(need, "TaskManager"), textfmt.Plural(slots, "slot"), textfmt.Count(float64(cl.TaskManagers())))
	}
	if err := r.waitSlots(ctx, alive*slots); err != nil {
		return err
	}
	id := r.currentJob()
	r.mu.Lock()
	r.rescaling = true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.rescaling = false
		r.mu.Unlock()
	}()
	var byREST map[string]int // vertices by the job's REST names
	if vertices != nil {
		j, err := r.env.REST.Job(ctx, id)
		if err != nil {
			return err
		}
		if byREST, err = restVertices(j, vertices); err != nil {
			return err
		}
	}
	asked := r.now()
	if err := r.env.REST.SetParallelism(ctx, id, par, byREST); err != nil {
		return err
	}
	left, back, err := r.waitParallelism(ctx, id, par, byREST, asked)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.par, r.vertices = top, vertices // as asked, so that the same request again is seen as one
	r.runningAt = time.Now()
	r.mu.Unlock()
	r.forgetRestart(ctx, id)
	down := back - left
	r.event(results.Event{TimeS: back, Kind: results.KindReconfigured, DurationS: &down, Reason: why})
	own := ""
	if vertices != nil {
		own = fmt.Sprintf(" (vertices of their own: %v)", byREST)
	}
	r.logf("rescaled to %d from a checkpoint%s: asked at %.1f s, down %.1f–%.1f s", top, own, asked, left, back)
	return r.stopIdleTaskManagers(ctx, need)
}

// waitSlots waits until the cluster offers n slots.
func (r *run) waitSlots(ctx context.Context, n int) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if o, err := r.env.REST.Overview(ctx); err == nil && o.SlotsTotal >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("the cluster did not offer %s within 2 min", textfmt.Plural(n, "slot"))
}

// waitParallelism polls the job until all its tasks run at parallelism
// par, and returns when it stopped running (the restart; asked if it was
// never seen down) and when it ran again, in run time.
func (r *run) waitParallelism(ctx context.Context, id string, par int, vertices map[string]int, asked float64) (left, back float64, err error) {
	left = -1
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		j, err := r.env.REST.Job(ctx, id)
		if err == nil {
			running := j.State == "RUNNING" && allRunning(j)
			if left < 0 && !running {
				left = r.now()
			}
			if running && atParallelism(j, par, vertices) {
				if left < 0 {
					left = asked
				}
				return left, r.now(), nil
			}
			if j.State == "FAILED" || j.State == "CANCELED" {
				return 0, 0, fmt.Errorf("job %s is %s while rescaling to %d", id, j.State, par)
			}
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return 0, 0, fmt.Errorf("job %s did not run at parallelism %d within 5 min", id, par)
}

// atParallelism: every vertex runs par subtasks, or vertices[its name].
func atParallelism(j rest.Job, par int, vertices map[string]int) bool {
	for _, v := range j.Vertices {
		want, ok := vertices[v.Name]
		if !ok {
			want = par
		}
		if v.Parallelism != want {
			return false
		}
	}
	return len(j.Vertices) > 0
}

// forgetRestart books the rescale's restart as seen, so the sampler does
// not take it for a failure.
func (r *run) forgetRestart(ctx context.Context, id string) {
	j, err := r.env.REST.Job(ctx, id)
	if err != nil {
		return
	}
	n := 0.0
	if v, err := r.env.REST.JobMetrics(ctx, id, "numRestarts"); err == nil {
		n = v["numRestarts"]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restartSeen = max(r.restartSeen, j.Timestamps["RESTARTING"], j.Timestamps["FAILING"])
	r.restarts = max(r.restarts, n)
	r.down = false
}

// stopIdleTaskManagers stops running TaskManagers beyond keep that run no
// subtask of the job, as a Deployment scaled down removes pods. (Flink
// keeps a slot it no longer uses reserved until slot.idle.timeout, so a
// free slot is not the test.) The job's subtasks move a moment after a
// rescale: it waits up to 30 s for them.
func (r *run) stopIdleTaskManagers(ctx context.Context, keep int) error {
	cl := r.env.Cluster
	deadline := time.Now().Add(30 * time.Second)
	for {
		alive := 0
		for i := 1; i <= cl.TaskManagers(); i++ {
			if cl.Running(i) {
				alive++
			}
		}
		if alive <= keep {
			return nil
		}
		used, err := r.usedTaskManagers(ctx)
		if err != nil {
			return err
		}
		for i := cl.TaskManagers(); i >= 1 && alive > keep; i-- {
			if !cl.Running(i) || used[fmt.Sprintf("tm-%d", i)] {
				continue
			}
			if err := cl.StopTaskManager(i); err != nil {
				return err
			}
			r.mu.Lock()
			if r.stopped == nil {
				r.stopped = map[int]bool{}
			}
			r.stopped[i] = true
			r.mu.Unlock()
			alive--
			r.logf("stopped idle TaskManager tm-%d", i)
		}
		if alive <= keep {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s still %s tasks 30 s after the rescale to %s", textfmt.Plural(alive, "TaskManager"), map[bool]string{true: "runs", false: "run"}[alive == 1], textfmt.Plural(keep, "TaskManager"))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// usedTaskManagers are the TaskManagers running (or deploying) a subtask
// of the current job.
func (r *run) usedTaskManagers(ctx context.Context) (map[string]bool, error) {
	id := r.currentJob()
	j, err := r.env.REST.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, v := range j.Vertices {
		io, err := r.env.REST.VertexIO(ctx, id, v.ID)
		if err != nil {
			return nil, err
		}
		for _, st := range io.Subtasks {
			if st.Status != "FINISHED" && st.Status != "CANCELED" && st.Status != "FAILED" {
				used[st.TaskManager] = true
			}
		}
	}
	return used, nil
}
