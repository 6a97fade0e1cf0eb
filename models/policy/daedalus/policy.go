package daedalus

import (
	"math"
	"time"

	"github.com/streamtwin/streamtwin/models/forecast"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// Name is the policy's scenario name.
const Name = "daedalus"

// Config is the policy section, e.g. `policy: {name: daedalus}`. The
// defaults are the authors' code's (reference/autoscaling.md §1).
type Config struct {
	Name string `yaml:"name"`
	// Loop is the MAPE-K period (loop_time, 60 s).
	Loop sim.Duration `yaml:"loop"`
	// Window is what one Monitor step queries ([now − 61 s, now]).
	Window sim.Duration `yaml:"window"`
	// Warmup: the first loop runs this long after the start (main.py
	// sleeps 500 s after deploying).
	Warmup sim.Duration `yaml:"warmup"`
	// MetricBlackout drops the samples of the first this-long of job uptime
	// after every (re)start from the capacity model (capacity.py: 120 s).
	MetricBlackout sim.Duration `yaml:"metric_blackout"`
	// Forecast is `arima` (auto-ARIMA, 15 min horizon, with the linear
	// fallback while its WAPE is ≥ 0.25) or `linear` (the fallback only).
	Forecast string `yaml:"forecast"`
	// MaxP and MaxQ bound auto-ARIMA's orders (5 and 5).
	MaxP int `yaml:"max_p"`
	MaxQ int `yaml:"max_q"`
	// MaxScaleOut is max_scaleout, the most TaskManagers (≤ 18).
	MaxScaleOut int `yaml:"max_scaleout"`
}

// Default is the authors' configuration.
func Default() Config {
	return Config{Name: Name, Loop: 60, Window: 61, Warmup: 500, MetricBlackout: 120, Forecast: "arima", MaxP: 5, MaxQ: 5, MaxScaleOut: MaxScaleOut}
}

// Policy is one Daedalus manager. Between loops it keeps the per-TaskManager
// regressions, the capacity book, the workload history and its ARIMA
// model, the downtime estimates and the rescale it watches recover.
type Policy struct {
	cfg Config

	models   map[int]*Regression // per TaskManager index
	caps     Capacities
	history  []float64 // workload (records/s) at 1 s since the start
	lastSeen float64   // time of the newest sample in history
	model    *forecast.ARIMA
	acc      Accuracy
	prevF    []float64 // the previous loop's ARIMA forecast

	up, down    int     // downtime estimates, s
	lastRescale float64 // s
	watch       *watch  // the last rescale, until its recovery is observed
}

// watch is recovery_time.py's MonitorRecoveryTime after a rescale.
type watch struct {
	at, lag, predicted float64
	up                 bool
}

func init() { policy.RegisterSettings(Name, Default, New) }

// New validates cfg and returns the policy.
func New(cfg Config) (*Policy, error) {
	if err := policy.Check(cfg.validate()); err != nil {
		return nil, err
	}
	return &Policy{cfg: cfg, models: map[int]*Regression{}, up: UpDowntimeS, down: DownDowntimeS,
		lastRescale: -300, lastSeen: math.Inf(-1)}, nil
}

// validate returns the problems of the settings, in the order New reports
// them.
func (cfg Config) validate() []policy.Problem {
	var ps []policy.Problem
	if cfg.Loop < 1 {
		ps = append(ps, policy.Problemf("loop", "policy.loop must be at least 1s, got %v", cfg.Loop))
	}
	if cfg.Window < 2 {
		ps = append(ps, policy.Problemf("window", "policy.window must be at least 2s, got %v", cfg.Window))
	}
	if cfg.Warmup < 0 || cfg.MetricBlackout < 0 {
		ps = append(ps, policy.Problemf("warmup", "policy.warmup and metric_blackout must be ≥ 0s"))
	}
	if cfg.Forecast != "arima" && cfg.Forecast != "linear" {
		ps = append(ps, policy.Problemf("forecast", "policy.forecast must be arima or linear, got %q", cfg.Forecast))
	}
	if cfg.MaxScaleOut < 1 || cfg.MaxScaleOut > MaxScaleOut {
		ps = append(ps, policy.Problemf("max_scaleout", "policy.max_scaleout must be in 1..%d, got %d", MaxScaleOut, cfg.MaxScaleOut))
	}
	if cfg.MaxP < 0 || cfg.MaxQ < 0 || cfg.MaxP > 10 || cfg.MaxQ > 10 {
		ps = append(ps, policy.Problemf("max_p", "policy.max_p and max_q must be in 0..10, got %d and %d", cfg.MaxP, cfg.MaxQ))
	}
	return ps
}

func (p *Policy) Name() string            { return Name }
func (p *Policy) Interval() time.Duration { return p.cfg.Loop.Std() }
func (p *Policy) WindowSamples() int      { return int(math.Ceil(float64(p.cfg.Window))) }
func (p *Policy) UsesDetail() bool        { return true }

// Requires: Daedalus rescales.
func (p *Policy) Requires() []policy.ActionKind { return []policy.ActionKind{policy.Rescale} }

// Downtimes are the current scale-up and scale-down downtime estimates (s).
func (p *Policy) Downtimes() (up, down int) { return p.up, p.down }

// Step is one MAPE-K loop.
func (p *Policy) Step(now time.Duration, obs policy.Observation) []policy.Action {
	t := now.Seconds()
	fresh := p.monitor(obs.Window)
	if t < float64(p.cfg.Warmup) || len(obs.Window) == 0 {
		return nil
	}
	p.observeRecovery(obs.Window)
	p.analyseCapacity(t, obs)
	f := p.forecast(fresh, obs.Window)

	last := obs.Window[len(obs.Window)-1]
	s := Situation{Parallelism: obs.Job.Parallelism, SinceRescaleS: t - p.lastRescale, Lag: last.Lag,
		Forecast: f, UpDowntimeS: p.up, DownDowntimeS: p.down, Capacity: p.caps.Get, MaxScaleOut: p.cfg.MaxScaleOut}
	for i, x := range obs.Window {
		s.Workload += x.InputRate / float64(len(obs.Window))
		if i >= len(obs.Window)-CheckpointWindowS {
			s.Last10sInput += x.InputRate
		}
	}
	if obs.Job.State != "RUNNING" || s.Parallelism < 1 {
		return nil
	}
	q, why := Plan(s)
	if q == s.Parallelism {
		return nil
	}
	rt, _ := RecoveryTime(s, q)
	p.lastRescale = t
	p.watch = &watch{at: t, lag: last.Lag, predicted: float64(rt), up: q > s.Parallelism}
	return []policy.Action{{Kind: policy.Rescale, Parallelism: q, Reason: "daedalus: " + why}}
}

// monitor appends the samples newer than the last loop's to the workload
// history and returns them (Kafka's ingress is measured whatever the job
// does, so none are dropped).
func (p *Policy) monitor(w []results.Sample) []float64 {
	from := len(p.history)
	for _, s := range w {
		if s.TimeS > p.lastSeen {
			p.history = append(p.history, math.Max(0, s.InputRate))
			p.lastSeen = s.TimeS
		}
	}
	return p.history[from:]
}

// analyseCapacity folds the window's per-TaskManager (CPU, source
// throughput) pairs into the regressions, skipping the metric blackout
// after a (re)start and samples of a job that is not running, and books
// the current capacity at the current parallelism.
func (p *Policy) analyseCapacity(t float64, obs policy.Observation) {
	since := t - obs.Job.Uptime.Seconds() + float64(p.cfg.MetricBlackout)
	if obs.Job.State != "RUNNING" || len(obs.Detail) == 0 {
		return
	}
	xs, ys := map[int][]float64{}, map[int][]float64{}
	for i, s := range obs.Window {
		if s.TimeS <= since || s.JobState != "RUNNING" || i >= len(obs.Detail) {
			continue
		}
		for _, tm := range obs.Detail[i].TaskManagers {
			xs[tm.Index] = append(xs[tm.Index], tm.CPUBusy)
			ys[tm.Index] = append(ys[tm.Index], tm.SourceThroughput)
		}
	}
	// a TaskManager that is gone takes its model with it
	alive := map[int]bool{}
	for _, tm := range obs.Detail[len(obs.Detail)-1].TaskManagers {
		alive[tm.Index] = true
	}
	for idx := range p.models {
		if !alive[idx] {
			delete(p.models, idx)
		}
	}
	if len(xs) == 0 {
		return
	}
	var models []*Regression
	var mean []float64
	for _, tm := range obs.Detail[len(obs.Detail)-1].TaskManagers {
		x := xs[tm.Index]
		if len(x) == 0 {
			continue
		}
		m := p.models[tm.Index]
		if m == nil {
			m = &Regression{}
			p.models[tm.Index] = m
		}
		m.Add(x, ys[tm.Index])
		sum := 0.0
		for _, v := range x {
			sum += v
		}
		models, mean = append(models, m), append(mean, sum/float64(len(x)))
	}
	if c := CurrentCapacity(models, mean); c > 0 {
		p.caps.Update(obs.Job.Parallelism, c)
	}
}

// forecast is forecasting.py: auto-ARIMA trained on the first window,
// updated with each new one, scored by WAPE and retrained on the whole
// history after RetrainAfter bad predictions; the linear fallback over the
// window while the last WAPE is ≥ WAPEUseARIMA (or without a model).
func (p *Policy) forecast(fresh []float64, w []results.Sample) []float64 {
	window := make([]float64, len(w))
	for i, s := range w {
		window[i] = math.Max(0, s.InputRate)
	}
	if p.cfg.Forecast == "arima" {
		switch {
		case p.model == nil:
			p.fit(window) // trained on the first window
		case len(fresh) > 0:
			if p.prevF != nil && p.acc.Score(fresh, p.prevF) {
				p.acc.Bad = 0
				p.fit(p.history) // on the whole history
			} else {
				p.model.Extend(fresh...)
			}
		}
		if p.model != nil {
			p.prevF = p.model.Forecast(ARIMAHorizonS)
			for i, v := range p.prevF {
				p.prevF[i] = math.Max(0, v)
			}
			if p.acc.UseARIMA() {
				return p.prevF
			}
		}
	}
	return LinearFallback(window)
}

func (p *Policy) fit(y []float64) {
	if m, err := forecast.AutoARIMA(y, p.cfg.MaxP, p.cfg.MaxQ); err == nil {
		p.model = m
	}
}

// observeRecovery ends the watch of the last rescale at the first sample,
// 30 s or more after it, of a running job whose lag is back to where it was
// (the anomaly detector's "normal"), and adapts that direction's downtime.
func (p *Policy) observeRecovery(w []results.Sample) {
	if p.watch == nil {
		return
	}
	for _, s := range w {
		if s.TimeS < p.watch.at+recoveryWatchDelayS || s.JobState != "RUNNING" || s.Lag > p.watch.lag+s.InputRate {
			continue
		}
		observed := s.TimeS - p.watch.at
		if p.watch.up {
			p.up = AdaptDowntime(p.up, observed, p.watch.predicted)
		} else {
			p.down = AdaptDowntime(p.down, observed, p.watch.predicted)
		}
		p.watch = nil
		return
	}
}

// recoveryWatchDelayS is how long MonitorRecoveryTime sleeps before its
// first look.
const recoveryWatchDelayS = 30
