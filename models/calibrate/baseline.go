package calibrate

import (
	"math"

	"github.com/streamtwin/streamtwin/models/policy/khaos"
)

// Baselines are the two models a twin must beat to be worth its cost,
// fitted on the same fitted points as the twin and evaluated on the same
// held-out ones:
//
//   - the closed-form recovery model rec = D + λ·(CI_eff + D)/(μ − λ), D the
//     downtime and μ the capacity fitted (least squares on the relative
//     error, Nelder–Mead), λ the point's throughput and CI_eff = CI −
//     BeforeCheckpoint the progress an aligned kill loses (khaos.Physics);
//   - Khaos's own OLS, recovery ~ throughput + CI (khaos.FitLinear,
//     reference/khaos.md §6), when the points allow it (at least 4, not all
//     at one CI).
//
// Khaos drops recoveries under 55 s from its OLS as detector misses; the
// baselines here use every fitted point, as the twin does.
type Baselines struct {
	ClosedForm *khaos.Physics // nil when it could not be fitted
	OLS        *khaos.Linear  // nil when it could not be fitted
	// ClosedFormNote and OLSNote say why one is missing.
	ClosedFormNote, OLSNote string
}

// fitBaselines fits both baselines on the points not held out and sets
// every point's ClosedFormS and OLSS. A closed form whose capacity a point
// reaches never recovers: it predicts o.Horizon, as the twin does.
func fitBaselines(pts []PointResult, o Options) Baselines {
	var thr, ci, rec []float64
	for _, p := range pts {
		if !p.HeldOut {
			thr, ci, rec = append(thr, p.Throughput), append(ci, p.CheckpointIntervalS), append(rec, p.Point.RecoveryS)
		}
	}
	var b Baselines
	if cf, err := khaos.FitPhysics(thr, ci, rec, o.BeforeCheckpoint); err != nil {
		b.ClosedFormNote = err.Error()
	} else {
		b.ClosedForm = &cf
	}
	if ols, err := khaos.FitLinear(thr, ci, rec); err != nil {
		b.OLSNote = err.Error()
	} else {
		b.OLS = &ols
	}
	for i := range pts {
		pts[i].ClosedFormS, pts[i].OLSS = b.predict(pts[i].Point, o.Horizon)
	}
	return b
}

// predict is both baselines' recovery time for p (NaN for a missing one).
func (b Baselines) predict(p Point, horizon float64) (closedForm, ols float64) {
	closedForm, ols = math.NaN(), math.NaN()
	if b.ClosedForm != nil {
		closedForm = math.Min(b.ClosedForm.Predict(p.Throughput, p.CheckpointIntervalS), horizon)
	}
	if b.OLS != nil {
		ols = b.OLS.Predict(p.Throughput, p.CheckpointIntervalS)
	}
	return closedForm, ols
}
