package monitor

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/streamtwin/streamtwin/models/forecast"
)

// ForecastConfig parameterises the probabilistic-forecast rule
// (docs/reference/monitoring.md §3). Zero Predict, Fetch, Samples and nil
// Levels take the deployed defaults (pipeline_v.0.1.json, darts'
// QuantileRegression); Threshold has none, 0 being a valid one.
type ForecastConfig struct {
	Quantiler forecast.Quantiler
	Scale     Scale      // the metric's min-max scaling; Threshold and the forecasts live in it
	Threshold float64    // std_threshold, scaled units (deployed 0.0475)
	Predict   int        // predict_length, seconds skipped per confident window (420)
	Fetch     int        // fetching_duration, seconds scraped per uncertain window and history length (360)
	Samples   int        // num_samples of the uncertainty forecast (100)
	Levels    []float64  // asked of the Quantiler and interpolated between (forecast.DefaultLevels)
	Rand      *rand.Rand // the draws; seed it for a reproducible run
	// FillMedian stands in for a skipped second with the forecast's median
	// instead of the draw the reference uses (the draw still becomes
	// history): what a monitoring system would plot, without the draw's noise.
	FillMedian bool
	// History is how many of the latest values the Quantiler gets (default
	// Fetch, the reference's); a seasonal model needs more than a season.
	History int
	// Prior are values before second 0 the monitoring system already holds
	// (the training part's last ones), oldest first: with at least Fetch of
	// them the rule forecasts from the start instead of fetching first.
	Prior []float64
}

// ForecastRule is the reference's adaptive-monitoring rule for one metric:
// scrape the first Fetch seconds; then, at each window, forecast Predict
// steps from the last Fetch values it holds (scaled by Scale), draw Samples
// values per step and, if the draws' spread (the mean over steps of the std
// over samples) exceeds Threshold, scrape the next Fetch seconds; else skip
// Predict seconds and stand in for them with one more draw per step (mapped
// back by Scale), which also becomes history — so confident windows chain,
// each forecasting from the last one's draw.
//
// The std is the population one (ddof 0, numpy's default; the reference
// names no other); a NaN std fetches, as the reference does. A Quantiler
// error (or a malformed answer) also fetches — with no forecast there is
// nothing to stand in for the metric — and is counted (QuantilerErrors).
// The reference's fetching_offset (10 s of Prometheus target discovery) is
// not modelled: windows abut.
type ForecastRule struct {
	c       ForecastConfig
	started bool
	seen    int       // scraped points consumed
	hist    []float64 // scaled history; the last c.Fetch of it count
	scratch []float64 // the history handed to the Quantiler
	knots   []float64 // 0, levels…, 1
	vals    []float64 // q0, q0, q1, …, qm−1, qm−1 for one step
	slopes  []float64 // of the m+1 segments between them
	nErr    int
	lastErr error
	std     float64 // of the last decision
}

// NewForecastRule validates c, fills its defaults and returns the rule.
func NewForecastRule(c ForecastConfig) (*ForecastRule, error) {
	c.Predict = cmp.Or(c.Predict, 420)
	c.Fetch = cmp.Or(c.Fetch, 360)
	c.Samples = cmp.Or(c.Samples, 100)
	c.History = cmp.Or(c.History, c.Fetch)
	if c.Levels == nil {
		c.Levels = forecast.DefaultLevels
	}
	switch {
	case c.Quantiler == nil:
		return nil, fmt.Errorf("monitor: forecast rule without a Quantiler")
	case c.Rand == nil:
		return nil, fmt.Errorf("monitor: forecast rule without a *rand.Rand for its draws")
	case !(c.Scale.Max > c.Scale.Min) || math.IsInf(c.Scale.Max-c.Scale.Min, 0):
		return nil, fmt.Errorf("monitor: forecast rule scale [%g, %g], want finite Min < Max", c.Scale.Min, c.Scale.Max)
	case !(c.Threshold >= 0):
		return nil, fmt.Errorf("monitor: forecast rule std threshold %g, want ≥ 0", c.Threshold)
	case c.Predict < 1 || c.Fetch < 1 || c.Samples < 1 || c.History < 1:
		return nil, fmt.Errorf("monitor: forecast rule predict %d, fetch %d, samples %d, history %d; want ≥ 1", c.Predict, c.Fetch, c.Samples, c.History)
	case len(c.Levels) == 0:
		return nil, fmt.Errorf("monitor: forecast rule without quantile levels")
	}
	for i, l := range c.Levels {
		if !(l > 0 && l < 1) || (i > 0 && !(l > c.Levels[i-1])) {
			return nil, fmt.Errorf("monitor: forecast rule levels %v, want strictly increasing in (0, 1)", c.Levels)
		}
	}
	c.Levels = append([]float64(nil), c.Levels...)
	m := len(c.Levels)
	r := &ForecastRule{
		c:       c,
		std:     math.NaN(),
		hist:    make([]float64, 0, 2*c.History),
		scratch: make([]float64, 0, c.History),
		knots:   make([]float64, m+2),
		vals:    make([]float64, m+2),
		slopes:  make([]float64, m+1),
	}
	for _, v := range c.Prior[max(0, len(c.Prior)-c.History):] {
		r.push(c.Scale.Unit(v))
	}
	r.started = len(c.Prior) >= c.Fetch
	copy(r.knots[1:], c.Levels)
	r.knots[m+1] = 1
	return r, nil
}

// QuantilerErrors is how many windows were fetched because the Quantiler
// failed, and the last failure.
func (r *ForecastRule) QuantilerErrors() (int, error) { return r.nErr, r.lastErr }

// Std is the mean std of the last window's draws, scaled units: what was
// compared with the threshold; NaN before the first forecast or when it failed.
func (r *ForecastRule) Std() float64 { return r.std }

// Next implements Sampler.
func (r *ForecastRule) Next(now int, scraped []Point) Step {
	for _, p := range scraped[r.seen:] {
		r.push(r.c.Scale.Unit(p.V))
	}
	r.seen = len(scraped)
	if !r.started {
		r.started = true
		return Step{Scrape: r.c.Fetch}
	}
	r.scratch = append(r.scratch[:0], r.window()...)
	q, err := r.c.Quantiler.Quantiles(r.scratch, r.c.Predict, r.c.Levels)
	if err == nil {
		err = r.checkShape(q)
	}
	if err != nil {
		r.std = math.NaN()
		r.nErr++
		r.lastErr = fmt.Errorf("monitor: %s at second %d: %w", r.c.Quantiler.Name(), now, err)
		return Step{Scrape: r.c.Fetch}
	}
	if r.std = r.meanStd(q); !(r.std <= r.c.Threshold) {
		return Step{Scrape: r.c.Fetch}
	}
	fill := make([]float64, r.c.Predict)
	for k := range fill {
		r.setStep(q, k)
		u := r.draw()
		r.push(u)
		if r.c.FillMedian {
			u = r.at(0.5)
		}
		fill[k] = r.c.Scale.Value(u)
	}
	return Step{Skip: r.c.Predict, Fill: fill}
}

func (r *ForecastRule) checkShape(q [][]float64) error {
	if len(q) != len(r.c.Levels) {
		return fmt.Errorf("%d quantile rows for %d levels", len(q), len(r.c.Levels))
	}
	for i, row := range q {
		if len(row) < r.c.Predict {
			return fmt.Errorf("level %g has %d steps, want %d", r.c.Levels[i], len(row), r.c.Predict)
		}
	}
	return nil
}

// push appends a scaled value to the history, sliding the last History of it
// to the front when the buffer is full: amortised O(1), no allocation.
func (r *ForecastRule) push(u float64) {
	if len(r.hist) == cap(r.hist) {
		r.hist = append(r.hist[:0], r.window()...)
	}
	r.hist = append(r.hist, u)
}

func (r *ForecastRule) window() []float64 {
	return r.hist[max(0, len(r.hist)-r.c.History):]
}

// meanStd is the mean over the Predict steps of the population std of
// Samples draws per step. The sums are of draws minus the step's first
// quantile: equal quantiles give exactly 0, and the shift keeps the
// one-pass variance free of cancellation (draws lie between the quantiles).
func (r *ForecastRule) meanStd(q [][]float64) float64 {
	sum, n := 0.0, float64(r.c.Samples)
	for k := 0; k < r.c.Predict; k++ {
		r.setStep(q, k)
		shift := r.vals[0]
		s1, s2 := 0.0, 0.0
		for range r.c.Samples {
			y := r.draw() - shift
			s1 += y
			s2 += y * y
		}
		sum += math.Sqrt(max(0, s2-s1*s1/n) / n)
	}
	return sum / float64(r.c.Predict)
}

// setStep loads step k's quantile function: the knots' values q_first,
// q_first, q_i…, q_last, q_last and the slope of each segment, so a draw
// costs no division.
func (r *ForecastRule) setStep(q [][]float64, k int) {
	m := len(q)
	r.vals[0] = q[0][k]
	for i := range q {
		r.vals[i+1] = q[i][k]
	}
	r.vals[m+1] = q[m-1][k]
	for j := range m + 1 {
		r.slopes[j] = (r.vals[j+1] - r.vals[j]) / (r.knots[j+1] - r.knots[j])
	}
}

// draw is one sample of the loaded step as darts' QuantileRegression.sample
// draws it: u ~ U(0, 1), linear interpolation through (0, q_first),
// (level_i, q_i)…, (1, q_last); the segment is the one after the levels
// below u (darts' left_idx = Σ[u > level]). Like darts it neither sorts
// crossing quantiles nor extrapolates past the outer levels.
func (r *ForecastRule) draw() float64 { return r.at(r.c.Rand.Float64()) }

// at is the loaded step's quantile function at u.
func (r *ForecastRule) at(u float64) float64 {
	j := 0
	for _, l := range r.knots[1 : len(r.knots)-1] {
		// j += u > l, branch-free: u is random, so a branch mispredicts
		// often and dominated the replay's time.
		j += int(math.Float64bits(l-u) >> 63)
	}
	return r.vals[j] + (u-r.knots[j])*r.slopes[j]
}
