package autoscaler

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/sim"
)

// Name is the policy's scenario name.
const Name = "flink-autoscaler"

// Settings is the policy section: every job.autoscaler.* key of
// reference/autoscaling.md §4.4 that shapes a scaling decision, in
// snake_case, with the operator's default.
type Settings struct {
	Name string `yaml:"name"`
	// Interval is the operator's reconcile loop
	// (kubernetes.operator.reconcile.interval, 60 s; the standalone
	// autoscaler's control-loop.interval is 10 s).
	Interval                  sim.Duration `yaml:"interval"`
	StabilizationInterval     sim.Duration `yaml:"stabilization_interval"`      // 5 min: metrics ignored after a (re)start
	MetricsWindow             sim.Duration `yaml:"metrics_window"`              // 15 min: collected before any scaling
	TargetUtilization         float64      `yaml:"target_utilization"`          // 0.7
	TargetUtilizationBoundary float64      `yaml:"target_utilization_boundary"` // 0.3
	ScaleDownInterval         sim.Duration `yaml:"scale_down_interval"`         // 1 h
	// ScaleUpGracePeriod is the operator's scale-up.grace-period (≤ 1.9,
	// 1 h there): no scale-down within it after a scale-up. Today's
	// operator has scale_down_interval instead, so it is 0 (off) by
	// default; Demeter's operator 1.6 ran with 1 h and no interval.
	ScaleUpGracePeriod       sim.Duration `yaml:"scale_up_grace_period"`
	ScaleDownMaxFactor       float64      `yaml:"scale_down_max_factor"`       // 0.6
	ScaleUpMaxFactor         float64      `yaml:"scale_up_max_factor"`         // 100000
	VertexMinParallelism     int          `yaml:"vertex_min_parallelism"`      // 1
	VertexMaxParallelism     int          `yaml:"vertex_max_parallelism"`      // 200
	CatchUpDuration          sim.Duration `yaml:"catch_up_duration"`           // 30 min (0: no backlog-based scaling)
	RestartTime              sim.Duration `yaml:"restart_time"`                // 5 min
	RestartTimeTracking      bool         `yaml:"restart_time_tracking"`       // false: restart.time-tracking.enabled
	RestartTimeTrackingLimit sim.Duration `yaml:"restart_time_tracking_limit"` // 15 min
	BacklogLagThreshold      sim.Duration `yaml:"backlog_lag_threshold"`       // 5 min: backlog-processing.lag-threshold
	// observed-true-processing-rate.lag-threshold, .switch-threshold and
	// .min-observations: 30 s, 0.15, 2.
	ObservedTPRLagThreshold    sim.Duration `yaml:"observed_tpr_lag_threshold"`
	ObservedTPRSwitchThreshold float64      `yaml:"observed_tpr_switch_threshold"`
	ObservedTPRMinObservations int          `yaml:"observed_tpr_min_observations"`
	// Alignment: evenly_spread (1.11–1.12), key_groups (≤ 1.10: every
	// vertex to a divisor of its max parallelism up to half of it) or off
	Alignment string `yaml:"alignment"`
	// Vertices: each (every vertex at its own recommendation, as the
	// operator applies them) or job (every vertex at the largest).
	Vertices string `yaml:"vertices"`
}

// DefaultSettings are the operator's defaults (main, 1.12).
func DefaultSettings() Settings {
	d := Defaults()
	return Settings{Name: Name, Interval: 60, StabilizationInterval: 300, MetricsWindow: 900,
		TargetUtilization: d.TargetUtilization, TargetUtilizationBoundary: d.UtilizationBoundary,
		ScaleDownInterval: sec(d.ScaleDownInterval), ScaleDownMaxFactor: d.ScaleDownMaxFactor, ScaleUpMaxFactor: d.ScaleUpMaxFactor,
		VertexMinParallelism: d.VertexMinParallel, VertexMaxParallelism: d.VertexMaxParallel,
		CatchUpDuration: sec(d.CatchUpDuration), RestartTime: sec(d.RestartTime), RestartTimeTrackingLimit: 900,
		BacklogLagThreshold: sec(d.BacklogLagThreshold), ObservedTPRLagThreshold: 30, ObservedTPRSwitchThreshold: 0.15,
		ObservedTPRMinObservations: 2, Alignment: "evenly_spread", Vertices: "job"}
}

// Policy is the operator's autoscaler for one job. Each vertex's
// recommendation is computed as the operator does; with vertices: each the
// job restarts with every vertex at its own (the operator's parallelism
// overrides), with vertices: job (the default) every vertex takes the
// largest, as Flink's reactive mode gives every vertex all the slots.
type Policy struct {
	s         Settings
	downs     map[string]*ScaleDowns // per vertex, by name
	rescaleAt float64                // s, the last rescale; NaN when none waits for its restart to be measured
	scaledUp  map[string]float64     // s, per vertex, its last scale-up
	restart   float64                // s, the longest restart measured (restart-time tracking)
}

func init() { policy.RegisterSettings(Name, DefaultSettings, New) }

// New validates s and returns the policy.
func New(s Settings) (*Policy, error) {
	if err := policy.Check(s.validate()); err != nil {
		return nil, err
	}
	return &Policy{s: s, downs: map[string]*ScaleDowns{}, rescaleAt: math.NaN(), scaledUp: map[string]float64{}}, nil
}

// validate returns the problems of the settings, in the order New reports
// them.
func (s Settings) validate() []policy.Problem {
	var ps []policy.Problem
	if s.Interval < 1 {
		ps = append(ps, policy.Problemf("interval", "policy.interval must be at least 1s, got %v", s.Interval))
	}
	if s.MetricsWindow < 2 || s.StabilizationInterval < 0 {
		ps = append(ps, policy.Problemf("metrics_window", "policy.metrics_window must be at least 2s and stabilization_interval ≥ 0s"))
	}
	if !(s.TargetUtilization > 0 && s.TargetUtilization <= 1) {
		ps = append(ps, policy.Problemf("target_utilization", "policy.target_utilization must be in (0, 1], got %g", s.TargetUtilization))
	}
	if !(s.TargetUtilizationBoundary >= 0 && s.TargetUtilizationBoundary < 1) {
		ps = append(ps, policy.Problemf("target_utilization_boundary", "policy.target_utilization_boundary must be in [0, 1), got %g", s.TargetUtilizationBoundary))
	}
	if !(s.ScaleDownMaxFactor >= 0 && s.ScaleDownMaxFactor <= 1) || s.ScaleUpMaxFactor < 0 {
		ps = append(ps, policy.Problemf("scale_down_max_factor", "policy.scale_down_max_factor must be in [0, 1] and scale_up_max_factor ≥ 0"))
	}
	if s.VertexMinParallelism < 1 || s.VertexMaxParallelism < s.VertexMinParallelism {
		ps = append(ps, policy.Problemf("vertex_min_parallelism", "policy.vertex_min_parallelism must be ≥ 1 and vertex_max_parallelism ≥ it, got %d and %d", s.VertexMinParallelism, s.VertexMaxParallelism))
	}
	if s.CatchUpDuration < 0 || s.RestartTime < 0 || s.ScaleDownInterval < 0 || s.ScaleUpGracePeriod < 0 || s.BacklogLagThreshold < 0 {
		ps = append(ps, policy.Problemf("", "policy durations must be ≥ 0s"))
	}
	if s.Alignment != "evenly_spread" && s.Alignment != "key_groups" && s.Alignment != "off" {
		ps = append(ps, policy.Problemf("alignment", "policy.alignment must be evenly_spread, key_groups or off, got %q", s.Alignment))
	}
	if s.Vertices != "each" && s.Vertices != "job" {
		ps = append(ps, policy.Problemf("vertices", "policy.vertices must be each or job, got %q", s.Vertices))
	}
	return ps
}

func (p *Policy) Name() string            { return Name }
func (p *Policy) Interval() time.Duration { return p.s.Interval.Std() }
func (p *Policy) WindowSamples() int      { return int(math.Ceil(float64(p.s.MetricsWindow))) }
func (p *Policy) UsesDetail() bool        { return true }

// Requires: the autoscaler rescales the job, or each vertex.
func (p *Policy) Requires() []policy.ActionKind {
	if p.s.Vertices == "each" {
		return []policy.ActionKind{policy.RescaleVertices}
	}
	return []policy.ActionKind{policy.Rescale}
}

// vertexChanges lists the vertices whose parallelism changes, as
// "name p → q", in graph order.
func vertexChanges(rates []VertexRates, to map[string]int) string {
	var out []string
	for _, v := range rates {
		if to[v.Name] != v.Parallelism {
			out = append(out, fmt.Sprintf("%s %d → %d", v.Name, v.Parallelism, to[v.Name]))
		}
	}
	return strings.Join(out, ", ")
}

// config is the scaling decision's view of the settings, with the restart
// time tracked when enabled.
func (p *Policy) config() Config {
	restart := float64(p.s.RestartTime)
	if p.s.RestartTimeTracking && p.restart > 0 {
		restart = math.Min(p.restart, float64(p.s.RestartTimeTrackingLimit))
	}
	return Config{TargetUtilization: p.s.TargetUtilization, UtilizationBoundary: p.s.TargetUtilizationBoundary,
		ScaleDownMaxFactor: p.s.ScaleDownMaxFactor, ScaleUpMaxFactor: p.s.ScaleUpMaxFactor,
		VertexMinParallel: p.s.VertexMinParallelism, VertexMaxParallel: p.s.VertexMaxParallelism,
		CatchUpDuration: p.s.CatchUpDuration.Std(), RestartTime: time.Duration(restart * float64(time.Second)),
		BacklogLagThreshold: p.s.BacklogLagThreshold.Std(), ScaleDownInterval: p.s.ScaleDownInterval.Std()}
}

// Step is one reconcile: once the job has run the stabilisation interval
// and a full metric window since its last (re)start, evaluate every vertex,
// book its recommendation with its delayed scale-down, and rescale when a
// vertex whose change is required is out of its utilisation bounds.
func (p *Policy) Step(now time.Duration, obs policy.Observation) []policy.Action {
	t := now.Seconds()
	if obs.Job.State != "RUNNING" || len(obs.Window) == 0 || len(obs.Detail) != len(obs.Window) {
		return nil
	}
	started := t - obs.Job.Uptime.Seconds()
	if !math.IsNaN(p.rescaleAt) && started > p.rescaleAt {
		p.restart = math.Max(p.restart, started-p.rescaleAt)
		p.rescaleAt = math.NaN()
	}
	from := started + float64(p.s.StabilizationInterval)
	if t-from < float64(p.s.MetricsWindow) {
		return nil // still stabilising or collecting
	}
	rates, err := p.Evaluate(obs.Window, obs.Detail, t-float64(p.s.MetricsWindow))
	if err != nil {
		return nil
	}
	cur := obs.Job.Parallelism
	cfg := p.config()
	each := p.s.Vertices == "each"
	current := func(v VertexRates) int { // the parallelism a vertex runs at
		if each && v.Parallelism > 0 {
			return v.Parallelism
		}
		return cur
	}
	// Every vertex gets its recommendation at the target utilisation, in
	// bounds or not (JobVertexScaler.computeScaleTargetParallelism), and its
	// scale-down interval books it; the job rescales only when a vertex whose
	// change is required is out of its utilisation bounds
	// (ScalingExecutor: allRequiredVerticesWithinUtilizationTarget), and then
	// every vertex to its recommendation (each) or to the largest (job).
	want, act, changed, why, whyP := 0, false, false, "", 0
	vertices := map[string]int{}
	for _, v := range rates {
		vc := current(v)
		np := cfg.Parallelism(v.Rates, vc, v.MaxParallelism)
		switch p.s.Alignment {
		case "key_groups":
			np = AlignKeyGroups(np, v.MaxParallelism, min(v.MaxParallelism, max(vc, p.s.VertexMaxParallelism)))
		case "evenly_spread":
			n := v.MaxParallelism
			if v.Partitions > 0 {
				n = v.Partitions
			}
			if v.Partitions > 0 || v.Keyed {
				np, _ = Align(np, n, min(vc, p.s.VertexMinParallelism), min(v.MaxParallelism, max(vc, p.s.VertexMaxParallelism)))
			}
		}
		if up, ok := p.scaledUp[v.Name]; ok && np < vc && t-up < float64(p.s.ScaleUpGracePeriod) {
			// JobVertexScaler.detectImmediateScaleDownAfterScaleUp (≤ 1.9):
			// the vertex keeps its parallelism
			np = vc
		}
		sd := p.downs[v.Name]
		if sd == nil {
			sd = &ScaleDowns{}
			p.downs[v.Name] = sd
		}
		np, change := sd.Decide(now, vc, np, cfg.ScaleDownInterval)
		want, vertices[v.Name], changed = max(want, np), np, changed || np != vc
		if change == Required && cfg.OutOfBounds(v.Rates) {
			act = true
			if why == "" || np > whyP {
				why, whyP = fmt.Sprintf("%s: true rate %.0f/s against target %.0f/s", v.Name, v.TrueProcessingRate, v.TargetDataRate), np
			}
		}
	}
	if !act || each && !changed || !each && want == cur {
		return nil
	}
	for _, sd := range p.downs {
		sd.Clear() // the job restarts at the new parallelism: its recommendations are void
	}
	p.rescaleAt = t
	for _, v := range rates {
		if !each {
			vertices[v.Name] = want
		}
		if vertices[v.Name] > current(v) {
			p.scaledUp[v.Name] = t // the grace period's start, per vertex
		}
	}
	restart := cfg.RestartTime.Seconds()
	if each {
		return []policy.Action{{Kind: policy.RescaleVertices, Parallelism: want, Vertices: vertices,
			Reason: fmt.Sprintf("flink-autoscaler: %s (%s; restart time %.0f s)", vertexChanges(rates, vertices), why, restart)}}
	}
	return []policy.Action{{Kind: policy.Rescale, Parallelism: want,
		Reason: fmt.Sprintf("flink-autoscaler: %d → %d (%s; restart time %.0f s)", cur, want, why, restart)}}
}

// VertexRates is one vertex's evaluation.
type VertexRates struct {
	Rates
	Name           string
	Parallelism    int
	Keyed          bool
	MaxParallelism int
	Partitions     int
}

// Evaluate is ScalingMetricEvaluator over the samples after from: per
// vertex, the mean input rate over the mean busy fraction (MAX over
// subtasks) as its true processing rate, for a source the observed rate
// instead when it is backlogged and the busy-time rate exceeds it by the
// switch threshold; the target data rate of a source is the mean arrival
// rate at Kafka (its input plus the lag's growth), of any other vertex the
// source's target times its measured share of the source's records.
func (p *Policy) Evaluate(w []results.Sample, d []measure.Detail, from float64) ([]VertexRates, error) {
	var n, arrival, thr, bp, lagObs float64
	var in, busy []float64
	var ops []measure.OperatorSample
	for i, s := range w {
		if s.TimeS <= from || s.JobState != "RUNNING" || len(d[i].Operators) == 0 {
			continue
		}
		if ops == nil {
			ops = d[i].Operators
			in, busy = make([]float64, len(ops)), make([]float64, len(ops))
		}
		if len(d[i].Operators) != len(ops) {
			continue
		}
		n++
		arrival += s.InputRate
		thr += s.Throughput
		bp += s.Backpressure
		if s.Lag >= float64(p.s.ObservedTPRLagThreshold)*s.InputRate && s.Lag > 0 {
			lagObs++
		}
		for k, o := range d[i].Operators {
			in[k] += o.InputRate
			busy[k] += o.BusyMax
		}
	}
	if n < 2 {
		return nil, fmt.Errorf("autoscaler: %g samples in the metric window, need 2", n)
	}
	last := w[len(w)-1]
	out := make([]VertexRates, len(ops))
	srcIn := in[0] / n
	for k, o := range ops {
		v := VertexRates{Name: o.Name, Parallelism: o.Parallelism, Keyed: o.Keyed, MaxParallelism: o.MaxParallelism, Partitions: o.Partitions}
		rate, b := in[k]/n, busy[k]/n
		v.InputRate = rate
		v.TrueProcessingRate = math.Inf(1)
		if b > 0 {
			v.TrueProcessingRate = rate / b
		}
		if o.Source {
			v.Lag = last.Lag
			v.TargetDataRate = arrival / n
			if lagObs >= float64(p.s.ObservedTPRMinObservations) && bp/n < 1 {
				if obsTPR := thr / n / (1 - bp/n); v.TrueProcessingRate > obsTPR*(1+p.s.ObservedTPRSwitchThreshold) {
					v.TrueProcessingRate = obsTPR
				}
			}
		} else if srcIn > 0 {
			v.TargetDataRate = arrival / n * rate / srcIn
		}
		out[k] = v
	}
	return out, nil
}

func sec(d time.Duration) sim.Duration { return sim.Duration(d.Seconds()) }
