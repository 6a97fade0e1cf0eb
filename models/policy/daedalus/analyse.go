package daedalus

import "math"

// Regression is regression.py's online least squares of a TaskManager's
// source throughput (y) on its CPU load (x): running means, variance and
// covariance, updated a window at a time (batched Welford).
type Regression struct {
	n            float64
	meanX, meanY float64
	m2X, cXY     float64 // Σ(x − x̄)², Σ(x − x̄)(y − ȳ)
}

// Add folds a window of paired samples into the model.
func (r *Regression) Add(xs, ys []float64) {
	for i := range xs {
		r.n++
		dx := xs[i] - r.meanX
		r.meanX += dx / r.n
		r.meanY += (ys[i] - r.meanY) / r.n
		r.m2X += dx * (xs[i] - r.meanX)
		r.cXY += dx * (ys[i] - r.meanY)
	}
}

// Predict is m·x + b with m = cov(x, y)/var(x), b = ȳ − m·x̄. Until the
// CPU has varied the slope is undefined (the authors' code divides by
// zero): Predict then assumes throughput proportional to CPU, ȳ/x̄ · x, so
// a job that starts saturated at 100 % CPU still gets a capacity; NaN
// without data.
func (r *Regression) Predict(x float64) float64 {
	if r.n == 0 || r.n < 2 && r.meanX == 0 || r.m2X == 0 && r.meanX == 0 {
		return math.NaN()
	}
	if r.n < 2 || r.m2X == 0 {
		return r.meanY / r.meanX * x
	}
	m := r.cXY / r.m2X
	return m*x + r.meanY - m*r.meanX
}

// CurrentCapacity is capacity.py's C_cur: each TaskManager's throughput
// predicted at its skewed saturation point skew_w = 1 − (max mean CPU −
// its mean CPU), i.e. its share when the busiest TaskManager reaches
// 100 %, summed. meanCPU[w] is TaskManager w's mean CPU load over the
// window (0..1).
func CurrentCapacity(models []*Regression, meanCPU []float64) float64 {
	busiest := 0.0
	for _, c := range meanCPU {
		busiest = math.Max(busiest, c)
	}
	sum := 0.0
	for w, m := range models {
		if y := m.Predict(1 - (busiest - meanCPU[w])); !math.IsNaN(y) {
			sum += y
		}
	}
	return sum
}

// Forecast-accuracy constants of forecasting.py.
const (
	WAPEGood       = 0.10 // a prediction this good resets the bad count
	WAPEUseARIMA   = 0.25 // ARIMA is used while its last WAPE is below this
	RetrainAfter   = 15   // bad predictions in a row before a retrain
	ARIMAHorizonS  = 900  // the ARIMA forecast's horizon, 1-s steps
	LinearHorizonS = 600  // the linear fallback's
)

// WAPE is Σ|actual − forecast| / Σ actual over the overlap (NaN without
// input).
func WAPE(actual, forecast []float64) float64 {
	num, den := 0.0, 0.0
	for i := 0; i < min(len(actual), len(forecast)); i++ {
		num += math.Abs(actual[i] - forecast[i])
		den += actual[i]
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// Accuracy tracks the ARIMA forecasts' WAPE the way forecasting.py does.
type Accuracy struct {
	LastWAPE float64
	Bad      int // predictions in a row with WAPE ≥ WAPEGood
}

// Score books the WAPE of the previous forecast against the window that
// came true; it reports whether the model must be retrained.
func (a *Accuracy) Score(actual, previousForecast []float64) (retrain bool) {
	a.LastWAPE = WAPE(actual, previousForecast)
	if a.LastWAPE < WAPEGood {
		a.Bad = 0
	} else {
		a.Bad++
	}
	return a.Bad >= RetrainAfter
}

// UseARIMA: the ARIMA forecast is trusted while its last WAPE is below
// WAPEUseARIMA (a NaN WAPE, before any score, counts as good).
func (a *Accuracy) UseARIMA() bool { return !(a.LastWAPE >= WAPEUseARIMA) }

// LinearFallback fits a least-squares line to the window (1-s samples,
// oldest first) and extrapolates it LinearHorizonS seconds from the last
// sample, never below 0.
func LinearFallback(window []float64) []float64 {
	n := float64(len(window))
	if n == 0 {
		return nil
	}
	var r Regression
	xs := make([]float64, len(window))
	for i := range xs {
		xs[i] = float64(i)
	}
	r.Add(xs, window)
	out := make([]float64, LinearHorizonS)
	for k := range out {
		y := r.Predict(n - 1 + float64(k))
		if math.IsNaN(y) {
			y = window[len(window)-1]
		}
		out[k] = math.Max(0, y)
	}
	return out
}

// AdaptDowntime is recovery_time.py's self-adaptation: an observed recovery
// longer than the predicted one raises the downtime estimate of that
// direction by 1 s, a shorter one lowers it by 1 s (never below 0).
func AdaptDowntime(estimateS int, observedS, predictedS float64) int {
	if observedS > predictedS {
		return estimateS + 1
	}
	return max(0, estimateS-1)
}
