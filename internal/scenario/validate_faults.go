package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamtwin/streamtwin/sim"
)

// runBounds is what the faults and actions are checked against: the run's
// length and the job they act on.
type runBounds struct {
	duration           sim.Duration
	checkpointInterval sim.Duration
	// taskManagers is how many the job starts with: those configured, or
	// as many as its parallelism needs.
	taskManagers   int
	maxParallelism int
	operators      map[string]bool
}

func (sc *Scenario) runBounds() runBounds {
	tms := sc.Job.Cluster.TaskManagers
	if need := (sc.Job.Parallelism + sc.Job.Cluster.Slots - 1) / max(1, sc.Job.Cluster.Slots); tms < need {
		tms = need
	}
	ops := map[string]bool{}
	for _, op := range sc.Job.Operators {
		ops[op.Name] = true
	}
	return runBounds{
		duration:           sc.Duration,
		checkpointInterval: sc.Job.Checkpoint.Interval,
		taskManagers:       tms,
		maxParallelism:     sc.Job.MaxParallelism,
		operators:          ops,
	}
}

// validate returns the fault's problems keyed below it; the empty field is
// the fault as a whole.
func (f Fault) validate(run runBounds) map[string]string {
	kind := f.FaultKind()
	e := f.validateTiming(run)
	for k, v := range f.validateKind(run, kind) {
		e[k] = v
	}
	for k, v := range f.validateTarget(run, kind) {
		e[k] = v
	}
	if msg := f.problem(kind); msg != "" {
		e[""] = msg
	}
	return e
}

// problem is what is wrong with the fault as a whole, if anything; of
// several, the first listed.
func (f Fault) problem(kind string) string {
	switch {
	case (f.Every != nil || f.Until != nil || f.Jitter != nil) && f.At == nil:
		return "every, until and jitter repeat or delay a fault given `at`; random faults have their own process"
	case f.TaskManager != nil && f.Operator != "":
		return "give either taskmanager or operator, not both"
	case !TargetsTaskManager(kind) && slices.Contains(FaultKinds, kind) && (f.TaskManager != nil || f.Operator != ""):
		return fmt.Sprintf("a %s fault hits no TaskManager; drop taskmanager and operator", kind)
	case f.At == nil && f.Random == nil:
		return "a fault needs `at` (a time) or `random` (an MTBF process)"
	case f.At != nil && f.Random != nil:
		return "give either `at` or `random`, not both"
	}
	return ""
}

// validateTiming checks when the fault fires: at, before_checkpoint, the
// random process and the repetition.
func (f Fault) validateTiming(run runBounds) map[string]string {
	e := map[string]string{}
	dur := float64(run.duration)
	if f.At != nil {
		if *f.At < 0 {
			e["at"] = fmt.Sprintf("must not be negative, got %v", *f.At)
		} else if dur > 0 && float64(*f.At) >= dur {
			e["at"] = fmt.Sprintf("%v is not before the end of the run (%v)", *f.At, run.duration)
		}
	}
	if b := f.BeforeCheckpoint; b != nil && (*b < 0 || *b >= run.checkpointInterval) {
		e["before_checkpoint"] = fmt.Sprintf("must be in [0, checkpoint interval %v), got %v", run.checkpointInterval, *b)
	}
	if r := f.Random; r != nil {
		if r.MTBF <= 0 {
			e["random.mtbf"] = fmt.Sprintf("must be positive, e.g. mtbf: 2h; got %v", r.MTBF)
		}
		if r.Start < 0 || r.End < 0 || (r.End > 0 && r.End <= r.Start) {
			e["random"] = "start and end must satisfy 0 ≤ start < end"
		}
		if f.BeforeCheckpoint != nil {
			e["before_checkpoint"] = "random faults cannot be checkpoint-aligned"
		}
	}
	if f.Every != nil && *f.Every <= 0 {
		e["every"] = fmt.Sprintf("must be positive, e.g. every: 45m; got %v", *f.Every)
	}
	if f.Until != nil && f.Every == nil {
		e["until"] = "until ends a repeating fault; add every"
	} else if f.Until != nil && f.At != nil && *f.Until <= *f.At {
		e["until"] = fmt.Sprintf("must be after at (%v), got %v", *f.At, *f.Until)
	}
	if f.Jitter != nil {
		hi := run.duration
		if f.Every != nil {
			hi = *f.Every
		}
		if *f.Jitter < 0 || *f.Jitter >= hi {
			e["jitter"] = fmt.Sprintf("must be in [0, %v), got %v", hi, *f.Jitter)
		}
	}
	return e
}

// validateKind checks the kind and the settings that belong to kinds:
// duration, share and delay.
func (f Fault) validateKind(run runBounds, kind string) map[string]string {
	e := map[string]string{}
	dur := float64(run.duration)
	switch {
	case !slices.Contains(FaultKinds, kind):
		e["kind"] = fmt.Sprintf("must be one of %s, got %q", strings.Join(FaultKinds, ", "), f.Kind)
	case HasDuration(kind) && f.Duration == nil:
		e["duration"] = fmt.Sprintf("a %s fault needs a duration, e.g. duration: 30s", kind)
	case !HasDuration(kind) && f.Duration != nil:
		e["duration"] = fmt.Sprintf("a %s fault has no duration (it lasts until Flink recovers); drop it", kind)
	case f.Duration != nil && (*f.Duration <= 0 || dur > 0 && float64(*f.Duration) >= dur):
		e["duration"] = fmt.Sprintf("must be in (0, %v), got %v", run.duration, *f.Duration)
	case kind == FaultKafkaBroker && float64(*f.Duration) > MaxBrokerDown:
		e["duration"] = fmt.Sprintf("must be in (0, %ds] (longer outages fail the Kafka sinks, which is not modelled), got %v", MaxBrokerDown, *f.Duration)
	}
	switch {
	case kind == FaultCPUThrottle && f.Share == nil:
		e["share"] = "a cpu_throttle fault needs the CPU share it leaves, e.g. share: 0.25"
	case kind == FaultCPUThrottle && !(*f.Share > 0 && *f.Share < 1):
		e["share"] = fmt.Sprintf("must be in (0, 1), got %v", *f.Share)
	case kind != FaultCPUThrottle && f.Share != nil:
		e["share"] = fmt.Sprintf("only a cpu_throttle fault has a share, not a %s fault", kind)
	}
	switch {
	case kind == FaultNetworkDelay && f.Delay == nil:
		e["delay"] = "a network_delay fault needs the delay of each packet, e.g. delay: 60s"
	case kind == FaultNetworkDelay && !(*f.Delay > 0 && float64(*f.Delay) <= MaxNetworkDelay):
		e["delay"] = fmt.Sprintf("must be in (0, %ds], got %v", MaxNetworkDelay, *f.Delay)
	case kind != FaultNetworkDelay && f.Delay != nil:
		e["delay"] = fmt.Sprintf("only a network_delay fault has a delay, not a %s fault", kind)
	}
	return e
}

// validateTarget checks which TaskManager the fault hits: target,
// taskmanager and operator.
func (f Fault) validateTarget(run runBounds, kind string) map[string]string {
	e := map[string]string{}
	switch {
	case f.Target != "" && f.Target != TargetRandom && f.Target != TargetBusiest:
		e["target"] = fmt.Sprintf("must be %s or %s, got %q", TargetRandom, TargetBusiest, f.Target)
	case f.Target != "" && (f.TaskManager != nil || f.Operator != ""):
		e["target"] = "give one of target, taskmanager and operator"
	case f.Target != "" && !TargetsTaskManager(kind):
		e["target"] = fmt.Sprintf("a %s fault hits no TaskManager; drop target", kind)
	case f.Target != "" && f.Random != nil:
		e["target"] = "random faults already pick a TaskManager uniformly; drop target"
	}
	if tms := run.taskManagers; f.TaskManager != nil && tms > 0 && (*f.TaskManager < 0 || *f.TaskManager >= tms) {
		e["taskmanager"] = fmt.Sprintf("the cluster has TaskManagers 0..%d, got %d", tms-1, *f.TaskManager)
	}
	if f.Operator != "" && !run.operators[f.Operator] {
		e["operator"] = fmt.Sprintf("no operator named %q in job.operators", f.Operator)
	}
	return e
}
