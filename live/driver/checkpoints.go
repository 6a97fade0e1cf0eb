package driver

import (
	"context"
	"math"
	"sort"

	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/results"
)

// checkpoints turns newly completed or failed checkpoints into events.
func (r *run) checkpoints(ctx context.Context, job string) {
	cp, err := r.env.REST.Checkpoints(ctx, job)
	if err != nil {
		return
	}
	events := newCheckpoints(cp, job, r.seenCkpt, r.start.UnixMilli())
	for _, e := range events {
		r.event(e)
	}
	if len(events) > 0 { // aligned faults waiting for a trigger look again
		r.clock.post(func() {
			for _, h := range r.hooks {
				h()
			}
		})
	}
}

// newCheckpoints is the events of the checkpoints of job in cp that
// completed or failed and are not in seen yet, in id order, at run times
// from startMs (Unix ms); it adds them to seen. Savepoints are written by
// the operations that take them.
func newCheckpoints(cp rest.Checkpoints, job string, seen map[checkpointKey]bool, startMs int64) []results.Event {
	sort.Slice(cp.History, func(i, j int) bool { return cp.History[i].ID < cp.History[j].ID })
	var events []results.Event
	for _, h := range cp.History {
		key := checkpointKey{job, h.ID}
		if seen[key] || h.IsSavepoint || (h.Status != "COMPLETED" && h.Status != "FAILED") {
			continue
		}
		seen[key] = true
		id := h.ID
		at := float64(checkpointEnd(h)-startMs) / 1000
		d := float64(h.EndToEndDuration) / 1000
		size := float64(h.CheckpointedSize)
		kind := results.KindCheckpointCompleted
		if h.Status == "FAILED" {
			kind = results.KindCheckpointFailed
		}
		events = append(events, results.Event{TimeS: math.Max(at, 1e-3), Kind: kind, CheckpointID: &id, DurationS: &d, SizeBytes: &size})
	}
	return events
}

// checkpointKey identifies a checkpoint across the run's jobs.
type checkpointKey struct {
	job string
	id  int64
}

// checkpointEnd is when a checkpoint completed or failed (Unix ms): its
// failure time, else its last acknowledgement, else its trigger time plus
// its duration (a checkpoint failed before any task acknowledged it).
func checkpointEnd(h rest.CheckpointStat) int64 {
	switch {
	case h.Status == "FAILED" && h.FailureTimestamp > 0:
		return h.FailureTimestamp
	case h.LatestAckTimestamp > 0:
		return h.LatestAckTimestamp
	}
	return h.TriggerTimestamp + h.EndToEndDuration
}
