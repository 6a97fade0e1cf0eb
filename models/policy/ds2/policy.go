package ds2

import (
	"fmt"
	"math"
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/sim"
)

// Name is the policy's scenario name.
const Name = "ds2"

// Config is the policy section: the DS2 manager's keys (ds2.toml).
type Config struct {
	Name string `yaml:"name"`
	// Interval is policy_interval: how often DS2 decides, over the
	// samples since its last decision.
	Interval sim.Duration `yaml:"interval"`
	// WarmUp is warm_up_time: how long after a (re)start the metrics are
	// ignored.
	WarmUp sim.Duration `yaml:"warm_up"`
	// Activation is activation_time: how many decisions in a row must
	// agree before DS2 acts.
	Activation int `yaml:"activation"`
	// ScalingFactor is scaling_factor f: π = ⌈(1 + f) · …⌉.
	ScalingFactor float64 `yaml:"scaling_factor"`
	// MaxParallelism bounds the job (Daedalus's max scale-out, 18).
	MaxParallelism int `yaml:"max_parallelism"`
}

// Default: decide every minute on the last minute, after 2 minutes of
// warm-up, acting on one decision.
func Default() Config {
	return Config{Name: Name, Interval: 60, WarmUp: 120, Activation: 1, MaxParallelism: 18}
}

// Policy is the DS2 manager.
type Policy struct {
	cfg    Config
	last   int // the previous decision
	streak int // decisions in a row equal to last
}

func init() { policy.RegisterSettings(Name, Default, New) }

// New validates cfg and returns the policy.
func New(cfg Config) (*Policy, error) {
	if err := policy.Check(cfg.validate()); err != nil {
		return nil, err
	}
	return &Policy{cfg: cfg}, nil
}

// validate returns the problems of the settings, in the order New reports
// them.
func (cfg Config) validate() []policy.Problem {
	var ps []policy.Problem
	if cfg.Interval < 2 {
		ps = append(ps, policy.Problemf("interval", "policy.interval must be at least 2s, got %v", cfg.Interval))
	}
	if cfg.WarmUp < 0 {
		ps = append(ps, policy.Problemf("warm_up", "policy.warm_up must be ≥ 0s, got %v", cfg.WarmUp))
	}
	if cfg.Activation < 1 {
		ps = append(ps, policy.Problemf("activation", "policy.activation must be at least 1, got %d", cfg.Activation))
	}
	if cfg.ScalingFactor < 0 {
		ps = append(ps, policy.Problemf("scaling_factor", "policy.scaling_factor must be ≥ 0, got %g", cfg.ScalingFactor))
	}
	if cfg.MaxParallelism < 1 {
		ps = append(ps, policy.Problemf("max_parallelism", "policy.max_parallelism must be at least 1, got %d", cfg.MaxParallelism))
	}
	return ps
}

func (p *Policy) Name() string            { return Name }
func (p *Policy) Interval() time.Duration { return p.cfg.Interval.Std() }
func (p *Policy) WindowSamples() int      { return int(math.Ceil(float64(p.cfg.Interval))) }
func (p *Policy) UsesDetail() bool        { return true }

// Requires: DS2 rescales.
func (p *Policy) Requires() []policy.ActionKind { return []policy.ActionKind{policy.Rescale} }

// Step decides on the window's samples past the warm-up: each operator's
// aggregated true processing and output rates are its mean input and
// output rates over its mean busy fraction (the busiest subtask's, so a
// skewed operator is sized for its hottest instance), the sources' target
// the mean arrival rate at Kafka.
func (p *Policy) Step(now time.Duration, obs policy.Observation) []policy.Action {
	t := now.Seconds()
	if obs.Job.State != "RUNNING" || len(obs.Detail) != len(obs.Window) || len(obs.Window) == 0 {
		return nil
	}
	from := t - obs.Job.Uptime.Seconds() + float64(p.cfg.WarmUp)
	var ops []Operator
	var busy []float64
	n, arrival := 0.0, 0.0
	for i, s := range obs.Window {
		d := obs.Detail[i].Operators
		if s.TimeS <= from || s.JobState != "RUNNING" || len(d) == 0 {
			continue
		}
		if ops == nil {
			ops, busy = make([]Operator, len(d)), make([]float64, len(d))
			for k, o := range d {
				ops[k] = Operator{Name: o.Name, Parallelism: o.Parallelism}
				if k > 0 {
					ops[k].Inputs = []int{k - 1} // the twin's and the live job's graphs are chains
				}
			}
		}
		if len(d) != len(ops) {
			continue
		}
		n++
		arrival += s.InputRate
		for k, o := range d {
			ops[k].TrueProcessingRate += o.InputRate
			ops[k].TrueOutputRate += o.OutputRate
			busy[k] += o.BusyMax
		}
	}
	if n < 2 {
		return nil
	}
	for k := range ops {
		if busy[k] <= 0 || ops[k].TrueProcessingRate <= 0 {
			return nil // an idle operator has no measurable true rate
		}
		ops[k].TrueProcessingRate /= busy[k]
		ops[k].TrueOutputRate /= busy[k]
	}
	ops[0].TargetRate = arrival / n
	pis, err := Parallelisms(ops, p.cfg.ScalingFactor)
	if err != nil {
		return nil
	}
	want, by := 0, ""
	for k, pi := range pis {
		if pi > want {
			want, by = pi, ops[k].Name
		}
	}
	want = min(want, p.cfg.MaxParallelism)
	if want == p.last {
		p.streak++
	} else {
		p.last, p.streak = want, 1
	}
	cur := obs.Job.Parallelism
	if want == cur || p.streak < p.cfg.Activation {
		return nil
	}
	p.streak = 0
	return []policy.Action{{Kind: policy.Rescale, Parallelism: want,
		Reason: fmt.Sprintf("ds2: %d → %d (%s needs %d for a target of %.0f/s)", cur, want, by, want, ops[0].TargetRate)}}
}
