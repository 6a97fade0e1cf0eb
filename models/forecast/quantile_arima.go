package forecast

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ARIMAQuantiler is an ARIMA(p,d,q) model with Gaussian forecast intervals,
// fitted once and then forecasting from any history with its fixed
// coefficients (statsmodels' apply without refit): a Quantiles call costs
// O((n + h)·(p + q)), no optimisation.
//
// Quantiles(history, h, levels) subtracts Mean, differences the history d
// times, computes the CSS residuals of the differenced history by the
// recursion FitARIMA uses (residuals before the first p and pre-sample MA
// lags zero), and takes the point forecast ŷ_k of (*ARIMA).Forecast, plus
// Mean. The k-step forecast-error variance is the Box–Jenkins one,
//
//	σ_k² = Sigma2 · Σ_{j<k} ψ*_j²,
//
// where ψ_j are the MA(∞) weights of the ARMA on the differenced series
// (ψ_0 = 1, ψ_j = θ_j + Σ_i φ_i ψ_{j−i}) and ψ* those of the ARIMA, the
// coefficients of ψ(z)/(1−z)^d (ψ cumulated d times). The τ-quantile of
// step k is ŷ_k + σ_k·Φ⁻¹(τ). The variance ignores parameter uncertainty
// and conditions on the CSS residuals of the history, as the usual ARIMA
// prediction interval does.
type ARIMAQuantiler struct {
	D int
	// AR and MA are φ_1..φ_p and θ_1..θ_q of the ARMA on the d-times
	// differenced series, as in ARIMA.
	AR, MA []float64
	Sigma2 float64 // innovation variance
	// Mean is subtracted from the series before differencing and added back
	// to the forecast: the constant of a d = 0 model (the training mean;
	// ARIMA itself has no constant). The constructors set it to 0 for d > 0,
	// where it would cancel anyway.
	Mean float64
}

// NewARIMAQuantiler fits ARIMA(p,d,q) by CSS (FitARIMA) to train minus its
// mean (for d = 0; train itself for d > 0).
func NewARIMAQuantiler(train []float64, p, d, q int) (*ARIMAQuantiler, error) {
	mean := 0.0
	if d == 0 && len(train) > 0 {
		mean = meanOf(train)
	}
	m, err := FitARIMA(shifted(train, -mean), p, d, q)
	if err != nil {
		return nil, err
	}
	return ARIMAQuantilerOf(m, mean), nil
}

// NewAutoARIMAQuantiler chooses and fits the model with AutoARIMA(train,
// maxP, maxQ) on train minus its mean (the unit-root tests that choose d
// are shift-invariant), keeping the mean as the constant if d = 0. The
// search runs once, here, not per Quantiles call.
func NewAutoARIMAQuantiler(train []float64, maxP, maxQ int) (*ARIMAQuantiler, error) {
	if len(train) == 0 {
		return nil, fmt.Errorf("forecast: AutoARIMA on no training data")
	}
	for i, v := range train {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("forecast: non-finite value %v at index %d", v, i)
		}
	}
	mean := meanOf(train)
	m, err := AutoARIMA(shifted(train, -mean), maxP, maxQ)
	if err != nil {
		return nil, err
	}
	if m.D > 0 {
		mean = 0
	}
	return ARIMAQuantilerOf(m, mean), nil
}

// ARIMAQuantilerOf is the quantiler of a fitted model m, fitted to a series
// from which mean was subtracted.
func ARIMAQuantilerOf(m *ARIMA, mean float64) *ARIMAQuantiler {
	return &ARIMAQuantiler{
		D:      m.D,
		AR:     append([]float64(nil), m.AR...),
		MA:     append([]float64(nil), m.MA...),
		Sigma2: m.Sigma2,
		Mean:   mean,
	}
}

// Name is "arima(p,d,q)".
func (a *ARIMAQuantiler) Name() string {
	return fmt.Sprintf("arima(%d,%d,%d)", len(a.AR), a.D, len(a.MA))
}

// MinHistory is the shortest history Quantiles accepts: d + p + q + 1
// points, so the differenced history has a residual beyond the first p.
func (a *ARIMAQuantiler) MinHistory() int { return a.D + len(a.AR) + len(a.MA) + 1 }

// Quantiles implements Quantiler (see the type's comment for the rule).
func (a *ARIMAQuantiler) Quantiles(history []float64, h int, levels []float64) ([][]float64, error) {
	if err := checkQuantileArgs(a.Name(), history, h, levels, a.MinHistory()); err != nil {
		return nil, err
	}
	if a.D < 0 || !(a.Sigma2 >= 0) || math.IsInf(a.Sigma2, 0) {
		return nil, fmt.Errorf("forecast: %s: invalid model (d %d, σ² %v)", a.Name(), a.D, a.Sigma2)
	}
	w := shifted(history, -a.Mean)
	tails := make([]float64, a.D)
	for k := range a.D {
		tails[k] = w[len(w)-1]
		for i := 0; i < len(w)-1; i++ {
			w[i] = w[i+1] - w[i]
		}
		w = w[:len(w)-1]
	}
	resid := make([]float64, len(w))
	css(w, a.AR, a.MA, resid)
	m := &ARIMA{P: len(a.AR), D: a.D, Q: len(a.MA), AR: a.AR, MA: a.MA, w: w, resid: resid, tails: tails}
	mean := m.Forecast(h)

	psi := arimaPsi(a.AR, a.MA, a.D, h)
	sd := make([]float64, h)
	acc := 0.0
	for k := range h {
		acc += psi[k] * psi[k]
		sd[k] = math.Sqrt(a.Sigma2 * acc)
	}
	out := newQuantileRows(len(levels), h)
	for i, l := range levels {
		z := distuv.UnitNormal.Quantile(l)
		for k := range h {
			out[i][k] = mean[k] + a.Mean + sd[k]*z
		}
	}
	return out, nil
}

// arimaPsi returns ψ*_0..ψ*_{h−1}, the MA(∞) weights of ARIMA(ar, d, ma):
// those of the ARMA, ψ_0 = 1, ψ_j = θ_j + Σ_i φ_i ψ_{j−i}, cumulated d
// times (division by (1−z)^d).
func arimaPsi(ar, ma []float64, d, h int) []float64 {
	psi := make([]float64, h)
	psi[0] = 1
	for j := 1; j < h; j++ {
		v := 0.0
		if j <= len(ma) {
			v = ma[j-1]
		}
		for i, phi := range ar {
			if j-1-i >= 0 {
				v += phi * psi[j-1-i]
			}
		}
		psi[j] = v
	}
	for range d {
		for j := 1; j < h; j++ {
			psi[j] += psi[j-1]
		}
	}
	return psi
}

// shifted returns a copy of x with c added to every value.
func shifted(x []float64, c float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v + c
	}
	return y
}
