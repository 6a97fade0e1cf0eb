package optimal

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

// Policy names.
const (
	NameYoung = "young"
	NameDaly  = "daly"
)

// Defaults for the optional keys. The rule for when a new interval is worth
// its restart is Khaos's optimiser's (khaos.WorthChanging and its uptime
// gate), so the baselines restart no more readily than Khaos does.
const (
	DefaultMinInterval       sim.Duration = 10
	DefaultMaxInterval       sim.Duration = 600
	DefaultPeriod            sim.Duration = 60
	DefaultMinChange                      = khaos.MinChange
	DefaultMinRelativeChange              = khaos.MinRelativeChange
	DefaultMinUptime                      = khaos.MinUptime
	DefaultMTBFPrior         sim.Duration = 86400
)

// Young is Young's first-order optimum checkpoint interval sqrt(2·c·mtbf),
// in seconds, for a checkpoint cost c ≥ 0 and mtbf > 0 (seconds).
func Young(c, mtbf float64) float64 { return math.Sqrt(2 * c * mtbf) }

// Daly is Daly's higher-order optimum compute time between checkpoints, in
// seconds, for a checkpoint time delta ≥ 0 and mtbf > 0 (seconds); it is
// mtbf when delta ≥ 2·mtbf.
func Daly(delta, mtbf float64) float64 {
	if delta >= 2*mtbf {
		return mtbf
	}
	x := delta / (2 * mtbf)
	return math.Sqrt(2*delta*mtbf)*(1+math.Sqrt(x)/3+x/9) - delta
}

// Config is the policy section (see the package documentation). A nil
// CheckpointCost or MTBF is estimated from the observations.
type Config struct {
	Name           string        `yaml:"name"`
	CheckpointCost *sim.Duration `yaml:"checkpoint_cost,omitempty"`
	MTBF           *sim.Duration `yaml:"mtbf,omitempty"`
	MTBFPrior      sim.Duration  `yaml:"mtbf_prior,omitempty"`
	MinInterval    sim.Duration  `yaml:"min_interval,omitempty"`
	MaxInterval    sim.Duration  `yaml:"max_interval,omitempty"`
	Period         sim.Duration  `yaml:"period,omitempty"`
	MinChange      sim.Duration  `yaml:"min_change,omitempty"`
	// MinRelativeChange: a new interval must also differ by more than this
	// share of the current one (absent: DefaultMinRelativeChange; 0 turns
	// it off).
	MinRelativeChange *float64 `yaml:"min_relative_change,omitempty"`
	// MinUptime: no change until the job has run this long since its last
	// (re)start, a change of interval included (absent: DefaultMinUptime;
	// 0 turns it off).
	MinUptime *sim.Duration `yaml:"min_uptime,omitempty"`
}

// Policy sets the checkpoint interval to Young's or Daly's optimum.
type Policy struct {
	cfg     Config
	formula func(c, mtbf float64) float64

	// observed checkpoint durations
	seen   bool
	lastID int64
	sumC   float64
	n      int
}

func init() {
	for _, name := range []string{NameYoung, NameDaly} {
		policy.Register(name, func(node ast.Node, _ *rand.Rand) (policy.Policy, error) {
			cfg := Config{Name: name}
			if err := policy.Decode(node, &cfg); err != nil {
				return nil, err
			}
			return New(cfg)
		})
	}
}

// New validates cfg, fills in the defaults and returns the policy.
func New(cfg Config) (*Policy, error) {
	p := &Policy{}
	switch cfg.Name {
	case NameYoung:
		p.formula = Young
	case NameDaly:
		p.formula = Daly
	default:
		return nil, fmt.Errorf("policy.name must be %q or %q, got %q", NameYoung, NameDaly, cfg.Name)
	}
	def := func(d *sim.Duration, v sim.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&cfg.MTBFPrior, DefaultMTBFPrior)
	def(&cfg.MinInterval, DefaultMinInterval)
	def(&cfg.MaxInterval, DefaultMaxInterval)
	def(&cfg.Period, DefaultPeriod)
	def(&cfg.MinChange, DefaultMinChange)
	if cfg.MinRelativeChange == nil {
		r := DefaultMinRelativeChange
		cfg.MinRelativeChange = &r
	}
	if cfg.MinUptime == nil {
		u := DefaultMinUptime
		cfg.MinUptime = &u
	}
	switch {
	case cfg.CheckpointCost != nil && !(*cfg.CheckpointCost >= 0):
		return nil, fmt.Errorf("policy.checkpoint_cost must not be negative, got %v; omit it to use the observed checkpoint durations", *cfg.CheckpointCost)
	case cfg.MTBF != nil && !(*cfg.MTBF > 0):
		return nil, fmt.Errorf("policy.mtbf must be positive, got %v; omit it to estimate it from the faults seen", *cfg.MTBF)
	case cfg.MTBFPrior < 0:
		return nil, fmt.Errorf("policy.mtbf_prior must be positive, got %v", cfg.MTBFPrior)
	case cfg.MinInterval < 0.01:
		return nil, fmt.Errorf("policy.min_interval must be at least 10ms (Flink's minimum checkpoint interval), got %v", cfg.MinInterval)
	case cfg.MaxInterval < cfg.MinInterval:
		return nil, fmt.Errorf("policy.max_interval (%v) must not be below policy.min_interval (%v)", cfg.MaxInterval, cfg.MinInterval)
	case cfg.Period < 0:
		return nil, fmt.Errorf("policy.period must be positive, got %v", cfg.Period)
	case cfg.MinChange < 0:
		return nil, fmt.Errorf("policy.min_change must not be negative, got %v", cfg.MinChange)
	case !(*cfg.MinRelativeChange >= 0 && *cfg.MinRelativeChange < 1):
		return nil, fmt.Errorf("policy.min_relative_change must be a share of the current interval in [0, 1), got %g (0.1: changes of 10 %% or less are not applied; 0: off)", *cfg.MinRelativeChange)
	case *cfg.MinUptime < 0:
		return nil, fmt.Errorf("policy.min_uptime must be a duration ≥ 0s (the job's run time since its last restart before the interval may change again; 0: off), got %v", *cfg.MinUptime)
	}
	p.cfg = cfg
	return p, nil
}

func (p *Policy) Name() string { return p.cfg.Name }

func (p *Policy) Interval() time.Duration { return toTime(p.cfg.Period) }

// Step records the last checkpoint's duration and, while the job is
// RUNNING and has run min_uptime since its last (re)start, asks for the
// optimum interval if it is worth a restart: at least min_change and more
// than min_relative_change of the current interval away
// (khaos.WorthChanging).
func (p *Policy) Step(now time.Duration, obs policy.Observation) []policy.Action {
	if cp := obs.Job.LastCheckpoint; cp != nil && (!p.seen || cp.ID != p.lastID) {
		p.seen, p.lastID = true, cp.ID
		p.sumC += cp.Duration.Seconds()
		p.n++
	}
	if obs.Job.State != "RUNNING" || obs.Job.Uptime < toTime(*p.cfg.MinUptime) {
		return nil
	}
	var c float64
	var cSrc string
	switch {
	case p.cfg.CheckpointCost != nil:
		c, cSrc = float64(*p.cfg.CheckpointCost), "configured"
	case p.n > 0:
		c, cSrc = p.sumC/float64(p.n), "observed mean of "+textfmt.Plural(p.n, "checkpoint")
	default:
		return nil // no cost known yet
	}
	var m float64
	var mSrc string
	switch {
	case p.cfg.MTBF != nil:
		m, mSrc = float64(*p.cfg.MTBF), "configured"
	case obs.Job.Faults > 0:
		m = now.Seconds() / float64(max(1, obs.Job.Faults))
		mSrc = fmt.Sprintf("estimated: %v elapsed / %s", show(now.Seconds()), textfmt.Plural(obs.Job.Faults, "fault"))
	default:
		m, mSrc = float64(p.cfg.MTBFPrior), "mtbf_prior, no fault seen yet"
	}
	if !(m > 0) {
		return nil // now = 0 with a fault: no elapsed time to estimate from
	}
	raw := p.formula(c, m)
	t := math.Min(math.Max(raw, float64(p.cfg.MinInterval)), float64(p.cfg.MaxInterval))
	want := time.Duration(math.Round(t*1000)) * time.Millisecond
	if !khaos.WorthChanging(obs.Job.CheckpointInterval.Seconds(), want.Seconds(), float64(p.cfg.MinChange), *p.cfg.MinRelativeChange) {
		return nil
	}
	sym := "C"
	if p.cfg.Name == NameDaly {
		sym = "δ"
	}
	reason := fmt.Sprintf("%s: %s = %v (%s), MTBF = %v (%s) → %v", p.cfg.Name, sym, show(c), cSrc, show(m), mSrc, show(want.Seconds()))
	if t != raw {
		reason += fmt.Sprintf(" (clamped from %v to [%v, %v])", show(raw), p.cfg.MinInterval, p.cfg.MaxInterval)
	}
	return []policy.Action{{Kind: policy.SetCheckpointInterval, Interval: want, Reason: reason}}
}

// show rounds seconds to whole milliseconds for messages.
func show(s float64) sim.Duration { return sim.Duration(math.Round(s*1000) / 1000) }

func toTime(d sim.Duration) time.Duration { return time.Duration(float64(d) * float64(time.Second)) }
