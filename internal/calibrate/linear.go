package calibrate

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// regressors are the columns an OLS baseline may use: the load, the CI
// and the configuration columns of a measured table.
var regressors = []struct {
	name string
	of   func(Point) float64
}{
	{"throughput", func(p Point) float64 { return p.Throughput }},
	{"checkpoint_interval_s", func(p Point) float64 { return p.CheckpointIntervalS }},
	{"parallelism", func(p Point) float64 { return p.Parallelism }},
	{"task_slots", func(p Point) float64 { return p.TaskSlots }},
	{"cpu_cores", func(p Point) float64 { return p.CPUCores }},
	{"memory_mib", func(p Point) float64 { return p.MemoryMiB }},
}

// Linear is an OLS recovery model, rec = Intercept + Σ Coef[k]·Columns[k]
// (columns of the measured table, in its units).
type Linear struct {
	Columns   []string
	Intercept float64
	Coef      []float64
	R2        float64
	N         int
}

// Predict is the model's recovery time (s) for p.
func (l Linear) Predict(p Point) float64 {
	y := l.Intercept
	for k, c := range l.Columns {
		for _, r := range regressors {
			if r.name == c {
				y += l.Coef[k] * r.of(p)
			}
		}
	}
	return y
}

// String is the fitted formula.
func (l Linear) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rec = %.4g", l.Intercept)
	for k, c := range l.Columns {
		fmt.Fprintf(&b, " + %.4g·%s", l.Coef[k], c)
	}
	return b.String()
}

// FitLinear fits recovery on throughput, CI and every configuration
// column that all of pts have (non-zero) and that varies among them, by
// ordinary least squares (QR), as Khaos's RegressionModel does with
// Smile's OLS. It needs more points than coefficients plus one.
func FitLinear(pts []Point) (Linear, error) {
	var l Linear
	var cols []func(Point) float64
	for _, r := range regressors {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			lo, hi = math.Min(lo, r.of(p)), math.Max(hi, r.of(p))
		}
		if lo > 0 && hi > lo {
			l.Columns, cols = append(l.Columns, r.name), append(cols, r.of)
		}
	}
	n, k := len(pts), len(cols)+1
	if n < k+1 {
		return Linear{}, fmt.Errorf("a linear model of %s needs at least %d uncensored fitted points, got %d", strings.Join(append([]string{"an intercept"}, l.Columns...), ", "), k+1, n)
	}
	x := mat.NewDense(n, k, nil)
	y := mat.NewVecDense(n, nil)
	for i, p := range pts {
		x.Set(i, 0, 1)
		for j, of := range cols {
			x.Set(i, j+1, of(p))
		}
		y.SetVec(i, p.RecoveryS)
	}
	var qr mat.QR
	qr.Factorize(x)
	var beta mat.VecDense
	if err := qr.SolveVecTo(&beta, false, y); err != nil {
		return Linear{}, fmt.Errorf("the columns %s are collinear in the fitted points: %w", strings.Join(l.Columns, ", "), err)
	}
	l.Intercept, l.N = beta.AtVec(0), n
	for j := range cols {
		l.Coef = append(l.Coef, beta.AtVec(j+1))
	}
	var rm, rp []float64
	for _, p := range pts {
		rm, rp = append(rm, p.RecoveryS), append(rp, l.Predict(p))
	}
	l.R2 = R2(rm, rp)
	return l, nil
}

// DaedalusModel is Daedalus's recovery-time prediction
// (recovery_time.py, reference/autoscaling.md §1.6) for a failure at
// constant load: a backlog of one checkpoint interval and the downtime d
// of input, drained from d on at C − λ, C = CapacityPerSubtask·p linear in
// parallelism (its capacity model, reference §1.3), and the downtime
// counted twice, as its code returns k* + d.
type DaedalusModel struct {
	DowntimeS          float64
	CapacityPerSubtask float64 // records/s per unit of parallelism
	N                  int
}

// Predict is the model's recovery time (s) for p; +Inf when the load
// reaches the capacity.
func (m DaedalusModel) Predict(p Point) float64 {
	spare := m.CapacityPerSubtask*parallelismOf(p) - p.Throughput
	if spare <= 0 {
		return math.Inf(1)
	}
	return 2*m.DowntimeS + p.Throughput*(p.CheckpointIntervalS+m.DowntimeS)/spare
}

// FitDaedalus fits d and the capacity per subtask by least squares on the
// relative error (Nelder–Mead on their logarithms, the capacity kept above
// every point's load), as khaos.FitPhysics fits the closed form.
func FitDaedalus(pts []Point) (DaedalusModel, error) {
	if len(pts) < 3 {
		return DaedalusModel{}, fmt.Errorf("the Daedalus model needs at least 3 uncensored fitted points, got %d", len(pts))
	}
	floor := 0.0 // the largest load per subtask: the capacity must exceed it
	for _, p := range pts {
		floor = math.Max(floor, p.Throughput/parallelismOf(p))
	}
	model := func(x []float64) DaedalusModel {
		return DaedalusModel{DowntimeS: math.Exp(x[0]), CapacityPerSubtask: floor + math.Exp(x[1]), N: len(pts)}
	}
	loss := func(x []float64) float64 {
		m, s := model(x), 0.0
		for _, p := range pts {
			d := (m.Predict(p) - p.RecoveryS) / p.RecoveryS
			s += d * d
		}
		return s
	}
	res, err := optimize.Minimize(optimize.Problem{Func: loss}, []float64{math.Log(20), math.Log(floor)}, nil, &optimize.NelderMead{})
	if err != nil && res == nil {
		return DaedalusModel{}, err
	}
	return model(res.X), nil
}
