package calibrate

import (
	"math"
	"slices"

	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// Baselines are the models a twin must beat to be worth its cost, fitted
// on the same fitted points as the twin and evaluated on the same held-out
// ones:
//
//   - the closed-form recovery model rec = D + λ·(CI_eff + D)/(μ − λ), D the
//     downtime and μ the capacity fitted (least squares on the relative
//     error, Nelder–Mead), λ the point's throughput and CI_eff = CI −
//     BeforeCheckpoint the progress an aligned kill loses (khaos.Physics);
//   - OLS of recovery on throughput, CI and every configuration column
//     (parallelism, task slots, cores, memory) that the fitted points have
//     and vary: Khaos's own OLS (reference/khaos.md §6) on a table without
//     configuration columns;
//   - the median of the fitted recoveries, a constant: on noisy profiling
//     data it is hard to beat;
//   - Daedalus's recovery model (reference/autoscaling.md §1.6): capacity
//     linear in parallelism, C = c·p, and rec = 2d + λ·(CI + d)/(C − λ)
//     (its backlog of one CI and the downtime, drained at C − λ, the
//     downtime counted twice as its code does), d and c fitted like the
//     closed form.
//
// A censored recovery is a lower bound, not a recovery time: the baselines
// are fitted on the uncensored fitted points (as a researcher fitting a
// formula would), and scored on every point with the censored error (ape).
// Khaos drops recoveries under 55 s from its OLS as detector misses; the
// baselines here use every fitted point, as the twin does.
type Baselines struct {
	ClosedForm *khaos.Physics // nil when it could not be fitted
	OLS        *Linear        // nil when it could not be fitted
	Median     *float64       // nil without an uncensored fitted point
	Daedalus   *DaedalusModel // nil when it could not be fitted
	// the notes say why one is missing
	ClosedFormNote, OLSNote, MedianNote, DaedalusNote string
}

// fitBaselines fits the baselines on the uncensored points not held out
// and sets every point's predictions. A closed form (or Daedalus model)
// whose capacity a point reaches never recovers: it predicts o.Horizon, as
// the twin does.
func fitBaselines(pts []PointResult, o Options) Baselines {
	var fit []Point
	for _, p := range pts {
		if !p.HeldOut && !p.Point.Censored {
			fit = append(fit, p.Point)
		}
	}
	var thr, ci, rec []float64
	for _, p := range fit {
		thr, ci, rec = append(thr, p.Throughput), append(ci, p.CheckpointIntervalS), append(rec, p.RecoveryS)
	}
	var b Baselines
	if cf, err := khaos.FitPhysics(thr, ci, rec, o.BeforeCheckpoint); err != nil {
		b.ClosedFormNote = err.Error()
	} else {
		b.ClosedForm = &cf
	}
	if ols, err := FitLinear(fit); err != nil {
		b.OLSNote = err.Error()
	} else {
		b.OLS = &ols
	}
	if len(rec) == 0 {
		b.MedianNote = "no uncensored fitted point"
	} else {
		m := statistics.Quantile(slices.Clone(rec), 0.5)
		b.Median = &m
	}
	if d, err := FitDaedalus(fit); err != nil {
		b.DaedalusNote = err.Error()
	} else {
		b.Daedalus = &d
	}
	for i := range pts {
		b.predict(&pts[i], o.Horizon)
	}
	return b
}

// predict sets every baseline's recovery time for p (NaN for a missing
// baseline).
func (b Baselines) predict(p *PointResult, horizon float64) {
	nan := math.NaN()
	p.ClosedFormS, p.OLSS, p.MedianS, p.DaedalusS = nan, nan, nan, nan
	if b.ClosedForm != nil {
		p.ClosedFormS = math.Min(b.ClosedForm.Predict(p.Throughput, p.CheckpointIntervalS), horizon)
	}
	if b.OLS != nil {
		p.OLSS = b.OLS.Predict(p.Point)
	}
	if b.Median != nil {
		p.MedianS = *b.Median
	}
	if b.Daedalus != nil {
		p.DaedalusS = math.Min(b.Daedalus.Predict(p.Point), horizon)
	}
}

// ape is the absolute percentage error (as a fraction) of a predicted
// recovery for p. A censored recovery is a lower bound: a prediction at or
// above it is right, one below it is off by its shortfall.
func ape(p Point, pred float64) float64 {
	if p.Censored {
		return math.Max(0, p.RecoveryS-pred) / p.RecoveryS
	}
	return math.Abs(pred-p.RecoveryS) / p.RecoveryS
}

// parallelismOf is a point's parallelism, 1 when the table does not say
// (Daedalus's capacity is then the job's).
func parallelismOf(p Point) float64 { return max(p.Parallelism, 1) }
