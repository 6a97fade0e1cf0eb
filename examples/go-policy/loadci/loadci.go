package loadci

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/sim"
)

// Name is the policy's scenario name: `policy: {name: load-ci}`.
const Name = "load-ci"

// Config is the policy section, with Default's values for missing keys.
type Config struct {
	Name     string       `yaml:"name"`
	HighRate float64      `yaml:"high_rate"` // records/s: at or above, ShortCI
	LowRate  float64      `yaml:"low_rate"`  // records/s: at or below, LongCI
	ShortCI  sim.Duration `yaml:"short_ci"`
	LongCI   sim.Duration `yaml:"long_ci"`
	Average  sim.Duration `yaml:"average"` // the input rate is averaged over this long
}

// Default is the configuration of a bare `policy: {name: load-ci}`.
var Default = Config{Name: Name, HighRate: 100000, LowRate: 40000, ShortCI: 10, LongCI: 60, Average: 60}

// Register makes the policy available to scenarios; call it before app.Main.
func Register() {
	policy.Register(Name, func(node ast.Node, _ *rand.Rand) (policy.Policy, error) {
		cfg := Default
		if err := policy.Decode(node, &cfg); err != nil {
			return nil, err
		}
		return New(cfg)
	})
}

// Policy keeps no state between steps: each decision reads the window.
type Policy struct{ cfg Config }

// New checks cfg.
func New(cfg Config) (*Policy, error) {
	switch {
	case cfg.LowRate < 0 || cfg.HighRate <= cfg.LowRate:
		return nil, fmt.Errorf("policy: need 0 ≤ low_rate < high_rate, got %g and %g records/s", cfg.LowRate, cfg.HighRate)
	case cfg.ShortCI <= 0 || cfg.LongCI <= 0:
		return nil, fmt.Errorf("policy: short_ci and long_ci must be positive, got %v and %v", cfg.ShortCI, cfg.LongCI)
	case cfg.Average < 1:
		return nil, fmt.Errorf("policy.average must be at least 1s, got %v", cfg.Average)
	}
	return &Policy{cfg: cfg}, nil
}

func (p *Policy) Name() string            { return Name }
func (p *Policy) Interval() time.Duration { return 10 * time.Second }

// Step averages the input rate over the last Average seconds of samples and
// asks for ShortCI at or above HighRate, LongCI at or below LowRate, and
// nothing in between, while the job is down, or when it runs with the target.
func (p *Policy) Step(_ time.Duration, obs policy.Observation) []policy.Action {
	if obs.Job.State != "RUNNING" || len(obs.Window) == 0 {
		return nil
	}
	recent := obs.Window[max(0, len(obs.Window)-int(p.cfg.Average)):]
	sum := 0.0
	for _, s := range recent {
		sum += s.InputRate
	}
	mean := sum / float64(len(recent))
	var target sim.Duration
	switch {
	case mean >= p.cfg.HighRate:
		target = p.cfg.ShortCI
	case mean <= p.cfg.LowRate:
		target = p.cfg.LongCI
	default:
		return nil
	}
	if target.Std() == obs.Job.CheckpointInterval {
		return nil
	}
	return []policy.Action{{Kind: policy.SetCheckpointInterval, Interval: target.Std(),
		Reason: fmt.Sprintf("load-ci: mean input %.0f/s over the last %d s, checkpoint interval %gs", mean, len(recent), float64(target))}}
}

// Requires: the policy changes the checkpoint interval, which a backend
// must support before the run starts.
func (p *Policy) Requires() []policy.ActionKind {
	return []policy.ActionKind{policy.SetCheckpointInterval}
}
