package calibrate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/sim"
)

// CVSpec is a cross-validation scheme (--cv): ByCI leaves one checkpoint
// interval out per fold, the hardest test of a model meant to choose CIs;
// K > 1 splits the points into K random folds, seeded from the scenario's
// seed so that they are reproducible. The zero value is no
// cross-validation.
type CVSpec struct {
	ByCI bool
	K    int
	// Column, when set, leaves one value of this measured-table column
	// out per fold (e.g. experiment: one measurement campaign).
	Column string
}

// Active reports whether a scheme is set.
func (c CVSpec) Active() bool { return c.ByCI || c.K > 1 || c.Column != "" }

func (c CVSpec) String() string {
	switch {
	case c.ByCI:
		return "ci"
	case c.K > 1:
		return "k=" + strconv.Itoa(c.K)
	case c.Column != "":
		return c.Column
	}
	return ""
}

// ParseCV reads --cv: "ci" (leave one CI out), "k=N" (N random folds,
// N ≥ 2), or a column of the measured table (leave one of its values out,
// e.g. experiment).
func ParseCV(s string) (CVSpec, error) {
	s = strings.TrimSpace(s)
	if s == "ci" {
		return CVSpec{ByCI: true}, nil
	}
	if n, ok := strings.CutPrefix(s, "k="); ok {
		if k, err := strconv.Atoi(n); err == nil && k >= 2 {
			return CVSpec{K: k}, nil
		}
	}
	if _, ok := (Point{}).Cell(s); ok && s != "recovery_s" {
		return CVSpec{Column: s}, nil
	}
	return CVSpec{}, fmt.Errorf("--cv: want ci (leave one checkpoint interval out), k=N with N ≥ 2 folds, or a column of the measured table to leave one value of out (e.g. experiment), got %q", s)
}

// Folds assigns every point to a fold: by CI in ascending order, or, for
// k folds, by a random permutation from seed dealt round-robin, so folds
// differ in size by at most one. It returns each point's fold and the
// folds' labels.
func Folds(pts []Point, spec CVSpec, seed uint64) ([]int, []string, error) {
	fold := make([]int, len(pts))
	var labels []string
	switch {
	case spec.ByCI:
		var cis []float64
		for _, p := range pts {
			if !slices.ContainsFunc(cis, func(c float64) bool { return sameCI(c, p.CheckpointIntervalS) }) {
				cis = append(cis, p.CheckpointIntervalS)
			}
		}
		if len(cis) < 2 {
			return nil, nil, fmt.Errorf("--cv ci needs points at two or more checkpoint intervals, got %d", len(cis))
		}
		slices.Sort(cis)
		for i, p := range pts {
			fold[i] = slices.IndexFunc(cis, func(c float64) bool { return sameCI(c, p.CheckpointIntervalS) })
		}
		for _, c := range cis {
			labels = append(labels, fmt.Sprintf("CI %g s", c))
		}
	case spec.Column != "":
		var values []string
		for i, p := range pts {
			v, _ := p.Cell(spec.Column)
			k := slices.Index(values, v)
			if k < 0 {
				k, values = len(values), append(values, v)
			}
			fold[i] = k
		}
		if len(values) < 2 {
			return nil, nil, fmt.Errorf("--cv %s needs points with two or more values of %s, got %d", spec.Column, spec.Column, len(values))
		}
		for _, v := range values {
			if v == "" {
				v = "(empty)"
			}
			labels = append(labels, spec.Column+" "+v)
		}
	case spec.K > 1:
		if spec.K > len(pts) {
			return nil, nil, fmt.Errorf("--cv k=%d needs at least %d points, got %d", spec.K, spec.K, len(pts))
		}
		rng := sim.Seeds{Root: seed}.Stream("calibration.cv-folds")
		for j, i := range rng.Perm(len(pts)) {
			fold[i] = j % spec.K
		}
		for f := range spec.K {
			labels = append(labels, fmt.Sprintf("fold %d", f+1))
		}
	default:
		return nil, nil, fmt.Errorf("no cross-validation scheme")
	}
	return fold, labels, nil
}

// Fold is the held-out errors of one cross-validation fold: recovery MAPE
// of the twin and the baselines (%), and the twin's interval coverage.
type Fold struct {
	Label                                   string
	N                                       int
	Twin, ClosedForm, OLS, Median, Daedalus float64
	Coverage                                float64 // share; NaN without replications
}

// Spread is a statistic over folds: mean, sample standard deviation, range
// and the number of folds it has a value for.
type Spread struct {
	Mean, SD, Min, Max float64
	N                  int
}

func spreadOf(vals []float64) Spread {
	var xs []float64
	for _, v := range vals {
		if !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	s := Spread{Mean: math.NaN(), SD: math.NaN(), Min: math.NaN(), Max: math.NaN(), N: len(xs)}
	if len(xs) == 0 {
		return s
	}
	s.Mean, s.Min, s.Max = stat.Mean(xs, nil), slices.Min(xs), slices.Max(xs)
	if len(xs) > 1 {
		s.SD = stat.StdDev(xs, nil)
	}
	return s
}

// CVResult is a cross-validation: every fold, the spread over folds of
// each model's held-out error, and the errors pooled over all
// out-of-fold predictions.
type CVResult struct {
	Scheme                                            string
	Folds                                             []Fold
	Twin, ClosedForm, OLS, Median, Daedalus, Coverage Spread
	Pooled                                            Metrics
}

// CrossValidate is Calibrate's cross-validation alone (o.CV, without the
// fit on every point): what choosing between candidate fits needs. Options
// left zero take their defaults, as in Calibrate.
func CrossValidate(base scenario.Scenario, pts []Point, o Options) (*CVResult, error) {
	o = o.WithDefaults(pts)
	if err := o.Check(pts); err != nil {
		return nil, err
	}
	if !o.CV.Active() {
		return nil, fmt.Errorf("no cross-validation scheme")
	}
	return crossValidate(base, pts, o)
}

// crossValidate fits the twin and the baselines once per fold on the other
// folds' points (the whole table: --holdout does not apply) and scores
// each on the fold.
func crossValidate(base scenario.Scenario, pts []Point, o Options) (*CVResult, error) {
	fold, labels, err := Folds(pts, o.CV, base.Seed)
	if err != nil {
		return nil, err
	}
	fo := o
	fo.Progress, fo.CV = nil, CVSpec{}
	cv := &CVResult{Scheme: o.CV.String()}
	var outOfFold []PointResult
	for f, label := range labels {
		held := make([]bool, len(pts))
		for i := range pts {
			held[i] = fold[i] == f
		}
		r, err := calibrate(base, pts, held, fo)
		if err != nil {
			return nil, fmt.Errorf("cross-validation, %s held out: %w", label, err)
		}
		m := r.Held
		cv.Folds = append(cv.Folds, Fold{Label: label, N: m.N, Twin: m.RecoveryMAPE, ClosedForm: m.ClosedFormMAPE, OLS: m.OLSMAPE,
			Median: m.MedianMAPE, Daedalus: m.DaedalusMAPE, Coverage: m.Coverage})
		for _, p := range r.Points {
			if p.HeldOut {
				outOfFold = append(outOfFold, p)
			}
		}
		if o.FoldDone != nil {
			o.FoldDone(cv.Folds[f], len(labels))
		}
	}
	column := func(get func(Fold) float64) Spread {
		var v []float64
		for _, f := range cv.Folds {
			v = append(v, get(f))
		}
		return spreadOf(v)
	}
	cv.Twin = column(func(f Fold) float64 { return f.Twin })
	cv.ClosedForm = column(func(f Fold) float64 { return f.ClosedForm })
	cv.OLS = column(func(f Fold) float64 { return f.OLS })
	cv.Median = column(func(f Fold) float64 { return f.Median })
	cv.Daedalus = column(func(f Fold) float64 { return f.Daedalus })
	cv.Coverage = column(func(f Fold) float64 { return f.Coverage })
	cv.Pooled = metricsOfSet(outOfFold)
	return cv, nil
}
