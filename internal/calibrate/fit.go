package calibrate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/sim"
)

// Options steer a calibration; zero values take the defaults noted.
type Options struct {
	// Fit are the parameters fitted (default: DefaultFitFor the points).
	Fit []Param
	// Holdout reports a point as held out of fitting (its error is reported
	// separately). nil: every point is fitted.
	Holdout func(Point) bool
	// Workers simulate points in parallel (default: every core).
	Workers int
	// BeforeCheckpoint is how long before the next checkpoint each crash
	// fires (default 3 s, Khaos's chkTolerance).
	BeforeCheckpoint float64
	// Settle is the steady load before the crash is armed (default 400 s: a
	// full 300 s pre-fault window after start-up).
	Settle float64
	// Horizon is how long after the crash a point may take to recover; one
	// that has not recovered by then predicts Horizon (default 1800 s).
	Horizon float64
	// Window is the pre-fault averaging window (default 300 s, Khaos's).
	Window float64
	// Latency is the simulated column compared with measured latency:
	// marker (default: the latency-marker p99, what Khaos recorded), p99,
	// p50 or mean of the event-time latency.
	Latency string
	// LatencyWeight weighs the latency error against the recovery error in
	// the reported total loss when a latency parameter is fitted (default
	// 1); the fit itself minimises each in its own stage.
	LatencyWeight float64
	// MaxEvaluations bounds the optimiser (default 150 per fitted parameter).
	MaxEvaluations int
	// Replications simulates each point with this many seeds (the
	// scenario's, then seeds derived from it) and averages the predictions
	// (default 1): the twin's random parts (checkpoint phase, heartbeat
	// phase) then count as they do in a series of measurements.
	Replications int
	// IntervalReplications, when above Replications, is the number of
	// seeds of the final prediction intervals (the fit and its point
	// predictions keep Replications, the first of these seeds): a fit on
	// few seeds with intervals from many. Default Replications.
	IntervalReplications int
	// Progress, if set, is called after every loss evaluation.
	Progress func(evaluations int, best float64)
	// CV, when active, cross-validates the twin and both baselines after
	// the fit (leave one CI out, or k folds; ParseCV reads --cv).
	CV CVSpec
	// FoldDone, if set, is called after each cross-validation fold.
	FoldDone func(f Fold, folds int)
}

// DefaultFit are the parameters fitted when Options.Fit is empty: capacity
// and the two downtime knobs move recovery. DefaultLatencyFit are added to
// them when the measured points have latency: checkpoint overhead, queueing
// and the fixed latency move latency.
var (
	DefaultFit        = []string{"cost_scale", "restart_delay", "warmup"}
	DefaultLatencyFit = []string{"cpu_overhead", "queueing", "latency_base"}
)

// DefaultFitFor names the parameters fitted to pts by default: DefaultFit,
// plus DefaultLatencyFit when some point has a measured latency.
func DefaultFitFor(pts []Point) []string {
	if !HasLatency(pts) {
		return append([]string(nil), DefaultFit...)
	}
	return append(append([]string(nil), DefaultFit...), DefaultLatencyFit...)
}

// HasLatency reports whether some point has a measured latency.
func HasLatency(pts []Point) bool {
	for _, p := range pts {
		if !math.IsNaN(p.LatencyMs) {
			return true
		}
	}
	return false
}

// WithDefaults returns o with every field left zero at its default for pts,
// Fit included (DefaultFitFor pts): the options Calibrate runs with, so a
// caller can show them (e.g. MaxEvaluations for a progress bar) before.
func (o Options) WithDefaults(pts []Point) Options {
	if len(o.Fit) == 0 {
		o.Fit, _ = LookupParams(DefaultFitFor(pts)) // known names
	}
	return o.withDefaults()
}

// withDefaults returns o with every zero field but Fit (whose default
// depends on the points) at its default; a negative Workers or
// Replications counts as zero.
func (o Options) withDefaults() Options {
	o.Workers = cmp.Or(max(o.Workers, 0), runtime.GOMAXPROCS(0))
	o.BeforeCheckpoint = cmp.Or(o.BeforeCheckpoint, 3)
	o.Settle = cmp.Or(o.Settle, 400)
	o.Horizon = cmp.Or(o.Horizon, 1800)
	o.Window = cmp.Or(o.Window, 300)
	o.Latency = cmp.Or(o.Latency, "marker")
	o.LatencyWeight = cmp.Or(o.LatencyWeight, 1)
	o.MaxEvaluations = cmp.Or(o.MaxEvaluations, 150*len(o.Fit))
	o.Replications = cmp.Or(max(o.Replications, 0), 1)
	o.IntervalReplications = max(o.IntervalReplications, o.Replications)
	return o
}

// Prediction is what the twin gives for one measured point.
type Prediction struct {
	RecoveryS float64 // Horizon when it did not recover in time
	LatencyMs float64 // mean over the pre-fault window; NaN with no output
	Recovered bool
}

// PointResult pairs a measured point with its prediction.
type PointResult struct {
	Point
	Prediction
	HeldOut bool
	// RecoveryLo and RecoveryHi bound the central 90 % of the seeds'
	// predictions (NaN with fewer than two replications).
	RecoveryLo, RecoveryHi float64
	// ClosedFormS, OLSS, MedianS and DaedalusS are the baselines'
	// predictions (NaN when the baseline could not be fitted).
	ClosedFormS, OLSS, MedianS, DaedalusS float64
}

// Value is one fitted parameter.
type Value struct {
	Param
	Initial, Fitted float64  // in Unit
	Flags           []string // Param.Flags of Fitted: at a bound, outside the typical range
}

// Result is a finished calibration.
type Result struct {
	Values      []Value
	Points      []PointResult // after the fit, in table order
	Fit, Held   Metrics
	Intervals   []IntervalMetrics
	Baselines   Baselines
	CV          *CVResult // nil without Options.CV
	Stages      []Stage
	Loss        float64 // recovery MAPE + LatencyWeight × latency MAPE on the fitted points, as fractions
	Evaluations int
	Status      string // the optimiser's stop reason, per stage
	WallS       float64
	Scenario    scenario.Scenario // the base with the fitted values
	Options     Options
}

// HoldoutValues is an Options.Holdout that holds out the points whose
// column col (of the measured table) has one of values, as the table
// writes them (e.g. experiment 3). Each value must match some point, so
// that a typo does not silently hold out nothing.
func HoldoutValues(col string, values []string, pts []Point) (func(Point) bool, error) {
	if _, ok := (Point{}).Cell(col); !ok {
		return nil, fmt.Errorf("holdout: %q is no column of a measured table (%s)", col, strings.Join(ingest.MeasuredColumns(), ", "))
	}
	for _, v := range values {
		if !slices.ContainsFunc(pts, func(p Point) bool { c, _ := p.Cell(col); return c == v }) {
			return nil, fmt.Errorf("holdout: no measured point has %s %s", col, v)
		}
	}
	return func(p Point) bool {
		c, _ := p.Cell(col)
		return slices.Contains(values, c)
	}, nil
}

// HoldoutIntervals is an Options.Holdout from --holdout: the points measured
// at the checkpoint intervals of list (comma-separated durations, e.g.
// 10s,60s,120s) are held out. Each must match some point, so that a typo
// does not silently hold out nothing.
func HoldoutIntervals(list string, pts []Point) (func(Point) bool, error) {
	var cis []float64
	for _, s := range strings.Split(list, ",") {
		d, err := sim.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("--holdout: %q is not a checkpoint interval such as 60s", s)
		}
		found := false
		for _, p := range pts {
			found = found || sameCI(p.CheckpointIntervalS, float64(d))
		}
		if !found {
			return nil, fmt.Errorf("--holdout: no measured point has a checkpoint interval of %v", d)
		}
		cis = append(cis, float64(d))
	}
	return func(p Point) bool {
		for _, ci := range cis {
			if sameCI(p.CheckpointIntervalS, ci) {
				return true
			}
		}
		return false
	}, nil
}

func sameCI(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// Fitted are the points the fit uses: those not held out.
func (o Options) Fitted(pts []Point) []Point {
	var fit []Point
	for _, p := range pts {
		if o.Holdout == nil || !o.Holdout(p) {
			fit = append(fit, p)
		}
	}
	return fit
}

func (o Options) fitsLatency() bool {
	for _, p := range o.Fit {
		if p.Latency {
			return true
		}
	}
	return false
}

// Check reports what in the points and options makes a calibration
// impossible: the user's to fix, so the CLI calls it before starting.
func (o Options) Check(pts []Point) error {
	if len(o.Fit) == 0 {
		return errors.New("no parameter to fit")
	}
	fit := o.Fitted(pts)
	if len(fit) == 0 {
		return errors.New("--holdout holds out every point; nothing is left to fit on")
	}
	if o.CV.Active() {
		if _, _, err := Folds(pts, o.CV, 0); err != nil {
			return err
		}
	}
	for _, p := range o.Fit {
		if p.Spread && o.Replications < 2 {
			return fmt.Errorf("%s sets the spread of the twin's runs: fitting it needs prediction intervals, from --replications ≥ 2 (10 or more for a stable fit)", p.Name)
		}
	}
	for _, p := range pts {
		if _, err := ParseFault(p.Fault); err != nil {
			return fmt.Errorf("line %d: %w", p.Line, err)
		}
	}
	if o.fitsLatency() {
		for _, p := range fit {
			if math.IsNaN(p.LatencyMs) {
				return fmt.Errorf("line %d has no latency_ms, but a latency parameter is fitted; add the column or drop the latency parameters from --fit", p.Line)
			}
		}
	}
	return nil
}

// Calibrate fits o.Fit on the points not held out, with gonum's
// Nelder–Mead on a logistic transform of each parameter's bounds, in
// stages (Options.stages): the recovery parameters on the mean absolute
// percentage error of recovery time, then, when latency was measured, the
// latency parameters and checkpoint costs on that of latency with the
// recovery ones fixed. It then fits the baselines (the closed-form recovery
// model and Khaos's OLS) on the same points, and, with o.CV, cross-validates
// all three. Options left zero take their defaults (WithDefaults), as in
// `streamtwin calibrate`.
func Calibrate(base scenario.Scenario, pts []Point, o Options) (*Result, error) {
	o = o.WithDefaults(pts)
	if err := o.Check(pts); err != nil {
		return nil, err
	}
	held := make([]bool, len(pts))
	for i, p := range pts {
		held[i] = o.Holdout != nil && o.Holdout(p)
	}
	r, err := calibrate(base, pts, held, o)
	if err != nil {
		return nil, err
	}
	if o.CV.Active() {
		if r.CV, err = crossValidate(base, pts, o); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// calibrate is one fit on the points not held (held[i]), then the
// predictions, baselines and errors of every point.
func calibrate(base scenario.Scenario, pts []Point, held []bool, o Options) (*Result, error) {
	start := time.Now()
	var fit []Point
	for i, p := range pts {
		if !held[i] {
			fit = append(fit, p)
		}
	}
	if len(fit) == 0 {
		return nil, errors.New("every point is held out; nothing is left to fit on")
	}
	r := &Result{Options: o, Scenario: base}
	fitted := map[string]float64{}
	var status []string
	for _, st := range o.stages(fit) {
		s, values, err := fitStage(r.Scenario, fit, st, o, r.Evaluations)
		if err != nil {
			return nil, err
		}
		for i, p := range st.Fit {
			p.Set(&r.Scenario, values[i])
			fitted[p.Name] = values[i]
		}
		r.Stages = append(r.Stages, s)
		r.Evaluations += s.Evaluations
		status = append(status, s.Name+": "+s.Status)
	}
	r.Status = strings.Join(status, "; ")
	for _, p := range o.Fit {
		v := Value{Param: p, Initial: p.Get(&base), Fitted: fitted[p.Name]}
		v.Flags = p.Flags(v.Fitted)
		r.Values = append(r.Values, v)
	}
	preds, spans, err := predictSpread(r.Scenario, pts, o, o.IntervalReplications)
	if err != nil {
		return nil, err
	}
	var fitPreds []Prediction
	for i, p := range pts {
		pr := PointResult{Point: p, Prediction: preds[i], HeldOut: held[i], RecoveryLo: spans[i].Lo, RecoveryHi: spans[i].Hi}
		r.Points = append(r.Points, pr)
		if !held[i] {
			fitPreds = append(fitPreds, preds[i])
		}
	}
	r.Loss = lossOf(fit, fitPreds, o.fitsLatency(), 1, o.LatencyWeight)
	r.Baselines = fitBaselines(r.Points, o)
	r.Fit, r.Held = metricsOf(r.Points, false), metricsOf(r.Points, true)
	r.Intervals = intervals(r.Points)
	r.WallS = time.Since(start).Seconds()
	return r, nil
}

// stage is one Nelder–Mead fit: its parameters, the weights of recovery
// and latency error in its loss, and the options its points run with.
type stage struct {
	Name       string
	Fit        []Param
	recW, latW float64
	// spread: the stage's loss is the interval score of the replications'
	// prediction intervals (Spread parameters), not the error of their mean
	spread bool
	opts   Options
	budget int
}

// Stage is how one stage of a fit ended.
type Stage struct {
	Name        string // recovery or latency
	Fit         []string
	Loss        float64 // its own loss: the recovery or latency MAPE as a fraction, plus the prior's penalty (priorPenalty)
	Evaluations int
	Status      string // the optimiser's stop reason
}

// stages splits o.Fit: the recovery stage fits every parameter but the
// LatencyStage ones on recovery error; when every fitted point has a
// measured latency, a latency stage then fits those on latency error, the
// recovery parameters fixed. Without latency, one recovery stage fits all.
// Each stage gets its share of MaxEvaluations.
func (o Options) stages(fit []Point) []stage {
	allLatency := len(fit) > 0
	for _, p := range fit {
		allLatency = allLatency && !math.IsNaN(p.LatencyMs)
	}
	var rec, lat, spread []Param
	for _, p := range o.Fit {
		switch {
		case p.Spread:
			spread = append(spread, p)
		case p.LatencyStage && allLatency:
			lat = append(lat, p)
		default:
			rec = append(rec, p)
		}
	}
	budget := func(n int) int { return max(1, (o.MaxEvaluations*n+len(o.Fit)-1)/len(o.Fit)) }
	var out []stage
	if len(rec) > 0 {
		out = append(out, stage{Name: "recovery", Fit: rec, recW: 1, opts: o, budget: budget(len(rec))})
	}
	if len(lat) > 0 {
		// latency is the mean over the window before the crash: the
		// recovery after it need not be simulated
		lo := o
		lo.Horizon = 1
		out = append(out, stage{Name: "latency", Fit: lat, latW: 1, opts: lo, budget: budget(len(lat))})
	}
	if len(spread) > 0 {
		out = append(out, stage{Name: "spread", Fit: spread, spread: true, opts: o, budget: budget(len(spread))})
	}
	return out
}

// fitStage runs one stage from base and returns its fitted values (in
// Unit, in the order of st.Fit). done counts the evaluations of earlier
// stages, for o.Progress.
func fitStage(base scenario.Scenario, fit []Point, st stage, o Options, done int) (Stage, []float64, error) {
	x0 := make([]float64, len(st.Fit))
	for i, p := range st.Fit {
		v := p.Get(&base)
		if st.spread && v <= p.Lo {
			// no spread is a flat start: near it the twin's other random
			// streams (heartbeat phases, say) hide a small spread, and the
			// logistic transform takes tiny steps there; start in the
			// middle of the typical range
			v = (p.Typical[0] + p.Typical[1]) / 2
		}
		x0[i] = p.toFree(v)
	}
	apply := func(x []float64) scenario.Scenario {
		sc := base
		for i, v := range valuesOf(st.Fit, x) {
			st.Fit[i].Set(&sc, v)
		}
		return sc
	}
	var evals atomic.Int64
	var simErr error
	var mu sync.Mutex
	best := math.Inf(1)
	loss := func(x []float64) float64 {
		var l float64
		var err error
		if st.spread {
			var spans []Span
			if _, spans, err = predictSpread(apply(x), fit, st.opts, st.opts.Replications); err == nil {
				l = intervalScore(fit, spans)
			}
		} else {
			var preds []Prediction
			if preds, err = PredictAll(apply(x), fit, st.opts); err == nil {
				l = lossOf(fit, preds, st.latW > 0, st.recW, st.latW)
			}
		}
		if err != nil {
			mu.Lock()
			if simErr == nil {
				simErr = err
			}
			mu.Unlock()
			return math.Inf(1)
		}
		l += priorPenalty(st.Fit, valuesOf(st.Fit, x))
		n := evals.Add(1)
		mu.Lock()
		best = math.Min(best, l)
		b := best
		mu.Unlock()
		if o.Progress != nil {
			o.Progress(done+int(n), b)
		}
		return l
	}
	settings := &optimize.Settings{
		FuncEvaluations: st.budget,
		Converger:       &optimize.FunctionConverge{Absolute: 1e-5, Relative: 1e-4, Iterations: 8 * len(st.Fit)},
	}
	res, err := optimize.Minimize(optimize.Problem{Func: loss}, x0, settings, &optimize.NelderMead{SimplexSize: 0.6})
	if simErr != nil {
		return Stage{}, nil, simErr
	}
	if err != nil && res == nil {
		return Stage{}, nil, fmt.Errorf("optimiser (%s stage): %w", st.Name, err)
	}
	s := Stage{Name: st.Name, Loss: res.F, Evaluations: int(evals.Load()), Status: res.Status.String()}
	for _, p := range st.Fit {
		s.Fit = append(s.Fit, p.Name)
	}
	return s, valuesOf(st.Fit, res.X), nil
}

// valuesOf maps the optimiser's free coordinates x back to values of ps.
func valuesOf(ps []Param, x []float64) []float64 {
	v := make([]float64, len(ps))
	for i, p := range ps {
		v[i] = p.fromFree(x[i])
	}
	return v
}

// lossOf is the mean absolute relative error of recovery weighted by recW,
// plus that of latency weighted by latW when useLat.
func lossOf(pts []Point, preds []Prediction, useLat bool, recW, latW float64) float64 {
	var rec, lat float64
	for i, p := range pts {
		rec += ape(p, preds[i].RecoveryS)
		if useLat {
			d := math.Abs(preds[i].LatencyMs-p.LatencyMs) / p.LatencyMs
			if math.IsNaN(d) {
				d = 1 // no output before the fault: as bad as 100 % off
			}
			lat += d
		}
	}
	n := float64(len(pts))
	return recW*rec/n + latW*lat/n
}

// intervalScore is the mean interval score of the spans' IntervalLevel
// prediction intervals against the measured recoveries (Gneiting and
// Raftery 2007, a proper scoring rule: the interval's width, plus 2/α
// times how far a measurement falls outside it, α = 1 − IntervalLevel),
// each relative to the measured recovery so that long and short
// recoveries weigh alike. Minimising it makes the intervals as narrow as
// the measurements' scatter allows and no narrower.
func intervalScore(pts []Point, spans []Span) float64 {
	alpha := 1 - IntervalLevel
	sum := 0.0
	for i, p := range pts {
		y, lo, hi := p.RecoveryS, spans[i].Lo, spans[i].Hi
		below := math.Max(0, lo-y)
		if p.Censored { // y is a lower bound: an interval above it is right
			below = 0
		}
		sum += ((hi - lo) + 2/alpha*below + 2/alpha*math.Max(0, y-hi)) / y
	}
	return sum / float64(len(pts))
}

// toFree maps a bounded value to the optimiser's unbounded coordinate.
func (p Param) toFree(v float64) float64 {
	span := p.Hi - p.Lo
	u := (v - p.Lo) / span
	// a start on a bound (e.g. warmup 0) would pin the logit at ±∞
	u = math.Min(math.Max(u, 0.01), 0.99)
	return math.Log(u / (1 - u))
}

func (p Param) fromFree(x float64) float64 {
	return p.Lo + (p.Hi-p.Lo)/(1+math.Exp(-x))
}

// Metrics are the errors on one set of points.
type Metrics struct {
	N              int
	RecoveryMAPE   float64
	RecoveryR2     float64
	LatencyN       int
	LatencyMAPE    float64
	LatencyR2      float64
	NotRecoveredIn int // predictions that hit the horizon
	// Censored counts the points whose measured recovery is a lower bound
	// (their error is the shortfall below it: ape).
	Censored int
	// ClosedFormMAPE, OLSMAPE, MedianMAPE and DaedalusMAPE are the
	// baselines' recovery MAPE on the same points (NaN when not fitted).
	ClosedFormMAPE, OLSMAPE, MedianMAPE, DaedalusMAPE float64
	// Coverage is the share of measured recoveries inside the twin's 90 %
	// interval (NaN with fewer than two replications).
	Coverage float64
}

func metricsOf(pts []PointResult, held bool) Metrics {
	var set []PointResult
	for _, p := range pts {
		if p.HeldOut == held {
			set = append(set, p)
		}
	}
	return metricsOfSet(set)
}

// metricsOfSet are the errors of the twin and the baselines on pts.
func metricsOfSet(pts []PointResult) Metrics {
	var m Metrics
	var rm, rp, lm, lp []float64
	var measured []Point
	for _, p := range pts {
		m.N++
		measured = append(measured, p.Point)
		rm, rp = append(rm, p.Point.RecoveryS), append(rp, p.Prediction.RecoveryS)
		if !p.Recovered {
			m.NotRecoveredIn++
		}
		if p.Point.Censored {
			m.Censored++
		}
		if !math.IsNaN(p.Point.LatencyMs) && !math.IsNaN(p.Prediction.LatencyMs) {
			lm, lp = append(lm, p.Point.LatencyMs), append(lp, p.Prediction.LatencyMs)
		}
	}
	of := func(pred func(PointResult) float64) float64 {
		var xs []float64
		for _, p := range pts {
			xs = append(xs, pred(p))
		}
		return CensoredMAPE(measured, xs)
	}
	m.RecoveryMAPE, m.RecoveryR2 = of(func(p PointResult) float64 { return p.Prediction.RecoveryS }), R2(rm, rp)
	m.LatencyN = len(lm)
	m.LatencyMAPE, m.LatencyR2 = MAPE(lm, lp), R2(lm, lp)
	m.ClosedFormMAPE = of(func(p PointResult) float64 { return p.ClosedFormS })
	m.OLSMAPE = of(func(p PointResult) float64 { return p.OLSS })
	m.MedianMAPE = of(func(p PointResult) float64 { return p.MedianS })
	m.DaedalusMAPE = of(func(p PointResult) float64 { return p.DaedalusS })
	m.Coverage = Coverage(pts)
	return m
}

// CensoredMAPE is the mean absolute percentage error of predicted recovery
// times against the measured points, a censored point's error its
// shortfall below the cap (ape); NaN for no points or a missing (NaN)
// prediction.
func CensoredMAPE(measured []Point, predicted []float64) float64 {
	if len(measured) == 0 {
		return math.NaN()
	}
	s := 0.0
	for i, p := range measured {
		s += ape(p, predicted[i])
	}
	return 100 * s / float64(len(measured))
}

// MAPE is the mean absolute percentage error of predicted against measured
// (NaN for no points).
func MAPE(measured, predicted []float64) float64 {
	if len(measured) == 0 {
		return math.NaN()
	}
	s := 0.0
	for i, m := range measured {
		s += math.Abs(predicted[i]-m) / m
	}
	return 100 * s / float64(len(measured))
}

// R2 is the coefficient of determination of predicted against measured.
func R2(measured, predicted []float64) float64 {
	if len(measured) < 2 {
		return math.NaN()
	}
	mean := 0.0
	for _, m := range measured {
		mean += m / float64(len(measured))
	}
	var res, tot float64
	for i, m := range measured {
		res += (m - predicted[i]) * (m - predicted[i])
		tot += (m - mean) * (m - mean)
	}
	if tot == 0 {
		return math.NaN()
	}
	return 1 - res/tot
}

// IntervalMetrics are the errors of the points of one checkpoint interval.
type IntervalMetrics struct {
	CheckpointIntervalS float64
	HeldOut             bool
	N                   int
	RecoveryMAPE        float64
	MeasuredMedianS     float64
	PredictedMedianS    float64
	MeasuredLatencyMs   float64
	PredictedLatencyMs  float64
	// the baselines' recovery MAPE and the twin's interval coverage, as in
	// Metrics
	ClosedFormMAPE, OLSMAPE, MedianMAPE, DaedalusMAPE, Coverage float64
}

func intervals(pts []PointResult) []IntervalMetrics {
	type key struct {
		ci   float64
		held bool
	}
	groups := map[key][]PointResult{}
	var keys []key
	for _, p := range pts {
		k := key{math.Round(p.CheckpointIntervalS*1000) / 1000, p.HeldOut}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], p)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].ci < keys[j].ci })
	var out []IntervalMetrics
	for _, k := range keys {
		g := groups[k]
		var rm, rp, lm, lp []float64
		for _, p := range g {
			rm, rp = append(rm, p.Point.RecoveryS), append(rp, p.Prediction.RecoveryS)
			if !math.IsNaN(p.Point.LatencyMs) && !math.IsNaN(p.Prediction.LatencyMs) {
				lm, lp = append(lm, p.Point.LatencyMs), append(lp, p.Prediction.LatencyMs)
			}
		}
		m := metricsOfSet(g)
		out = append(out, IntervalMetrics{CheckpointIntervalS: k.ci, HeldOut: k.held, N: len(g), RecoveryMAPE: m.RecoveryMAPE,
			MeasuredMedianS: statistics.Quantile(slices.Clone(rm), 0.5), PredictedMedianS: statistics.Quantile(slices.Clone(rp), 0.5),
			MeasuredLatencyMs: statistics.FiniteMean(lm), PredictedLatencyMs: statistics.FiniteMean(lp),
			ClosedFormMAPE: m.ClosedFormMAPE, OLSMAPE: m.OLSMAPE, MedianMAPE: m.MedianMAPE, DaedalusMAPE: m.DaedalusMAPE, Coverage: m.Coverage})
	}
	return out
}

func durationOf(s float64) sim.Duration { return sim.Duration(s) }
