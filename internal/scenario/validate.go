package scenario

import (
	"errors"
	"fmt"
	"maps"
	"math"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/models/policy"
	_ "github.com/streamtwin/streamtwin/models/policy/all"
	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
)

// validate checks values the decoder cannot: ranges, required sections and
// references between sections; missing holds files named but not found,
// by field. Each section's validate returns its problems keyed below it;
// the defaults are filled in before, by decoding over Default.
func validate(path string, file *ast.File, sc *Scenario, missing map[string]string) Problems {
	e := map[string]string{}
	maps.Copy(e, missing)
	maps.Copy(e, sc.validateTiming(file))
	if sc.Workload == nil {
		e["workload"] = "missing; say what load to apply, e.g. workload: {shape: constant, rate: 20000/s}"
	} else {
		decode.Nest(e, "workload", sc.Workload.Validate())
	}
	decode.Nest(e, "kafka", sc.Kafka.Validate())
	decode.Nest(e, "job", sc.Job.Validate())
	run := sc.runBounds()
	for i, f := range sc.Faults {
		decode.Nest(e, fmt.Sprintf("faults[%d]", i), f.validate(run))
	}
	for i, a := range sc.Actions {
		decode.Nest(e, fmt.Sprintf("actions[%d]", i), a.validate(run))
	}
	decode.Nest(e, "qos", sc.QoS.validate())
	if sc.Monitoring != nil {
		// after validateTiming, whose metric_interval problem this replaces
		if sc.MetricInterval != 1 {
			e["metric_interval"] = fmt.Sprintf("must be 1s with a monitoring section (its metrics and samplers work in seconds), got %v", sc.MetricInterval)
		}
		decode.Nest(e, "monitoring", sc.Monitoring.Problems(float64(sc.Duration)))
	}
	ps := decode.ProblemsAt(path, file, e)
	if len(ps) == 0 && sc.Workload != nil {
		if p, failed := sc.buildWorkload(path, file); failed {
			ps = append(ps, p)
		}
	}
	if p, failed := policyProblem(path, file, sc.Policy); failed {
		ps = append(ps, p)
	}
	return ps
}

// validateTiming checks the run's duration and metric interval.
func (sc *Scenario) validateTiming(file *ast.File) map[string]string {
	e := map[string]string{}
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
	return e
}

// validate returns the action's problems keyed below it; the empty field
// is the action as a whole.
func (a Action) validate(run runBounds) map[string]string {
	e := map[string]string{}
	n := 0
	if a.CheckpointInterval != nil {
		n++
		if *a.CheckpointInterval <= 0 {
			e["checkpoint_interval"] = fmt.Sprintf("must be positive, got %v", *a.CheckpointInterval)
		}
	}
	if a.Parallelism != nil {
		n++
		if *a.Parallelism < 1 || *a.Parallelism > run.maxParallelism {
			e["parallelism"] = fmt.Sprintf("must be in 1..max_parallelism (%d), got %d", run.maxParallelism, *a.Parallelism)
		}
	}
	if a.Vertices != nil {
		n++
		if len(a.Vertices) == 0 {
			e["vertices"] = "names no vertex; give operator: parallelism pairs"
		}
		for name, p := range a.Vertices {
			switch {
			case !run.operators[name]:
				e["vertices."+name] = fmt.Sprintf("no operator named %q in job.operators", name)
			case p < 1 || p > run.maxParallelism:
				e["vertices."+name] = fmt.Sprintf("must be in 1..max_parallelism (%d), got %d", run.maxParallelism, p)
			}
		}
	}
	if a.Savepoint {
		n++
	}
	if n != 1 {
		e[""] = "an action sets exactly one of checkpoint_interval, parallelism, vertices or savepoint"
	}
	if dur := float64(run.duration); a.At < 0 || (dur > 0 && float64(a.At) >= dur) {
		e["at"] = fmt.Sprintf("must be within the run, got %v", a.At)
	}
	return e
}

func (q QoS) validate() map[string]string {
	e := map[string]string{}
	if q.Latency <= 0 {
		e["latency"] = fmt.Sprintf("must be positive, got %v", q.Latency)
	}
	if q.Recovery <= 0 {
		e["recovery"] = fmt.Sprintf("must be positive, got %v", q.Recovery)
	}
	return e
}

// buildWorkload renders the workload now, so that a bad trace file is an
// input error, and keeps the schedule: Resolve reuses it for the same seed.
func (sc *Scenario) buildWorkload(path string, file *ast.File) (p Problem, failed bool) {
	rates, err := workloads.Build(*sc.Workload, sc.Duration, "", sim.Seeds{Root: sc.Seed})
	if err != nil {
		field := "workload"
		if sc.Workload.File != "" {
			field = "workload.file"
		}
		return Problem{File: path, Line: decode.LineOf(file, field), Field: field, Msg: err.Error()}, true
	}
	sc.built = &builtRates{seed: sc.Seed, rates: rates}
	return Problem{}, false
}

// policyProblem checks the policy section's settings; a policy that needs
// a profile passes (the run profiles before it builds the policy).
func policyProblem(path string, file *ast.File, spec PolicySpec) (p Problem, failed bool) {
	err := policy.Validate(spec.Name, spec.Node)
	if err == nil || errors.Is(err, policy.ErrNeedsProfile) {
		return Problem{}, false
	}
	p = decode.YAMLProblem(path, file, err)
	var pe *decode.PosError
	if p.Line == 1 && p.Field == "" && !errors.As(err, &pe) {
		p.Line, p.Field = decode.LineOf(file, "policy"), "policy"
	}
	return p, true
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
