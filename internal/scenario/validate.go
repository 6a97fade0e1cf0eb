package scenario

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/streamtwin/streamtwin/models/policy"
	_ "github.com/streamtwin/streamtwin/models/policy/all"
	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
)

// validate checks values the decoder cannot: ranges, required sections and
// references between sections; missing holds files named but not found,
// by field.
func validate(path string, file *ast.File, sc *Scenario, missing map[string]string) Problems {
	e := map[string]string{}
	for field, msg := range missing {
		e[field] = msg
	}
	prefix := func(p string, m map[string]string) {
		for k, v := range m {
			e[p+"."+k] = v
		}
	}
	dur := float64(sc.Duration)
	switch {
	case sc.Duration == 0 && present(file, "duration"):
		e["duration"] = "must be positive (e.g. duration: 2h), got 0s"
	case sc.Duration == 0:
		e["duration"] = "missing; how long to run, e.g. duration: 2h"
	case sc.Duration < 0 || math.IsNaN(dur):
		e["duration"] = fmt.Sprintf("must be positive, got %v", sc.Duration)
	case dur > 366*86400:
		e["duration"] = fmt.Sprintf("%v is longer than a year; that is almost certainly a typo", sc.Duration)
	}
	if sc.MetricInterval <= 0 {
		e["metric_interval"] = fmt.Sprintf("must be positive, got %v", sc.MetricInterval)
	} else if dur > 0 && float64(sc.MetricInterval) > dur {
		e["metric_interval"] = fmt.Sprintf("%v is longer than the run (%v)", sc.MetricInterval, sc.Duration)
	}
	if sc.Workload == nil {
		e["workload"] = "missing; say what load to apply, e.g. workload: {shape: constant, rate: 20000/s}"
	} else {
		prefix("workload", sc.Workload.Validate())
	}
	prefix("kafka", sc.Kafka.Validate())
	prefix("job", sc.Job.Validate())

	tms := sc.Job.Cluster.TaskManagers
	if need := (sc.Job.Parallelism + sc.Job.Cluster.Slots - 1) / max(1, sc.Job.Cluster.Slots); tms < need {
		tms = need
	}
	ops := map[string]bool{}
	for _, op := range sc.Job.Operators {
		ops[op.Name] = true
	}
	for i, f := range sc.Faults {
		at := fmt.Sprintf("faults[%d]", i)
		switch {
		case f.At == nil && f.Random == nil:
			e[at] = "a fault needs `at` (a time) or `random` (an MTBF process)"
		case f.At != nil && f.Random != nil:
			e[at] = "give either `at` or `random`, not both"
		}
		if f.At != nil {
			if *f.At < 0 {
				e[at+".at"] = fmt.Sprintf("must not be negative, got %v", *f.At)
			} else if dur > 0 && float64(*f.At) >= dur {
				e[at+".at"] = fmt.Sprintf("%v is not before the end of the run (%v)", *f.At, sc.Duration)
			}
		}
		if b := f.BeforeCheckpoint; b != nil && (*b < 0 || *b >= sc.Job.Checkpoint.Interval) {
			e[at+".before_checkpoint"] = fmt.Sprintf("must be in [0, checkpoint interval %v), got %v", sc.Job.Checkpoint.Interval, *b)
		}
		if r := f.Random; r != nil {
			if r.MTBF <= 0 {
				e[at+".random.mtbf"] = fmt.Sprintf("must be positive, e.g. mtbf: 2h; got %v", r.MTBF)
			}
			if r.Start < 0 || r.End < 0 || (r.End > 0 && r.End <= r.Start) {
				e[at+".random"] = "start and end must satisfy 0 ≤ start < end"
			}
			if f.BeforeCheckpoint != nil {
				e[at+".before_checkpoint"] = "random faults cannot be checkpoint-aligned"
			}
		}
		kind := f.FaultKind()
		switch {
		case !slices.Contains(FaultKinds, kind):
			e[at+".kind"] = fmt.Sprintf("must be one of %s, got %q", strings.Join(FaultKinds, ", "), f.Kind)
		case HasDuration(kind) && f.Duration == nil:
			e[at+".duration"] = fmt.Sprintf("a %s fault needs a duration, e.g. duration: 30s", kind)
		case !HasDuration(kind) && f.Duration != nil:
			e[at+".duration"] = fmt.Sprintf("a %s fault has no duration (it lasts until Flink recovers); drop it", kind)
		case f.Duration != nil && (*f.Duration <= 0 || dur > 0 && float64(*f.Duration) >= dur):
			e[at+".duration"] = fmt.Sprintf("must be in (0, %v), got %v", sc.Duration, *f.Duration)
		case kind == FaultKafkaBroker && float64(*f.Duration) > MaxBrokerDown:
			e[at+".duration"] = fmt.Sprintf("must be in (0, %ds] (longer outages fail the Kafka sinks, which is not modelled), got %v", MaxBrokerDown, *f.Duration)
		}
		switch {
		case kind == FaultCPUThrottle && f.Share == nil:
			e[at+".share"] = "a cpu_throttle fault needs the CPU share it leaves, e.g. share: 0.25"
		case kind == FaultCPUThrottle && !(*f.Share > 0 && *f.Share < 1):
			e[at+".share"] = fmt.Sprintf("must be in (0, 1), got %v", *f.Share)
		case kind != FaultCPUThrottle && f.Share != nil:
			e[at+".share"] = fmt.Sprintf("only a cpu_throttle fault has a share, not a %s fault", kind)
		}
		switch {
		case kind == FaultNetworkDelay && f.Delay == nil:
			e[at+".delay"] = "a network_delay fault needs the delay of each packet, e.g. delay: 60s"
		case kind == FaultNetworkDelay && !(*f.Delay > 0 && float64(*f.Delay) <= MaxNetworkDelay):
			e[at+".delay"] = fmt.Sprintf("must be in (0, %ds], got %v", MaxNetworkDelay, *f.Delay)
		case kind != FaultNetworkDelay && f.Delay != nil:
			e[at+".delay"] = fmt.Sprintf("only a network_delay fault has a delay, not a %s fault", kind)
		}
		if !TargetsTaskManager(kind) && slices.Contains(FaultKinds, kind) && (f.TaskManager != nil || f.Operator != "") {
			e[at] = fmt.Sprintf("a %s fault hits no TaskManager; drop taskmanager and operator", kind)
		}
		if f.TaskManager != nil && f.Operator != "" {
			e[at] = "give either taskmanager or operator, not both"
		}
		switch {
		case f.Target != "" && f.Target != TargetRandom && f.Target != TargetBusiest:
			e[at+".target"] = fmt.Sprintf("must be %s or %s, got %q", TargetRandom, TargetBusiest, f.Target)
		case f.Target != "" && (f.TaskManager != nil || f.Operator != ""):
			e[at+".target"] = "give one of target, taskmanager and operator"
		case f.Target != "" && !TargetsTaskManager(kind):
			e[at+".target"] = fmt.Sprintf("a %s fault hits no TaskManager; drop target", kind)
		case f.Target != "" && f.Random != nil:
			e[at+".target"] = "random faults already pick a TaskManager uniformly; drop target"
		}
		if (f.Every != nil || f.Until != nil || f.Jitter != nil) && f.At == nil {
			e[at] = "every, until and jitter repeat or delay a fault given `at`; random faults have their own process"
		}
		if f.Every != nil && *f.Every <= 0 {
			e[at+".every"] = fmt.Sprintf("must be positive, e.g. every: 45m; got %v", *f.Every)
		}
		if f.Until != nil && f.Every == nil {
			e[at+".until"] = "until ends a repeating fault; add every"
		} else if f.Until != nil && f.At != nil && *f.Until <= *f.At {
			e[at+".until"] = fmt.Sprintf("must be after at (%v), got %v", *f.At, *f.Until)
		}
		if f.Jitter != nil {
			hi := sc.Duration
			if f.Every != nil {
				hi = *f.Every
			}
			if *f.Jitter < 0 || *f.Jitter >= hi {
				e[at+".jitter"] = fmt.Sprintf("must be in [0, %v), got %v", hi, *f.Jitter)
			}
		}
		if f.TaskManager != nil && tms > 0 && (*f.TaskManager < 0 || *f.TaskManager >= tms) {
			e[at+".taskmanager"] = fmt.Sprintf("the cluster has TaskManagers 0..%d, got %d", tms-1, *f.TaskManager)
		}
		if f.Operator != "" && !ops[f.Operator] {
			e[at+".operator"] = fmt.Sprintf("no operator named %q in job.operators", f.Operator)
		}
	}
	for i, a := range sc.Actions {
		at := fmt.Sprintf("actions[%d]", i)
		n := 0
		if a.CheckpointInterval != nil {
			n++
			if *a.CheckpointInterval <= 0 {
				e[at+".checkpoint_interval"] = fmt.Sprintf("must be positive, got %v", *a.CheckpointInterval)
			}
		}
		if a.Parallelism != nil {
			n++
			if *a.Parallelism < 1 || *a.Parallelism > sc.Job.MaxParallelism {
				e[at+".parallelism"] = fmt.Sprintf("must be in 1..max_parallelism (%d), got %d", sc.Job.MaxParallelism, *a.Parallelism)
			}
		}
		if a.Vertices != nil {
			n++
			if len(a.Vertices) == 0 {
				e[at+".vertices"] = "names no vertex; give operator: parallelism pairs"
			}
			for name, p := range a.Vertices {
				switch {
				case !ops[name]:
					e[at+".vertices."+name] = fmt.Sprintf("no operator named %q in job.operators", name)
				case p < 1 || p > sc.Job.MaxParallelism:
					e[at+".vertices."+name] = fmt.Sprintf("must be in 1..max_parallelism (%d), got %d", sc.Job.MaxParallelism, p)
				}
			}
		}
		if a.Savepoint {
			n++
		}
		if n != 1 {
			e[at] = "an action sets exactly one of checkpoint_interval, parallelism, vertices or savepoint"
		}
		if a.At < 0 || (dur > 0 && float64(a.At) >= dur) {
			e[at+".at"] = fmt.Sprintf("must be within the run, got %v", a.At)
		}
	}
	if sc.QoS.Latency <= 0 {
		e["qos.latency"] = fmt.Sprintf("must be positive, got %v", sc.QoS.Latency)
	}
	if sc.QoS.Recovery <= 0 {
		e["qos.recovery"] = fmt.Sprintf("must be positive, got %v", sc.QoS.Recovery)
	}
	if sc.Monitoring != nil {
		if sc.MetricInterval != 1 {
			e["metric_interval"] = fmt.Sprintf("must be 1s with a monitoring section (its metrics and samplers work in seconds), got %v", sc.MetricInterval)
		}
		for f, m := range sc.Monitoring.Problems(float64(sc.Duration)) {
			e["monitoring."+f] = m
		}
	}
	ps := sim.ProblemsAt(path, file, e)
	if len(ps) == 0 && sc.Workload != nil {
		// render the workload now, so a bad trace file is an input error
		// and keep the schedule: Resolve reuses it for the same seed
		rates, err := workloads.Build(*sc.Workload, sc.Duration, "", sim.Seeds{Root: sc.Seed})
		if err == nil {
			sc.built = &builtRates{seed: sc.Seed, rates: rates}
		} else {
			field := "workload"
			if sc.Workload.File != "" {
				field = "workload.file"
			}
			ps = append(ps, Problem{File: path, Line: sim.LineOf(file, field), Field: field, Msg: err.Error()})
		}
	}
	if _, err := policy.New(sc.Policy.Name, sc.Policy.Node, nil); err != nil && !errors.Is(err, policy.ErrNeedsProfile) {
		p := sim.YAMLProblem(path, file, err)
		var pe *sim.PosError
		if p.Line == 1 && p.Field == "" && !errors.As(err, &pe) {
			p.Line, p.Field = sim.LineOf(file, "policy"), "policy"
		}
		ps = append(ps, p)
	}
	return ps
}

// present tells whether the file sets the dotted field itself (a zero value
// there is a mistake, not a missing key).
func present(file *ast.File, field string) bool {
	if file == nil {
		return false
	}
	p, err := yaml.PathString("$." + field)
	if err != nil {
		return false
	}
	n, err := p.FilterFile(file)
	return err == nil && n != nil
}
