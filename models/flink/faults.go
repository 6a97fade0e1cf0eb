package flink

import (
	"fmt"
	"math"

	"github.com/streamtwin/streamtwin/results"
)

// The faults beyond a crash (Crash, in recovery.go). Each records its
// fault event and undoes itself after its duration; what the job does
// meanwhile follows from Flink's rules, not from a per-fault recovery
// time.

// Freeze stops TaskManager tm for d seconds, as SIGSTOP then SIGCONT do (a
// long GC pause, a hung host). Its sockets stay open, so no peer sees a
// connection reset and no heartbeat RPC fails: only the heartbeat timeout
// can notice it, heartbeat_timeout after the last request it answered.
// Thawed before that, the job has merely stalled (backpressure stops every
// task) and catches up; otherwise the JobManager declares the TaskManager
// lost and fails the job over, and the TaskManager, a warm JVM, registers
// again when it thaws.
func (j *Job) Freeze(tm int, d float64, reason string) error {
	return j.halt(tm, d, d, d, reason, fmt.Sprintf("freeze for %gs", d), "thawed")
}

// NetworkDelay delays every packet TaskManager tm sends by delay seconds,
// for d seconds (netem on its egress, as Chaos Mesh's network delay). Its
// data reaches no peer before delay has passed, and then a TCP window per
// round trip of delay seconds, nothing to speak of: the tasks it hosts
// stall, backpressuring the rest, until the last delayed packet is in, d +
// delay after the fault. Its heartbeat answers arrive delay late, so the
// heartbeat timeout notices only a delay longer than the time left to it;
// then, as after a long freeze, the job fails over and the TaskManager
// registers again once its traffic flows.
func (j *Job) NetworkDelay(tm int, d, delay float64, reason string) error {
	return j.halt(tm, d, d+delay, delay, reason, fmt.Sprintf("network delay %gs for %gs", delay, d), "its traffic flows again")
}

// halt stops the tasks on TaskManager tm for stall seconds while the
// JobManager hears nothing from it for silent seconds (a freeze: both its
// duration; a network delay: the delay alone); lasts is the fault's own
// duration (its event's), what its fault event says, back how it ends.
func (j *Job) halt(tm int, lasts, stall, silent float64, reason, what, back string) error {
	if tm < 0 || tm >= len(j.tms) {
		return fmt.Errorf("no TaskManager %d (the cluster has %d)", tm, len(j.tms))
	}
	j.advance()
	now := j.env.Now()
	j.faults++
	t := &j.tms[tm]
	switch {
	case !t.alive:
		j.event(results.Event{Kind: results.KindFault, TaskManager: i32(tm), DurationS: f64(lasts), Reason: reason + " (" + what + "; TaskManager already down)"})
		return nil
	case t.hosts < 0 || j.state != StateRunning:
		// no running task waits for it; it is only unavailable for slots
		j.event(results.Event{Kind: results.KindFault, TaskManager: i32(tm), DurationS: f64(lasts), Reason: reason + " (" + what + ")"})
		t.alive = false
		j.tmDirty = true
		j.env.After(stall, func() { j.thaw(tm, false, back) })
		return nil
	}
	j.event(results.Event{Kind: results.KindFault, TaskManager: i32(tm), DurationS: f64(lasts), Reason: reason + " (" + what + ")"})
	lag := math.Max(0, j.in.Arrived(now)-j.topic.Consumed)
	j.pending = append(j.pending, pendingRecovery{start: now, preLag: lag, reason: reason})
	j.freezeUntil = math.Max(j.freezeUntil, now+stall)
	epoch := j.epoch
	if _, lost := heartbeatLoss(now, j.hbPhases, j.cfg.Detection); lost < silent {
		j.env.After(lost, func() {
			if epoch != j.epoch || !j.tms[tm].alive {
				return
			}
			j.advance()
			j.freezeUntil = 0
			// released by the JobManager and the ResourceManager: it frees
			// the job's slots, and with them the job's class loader
			j.tms[tm].alive, j.tms[tm].holdsJob = false, false
			j.tmDirty = true
			j.failAt(now, lag, fmt.Sprintf("TaskManager %d unreachable (heartbeat timeout)", tm), 0)
		})
		j.env.After(stall, func() { j.thaw(tm, true, back) })
		return nil
	}
	return nil
}

// thaw resumes a halted TaskManager (back says how: thawed, its traffic
// flowing again); lost: it was declared lost meanwhile and registers again
// (its JVM, JIT and all, is the one that halted).
func (j *Job) thaw(tm int, lost bool, back string) {
	if tm >= len(j.tms) || j.tms[tm].alive {
		return
	}
	if lost {
		j.event(results.Event{Kind: results.KindTaskManagerUp, TaskManager: i32(tm), Reason: back + "; registers again"})
	}
	j.advance()
	j.tms[tm].alive = true
	j.tmDirty = true
	if j.waitSlots && (j.state == StateRestarting || j.state == StateStopped) {
		j.deployWhenSlots()
	}
}

// Throttle leaves TaskManager tm share of its CPU for d seconds, as a
// lowered CFS quota does. Its subtasks process share as fast; with the
// job's keyed exchanges the slowest subtask backpressures every other, so
// the job's capacity is the least share among the TaskManagers that host
// its tasks.
func (j *Job) Throttle(tm int, share, d float64, reason string) error {
	if tm < 0 || tm >= len(j.tms) {
		return fmt.Errorf("no TaskManager %d (the cluster has %d)", tm, len(j.tms))
	}
	if !(share > 0 && share <= 1) {
		return fmt.Errorf("CPU share must be in (0, 1], got %g", share)
	}
	j.advance()
	j.faults++
	j.event(results.Event{Kind: results.KindFault, TaskManager: i32(tm), DurationS: f64(d), Reason: reason + fmt.Sprintf(" (CPU throttled to %g for %gs)", share, d)})
	now := j.env.Now()
	if j.tms[tm].hosts >= 0 && j.state == StateRunning {
		lag := math.Max(0, j.in.Arrived(now)-j.topic.Consumed)
		j.pending = append(j.pending, pendingRecovery{start: now, preLag: lag, reason: reason})
	}
	j.tms[tm].share = share
	j.tms[tm].throttled++
	j.throttles++
	j.tmDirty = true
	j.env.After(d, func() {
		j.advance()
		j.throttles--
		j.tmDirty = true
		if tm >= len(j.tms) {
			return
		}
		if j.tms[tm].throttled--; j.tms[tm].throttled == 0 {
			j.tms[tm].share = 1
		}
	})
	return nil
}

// throttleShare is the least CPU share among the TaskManagers hosting the
// job's tasks (1: none throttled).
func (j *Job) throttleShare() float64 {
	s := 1.0
	if j.throttles == 0 { // the common case: no loop on the fluid model's hot path
		return s
	}
	for i := range j.tms {
		if t := &j.tms[i]; t.throttled > 0 && t.hosts >= 0 {
			s = math.Min(s, t.share)
		}
	}
	return s
}

// BrokerDown stops the Kafka broker for d seconds and starts it again,
// which takes kafka.broker_start more: meanwhile the sources fetch nothing
// and the sinks write nothing, so the job stalls without failing (its
// clients retry) and then catches up from where it stood. The input's
// producers buffer and retry too, so no input is lost.
func (j *Job) BrokerDown(d float64, reason string) {
	j.advance()
	now := j.env.Now()
	j.faults++
	until := now + d + j.brokerStart
	j.event(results.Event{Kind: results.KindFault, DurationS: f64(d), Reason: reason + fmt.Sprintf(" (Kafka broker down for %gs, back after %gs)", d, until-now)})
	lag := math.Max(0, j.in.Arrived(now)-j.topic.Consumed)
	if j.state == StateRunning {
		j.pending = append(j.pending, pendingRecovery{start: now, preLag: lag, reason: reason})
	}
	j.brokerUntil = math.Max(j.brokerUntil, until)
}

// CrashJobManager kills the JobManager. Without high availability its
// restart knows no job: the job is lost for good (FAILED), its lag grows
// until the run ends, and the fault counts as unrecovered.
func (j *Job) CrashJobManager(reason string) {
	j.advance()
	now := j.env.Now()
	j.faults++
	j.event(results.Event{Kind: results.KindFault, Reason: reason + " (JobManager crash)"})
	if j.state == StateFailed {
		return
	}
	lag := math.Max(0, j.in.Arrived(now)-j.topic.Consumed)
	j.pending = append(j.pending, pendingRecovery{start: now, preLag: lag, reason: reason})
	if j.state == StateRunning {
		j.downSince = now
	}
	j.epoch++
	j.abortCheckpoints("JobManager lost")
	j.onSavepoint, j.queued = nil, nil
	j.state = StateFailed
	j.event(results.Event{Kind: results.KindDetected, Reason: "JobManager lost without high availability: job FAILED for good"})
}

// StorageDown makes checkpoint storage refuse writes for d seconds:
// checkpoints that would be created or completed meanwhile fail, and more
// than checkpoint.tolerable_failures in a row fail the job. Reading still
// works, so a restart restores from the last completed checkpoint.
func (j *Job) StorageDown(d float64, reason string) {
	j.advance()
	now := j.env.Now()
	j.faults++
	j.event(results.Event{Kind: results.KindFault, DurationS: f64(d), Reason: reason + fmt.Sprintf(" (checkpoint storage refuses writes for %gs)", d)})
	j.storageUntil = math.Max(j.storageUntil, now+d)
}

// storageDown reports whether checkpoint storage refuses writes now.
func (j *Job) storageDown() bool { return j.env.Now() < j.storageUntil }

// checkpointFailed counts one more failed checkpoint; past the tolerable
// number in a row, the JobManager fails the job (at once: it is the one
// that decides).
func (j *Job) checkpointFailed() {
	j.ckFailures++
	if j.ckFailures > j.cfg.Checkpoint.TolerableFailures && j.state == StateRunning {
		j.ckFailures = 0
		now := j.env.Now()
		j.failAt(now, math.Max(0, j.in.Arrived(now)-j.topic.Consumed),
			fmt.Sprintf("more than %d checkpoint failures in a row (tolerable_failures)", j.cfg.Checkpoint.TolerableFailures), 0)
	}
}

// haltEnd is when the stall of a frozen TaskManager hosting tasks, or of
// a stopped broker, ends (≤ now: no stall).
func (j *Job) haltEnd() float64 { return math.Max(j.freezeUntil, j.brokerUntil) }
