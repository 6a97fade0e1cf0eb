package driver

import (
	"context"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/results"
)

// Restart tracking: each sample's reading hands the job's status to
// trackState and, while it runs, countRestarts, which record a restart
// (failure_detected) and the job running again (running, with the downtime
// since the fault). Their state (run.jobWatch) is shared with the
// reconfigurer and the faults, behind run.mu.

// jobWatch is the job's state and restarts as the samples saw them.
type jobWatch struct {
	state     string
	runningAt time.Time // when the job last became RUNNING
	restarts  float64   // of the current job, as Flink counts them (numRestarts)
	// restartSeen is Flink's time (Unix ms) of the last restart recorded
	restartSeen int64
	down        bool // a fault or restart took the job down; cleared when it runs again
	// rescaling: the adaptive scheduler is restarting the job to rescale
	// it; its restart is no failure
	rescaling bool
}

// trackState records restarts and the return to RUNNING as it sees the
// job's state change in the sample taken at run time seen.
func (r *run) trackState(ctx context.Context, j rest.Job, seen float64) {
	r.mu.Lock()
	prev := r.state
	r.state = j.State
	r.mu.Unlock()
	r.mu.Lock()
	rescaling := r.rescaling
	r.mu.Unlock()
	if rescaling {
		return // rescaleFromCheckpoint books this restart
	}
	if prev == "RUNNING" && (j.State == "RESTARTING" || j.State == "FAILING") && r.newRestart(j, j.State) {
		r.mu.Lock()
		r.restarts++
		r.down = true
		r.mu.Unlock()
		r.event(results.Event{TimeS: r.stamp(j, j.State), Kind: results.KindDetected, Reason: "job " + strings.ToLower(j.State)})
	}
	r.mu.Lock()
	back := r.down && prev != "" && prev != "RUNNING" && j.State == "RUNNING"
	r.mu.Unlock()
	if back {
		at := seen
		if t, ok := r.tasksRunningAt(ctx, j); ok && t <= seen {
			at = t
		}
		r.backRunning(j, at)
	}
}

// newRestart tells whether the job's last entry into state (FAILING or
// RESTARTING) is a restart not recorded yet, and records it. Flink's entry
// time identifies a restart; a job without one is taken as new.
func (r *run) newRestart(j rest.Job, state string) bool {
	ts := j.Timestamps[state]
	r.mu.Lock()
	defer r.mu.Unlock()
	if ts > 0 && ts <= r.restartSeen {
		return false
	}
	r.restartSeen = max(r.restartSeen, ts)
	return true
}

// countRestarts adds a restart Flink counted (numRestarts) that began and
// ended between two samples, too fast for trackState to see. The job's
// timestamps must show it too (a RESTARTING entry newer than the last
// restart recorded): the counter can run ahead of a cached job snapshot.
func (r *run) countRestarts(ctx context.Context, j rest.Job) {
	v, err := r.env.REST.JobMetrics(ctx, j.ID, "numRestarts")
	n, ok := v["numRestarts"]
	if err != nil || !ok {
		return
	}
	r.mu.Lock()
	ahead := n > r.restarts && !r.rescaling
	r.mu.Unlock()
	ts := j.Timestamps["RESTARTING"]
	if !ahead || ts <= r.start.UnixMilli() || ts > j.Timestamps["RUNNING"] || !r.newRestart(j, "RESTARTING") {
		return
	}
	r.mu.Lock()
	r.restarts = n
	r.mu.Unlock()
	r.event(results.Event{TimeS: r.stamp(j, "RESTARTING"), Kind: results.KindDetected, Reason: "job restarted between two samples (numRestarts)"})
	at := r.stamp(j, "RUNNING")
	if t, ok := r.tasksRunningAt(ctx, j); ok {
		at = t
	}
	r.backRunning(j, at)
}

// backRunning records the job running again at run time at, with the
// downtime since the last fault.
func (r *run) backRunning(j rest.Job, at float64) {
	r.mu.Lock()
	r.down = false
	if ts := j.Timestamps["RUNNING"]; ts > 0 {
		r.runningAt = time.UnixMilli(ts)
	}
	// the outage began at the last fault when that fault stopped the job
	// itself (a crash, a freeze), else at the failure it caused since (a
	// checkpoint storage outage fails the job at its next checkpoint), as
	// the twin dates it
	down := 0.0
	for i := len(r.events) - 1; i >= 0; i-- {
		if r.events[i].Kind != results.KindFault {
			continue
		}
		from := r.events[i].TimeS
		if r.lateFaults[from] {
			for _, e := range r.events[i:] {
				if e.Kind == results.KindDetected && e.TimeS <= at {
					from = max(from, e.TimeS)
				}
			}
		}
		down = at - from
		break
	}
	r.mu.Unlock()
	r.event(results.Event{TimeS: at, Kind: results.KindRunning, DurationS: &down})
}

// stamp is the run time at which the job last entered state, from Flink's
// own timestamps, or now when Flink has none.
func (r *run) stamp(j rest.Job, state string) float64 {
	if ts := j.Timestamps[state]; ts > r.start.UnixMilli() {
		return float64(ts-r.start.UnixMilli()) / 1000
	}
	return r.now()
}
