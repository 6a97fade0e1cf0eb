package flink

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/streamtwin/streamtwin/results"
)

// Crash kills TaskManager tm (SIGKILL of its JVM). The process comes back
// after cluster.restart_delay, as a Kubernetes pod would. If it hosted
// tasks of the job, the job fails: detection, restart-strategy delay,
// waiting for slots, deploy and state restore, then reprocessing from the
// last completed checkpoint's offsets while new input keeps arriving.
func (j *Job) Crash(tm int, reason string) error {
	if tm < 0 || tm >= len(j.tms) {
		return fmt.Errorf("no TaskManager %d (the cluster has %d)", tm, len(j.tms))
	}
	j.advance()
	now := j.env.Now()
	j.faults++
	if !j.tms[tm].alive {
		j.event(results.Event{Kind: results.KindFault, TaskManager: i32(tm), Reason: reason + " (TaskManager already down)"})
		return nil
	}
	j.event(results.Event{Kind: results.KindFault, TaskManager: i32(tm), Reason: reason})
	j.tms[tm].alive = false
	j.tms[tm].jitting, j.tms[tm].holdsJob = false, false // it comes back as a fresh JVM
	j.tmDirty = true
	j.tms[tm].restart = j.env.After(float64(j.cfg.Cluster.RestartDelay)*gammaFactor(j.cfg.Cluster.RestartDelayCV, j.tmRng), func() { j.taskManagerUp(tm) })
	if j.tms[tm].hosts < 0 {
		return nil // a spare TaskManager: no task of the job ran there
	}
	switch j.state {
	case StateRunning, StateStopping, StateRestoring:
		j.fail(now, "TaskManager "+fmt.Sprint(tm)+" lost")
	case StateRestarting:
		// Tasks are not deployed yet; the restart simply waits for slots.
	}
	return nil
}

// fail takes the job down and starts failure detection.
func (j *Job) fail(now float64, cause string) {
	j.failAt(now, math.Max(0, j.in.Arrived(now)-j.topic.Consumed), cause, j.detectionDelay())
}

// failAt takes the job down now for a fault that began at start (when
// its lag was lag; a frozen TaskManager stalls the job before Flink
// notices), and detects the failure detect seconds from now.
func (j *Job) failAt(start, lag float64, cause string, detect float64) {
	j.deployTime = -1 // a rescale's deployment is lost with it
	if j.state == StateRunning {
		j.downSince = start
	}
	if n := len(j.pending); n == 0 || j.pending[n-1].start != start { // a freeze opened its own
		j.pending = append(j.pending, pendingRecovery{start: start, preLag: lag, reason: cause})
	}
	if j.state == StateStopping || j.state == StateStopped {
		j.onSavepoint = nil // the stop-with-savepoint is lost with the tasks
		j.event(results.Event{Kind: results.KindPolicyDecision, Reason: "reconfiguration abandoned: job failed during stop-with-savepoint"})
	}
	j.epoch++
	j.abortCheckpoints("job failed: " + cause)
	j.state = StateFailing
	j.resumeKind = results.KindRunning
	epoch := j.epoch
	j.env.After(detect, func() {
		if epoch == j.epoch {
			j.detected(cause)
		}
	})
}

// detectionDelay: peers of the dead TaskManager see their channels reset
// almost at once; a TaskManager with no peers is noticed by the heartbeat
// RPCs failing (the threshold-th request after the kill) or, failing that,
// the timeout.
func (j *Job) detectionDelay() float64 {
	d := j.cfg.Detection
	if d.Mode == "connection" || d.Mode == "auto" && j.graph.distributed {
		return float64(d.ConnectionLoss)
	}
	rpc, timeout := heartbeatLoss(j.env.Now(), j.hbPhases, d)
	switch d.Mode {
	case "rpc":
		return rpc
	case "heartbeat":
		return timeout
	}
	return math.Min(rpc, timeout)
}

// heartbeatLoss is how long after now, when a TaskManager stops answering,
// the first heartbeat loop gives up on it: rpc when its requests fail at
// once (the process is gone), timeout when they go unanswered (it hangs).
//
// Two loops watch every TaskManager, each one periodic loop from its
// component's start (Flink's HeartbeatManagerSenderImpl) at phases[i] +
// k·interval: the JobMaster's and the ResourceManager's. Whichever gives up
// first fails the tasks: the ResourceManager disconnects a lost
// TaskManager from every JobMaster (ResourceManager.closeTaskManagerConnection).
// On one loop the first request after now comes u·interval later; the
// threshold-th consecutive failed request marks the TaskManager
// unreachable, and the timeout runs from the last answered request,
// (1−u)·interval before now. Kills a multiple of the interval apart see the
// same delays; kills half an interval out of phase may see nearly the same
// delay, one loop winning each (as in the live fault table of 2026-12-06).
func heartbeatLoss(now float64, phases [2]float64, d DetectionConfig) (rpc, timeout float64) {
	iv := float64(d.HeartbeatInterval)
	if iv <= 0 {
		return 0, float64(d.HeartbeatTimeout)
	}
	rpc, timeout = math.Inf(1), math.Inf(1)
	for _, phase := range phases {
		last := phase + iv*math.Floor((now-phase)/iv) // the last request answered
		rpc = min(rpc, iv*float64(d.RPCFailureThreshold-1)+last+iv-now)
		timeout = min(timeout, math.Max(0, last+float64(d.HeartbeatTimeout)-now))
	}
	return rpc, timeout
}

func (j *Job) detected(cause string) {
	j.advance()
	j.state = StateRestarting
	j.event(results.Event{Kind: results.KindDetected, Reason: cause})
	delay, ok := j.restartDelay()
	if !ok {
		j.state = StateFailed
		j.event(results.Event{Kind: results.KindDetected, Reason: "restart strategy " + j.cfg.Restart.Strategy + " exhausted: job FAILED"})
		return
	}
	j.restarts++
	epoch := j.epoch
	j.env.After(delay, func() {
		if epoch == j.epoch {
			j.event(results.Event{Kind: results.KindRestart, DurationS: f64(delay), Reason: j.cfg.Restart.Strategy})
			j.scheduleFirstCheckpoint() // Flink: RESTARTING → RUNNING starts the checkpoint scheduler
			j.deployWhenSlots()
		}
	})
}

// restartDelay applies the restart strategy to one more failure.
func (j *Job) restartDelay() (float64, bool) {
	r := j.cfg.Restart
	now := j.env.Now()
	j.failureTimes = append(j.failureTimes, now)
	switch r.Strategy {
	case "none":
		return 0, false
	case "fixed-delay":
		if r.Attempts > 0 && j.restarts >= r.Attempts {
			return 0, false
		}
		return float64(r.Delay), true
	case "failure-rate":
		n := 0
		for _, t := range j.failureTimes {
			if now-t <= float64(r.FailureRateInterval) {
				n++
			}
		}
		if n > r.MaxFailures {
			return 0, false
		}
		return float64(r.Delay), true
	}
	// exponential-delay: the backoff grows by the multiplier per failure and
	// resets after ResetBackoffAfter of running without one.
	if j.state == StateRestarting && j.runningSince >= 0 && j.downSince-j.runningSince >= float64(r.ResetBackoffAfter) {
		j.backoffN = 0
	}
	d := math.Min(float64(r.InitialBackoff)*math.Pow(r.BackoffMultiplier, float64(j.backoffN)), float64(r.MaxBackoff))
	j.backoffN++
	d *= 1 + r.JitterFactor*(2*j.rng.Float64()-1)
	return math.Max(0, d), true
}

// deployWhenSlots deploys now, on the live TaskManagers with free slots,
// or as soon as enough have registered (the scheduler waits for slots
// rather than failing again).
func (j *Job) deployWhenSlots() {
	if !j.place() {
		j.waitSlots = true
		return
	}
	j.waitSlots = false
	j.advance()
	j.state = StateRestoring
	c := j.cfg.Cluster
	deploy, share := float64(c.Deploy), 1.0
	if c.InPlaceShare > 0 && j.inPlace() {
		share = c.InPlaceShare
	}
	if j.deployTime >= 0 { // a rescale's, measured as a whole
		deploy, share, j.deployTime = j.deployTime, 1, -1
	}
	// the restored state is the checkpoint's: its operators' at about
	// today's rate, and what the lag held then (job.state_per_lag)
	d := deploy + float64(c.RestoreBase) + (j.graph.StateSize(j.lambda)+j.restoreLag)/float64(c.RestoreBandwidth)
	d *= share * j.deployFactor(share)
	epoch := j.epoch
	j.env.After(d, func() {
		if epoch == j.epoch {
			j.resume()
		}
	})
}

// inPlace reports whether every TaskManager the tasks are placed on still
// holds the job (cluster.in_place_share).
func (j *Job) inPlace() bool {
	for _, tm := range j.tms {
		if tm.alive && tm.hosts >= 0 && !tm.holdsJob {
			return false
		}
	}
	return true
}

// deployFactor draws how much longer or shorter than nominal one
// deployment takes: gamma-distributed with mean 1, which keeps it positive
// and skewed to the right as live restarts are (1 when deploy_cv is 0).
// A whole deployment's standard deviation is cluster.deploy_cv; one that
// takes share of the time (a restart in place) keeps the spread in
// seconds, as the steps that vary (scheduling, RPCs, the restore's reads)
// are the same and only the fixed cost of a fresh JVM is saved: live,
// restarts in place and on fresh JVMs spread alike.
func (j *Job) deployFactor(share float64) float64 {
	return gammaFactor(j.cfg.Cluster.DeployCV/share, j.deployRng)
}

// gammaFactor draws a gamma variate of mean 1 and standard deviation cv
// from rng (1 when cv is 0, without a draw).
func gammaFactor(cv float64, rng *rand.Rand) float64 {
	if cv <= 0 {
		return 1
	}
	k := 1 / (cv * cv) // shape; rate k gives mean 1, variance 1/k
	return distuv.Gamma{Alpha: k, Beta: k, Src: rng}.Rand()
}

// catchupFactor draws the capacity factor of a restore's catch-up: the
// catch-up takes a gamma variate g (mean 1, standard deviation
// cluster.catchup_cv) times its nominal time, so the headroom over the
// input rate λ now is divided by g: capacity λ + (C − λ)/g of C. Scaling
// the time rather than the speed keeps the mean recovery where the
// nominal one is (a speed of mean 1 would lengthen it: the time is convex
// in the speed). 1 without headroom or without catchup_cv (and then no
// draw).
func (j *Job) catchupFactor() float64 {
	if j.cfg.Cluster.CatchupCV <= 0 {
		return 1
	}
	g := gammaFactor(j.cfg.Cluster.CatchupCV, j.catchRng)
	c := j.graph.Capacity(j.cpuShare())
	if c <= j.lambda {
		return 1
	}
	return (j.lambda + (c-j.lambda)/g) / c
}

func (j *Job) taskManagerUp(tm int) {
	if tm >= len(j.tms) {
		return
	}
	j.advance()
	j.tms[tm].alive = true
	j.tmDirty = true
	j.event(results.Event{Kind: results.KindTaskManagerUp, TaskManager: i32(tm)})
	if j.waitSlots && (j.state == StateRestarting || j.state == StateStopped) {
		j.deployWhenSlots()
	}
}

// resume puts the tasks back to work from the restore offsets.
func (j *Job) resume() {
	j.advance()
	now := j.env.Now()
	j.state = StateRunning
	j.startJIT(now)
	// the records read since the restored checkpoint are read again
	j.replayed += math.Max(0, j.topic.Consumed-j.restoreAt)
	j.topic.Consumed = j.restoreAt
	j.t0 = now
	backlog := math.Max(0, j.in.Arrived(now)-j.topic.Consumed)
	j.runningSince = now
	j.catchup = j.catchupFactor()
	if j.resumeKind == results.KindReconfigured {
		j.event(results.Event{Kind: results.KindReconfigured, DurationS: f64(now - j.stopStart), Value: f64(backlog), Reason: j.resumeReason})
	} else {
		j.event(results.Event{Kind: results.KindRunning, DurationS: f64(now - j.downSince), Value: f64(backlog)})
	}
	upgraded := j.resumeKind == results.KindReconfigured && j.cfg.Rescale.Mode == RescaleSavepoint
	if j.resumeKind == results.KindReconfigured && j.cfg.Rescale.Mode == RescaleCheckpoint {
		j.env.After(float64(j.cfg.Rescale.Release), j.releaseIdle)
	}
	j.resumeKind = results.KindRunning
	switch c := j.cfg.Cluster; {
	case j.scaledUp && j.cfg.Rescale.UpWarmup > 0:
		j.warmUp(float64(j.cfg.Rescale.UpWarmup), j.cfg.Rescale.UpWarmupStart)
	case upgraded && c.UpgradeWarmup > 0:
		j.warmUp(float64(c.UpgradeWarmup), c.UpgradeWarmupStart)
	default:
		j.warmUp(float64(c.Warmup), c.WarmupStart)
	}
	j.scaledUp = false
	if q := j.queued; q != nil {
		j.queued = nil
		j.Reconfigure(q.ci, q.par, q.vertices, q.reason)
	}
}

// warmupSteps is how finely the warm-up ramp is cut into constant-capacity
// pieces: the fluid model stays exact per piece, and midpoint levels keep
// the lost work at exactly Warmup·(1 − WarmupStart)/2 of full capacity.
const warmupSteps = 8

// warmUp ramps the restored job's capacity from w0 of full to full over w
// seconds (cluster.warmup and warmup_start, or rescale.up_warmup and
// up_warmup_start after a scale-up); a new failure or stop (epoch change)
// abandons the ramp.
func (j *Job) warmUp(w, w0 float64) {
	if w <= 0 {
		j.warm = 1
		return
	}
	j.warm = w0 + (1-w0)*0.5/warmupSteps
	epoch := j.epoch
	for k := 1; k <= warmupSteps; k++ {
		level := math.Min(1, w0+(1-w0)*(float64(k)+0.5)/warmupSteps)
		j.env.After(w*float64(k)/warmupSteps, func() {
			if epoch == j.epoch {
				j.advance()
				j.warm = level
			}
		})
	}
}

// recovered closes every pending recovery: lag is back at its pre-fault
// level, so throughput follows the input again (Khaos's definition).
func (j *Job) recovered(at float64) {
	for _, p := range j.pending {
		j.rec.Event(results.Event{TimeS: at, Kind: results.KindRecovered, DurationS: f64(at - p.start), Reason: p.reason})
	}
	j.pending = j.pending[:0]
}

// Reconfigure changes the checkpoint interval and/or parallelism the only
// way Flink can: stop-with-savepoint, then resubmit from the savepoint. The
// sources stop at the savepoint barrier, so nothing is reprocessed; the
// backlog is the input that arrived during the downtime. A request while the
// job is not RUNNING is applied once it runs again. vertices, when not nil,
// gives job vertices (by operator name) their own parallelism, par being
// the largest, as the Kubernetes operator's pipeline.jobvertex-parallelism-
// overrides do; the vertices it does not name run at par, and the job's
// parallelism is its largest vertex's. Nil runs the job's vertices at par
// (their scenario overrides kept).
func (j *Job) Reconfigure(ci float64, par int, vertices map[string]int, reason string) error {
	if ci <= 0 {
		return fmt.Errorf("checkpoint interval must be positive, got %gs", ci)
	}
	if par < 1 || par > j.cfg.MaxParallelism {
		return fmt.Errorf("parallelism %d is outside 1..max_parallelism (%d)", par, j.cfg.MaxParallelism)
	}
	if j.state == StateFailed {
		return fmt.Errorf("the job has failed for good (%s): there is nothing to reconfigure", StateFailed)
	}
	if j.state != StateRunning {
		j.queued = &reconfig{ci: ci, par: par, vertices: vertices, reason: reason}
		return nil
	}
	cfg := j.cfg
	if vertices != nil {
		cfg.Operators = slices.Clone(cfg.Operators)
		for i, op := range cfg.Operators {
			p, ok := vertices[op.Name]
			if ok && (p < 1 || p > j.cfg.MaxParallelism) {
				return fmt.Errorf("vertex %q: parallelism %d is outside 1..max_parallelism (%d)", op.Name, p, j.cfg.MaxParallelism)
			}
			cfg.Operators[i].Parallelism = p
		}
		for _, name := range slices.Sorted(maps.Keys(vertices)) {
			if _, ok := j.graph.opIndex[name]; !ok {
				return fmt.Errorf("no job vertex %q (the job's: %s)", name, strings.Join(j.graph.OperatorNames(), ", "))
			}
		}
	}
	g, err := BuildGraph(cfg, par, j.topic.SourceShares)
	if err != nil {
		return err
	}
	if vertices != nil {
		// every vertex's, named or not, so that a later change of the CI
		// (which hands Status().Vertices back) keeps them all
		g.vertices, g.Parallelism = make(map[string]int, len(g.ops)), slices.Max(g.par) // the job's: its largest vertex's
		for i, op := range g.ops {
			g.vertices[op.Name] = g.par[i]
		}
	}
	if j.cfg.Rescale.Mode == RescaleCheckpoint && ci == j.ci && (!g.sameParallelism(j.graph) || j.scaleUp != nil) {
		j.rescaleFromCheckpoint(g, reason)
		return nil
	}
	j.takeDown(StateStopping, "job stopping with savepoint", reason)
	j.savepointReason = reason
	j.onSavepoint = func(c *checkpoint) {
		j.advance()
		j.state = StateStopped
		j.restoreAt, j.restoreLag = c.offset, c.lagState
		j.topic.Committed = c.offset
		j.ci = ci
		j.scaledUp = g.Parallelism > j.par
		j.adopt(g)
		j.runAgainAfter(float64(j.cfg.Cluster.Submit), reason) // the resubmitted job
	}
	j.growTaskManagers(g.TaskManagers, float64(j.cfg.Cluster.RestartDelay))
	c := j.triggerCheckpoint(true)
	c.offset = j.topic.Consumed
	return nil
}

// rescaleFromCheckpoint is the adaptive scheduler's rescale (reactive
// mode, or a changed resource requirement), from the job's latest
// completed checkpoint: the input since then is read again. The job keeps
// running for rescale.up_delay (a scale-up: its new TaskManagers start and
// register within it) or rescale.down_delay, then restarts: its tasks
// deploy in rescale.up_deploy or down_deploy and restore the state,
// redistributed over the new subtasks. A failure meanwhile abandons the
// rescale. A new requirement while one waits replaces its target, as the
// adaptive scheduler acts on the latest one.
func (j *Job) rescaleFromCheckpoint(g *Graph, reason string) {
	if j.scaleUp != nil {
		if g.sameParallelism(j.graph) {
			j.scaleUp = nil // back to where the job runs: nothing to do
			return
		}
		j.growTaskManagers(g.Hosting, float64(j.cfg.Rescale.UpDelay))
		j.scaleUp.g, j.scaleUp.reason = g, reason
		return
	}
	wait := float64(j.cfg.Rescale.DownDelay)
	if g.Parallelism > j.par {
		wait = float64(j.cfg.Rescale.UpDelay)
		j.growTaskManagers(g.Hosting, wait) // the ones it needs, as the live driver starts them
	}
	up := &scaleUp{g: g, reason: reason}
	j.scaleUp = up
	epoch := j.epoch
	restart := func() {
		if j.scaleUp != up {
			return // replaced, cancelled or done
		}
		j.scaleUp, j.afterCheckpoint = nil, nil
		if epoch != j.epoch || j.state != StateRunning {
			j.event(results.Event{Kind: results.KindPolicyDecision, Reason: "rescale abandoned: the job failed before it could restart"})
			return
		}
		deploy := j.cfg.Rescale.DownDeploy
		if up.g.Parallelism > j.par {
			deploy = j.cfg.Rescale.UpDeploy
		}
		j.takeDown(StateRestarting, "job restarting to rescale", up.reason)
		j.scaledUp = up.g.Parallelism > j.par
		// every task deploys again: from the lowest-numbered live
		// TaskManager up, so that the ones left idle are the last and
		// releaseIdle stops them (the live driver stops idle ones
		// wherever they are; a crash may have moved a task to the last)
		for i := range j.tms {
			j.tms[i].hosts = -1
		}
		j.adopt(up.g)
		j.deployTime = float64(deploy)
		j.runAgainAfter(0, up.reason) // the new execution graph
	}
	j.env.After(wait, func() {
		if !j.cfg.Rescale.OnCheckpoint {
			restart()
			return
		}
		j.afterCheckpoint = restart
		j.env.After(rescaleTriggerMaxDelay*j.ci, restart)
	})
}

// rescaleTriggerMaxDelay is how many checkpoint intervals a rescale waits
// for a completed checkpoint at most: Flink's rescale-trigger.max-delay,
// the interval × (max-checkpoint-failures 2 + 1).
const rescaleTriggerMaxDelay = 3

// scaleUp is a rescale from a checkpoint waiting to restart.
type scaleUp struct {
	g      *Graph
	reason string
}

// takeDown stops the running job for a reconfiguration: its checkpoints
// are aborted and a recovery starts that ends once the backlog is read.
func (j *Job) takeDown(state, abortReason, reason string) {
	j.advance()
	now := j.env.Now()
	lag := math.Max(0, j.in.Arrived(now)-j.topic.Consumed)
	j.epoch++
	j.abortCheckpoints(abortReason)
	j.state = state
	j.stopStart, j.downSince = now, now
	j.pending = append(j.pending, pendingRecovery{start: now, preLag: lag, reason: "reconfiguration: " + reason})
}

// adopt makes g the graph the job restarts with: the cluster shrinks to
// what it needs (it grew before, as new TaskManagers take restart_delay to
// register) and the subtasks are placed anew. In checkpoint mode the idle
// TaskManagers stay until rescale.release after the job runs again
// (releaseIdle), as the live driver stops them only then.
func (j *Job) adopt(g *Graph) {
	j.par, j.graph = g.Parallelism, g
	j.tmDirty = true
	if g.TaskManagers < len(j.tms) && j.cfg.Rescale.Mode != RescaleCheckpoint {
		j.setTaskManagers(max(g.TaskManagers, j.cfg.Cluster.TaskManagers))
	}
	j.place() // the old placement refers to the old graph
}

// runAgainAfter turns the reconfigured job RUNNING after d: its checkpoint
// scheduler starts then (Flink's job is RUNNING once scheduled) and its
// tasks deploy as soon as slots are there. A failure meanwhile cancels it.
func (j *Job) runAgainAfter(d float64, reason string) {
	j.resumeKind, j.resumeReason = results.KindReconfigured, reason
	epoch := j.epoch
	j.env.After(d, func() {
		if epoch == j.epoch {
			j.scheduleFirstCheckpoint()
			j.deployWhenSlots()
		}
	})
}

// growTaskManagers starts TaskManagers up to n; they register after
// startS. It reports whether it started any.
func (j *Job) growTaskManagers(n int, startS float64) bool {
	first := len(j.tms)
	if n <= first {
		return false
	}
	j.setTaskManagers(n)
	for tm := first; tm < len(j.tms); tm++ {
		j.tms[tm].restart = j.env.After(startS, func() { j.taskManagerUp(tm) })
	}
	return true
}

// releaseIdle stops, in checkpoint mode, the TaskManagers beyond those the
// job needs that host none of its tasks, as the live driver does at the
// start and after a rescale (live/driver/rescale.go, stopIdleTaskManagers)
// so that they no longer count as workers. The TaskManagers a waiting
// scale-up started stay. It stops from the last one down and only while
// the last is idle, so no TaskManager changes its index (faults and
// events name TaskManagers by index); a rescale places its tasks from the
// first TaskManager up, so the idle ones are the last (the live driver,
// which numbers a fixed pool, stops them wherever they are).
func (j *Job) releaseIdle() {
	if j.cfg.Rescale.Mode != RescaleCheckpoint {
		return
	}
	j.advance() // the workers counted so far are the ones that ran
	keep := j.graph.Hosting
	if j.scaleUp != nil {
		keep = max(keep, j.scaleUp.g.Hosting)
	}
	n := len(j.tms)
	for n > keep && j.tms[n-1].hosts < 0 {
		n--
	}
	if n < len(j.tms) {
		j.setTaskManagers(n)
	}
}

// TriggerSavepoint takes a savepoint while the job keeps running.
func (j *Job) TriggerSavepoint(reason string) {
	if j.state != StateRunning {
		return
	}
	j.savepointReason = reason
	j.triggerCheckpoint(true)
}

// Finish closes the run at its end: every recovery still pending is written
// as unrecovered, with the time since it began (a lower bound of the
// recovery time it would have had), and a run_end event carries the job's
// final state and how long it has been down by then.
func (j *Job) Finish() {
	now := j.env.Now()
	if j.opt.Duration > 0 {
		now = math.Min(now, j.opt.Duration) // the clock stops a hair after the end
	}
	for _, p := range j.pending {
		j.rec.Event(results.Event{TimeS: now, Kind: results.KindUnrecovered, DurationS: f64(now - p.start), Reason: p.reason})
	}
	down := 0.0
	if j.state != StateRunning {
		down = now - j.downSince
	}
	j.rec.Event(results.Event{TimeS: now, Kind: results.KindRunEnd, DurationS: f64(down), Reason: j.state})
}
