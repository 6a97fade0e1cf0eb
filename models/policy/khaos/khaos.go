package khaos

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/models/forecast"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// Name is the policy's scenario name.
const Name = "khaos"

// Config is the policy section, with the reference's constants as defaults
// (docs/reference/khaos.md §7):
//
//	policy: {name: khaos, profile: runs/profile/models.json, latency_bound: 1s, recovery_bound: 240s}
type Config struct {
	Name string `yaml:"name"`
	// Profile is a models.json written by `streamtwin profile`; Models
	// holds the same inline (the run command inlines the profile so a run
	// folder's scenario.yaml is self-contained).
	Profile string  `yaml:"profile,omitempty"`
	Models  *Models `yaml:"models,omitempty"`
	// Model picks the recovery model: ols (Khaos) or physics.
	Model         string       `yaml:"model"`
	LatencyBound  sim.Duration `yaml:"latency_bound"`  // L, general.avgLatConst: 1 s
	RecoveryBound sim.Duration `yaml:"recovery_bound"` // R, general.recTimeConst: 240 s in the logged runs
	Period        sim.Duration `yaml:"period"`         // optInterval: 300 s
	MinUptime     sim.Duration `yaml:"min_uptime"`     // minUpTime: 600 s
	Window        sim.Duration `yaml:"window"`         // averagingWindow: 300 s
	MinInterval   sim.Duration `yaml:"min_interval"`   // candidates from 10 s …
	MaxInterval   sim.Duration `yaml:"max_interval"`   // … to 119 s …
	Step          sim.Duration `yaml:"step"`           // … in 1 s steps
	MinChange     sim.Duration `yaml:"min_change"`     // apply only changes of at least 5 s …
	// … and of more than this share of the current CI (WorthChanging)
	MinRelativeChange float64 `yaml:"min_relative_change"`
	ErrorWindow       int     `yaml:"error_window"` // LimitedQueue(6): latency model-error weight
	// ForecastGate adds the later Khaos code's ARIMA(2,2,2) gate: act on a
	// violation only when the input is forecast to drop by more than 10 %.
	ForecastGate bool `yaml:"forecast_gate"`
}

// DefaultConfig returns the reference's constants.
func DefaultConfig() Config {
	return Config{Name: Name, Model: "ols", LatencyBound: 1, RecoveryBound: 240, Period: 300, MinUptime: MinUptime, Window: 300,
		MinInterval: 10, MaxInterval: 119, Step: 1, MinChange: MinChange, MinRelativeChange: MinRelativeChange, ErrorWindow: 6}
}

func init() {
	policy.Register(Name, func(node ast.Node, _ *rand.Rand) (policy.Policy, error) {
		cfg := DefaultConfig()
		if err := policy.Decode(node, &cfg); err != nil {
			return nil, err
		}
		return New(cfg)
	})
}

// Policy is Khaos's runtime optimiser (phase 3): every Period, once the job
// has run MinUptime, it predicts latency and recovery time at the current
// load and CI and, on a violation of exactly one bound, moves the CI to the
// feasible candidate that minimises 2·max(latency ratio, recovery ratio).
type Policy struct {
	cfg     Config
	models  Models
	ratios  []float64 // measured / predicted latency, last ErrorWindow ticks
	gate    forecast.DropGate
	samples int
}

// New validates cfg, loads the profile if needed, and returns the policy.
func New(cfg Config) (*Policy, error) {
	if cfg.Models == nil {
		if cfg.Profile == "" {
			return nil, fmt.Errorf("policy khaos needs models: set policy.profile to a models.json from `streamtwin profile SCENARIO`, or run the scenario with `streamtwin run`, which profiles first: %w", policy.ErrNeedsProfile)
		}
		data, err := os.ReadFile(cfg.Profile)
		if err != nil {
			return nil, fmt.Errorf("policy.profile: %w (write it with `streamtwin profile SCENARIO`)", err)
		}
		var p struct {
			Models *Models `json:"models"`
		}
		if err := json.Unmarshal(data, &p); err != nil || p.Models == nil {
			return nil, fmt.Errorf("policy.profile: %s is not a models.json of `streamtwin profile` (%v)", cfg.Profile, err)
		}
		cfg.Models = p.Models
	}
	if err := cfg.Models.Validate(); err != nil {
		return nil, fmt.Errorf("policy.models: %w", err)
	}
	switch {
	case cfg.Model != "ols" && cfg.Model != "physics":
		return nil, fmt.Errorf("policy.model must be ols or physics, got %q", cfg.Model)
	case cfg.Model == "physics" && cfg.Models.Physics == nil:
		return nil, fmt.Errorf("policy.model physics: the profile has no physical model; profile again")
	case cfg.LatencyBound <= 0 || cfg.RecoveryBound <= 0:
		return nil, fmt.Errorf("policy.latency_bound and recovery_bound must be positive, got %v and %v", cfg.LatencyBound, cfg.RecoveryBound)
	case cfg.Period <= 0 || cfg.Window <= 0 || cfg.MinUptime < 0:
		return nil, fmt.Errorf("policy.period and window must be positive and min_uptime ≥ 0")
	case cfg.MinInterval < 0.01 || cfg.MaxInterval < cfg.MinInterval:
		return nil, fmt.Errorf("policy.min_interval (%v) must be ≥ 10ms and ≤ max_interval (%v)", cfg.MinInterval, cfg.MaxInterval)
	case cfg.Step <= 0 || cfg.MinChange < 0:
		return nil, fmt.Errorf("policy.step must be positive and min_change ≥ 0")
	case !(cfg.MinRelativeChange >= 0 && cfg.MinRelativeChange < 1):
		return nil, fmt.Errorf("policy.min_relative_change must be a share of the current CI in [0, 1), got %g (0.1: changes of 10 %% or less are not applied)", cfg.MinRelativeChange)
	case cfg.ErrorWindow < 1:
		return nil, fmt.Errorf("policy.error_window must be at least 1, got %d", cfg.ErrorWindow)
	}
	p := &Policy{cfg: cfg, models: *cfg.Models, gate: forecast.DropGate{}}
	p.samples = int(math.Ceil(float64(cfg.Window)))
	if cfg.ForecastGate {
		p.samples = max(p.samples, 3600)
	}
	return p, nil
}

func (p *Policy) Name() string { return Name }

func (p *Policy) Interval() time.Duration { return dur(float64(p.cfg.Period)) }

// WindowSamples: the averaging window, or the gate's hour of input rates.
func (p *Policy) WindowSamples() int { return p.samples }

// predictRecovery uses the configured recovery model.
func (p *Policy) predictRecovery(thr, ci float64) float64 {
	if p.cfg.Model == "physics" {
		return p.models.Physics.Predict(thr, ci)
	}
	return p.models.Recovery.Predict(thr, ci)
}

// Step is one optimiser tick.
func (p *Policy) Step(_ time.Duration, obs policy.Observation) []policy.Action {
	if obs.Job.State != "RUNNING" || obs.Job.Uptime < dur(float64(p.cfg.MinUptime)) {
		return nil
	}
	thr, lat, ok := means(obs.Window, float64(p.cfg.Window))
	if !ok {
		return nil
	}
	ci := obs.Job.CheckpointInterval.Seconds()
	d := p.Decide(thr, lat, ci, obs.Window)
	switch {
	case d.Interval > 0:
		return []policy.Action{{Kind: policy.SetCheckpointInterval, Interval: dur(d.Interval), Reason: d.Reason}}
	case d.Reason != "":
		return []policy.Action{{Kind: policy.Note, Reason: d.Reason}}
	}
	return nil
}

// means are the window's mean throughput and mean latency-marker p99 (NaN
// seconds, the job down, left out), as Khaos's avgThr and avgLat.
func means(window []results.Sample, span float64) (thr, lat float64, ok bool) {
	if len(window) == 0 {
		return 0, 0, false
	}
	end := window[len(window)-1].TimeS
	var n, nl int
	for i := len(window) - 1; i >= 0 && window[i].TimeS > end-span; i-- {
		thr += window[i].Throughput
		n++
		if v := window[i].LatencyMarkerP99Ms; !math.IsNaN(v) {
			lat += v
			nl++
		}
	}
	if nl == 0 {
		return 0, 0, false
	}
	return thr / float64(n), lat / float64(nl), true
}

func inputRates(window []results.Sample) []float64 {
	out := make([]float64, len(window))
	for i, s := range window {
		out[i] = s.InputRate
	}
	return out
}

// Decision is the outcome of one tick: Interval 0 means no change.
type Decision struct {
	Interval float64 // s
	Reason   string
}

// Decide applies the violation logic and the search to measured means: thr
// (records/s) and lat (ms, the sinks' p99) over the window, at CI ci (s).
// window feeds the forecast gate when it is on.
func (p *Policy) Decide(thr, lat, ci float64, window []results.Sample) Decision {
	L, R := 1000*float64(p.cfg.LatencyBound), float64(p.cfg.RecoveryBound)
	predLat := p.models.Latency.Predict(thr, ci)
	predRec := p.predictRecovery(thr, ci)
	if predLat > 0 {
		p.ratios = append(p.ratios, lat/predLat)
		if len(p.ratios) > p.cfg.ErrorWindow {
			p.ratios = p.ratios[1:]
		}
	}
	weight := 1.0
	if len(p.ratios) > 0 {
		weight = 0
		for _, r := range p.ratios {
			weight += r / float64(len(p.ratios))
		}
	}
	recViolated := lat < L && predRec > R
	latViolated := lat > L && predRec < R
	switch {
	case lat > L && predRec > R:
		return Decision{Reason: "unable to optimize: both bounds violated"}
	case !recViolated && !latViolated:
		return Decision{}
	}
	if p.cfg.ForecastGate {
		urgent, _, err := p.gate.Urgent(inputRates(window))
		if err != nil || !urgent {
			return Decision{}
		}
	}
	lo, hi := float64(p.cfg.MinInterval), float64(p.cfg.MaxInterval)
	if recViolated {
		hi = ci - 1e-9 // search only shorter CIs
	} else {
		lo = ci + 1e-9 // search only longer CIs
	}
	best, bestScore := -1.0, math.Inf(1)
	step := float64(p.cfg.Step)
	for c := float64(p.cfg.MinInterval); c <= float64(p.cfg.MaxInterval)+1e-9; c += step {
		if c < lo || c > hi {
			continue
		}
		pl, pr := p.models.Latency.Predict(thr, c), p.predictRecovery(thr, c)
		latRatio, recRatio := pl*weight/L, pr/R
		if pl <= 0 || latRatio >= 1 || pr <= 0 || recRatio >= 1 {
			continue
		}
		if score := 2 * math.Max(latRatio, recRatio); score < bestScore {
			best, bestScore = c, score
		}
	}
	kind := "latency"
	if recViolated {
		kind = "recovery"
	}
	why := fmt.Sprintf("khaos: %s violation at %.0f records/s, CI %gs (latency %.0f ms vs L %.0f ms, predicted recovery %.0f s vs R %.0f s)",
		kind, thr, ci, lat, L, predRec, R)
	if best < 0 {
		return Decision{Reason: why + ": no feasible CI"}
	}
	best = math.Round(best*1000) / 1000
	if !WorthChanging(ci, best, float64(p.cfg.MinChange), p.cfg.MinRelativeChange) {
		if math.Abs(best-ci) < float64(p.cfg.MinChange) {
			return Decision{Reason: fmt.Sprintf("%s: optimum %gs is less than %v away", why, best, p.cfg.MinChange)}
		}
		return Decision{Reason: fmt.Sprintf("%s: optimum %gs is within %g %% of the CI", why, best, 100*p.cfg.MinRelativeChange)}
	}
	return Decision{Interval: best, Reason: fmt.Sprintf("%s → CI %gs (predicted recovery %.0f s, latency %.0f ms)",
		why, best, p.predictRecovery(thr, best), p.models.Latency.Predict(thr, best)*weight)}
}

func dur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
