package flink

import (
	"cmp"
	"fmt"
	"math"

	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"

	"github.com/streamtwin/streamtwin/internal/decode"
)

// Validate returns problems keyed by the field's path below the job: each
// section's own (its validate, keyed below the section) and those between
// the sections. The defaults come from DefaultJob, which the job is decoded
// over, so there is none to fill here.
func (c JobConfig) Validate() map[string]string {
	e := c.validateTop()
	decode.Nest(e, "scaling", c.Scaling.validate())
	decode.Nest(e, "rescale", c.Rescale.validate())
	for k, v := range c.validateOperators() {
		e[k] = v
	}
	decode.Nest(e, "checkpoint", c.Checkpoint.validate())
	decode.Nest(e, "restart", c.Restart.validate())
	decode.Nest(e, "detection", c.Detection.validate())
	decode.Nest(e, "cluster", c.Cluster.validate(c.Parallelism))
	decode.Nest(e, "latency", c.Latency.validate())
	return e
}

// checkNonNegative notes, in e, each of the durations that is negative or NaN.
func checkNonNegative(e map[string]string, durations map[string]sim.Duration) {
	for k, v := range durations {
		if v < 0 || math.IsNaN(float64(v)) {
			e[k] = fmt.Sprintf("must not be negative, got %v", v)
		}
	}
}

// checkPositive notes, in e, each of the sizes or bandwidths that is not
// positive.
func checkPositive(e map[string]string, amounts map[string]float64) {
	for k, v := range amounts {
		if v <= 0 {
			e[k] = "must be positive"
		}
	}
}

// validateTop checks the job's own keys, above its sections.
func (c JobConfig) validateTop() map[string]string {
	e := map[string]string{}
	if c.Parallelism < 1 {
		e["parallelism"] = fmt.Sprintf("must be at least 1, got %d", c.Parallelism)
	}
	if c.MaxParallelism < 1 || c.MaxParallelism > 32768 {
		e["max_parallelism"] = fmt.Sprintf("must be in 1..32768, got %d", c.MaxParallelism)
	} else if c.Parallelism > c.MaxParallelism {
		e["parallelism"] = fmt.Sprintf("%d is above max_parallelism %d; raise job.max_parallelism or lower the parallelism", c.Parallelism, c.MaxParallelism)
	}
	if !(c.StateLagScale >= 0) {
		e["state_lag_scale"] = fmt.Sprintf("must be ≥ 0 records of lag (0: the lag's state is linear in it), got %g", c.StateLagScale)
	}
	if !(c.StatePerLag >= 0) {
		e["state_per_lag"] = fmt.Sprintf("must be ≥ 0 bytes per record of lag, got %v", c.StatePerLag)
	}
	if !(c.CostScale > 0) || math.IsInf(c.CostScale, 0) {
		e["cost_scale"] = fmt.Sprintf("must be a positive factor (1 = the operator costs as listed), got %g", c.CostScale)
	}
	return e
}

func (s ScalingConfig) validate() map[string]string {
	e := map[string]string{}
	if !(s.Contention >= 0 && s.Contention <= 1) || !(s.Coherency >= 0 && s.Coherency <= 1) {
		e[""] = fmt.Sprintf("contention and coherency must be in [0, 1] (the Universal Scalability Law's σ and κ), got %g and %g", s.Contention, s.Coherency)
	}
	return e
}

func (r RescaleConfig) validate() map[string]string {
	e := map[string]string{}
	if m := r.Mode; m != RescaleSavepoint && m != RescaleCheckpoint {
		e["mode"] = fmt.Sprintf("must be %s or %s, got %q", RescaleSavepoint, RescaleCheckpoint, m)
	}
	if r.UpDelay < 0 || r.DownDelay < 0 || r.UpDeploy < 0 || r.DownDeploy < 0 || r.Release < 0 {
		e[""] = "up_delay, down_delay, up_deploy, down_deploy and release must be ≥ 0s"
	}
	if w := r.UpWarmupStart; !(w >= 0 && w < 1) {
		e["up_warmup_start"] = fmt.Sprintf("must be in [0, 1) (the share of full capacity a scaled-up job starts at), got %g", w)
	}
	checkNonNegative(e, map[string]sim.Duration{"up_warmup": r.UpWarmup})
	return e
}

// validateOperators checks the operator list, keyed operators[i].field:
// each operator's own settings and how it joins those before it.
func (c JobConfig) validateOperators() map[string]string {
	e := map[string]string{}
	if len(c.Operators) == 0 {
		e["operators"] = "the job needs at least one operator (the source)"
	}
	names := map[string]bool{}
	for i, op := range c.Operators {
		at := fmt.Sprintf("operators[%d].", i)
		if op.Name == "" {
			e[at+"name"] = "every operator needs a name"
		} else if names[op.Name] {
			e[at+"name"] = fmt.Sprintf("duplicate operator name %q", op.Name)
		}
		for _, in := range op.Inputs {
			if !names[in] {
				e[at+"inputs"] = fmt.Sprintf("input %q is not an operator listed before %q", in, op.Name)
			}
		}
		names[op.Name] = true
		if op.Partitioning == Forward {
			// as Flink's DataStream API refuses; a parallelism override
			// applied at run time (an autoscaler's) turns the edge pointwise
			for _, in := range c.inputsOf(i) {
				if p, q := c.parallelismOf(in), c.parallelismOf(i); p != q {
					e[at+"partitioning"] = fmt.Sprintf("forward needs the parallelism of %q (%d), got %d; use rebalance or hash", c.Operators[in].Name, p, q)
				}
			}
		}
		for k, v := range op.validate(c.MaxParallelism) {
			e[at+k] = v
		}
	}
	return e
}

// validate checks an operator's own settings; maxParallelism bounds its
// parallelism.
func (op Operator) validate(maxParallelism int) map[string]string {
	e := map[string]string{}
	if op.Parallelism < 0 || op.Parallelism > maxParallelism {
		e["parallelism"] = fmt.Sprintf("must be in 0..max_parallelism (%d), got %d", maxParallelism, op.Parallelism)
	}
	if op.Cost <= 0 {
		e["cost"] = fmt.Sprintf("must be a positive CPU time per record, e.g. 10µs, got %v", op.Cost)
	}
	if op.Selectivity < 0 || math.IsNaN(op.Selectivity) {
		e["selectivity"] = fmt.Sprintf("must be ≥ 0, got %g", op.Selectivity)
	}
	switch op.Partitioning {
	case Forward, Rebalance, Hash:
	default:
		e["partitioning"] = fmt.Sprintf("must be forward, rebalance or hash, got %q", op.Partitioning)
	}
	if op.HotKeyShare < 0 || op.HotKeyShare > 1 {
		e["hot_key_share"] = fmt.Sprintf("must be in 0..1, got %g", op.HotKeyShare)
	}
	if op.StateSize < 0 {
		e["state_size"] = "must be ≥ 0"
	}
	if op.StatePerRecord < 0 {
		e["state_per_record"] = "must be ≥ 0"
	}
	if !(op.StateRetention >= 0) {
		e["state_retention"] = fmt.Sprintf("must be ≥ 0, got %v", op.StateRetention)
	}
	return e
}

func (ck CheckpointConfig) validate() map[string]string {
	e := map[string]string{}
	if ck.Interval <= 0 {
		e["interval"] = fmt.Sprintf("must be positive (e.g. 30s), got %v", ck.Interval)
	} else if ck.Interval < 0.01 {
		e["interval"] = fmt.Sprintf("must be at least 10ms (Flink's minimum), got %v", ck.Interval)
	}
	if ck.Timeout <= 0 {
		e["timeout"] = fmt.Sprintf("must be positive, got %v", ck.Timeout)
	}
	checkNonNegative(e, map[string]sim.Duration{
		"min_pause": ck.MinPause, "alignment": ck.Alignment,
		"inflight_drain": ck.InflightDrain, "sync_base": ck.SyncBase,
		"async_base": ck.AsyncBase,
	})
	checkPositive(e, map[string]float64{
		"sync_bandwidth": float64(ck.SyncBandwidth), "upload_bandwidth": float64(ck.UploadBandwidth),
	})
	if ck.TolerableFailures < 0 {
		e["tolerable_failures"] = fmt.Sprintf("must be ≥ 0, got %d", ck.TolerableFailures)
	}
	if ck.MaxConcurrent < 1 {
		e["max_concurrent"] = fmt.Sprintf("must be at least 1, got %d", ck.MaxConcurrent)
	}
	if ck.InitialDelay != "random" && ck.InitialDelay != "interval" {
		e["initial_delay"] = fmt.Sprintf("must be random or interval, got %q", ck.InitialDelay)
	}
	if ck.InflightBlock < 0 || ck.InflightBlock > 1 {
		e["inflight_block"] = fmt.Sprintf("must be in [0, 1] (the share of processing blocked while in-flight buffers drain), got %g", ck.InflightBlock)
	}
	if ck.CPUOverhead < 0 || ck.CPUOverhead >= 1 {
		e["cpu_overhead"] = fmt.Sprintf("must be in [0, 1), got %g", ck.CPUOverhead)
	}
	return e
}

func (r RestartConfig) validate() map[string]string {
	e := map[string]string{}
	checkNonNegative(e, map[string]sim.Duration{
		"initial_backoff": r.InitialBackoff, "max_backoff": r.MaxBackoff,
		"reset_backoff_after": r.ResetBackoffAfter, "delay": r.Delay,
		"failure_rate_interval": r.FailureRateInterval,
	})
	switch r.Strategy {
	case "exponential-delay", "fixed-delay", "failure-rate", "none":
	default:
		e["strategy"] = fmt.Sprintf("must be exponential-delay, fixed-delay, failure-rate or none, got %q", r.Strategy)
	}
	if r.BackoffMultiplier < 1 {
		e["backoff_multiplier"] = fmt.Sprintf("must be ≥ 1, got %g", r.BackoffMultiplier)
	}
	if r.JitterFactor < 0 || r.JitterFactor > 1 {
		e["jitter_factor"] = fmt.Sprintf("must be in 0..1, got %g", r.JitterFactor)
	}
	if r.Attempts < 0 {
		e["attempts"] = "must be ≥ 0 (0 = unlimited)"
	}
	return e
}

func (d DetectionConfig) validate() map[string]string {
	e := map[string]string{}
	checkNonNegative(e, map[string]sim.Duration{
		"connection_loss": d.ConnectionLoss, "heartbeat_interval": d.HeartbeatInterval,
		"heartbeat_timeout": d.HeartbeatTimeout,
	})
	switch d.Mode {
	case "auto", "connection", "rpc", "heartbeat":
	default:
		e["mode"] = fmt.Sprintf("must be auto, connection, rpc or heartbeat, got %q", d.Mode)
	}
	return e
}

// validate checks the cluster; parallelism is the job's, which its
// TaskManagers must have the slots for.
func (cl ClusterConfig) validate(parallelism int) map[string]string {
	e := cl.validateCPU()
	checkNonNegative(e, map[string]sim.Duration{
		"restart_delay": cl.RestartDelay, "deploy": cl.Deploy,
		"restore_base": cl.RestoreBase, "submit": cl.Submit,
		"warmup": cl.Warmup, "upgrade_warmup": cl.UpgradeWarmup,
	})
	checkPositive(e, map[string]float64{"restore_bandwidth": float64(cl.RestoreBandwidth)})
	if v := cl.InPlaceShare; !(v >= 0 && v <= 1) {
		e["in_place_share"] = fmt.Sprintf("must be in (0, 1] (the share of a deployment's time a restart on JVMs that ran the job takes, e.g. 0.4; 0: 1), got %g", v)
	}
	if v := cl.DeployCV; !(v >= 0 && v <= 2) {
		e["deploy_cv"] = fmt.Sprintf("must be in [0, 2] (the coefficient of variation of a deployment's duration, e.g. 0.1), got %g", v)
	}
	if v := cl.RestartDelayCV; !(v >= 0 && v <= 2) {
		e["restart_delay_cv"] = fmt.Sprintf("must be in [0, 2] (the coefficient of variation of a TaskManager's restart, e.g. 0.2), got %g", v)
	}
	if v := cl.CatchupCV; !(v >= 0 && v <= 1) {
		e["catchup_cv"] = fmt.Sprintf("must be in [0, 1] (the coefficient of variation of a restored job's catch-up time, e.g. 0.1), got %g", v)
	}
	if w := cl.WarmupStart; !(w >= 0 && w < 1) {
		e["warmup_start"] = fmt.Sprintf("must be in [0, 1) (the share of full capacity a restored job starts at), got %g", w)
	}
	if w := cl.UpgradeWarmupStart; !(w >= 0 && w < 1) {
		e["upgrade_warmup_start"] = fmt.Sprintf("must be in [0, 1) (the share of full capacity a job upgraded by savepoint starts at), got %g", w)
	}
	if cl.Slots < 1 {
		e["slots"] = fmt.Sprintf("must be at least 1, got %d", cl.Slots)
	}
	if cl.TaskManagers < 0 {
		e["taskmanagers"] = "must be ≥ 0 (0 = as many as the parallelism needs)"
	} else if cl.TaskManagers > 0 && cl.Slots > 0 && cl.TaskManagers*cl.Slots < parallelism {
		e["taskmanagers"] = fmt.Sprintf("%s × %s cannot host parallelism %d", textfmt.Plural(cl.TaskManagers, "TaskManager"), textfmt.Plural(cl.Slots, "slot"), parallelism)
	}
	if cl.Cores < 0 {
		e["cores"] = "must be ≥ 0 (0 = one per slot)"
	}
	if r, cores := cl.ReservedCores, cmp.Or(cl.Cores, float64(cl.Slots)); !(r >= 0 && r < cores) {
		e["reserved_cores"] = fmt.Sprintf("must be in [0, %g) (below the cores of a TaskManager, cluster.cores), got %g", cores, r)
	}
	return e
}

// validateCPU checks the settings of the CPU a TaskManager reports beside
// what its tasks use.
func (cl ClusterConfig) validateCPU() map[string]string {
	e := map[string]string{}
	if !(cl.HostCPUPerRecord >= 0) {
		e["host_cpu_per_record"] = fmt.Sprintf("must be ≥ 0 (CPU time per input record, e.g. 20us), got %v", cl.HostCPUPerRecord)
	}
	if v := cl.IdleCPU; !(v >= 0) {
		e["idle_cpu"] = fmt.Sprintf("must be ≥ 0 (cores an idle TaskManager JVM uses, e.g. 0.02), got %g", v)
	}
	if v := cl.PartLoadCPU; !(v >= 0 && v <= 1) {
		e["part_load_cpu"] = fmt.Sprintf("must be in (0, 1] (a record's CPU while the job keeps up, as a share of its CPU at capacity; 0: 1), got %g", v)
	}
	if v := cl.JITCPU; !(v >= 0 && v <= 1) {
		e["jit_cpu"] = fmt.Sprintf("must be in [0, 1] (the share of a TaskManager's cores its JIT compiler takes when the tasks deploy), got %g", v)
	}
	if v := cl.CPUNoise; !(v >= 0 && v <= 1) {
		e["cpu_noise"] = fmt.Sprintf("must be in [0, 1] (a TaskManager's per-second CPU utilisation reading u gets a standard deviation of cpu_noise·√(u(1 − u)), e.g. 0.4), got %g", v)
	}
	if cl.JITCPU > 0 && !(cl.JITTime > 0) {
		e["jit_time"] = fmt.Sprintf("must be > 0 with jit_cpu (the time constant the JIT's CPU decays with, e.g. 40s), got %v", cl.JITTime)
	}
	return e
}

func (l LatencyConfig) validate() map[string]string {
	e := map[string]string{}
	checkNonNegative(e, map[string]sim.Duration{
		"base": l.Base, "window": l.Window, "queueing": l.Queueing,
		"watermark_interval": l.WatermarkInterval,
	})
	shares := 0.0
	for i, s := range l.Staleness {
		switch {
		case !(s.Gap >= 0):
			e[fmt.Sprintf("staleness[%d].gap", i)] = fmt.Sprintf("must not be negative, got %v", s.Gap)
		case !(s.Share >= 0 && s.Share <= 1):
			e[fmt.Sprintf("staleness[%d].share", i)] = fmt.Sprintf("must be in 0..1, got %g", s.Share)
		}
		shares += s.Share
	}
	if shares > 1+1e-6 {
		e["staleness"] = fmt.Sprintf("shares add up to %.6g; they must not exceed 1 (the rest of the results count as 0 s stale)", shares)
	}
	if l.BufferTimeout < 0 && l.BufferTimeout != -1 {
		e["buffer_timeout"] = fmt.Sprintf("must be ≥ 0, or -1s to flush only full buffers; got %v", l.BufferTimeout)
	}
	checkPositive(e, map[string]float64{
		"buffer_size": float64(l.BufferSize), "record_size": float64(l.RecordSize),
	})
	return e
}
