package forecast

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// KPSS is the level-stationarity statistic of Kwiatkowski et al. (1992) as
// pmdarima's KPSSTest computes it (null "level", lshort): the residuals
// from the mean, their partial sums S_t, and η = Σ S_t² / (n² s²) with the
// Newey–West long-run variance s² over l = ⌊3√n/13⌋ lags (Bartlett
// weights).
func KPSS(y []float64) float64 {
	n := len(y)
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	e := make([]float64, n)
	sum, s2 := 0.0, 0.0
	for i, v := range y {
		e[i] = v - mean
		sum += e[i] * e[i]
	}
	s2 = sum / float64(n)
	l := int(3 * math.Sqrt(float64(n)) / 13)
	for s := 1; s <= l; s++ {
		c := 0.0
		for t := s; t < n; t++ {
			c += e[t] * e[t-s]
		}
		s2 += 2 * (1 - float64(s)/float64(l+1)) * c / float64(n)
	}
	eta, partial := 0.0, 0.0
	for _, v := range e {
		partial += v
		eta += partial * partial
	}
	return eta / (float64(n) * float64(n) * s2)
}

// kpssCritical5 is the 5 % critical value of the level KPSS statistic
// (Kwiatkowski et al., table 1): above it, stationarity is rejected.
const kpssCritical5 = 0.463

// ADF is the augmented Dickey–Fuller τ statistic as pmdarima's ADFTest (and
// R's tseries::adf.test) computes it: the t-ratio of β in
// Δy_t = α + δ·t + β·y_{t−1} + Σ_{i=1..k} γ_i Δy_{t−i}, with
// k = ⌊(n−1)^{1/3}⌋ lags. ok is false when the regression is singular.
func ADF(y []float64) (tau float64, ok bool) {
	n := len(y)
	k := int(math.Cbrt(float64(n - 1)))
	dy := make([]float64, n-1)
	for i := range dy {
		dy[i] = y[i+1] - y[i]
	}
	rows, cols := len(dy)-k, 3+k
	if rows <= cols+1 {
		return 0, false
	}
	X := mat.NewDense(rows, cols, nil)
	Y := mat.NewVecDense(rows, nil)
	for r := range rows {
		t := k + r // index into dy
		Y.SetVec(r, dy[t])
		X.Set(r, 0, 1)
		X.Set(r, 1, float64(t+1))
		X.Set(r, 2, y[t])
		for i := 1; i <= k; i++ {
			X.Set(r, 2+i, dy[t-i])
		}
	}
	var xtx mat.Dense
	xtx.Mul(X.T(), X)
	var inv mat.Dense
	if err := inv.Inverse(&xtx); err != nil {
		return 0, false
	}
	var beta, xty mat.VecDense
	xty.MulVec(X.T(), Y)
	beta.MulVec(&inv, &xty)
	var fit mat.VecDense
	fit.MulVec(X, &beta)
	rss := 0.0
	for r := range rows {
		d := Y.AtVec(r) - fit.AtVec(r)
		rss += d * d
	}
	se := math.Sqrt(rss / float64(rows-cols) * inv.At(2, 2))
	if se == 0 || math.IsNaN(se) {
		return 0, false
	}
	return beta.AtVec(2) / se, true
}

// adfCritical5 is the 5 % critical value of τ with constant and trend
// (Fuller 1976, table 8.5.2, as tseries and pmdarima tabulate it), by
// sample size; between sizes it is interpolated linearly.
var (
	adfSizes     = []float64{25, 50, 100, 250, 500, 100000}
	adfCritical5 = []float64{-3.60, -3.50, -3.45, -3.43, -3.42, -3.41}
)

func adfCritical(n int) float64 {
	x := float64(n)
	if x <= adfSizes[0] {
		return adfCritical5[0]
	}
	for i := 1; i < len(adfSizes); i++ {
		if x <= adfSizes[i] {
			f := (x - adfSizes[i-1]) / (adfSizes[i] - adfSizes[i-1])
			return adfCritical5[i-1] + f*(adfCritical5[i]-adfCritical5[i-1])
		}
	}
	return adfCritical5[len(adfCritical5)-1]
}

// NDiffs is how often y must be differenced to look stationary at the 5 %
// level, at most maxD, as Daedalus chooses it: the larger of pmdarima's
// ndiffs with the KPSS test (difference while stationarity is rejected)
// and with the ADF test (difference while a unit root is not rejected).
func NDiffs(y []float64, maxD int) int {
	kpss := ndiffs(y, maxD, func(x []float64) bool { return KPSS(x) > kpssCritical5 })
	adf := ndiffs(y, maxD, func(x []float64) bool {
		tau, ok := ADF(x)
		return ok && tau > adfCritical(len(x))
	})
	return max(kpss, adf)
}

func ndiffs(y []float64, maxD int, needsDiff func([]float64) bool) int {
	x := append([]float64(nil), y...)
	d := 0
	for d < maxD && len(x) > 3 && !constant(x) && needsDiff(x) {
		for i := 0; i < len(x)-1; i++ {
			x[i] = x[i+1] - x[i]
		}
		x = x[:len(x)-1]
		d++
	}
	return d
}

func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// AIC of a CSS fit: n·ln σ² + 2(p + q + 1) over the n conditional
// residuals (the Gaussian likelihood concentrated on σ²; pmdarima's exact
// likelihood differs by terms that vanish as n grows).
func (m *ARIMA) AIC() float64 {
	n := float64(len(m.w) - m.P)
	return n*math.Log(math.Max(m.Sigma2, math.SmallestNonzeroFloat64)) + 2*float64(m.P+m.Q+1)
}

// AutoARIMA chooses an ARIMA(p,d,q) for y as Daedalus's
// pmdarima.auto_arima(start_p=0, start_q=0, max_p=maxP, max_q=maxQ,
// stepwise=True, n_fits=50) does, without the intercept: d from NDiffs
// (max_d 6), then the Hyndman–Khandakar stepwise search by AIC from
// (0,d,0), (1,d,0) and (0,d,1) over the neighbours (p±1, q), (p, q±1),
// (p±1, q±1) of the best model so far, until none improves or 50 models
// have been fitted. Orders whose fit fails are skipped.
func AutoARIMA(y []float64, maxP, maxQ int) (*ARIMA, error) {
	d := NDiffs(y, 6)
	const nFits = 50
	tried := map[[2]int]bool{}
	var best *ARIMA
	fits := 0
	try := func(p, q int) bool {
		if p < 0 || q < 0 || p > maxP || q > maxQ || tried[[2]int{p, q}] || fits >= nFits {
			return false
		}
		tried[[2]int{p, q}] = true
		fits++
		m, err := fitARIMA(y, p, d, q, pmdarimaMaxIter)
		if err != nil {
			return false
		}
		if best == nil || m.AIC() < best.AIC() {
			best = m
			return true
		}
		return false
	}
	try(0, 0)
	try(1, 0)
	try(0, 1)
	for improved := best != nil; improved; {
		improved = false
		p, q := best.P, best.Q
		for _, n := range [][2]int{{p - 1, q}, {p + 1, q}, {p, q - 1}, {p, q + 1}, {p - 1, q - 1}, {p + 1, q + 1}, {p - 1, q + 1}, {p + 1, q - 1}} {
			if try(n[0], n[1]) {
				improved = true
				break // restart from the new best, as the stepwise search does
			}
		}
	}
	if best == nil {
		return nil, fmt.Errorf("forecast: no ARIMA(p,%d,q) with p ≤ %d, q ≤ %d could be fitted to %d points", d, maxP, maxQ, len(y))
	}
	return best, nil
}

// pmdarimaMaxIter is pmdarima's ARIMA(maxiter=50).
const pmdarimaMaxIter = 50
