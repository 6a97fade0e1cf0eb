package forecast

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// minExtra is how many points beyond d+p+q FitARIMA demands: with fewer, the
// CSS surface is nearly flat and the estimates are noise.
const minExtra = 10

// ARIMA is a fitted non-seasonal ARIMA(p,d,q) model without a constant.
type ARIMA struct {
	P, D, Q int
	// AR and MA are φ_1..φ_p and θ_1..θ_q of
	// x_t = Σφ_i x_{t−i} + e_t + Σθ_j e_{t−j} on the d-times differenced series x.
	AR, MA []float64
	Sigma2 float64 // innovation variance: CSS / number of conditional residuals

	w     []float64 // d-times differenced series
	resid []float64 // CSS residuals of w at the fitted parameters (zero for t < p)
	tails []float64 // tails[k] = last value of the k-times differenced series, k < d
}

// FitARIMA fits ARIMA(p,d,q) to y: it differences y d times and estimates φ, θ
// by minimising the conditional sum of squares (residuals before the first p
// are taken as zero, as CSS does). The search runs in Jones' reparametrisation
// (partial autocorrelations = tanh of free parameters), so every candidate is
// stationary and invertible; it uses BFGS with a central finite-difference
// gradient from a Hannan–Rissanen start and from the zero start and keeps the
// better optimum. It needs at least d+p+q+10 finite points.
func FitARIMA(y []float64, p, d, q int) (*ARIMA, error) { return fitARIMA(y, p, d, q, 0) }

// fitARIMA is FitARIMA with at most maxIter BFGS iterations per start (0:
// until it converges or its line search fails).
func fitARIMA(y []float64, p, d, q, maxIter int) (*ARIMA, error) {
	if p < 0 || d < 0 || q < 0 {
		return nil, fmt.Errorf("forecast: negative ARIMA order (%d,%d,%d)", p, d, q)
	}
	if need := d + p + q + minExtra; len(y) < need {
		return nil, fmt.Errorf("forecast: ARIMA(%d,%d,%d) needs at least %d points, got %d", p, d, q, need, len(y))
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("forecast: non-finite value %v at index %d", v, i)
		}
	}

	w := append([]float64(nil), y...)
	tails := make([]float64, d)
	for k := range d {
		tails[k] = w[len(w)-1]
		for i := 0; i < len(w)-1; i++ {
			w[i] = w[i+1] - w[i]
		}
		w = w[:len(w)-1]
	}

	m := &ARIMA{P: p, D: d, Q: q, w: w, tails: tails, resid: make([]float64, len(w))}
	nres := float64(len(w) - p)
	e := make([]float64, len(w))
	obj := func(x []float64) float64 {
		ar, ma := decode(x, p)
		ss := css(w, ar, ma, e)
		// Concentrated Gaussian log-likelihood, as R's arima(method="CSS"):
		// scale-free, so the optimiser's tolerances mean the same for any data.
		return 0.5 * math.Log(math.Max(ss/nres, math.SmallestNonzeroFloat64))
	}

	var best []float64
	if p+q > 0 {
		starts := [][]float64{make([]float64, p+q)}
		if ar, ma, ok := hannanRissanen(w, p, q); ok {
			if x, ok := encode(ar, ma); ok {
				starts = append(starts, x)
			}
		}
		bestF := math.Inf(1)
		for _, x0 := range starts {
			x, f := minimise(obj, x0, maxIter)
			if f < bestF {
				best, bestF = x, f
			}
		}
		if math.IsInf(bestF, 0) || math.IsNaN(bestF) {
			return nil, errors.New("forecast: CSS objective is not finite")
		}
	}
	m.AR, m.MA = decode(best, p)
	m.Sigma2 = css(w, m.AR, m.MA, m.resid) / nres
	return m, nil
}

// Forecast returns the next h values on the original scale: the ARMA forecast
// of the differenced series (future innovations zero) integrated d times from
// the last observed levels.
func (m *ARIMA) Forecast(h int) []float64 {
	if h <= 0 {
		return nil
	}
	n := len(m.w)
	x := append(append([]float64(nil), m.w...), make([]float64, h)...)
	e := append(append([]float64(nil), m.resid...), make([]float64, h)...)
	for t := n; t < n+h; t++ {
		v := 0.0
		for i, a := range m.AR {
			if t-1-i >= 0 {
				v += a * x[t-1-i]
			}
		}
		for j, b := range m.MA {
			if t-1-j >= 0 {
				v += b * e[t-1-j]
			}
		}
		x[t] = v
	}
	f := x[n:]
	// Undo the differences innermost first: Δ^k y_t = Δ^k y_{t−1} + Δ^{k+1} y_t.
	for k := m.D - 1; k >= 0; k-- {
		level := m.tails[k]
		for i := range f {
			level += f[i]
			f[i] = level
		}
	}
	return f
}

// Extend appends observations y to the series the model forecasts from,
// keeping its parameters: each is differenced d times and its residual
// filtered through the fitted ARMA, so Forecast continues from the latest
// observation (statsmodels' append without refit).
func (m *ARIMA) Extend(y ...float64) {
	for _, v := range y {
		for k := range m.D {
			v, m.tails[k] = v-m.tails[k], v
		}
		t := len(m.w)
		m.w = append(m.w, v)
		e := 0.0
		if t >= m.P {
			e = v
			for i, a := range m.AR {
				e -= a * m.w[t-1-i]
			}
			for j, b := range m.MA {
				if t-1-j >= 0 {
					e -= b * m.resid[t-1-j]
				}
			}
		}
		m.resid = append(m.resid, e)
	}
}

// css fills e with the conditional residuals of w under (ar, ma) and returns
// their sum of squares; e_t = 0 for t < p and for the pre-sample MA lags.
func css(w, ar, ma, e []float64) float64 {
	p, ss := len(ar), 0.0
	for t := range w {
		if t < p {
			e[t] = 0
			continue
		}
		v := w[t]
		for i, a := range ar {
			v -= a * w[t-1-i]
		}
		for j, b := range ma {
			if t-1-j >= 0 {
				v -= b * e[t-1-j]
			}
		}
		e[t] = v
		ss += v * v
	}
	return ss
}

// pacfLimit keeps tanh away from ±1, where the model would be on the
// stationarity/invertibility boundary (tanh(20) rounds to 1).
const pacfLimit = 1 - 1e-9

// decode maps free parameters to φ (first p) and θ via Jones' transform:
// r = tanh(u) are partial autocorrelations, Durbin–Levinson turns them into
// a stationary AR polynomial. For the MA part the same polynomial is
// 1 − Σ(−θ_j)z^j, so θ = −coefficients makes 1 + Σθ_j z^j invertible.
func decode(x []float64, p int) (ar, ma []float64) {
	r := make([]float64, len(x))
	for i, u := range x {
		r[i] = math.Max(-pacfLimit, math.Min(pacfLimit, math.Tanh(u)))
	}
	ar = pacfToPoly(r[:p])
	ma = pacfToPoly(r[p:])
	for j := range ma {
		ma[j] = -ma[j]
	}
	return ar, ma
}

// encode inverts decode; ok is false if ar is not stationary or ma not invertible.
func encode(ar, ma []float64) (x []float64, ok bool) {
	ra, ok1 := polyToPACF(ar)
	neg := make([]float64, len(ma))
	for j, b := range ma {
		neg[j] = -b
	}
	rm, ok2 := polyToPACF(neg)
	if !ok1 || !ok2 {
		return nil, false
	}
	x = append(ra, rm...)
	for i, r := range x {
		x[i] = math.Atanh(r)
	}
	return x, true
}

// pacfToPoly is the Durbin–Levinson recursion a_j^(k) = a_j^(k−1) − r_k a_{k−j}^(k−1), a_k^(k) = r_k.
func pacfToPoly(r []float64) []float64 {
	a := make([]float64, len(r))
	prev := make([]float64, len(r))
	for k := range r {
		copy(prev, a[:k])
		for j := 0; j < k; j++ {
			a[j] = prev[j] - r[k]*prev[k-1-j]
		}
		a[k] = r[k]
	}
	return a
}

// polyToPACF is the step-down recursion inverting pacfToPoly; it fails if any
// |r_k| ≥ 1, i.e. the polynomial 1 − Σa_j z^j has a root on or inside the unit circle.
func polyToPACF(a []float64) ([]float64, bool) {
	cur := append([]float64(nil), a...)
	r := make([]float64, len(a))
	for k := len(a) - 1; k >= 0; k-- {
		rk := cur[k]
		if !(math.Abs(rk) < pacfLimit) {
			return nil, false
		}
		r[k] = rk
		prev := make([]float64, k)
		for j := range k {
			prev[j] = (cur[j] + rk*cur[k-1-j]) / (1 - rk*rk)
		}
		cur = prev
	}
	return r, true
}

// hannanRissanen gives start values: a long AR fitted by least squares
// estimates the innovations, then w_t is regressed on its own p lags and q
// lags of those innovations.
func hannanRissanen(w []float64, p, q int) (ar, ma []float64, ok bool) {
	n := len(w)
	ehat := make([]float64, n)
	k := 0
	if q > 0 {
		k = min(max(int(10*math.Log10(float64(n))), p+q+1), n/4)
		phi, ok := ols(w, k, nil, 0, k)
		if !ok {
			return nil, nil, false
		}
		for t := k; t < n; t++ {
			v := w[t]
			for i, a := range phi {
				v -= a * w[t-1-i]
			}
			ehat[t] = v
		}
	}
	beta, ok := ols(w, p, ehat, q, max(p, k+q))
	if !ok {
		return nil, nil, false
	}
	return beta[:p], beta[p:], true
}

// ols regresses w_t (t ≥ t0) on w_{t−1..t−p} and e_{t−1..t−q} without intercept.
func ols(w []float64, p int, e []float64, q, t0 int) ([]float64, bool) {
	rows, cols := len(w)-t0, p+q
	if cols == 0 || rows <= cols {
		return nil, false
	}
	X := mat.NewDense(rows, cols, nil)
	Y := mat.NewVecDense(rows, nil)
	for r := range rows {
		t := t0 + r
		Y.SetVec(r, w[t])
		for i := range p {
			X.Set(r, i, w[t-1-i])
		}
		for j := range q {
			X.Set(r, p+j, e[t-1-j])
		}
	}
	var beta mat.VecDense
	if err := beta.SolveVec(X, Y); err != nil {
		return nil, false // rank-deficient or ill-conditioned: fall back to the zero start
	}
	return beta.RawVector().Data, true
}

// minimise runs BFGS with a central-difference gradient and falls back to
// Nelder–Mead if BFGS stops on an error (e.g. a failed line search on a flat
// surface); it returns the best point seen, never worse than x0.
func minimise(f func([]float64) float64, x0 []float64, maxIter int) ([]float64, float64) {
	grad := func(g, x []float64) { fd.Gradient(g, f, x, &fd.Settings{Formula: fd.Central}) }
	best, bestF := append([]float64(nil), x0...), f(x0)
	try := func(prob optimize.Problem, settings *optimize.Settings, method optimize.Method) error {
		res, err := optimize.Minimize(prob, best, settings, method)
		if res != nil && res.F < bestF && !math.IsNaN(res.F) {
			best, bestF = res.X, res.F
		}
		return err
	}
	var bfgs *optimize.Settings
	if maxIter > 0 {
		bfgs = &optimize.Settings{MajorIterations: maxIter}
	}
	if err := try(optimize.Problem{Func: f, Grad: grad}, bfgs, &optimize.BFGS{}); err != nil && maxIter == 0 {
		_ = try(optimize.Problem{Func: f}, nil, &optimize.NelderMead{})
	}
	return best, bestF
}
