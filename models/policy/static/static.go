package static

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/sim"
)

// Name is the policy's scenario name.
const Name = "static"

// Config is the policy section: `policy: {name: static, interval: 30s}`.
// Without an interval the job keeps the CI it was submitted with.
type Config struct {
	Name     string       `yaml:"name"`
	Interval sim.Duration `yaml:"interval,omitempty"`
	// Period is how often the policy looks at the job (default 10s).
	Period sim.Duration `yaml:"period,omitempty"`
}

// Policy keeps the checkpoint interval at Config.Interval.
type Policy struct{ cfg Config }

func init() {
	policy.Register(Name, func(node ast.Node, _ *rand.Rand) (policy.Policy, error) {
		cfg := Config{Period: 10}
		if err := policy.Decode(node, &cfg); err != nil {
			return nil, err
		}
		return New(cfg)
	})
}

// New validates cfg and returns the policy.
func New(cfg Config) (*Policy, error) {
	if cfg.Interval < 0 {
		return nil, fmt.Errorf("policy.interval must not be negative, got %v", cfg.Interval)
	}
	if cfg.Interval > 0 && cfg.Interval < 0.01 {
		return nil, fmt.Errorf("policy.interval must be at least 10ms, got %v", cfg.Interval)
	}
	if cfg.Period <= 0 {
		cfg.Period = 10
	}
	return &Policy{cfg: cfg}, nil
}

func (p *Policy) Name() string { return Name }

// WindowSamples is 1: the policy reads only the job's status, so the
// controller need not keep 10 minutes of samples for it (a calibration
// point is a run of its own).
func (p *Policy) WindowSamples() int { return 1 }

func (p *Policy) Interval() time.Duration { return p.cfg.Period.Std() }

// Step asks for the configured interval whenever the running job has another
// one; it never acts while the job is down.
func (p *Policy) Step(_ time.Duration, obs policy.Observation) []policy.Action {
	want := p.cfg.Interval.Std()
	if want == 0 || obs.Job.State != "RUNNING" || obs.Job.CheckpointInterval == want {
		return nil
	}
	return []policy.Action{{Kind: policy.SetCheckpointInterval, Interval: want,
		Reason: fmt.Sprintf("static policy: checkpoint interval %v, job runs with %v", want, obs.Job.CheckpointInterval)}}
}
