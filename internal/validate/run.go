package validate

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/internal/calibrate"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// InputError is a dataset's files at fault, not the run: a scenario or
// measured table that does not read, a holdout value no row has. The CLI
// exits 2 on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Options steer a validation run; zero values take the defaults.
type Options struct {
	// Workers simulate points in parallel (default: every core).
	Workers int
	// Log, if set, gets a line per step (a mechanism tried, the fit, the
	// cross-validation folds).
	Log func(format string, args ...any)
}

func (o Options) log(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

// Step is one candidate set of the mechanism selection: the mechanisms
// added to the protocol's fit, and the twin's cross-validated recovery
// MAPE on the fitted points with them (mean over folds, %).
type Step struct {
	Mechanisms []string
	CVMAPE     float64
	Chosen     bool // the set the final fit uses
}

// Result is one dataset's validation.
type Result struct {
	Protocol  *Protocol
	Base      scenario.Scenario
	Points    []calibrate.Point
	Selection []Step   // empty without candidate mechanisms
	Chosen    []string // the mechanisms the final fit added
	Fit       *calibrate.Result
	// OneRun is the one-run protocol's result, when the protocol has one.
	OneRun *OneRunResult
	// Autoscaler is an autoscaler dataset's result (Fit and the rest nil).
	Autoscaler *AutoscalerResult
	// Rescales and Rescale are a rescale dataset's fit and its errors
	// (Fit and the rest nil).
	Rescales *calibrate.RescaleResult
	Rescale  *RescaleValidation
	WallS    float64
}

// Run validates one dataset under its protocol: it selects the
// mechanisms (Select), fits the protocol's parameters and the chosen ones
// on the points not held out, scores the twin and the baselines on the
// held-out points, and cross-validates the whole table as declared.
func Run(p *Protocol, o Options) (*Result, error) {
	start := time.Now()
	if p.Kind == KindAutoscaler {
		a, err := runAutoscaler(p, o)
		if err != nil {
			return nil, err
		}
		return &Result{Protocol: p, Autoscaler: a, WallS: time.Since(start).Seconds()}, nil
	}
	if p.Kind == KindRescale {
		rs, v, err := runRescale(p, o)
		if err != nil {
			return nil, err
		}
		return &Result{Protocol: p, Rescales: rs, Rescale: v, WallS: time.Since(start).Seconds()}, nil
	}
	data, err := os.ReadFile(p.Path(p.Scenario))
	if err != nil {
		return nil, &InputError{err}
	}
	base, err := scenario.ParseRun(p.Path(p.Scenario), data, p.Variant, nil)
	if err != nil {
		return nil, &InputError{err}
	}
	pts, err := ingest.ReadMeasured(p.Path(p.Measured))
	if err != nil {
		return nil, &InputError{err}
	}
	for _, pt := range pts {
		if _, err := calibrate.ParseFault(pt.Fault); err != nil {
			return nil, &InputError{fmt.Errorf("%s:%d: %w", p.Path(p.Measured), pt.Line, err)}
		}
	}
	r := &Result{Protocol: p, Base: base, Points: pts}
	opt := calibrate.Options{Workers: o.Workers, BeforeCheckpoint: float64(p.BeforeCheckpoint), Settle: float64(p.Settle),
		Horizon: float64(p.Horizon), MaxEvaluations: p.MaxEvaluations, Replications: p.replications()}
	if p.Holdout.Column != "" {
		if opt.Holdout, err = calibrate.HoldoutValues(p.Holdout.Column, p.Holdout.Values, pts); err != nil {
			return nil, &InputError{fmt.Errorf("%s: %w", p.position("holdout.values"), err)}
		}
	}
	var cv calibrate.CVSpec
	if p.CV != "" {
		cv, _ = calibrate.ParseCV(p.CV) // checked by Load
	}
	if r.Selection, r.Chosen, err = Select(base, pts, p, opt, cv, o); err != nil {
		return nil, err
	}
	if opt.Fit, err = calibrate.LookupParams(slices.Concat(p.Fit, r.Chosen, p.Spread)); err != nil {
		return nil, err
	}
	opt.IntervalReplications, opt.CV = max(p.intervals(), opt.Replications), cv
	opt.FoldDone = func(f calibrate.Fold, folds int) {
		o.log("%s: cross-validation, %s held out: recovery MAPE twin %s %%", p.Name, f.Label, textfmt.Number(f.Twin, 0))
	}
	o.log("%s: fitting %s on %s", p.Name, strings.Join(slices.Concat(p.Fit, r.Chosen, p.Spread), ", "), textfmt.Plural(len(opt.Fitted(pts)), "point"))
	if r.Fit, err = calibrate.Calibrate(base, pts, opt); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	if p.OneRun.CPU != "" {
		if r.OneRun, err = runOneRun(p, base, pts, opt); err != nil {
			return nil, err
		}
		o.log("%s: one run: %s; held-out recovery MAPE twin %s %%", p.Name, r.OneRun.CPU, textfmt.Number(r.OneRun.HeldOut, 0))
	}
	r.WallS = time.Since(start).Seconds()
	return r, nil
}

// Select chooses the protocol's optional mechanisms by forward selection
// on the fitted points alone (the held-out ones never decide what is
// fitted): starting from the protocol's fit, it adds the mechanism that
// lowers the twin's cross-validated recovery MAPE the most, and repeats
// while one still lowers it. The folds are the protocol's scheme on the
// fitted points (leave one experiment or CI out); with fewer than two
// folds there, three random folds. It returns every set it scored and the
// mechanisms chosen.
func Select(base scenario.Scenario, pts []calibrate.Point, p *Protocol, opt calibrate.Options, cv calibrate.CVSpec, o Options) ([]Step, []string, error) {
	if len(p.Mechanisms) == 0 {
		return nil, nil, nil
	}
	fitted := opt.Fitted(pts)
	inner := cv
	if _, _, err := calibrate.Folds(fitted, inner, base.Seed); !inner.Active() || err != nil {
		inner = calibrate.CVSpec{K: 3}
	}
	score := func(extra []string) (float64, error) {
		// one seed per point: ranking the candidates needs less than the
		// final fit's mean over seeds
		so := opt
		so.Holdout, so.CV, so.Replications = nil, inner, 1
		var err error
		if so.Fit, err = calibrate.LookupParams(append(slices.Clone(p.Fit), extra...)); err != nil {
			return 0, err
		}
		cv, err := calibrate.CrossValidate(base, fitted, so)
		if err != nil {
			return 0, err
		}
		return cv.Twin.Mean, nil
	}
	var steps []Step
	chosen := []string{}
	best, err := score(chosen)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: mechanism selection: %w", p.Name, err)
	}
	steps = append(steps, Step{Mechanisms: chosen, CVMAPE: best})
	o.log("%s: selection, %s (%s): cross-validated recovery MAPE %s %%", p.Name, "no mechanism", inner, textfmt.Number(best, 0))
	for {
		pick, pickErr := "", math.Inf(1)
		for _, m := range p.Mechanisms {
			if slices.Contains(chosen, m) {
				continue
			}
			set := append(slices.Clone(chosen), m)
			e, err := score(set)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: mechanism selection with %s: %w", p.Name, strings.Join(set, ", "), err)
			}
			steps = append(steps, Step{Mechanisms: set, CVMAPE: e})
			o.log("%s: selection, + %s: cross-validated recovery MAPE %s %%", p.Name, strings.Join(set, " + "), textfmt.Number(e, 0))
			if e < pickErr {
				pick, pickErr = m, e
			}
		}
		if pick == "" || !(pickErr < best) {
			break
		}
		chosen, best = append(chosen, pick), pickErr
	}
	for i := range steps {
		steps[i].Chosen = slices.Equal(steps[i].Mechanisms, chosen)
	}
	return steps, chosen, nil
}

// OneRunResult is the one-run protocol: the job calibrated from a single
// static run alone, its cost_scale and idle CPU from the run's CPU line
// (calibrateCPU, as an autoscaler dataset's), the rest of the base
// scenario as it is; then every measured point predicted, none fitted. It is what a researcher with one run of a new job has.
type OneRunResult struct {
	Run string         `json:"run"` // the static run's CPU series
	CPU CPUCalibration `json:"cpu"`
	// HeldOut and All are the twin's recovery MAPE (%, censored points as
	// lower bounds) on the protocol's held-out points and on every point.
	HeldOut float64 `json:"held_out_mape"`
	All     float64 `json:"all_mape"`
}

// runOneRun calibrates base from the protocol's static run and predicts
// every point with it.
func runOneRun(p *Protocol, base scenario.Scenario, pts []calibrate.Point, opt calibrate.Options) (*OneRunResult, error) {
	path := p.Path(p.OneRun.Scenario)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &InputError{err}
	}
	static, err := scenario.ParseRun(path, data, p.OneRun.Variant, nil)
	if err != nil {
		return nil, &InputError{err}
	}
	r := &OneRunResult{Run: p.OneRun.CPU}
	if r.CPU, err = calibrateCPU(&static, p, p.OneRun.StaticRun); err != nil {
		return nil, err
	}
	sc := base
	sc.Job.CostScale, sc.Job.Cluster.IdleCPU = static.Job.CostScale, static.Job.Cluster.IdleCPU
	pred, err := calibrate.PredictAll(sc, pts, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: one run: %w", p.Name, err)
	}
	var held, all []calibrate.Point
	var heldP, allP []float64
	for i, pt := range pts {
		all, allP = append(all, pt), append(allP, pred[i].RecoveryS)
		if opt.Holdout != nil && opt.Holdout(pt) {
			held, heldP = append(held, pt), append(heldP, pred[i].RecoveryS)
		}
	}
	r.HeldOut, r.All = calibrate.CensoredMAPE(held, heldP), calibrate.CensoredMAPE(all, allP)
	return r, nil
}
