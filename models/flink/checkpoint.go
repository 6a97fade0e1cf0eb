package flink

import (
	"math"

	"github.com/streamtwin/streamtwin/results"
)

// scheduleFirstCheckpoint starts the periodic trigger when the job turns
// RUNNING: at its start, at the end of a failover's restart delay and at a
// resubmission (Flink's CheckpointCoordinatorDeActivator; the tasks are
// still deploying and restoring then). Flink's CheckpointCoordinator waits a
// random initial delay in [min-pause, interval] so that jobs started
// together do not checkpoint in lockstep.
func (j *Job) scheduleFirstCheckpoint() {
	d := j.ci
	if j.cfg.Checkpoint.InitialDelay == "random" {
		lo := math.Min(float64(j.cfg.Checkpoint.MinPause), j.ci)
		d = lo + j.ckRng.Float64()*(j.ci-lo)
	}
	j.scheduleTrigger(j.env.Now() + d)
}

func (j *Job) scheduleTrigger(at float64) {
	j.nextTrigger.Cancel()
	epoch := j.epoch
	j.nextTrigger = j.env.At(at, func() {
		if epoch == j.epoch {
			j.triggerTick()
		}
	})
}

// triggerTick is the periodic timer firing. A trigger that max-concurrent or
// min-pause holds back waits for the running checkpoint to finish.
func (j *Job) triggerTick() {
	now := j.env.Now()
	j.scheduleTrigger(now + j.ci)
	if j.state != StateRunning {
		// Flink declines the trigger while tasks deploy or restore ("not all
		// required tasks are currently running"): no checkpoint is created,
		// and the next one is an interval later.
		return
	}
	if len(j.inflight) >= j.cfg.Checkpoint.MaxConcurrent || now < j.lastComplete+float64(j.cfg.Checkpoint.MinPause) {
		j.triggerDue = true
	} else {
		j.triggerCheckpoint(false)
	}
	for _, fn := range j.onTrigger {
		fn()
	}
}

// triggerCheckpoint injects barriers at the sources now. Processing stalls
// for barrier alignment and the synchronous snapshot; then the asynchronous
// upload runs, taking CPUOverhead of every TaskManager until it completes.
func (j *Job) triggerCheckpoint(savepoint bool) *checkpoint {
	j.advance()
	now := j.env.Now()
	ck := j.cfg.Checkpoint
	j.nextID++
	c := &checkpoint{id: j.nextID, savepoint: savepoint, trigger: now, offset: j.topic.Consumed}
	if !savepoint && j.storageDown() {
		// the JobManager cannot create the checkpoint's folder: it fails
		// before any barrier is sent
		j.event(results.Event{Kind: results.KindCheckpointFailed, CheckpointID: i64(c.id), DurationS: f64(0), Reason: storageRefused})
		j.checkpointFailed()
		return c
	}
	c.lagState = j.cfg.LagState(j.in.Arrived(now) - j.topic.Consumed)
	state := j.graph.StateSize(j.lambda) + c.lagState
	c.size = state
	if ck.Incremental && !savepoint {
		since := j.processed - j.processedAtLastCkpt
		c.size = math.Min(state, since*j.graph.DeltaPerRecord())
	}
	align, drain := float64(ck.Alignment), 0.0
	if j.in.Arrived(now)-j.topic.Consumed > lagEpsilon(j.topic.Consumed) || j.lambda > j.graph.Capacity(j.cpuShare()) {
		drain = float64(ck.InflightDrain) // backpressured: in-flight buffers drain before barriers align
	}
	syncPhase := float64(ck.SyncBase) + state/float64(ck.SyncBandwidth)
	async := float64(ck.AsyncBase) + c.size/float64(ck.UploadBandwidth)
	c.duration = align + drain + syncPhase + async
	stall := align + drain + syncPhase
	if h := j.haltEnd(); h > now {
		// barriers wait for the frozen TaskManager or the stopped broker
		c.duration += h - now
		stall += h - now
	}
	if j.state == StateRunning {
		if ck.InflightBlock >= 1 {
			j.stallEnd = math.Max(j.stallEnd, now+stall)
		} else {
			// The full stall (alignment, sync snapshot) first, then the
			// drain at the unblocked share; the fluid model only needs
			// how much of each interval is lost, not its order.
			full := now + align + syncPhase
			j.stallEnd = math.Max(j.stallEnd, full)
			j.slowEnd = math.Max(j.slowEnd, full+drain)
		}
	}
	j.lastTrigger = now
	j.processedAtTrigger[c.id] = j.processed
	j.inflight = append(j.inflight, c)
	epoch := j.epoch
	j.env.After(stall, func() {
		if epoch != j.epoch || !j.isInflight(c) {
			return
		}
		j.advance()
		c.asyncOn = true
		j.asyncOn++
	})
	if timeout := float64(ck.Timeout); c.duration > timeout && !savepoint {
		c.done = j.env.After(timeout, func() {
			if epoch == j.epoch {
				j.finishCheckpoint(c, false, "checkpoint expired before completing (timeout)")
			}
		})
	} else {
		c.done = j.env.After(c.duration, func() {
			if epoch == j.epoch {
				j.finishCheckpoint(c, true, "")
			}
		})
	}
	return c
}

func (j *Job) isInflight(c *checkpoint) bool {
	for _, x := range j.inflight {
		if x == c {
			return true
		}
	}
	return false
}

func (j *Job) removeInflight(c *checkpoint) {
	j.advance()
	for i, x := range j.inflight {
		if x == c {
			j.inflight = append(j.inflight[:i], j.inflight[i+1:]...)
			break
		}
	}
	if c.asyncOn {
		c.asyncOn = false
		j.asyncOn--
	}
	delete(j.processedAtTrigger, c.id)
}

// finishCheckpoint completes or fails c. A completed checkpoint fixes the
// offsets a restart resumes from and commits them to Kafka.
func (j *Job) finishCheckpoint(c *checkpoint, ok bool, reason string) {
	processedAtTrigger := j.processedAtTrigger[c.id]
	j.removeInflight(c)
	now := j.env.Now()
	if ok && !c.savepoint && j.storageDown() {
		ok, reason = false, storageRefused
	}
	if !ok {
		j.event(results.Event{Kind: results.KindCheckpointFailed, CheckpointID: i64(c.id), DurationS: f64(now - c.trigger), Reason: reason})
		j.releaseHeldTrigger()
		if !c.savepoint {
			j.checkpointFailed()
		}
		return
	}
	if !c.savepoint {
		j.ckFailures = 0
	}
	if c.savepoint {
		j.event(results.Event{Kind: results.KindSavepoint, CheckpointID: i64(c.id), DurationS: f64(c.duration), SizeBytes: f64(c.size), Reason: j.savepointReason})
		if j.onSavepoint != nil {
			fn := j.onSavepoint
			j.onSavepoint = nil
			fn(c)
		}
		return
	}
	j.lastComplete = now
	j.restoreAt, j.restoreLag = c.offset, c.lagState
	j.topic.Committed = c.offset
	j.processedAtLastCkpt = processedAtTrigger
	j.lastCkpt = &CheckpointInfo{ID: c.id, TriggeredAt: c.trigger, CompletedAt: now, Duration: c.duration, Size: c.size}
	j.event(results.Event{Kind: results.KindCheckpointCompleted, CheckpointID: i64(c.id), DurationS: f64(c.duration), SizeBytes: f64(c.size)})
	j.releaseHeldTrigger()
	if fn := j.afterCheckpoint; fn != nil { // a rescale waiting for it
		j.afterCheckpoint = nil
		fn()
	}
}

// storageRefused is the reason of a checkpoint that storage refused.
const storageRefused = "checkpoint storage refused writes"

// releaseHeldTrigger fires a trigger that waited for a slot, honouring
// min-pause after the last completion.
func (j *Job) releaseHeldTrigger() {
	if !j.triggerDue || j.state != StateRunning {
		return
	}
	j.triggerDue = false
	at := math.Max(j.env.Now(), j.lastComplete+float64(j.cfg.Checkpoint.MinPause))
	epoch := j.epoch
	j.env.At(at, func() {
		if epoch == j.epoch && j.state == StateRunning && len(j.inflight) < j.cfg.Checkpoint.MaxConcurrent {
			j.triggerCheckpoint(false)
		}
	})
}

// abortCheckpoints fails every in-flight checkpoint (the job failed or
// stopped) and stops the trigger timer.
func (j *Job) abortCheckpoints(reason string) {
	for len(j.inflight) > 0 {
		c := j.inflight[0]
		c.done.Cancel()
		j.removeInflight(c)
		if !c.savepoint {
			j.event(results.Event{Kind: results.KindCheckpointFailed, CheckpointID: i64(c.id), DurationS: f64(j.env.Now() - c.trigger), Reason: reason})
		}
	}
	j.nextTrigger.Cancel()
	j.triggerDue = false
	j.stallEnd, j.slowEnd = 0, 0
}
