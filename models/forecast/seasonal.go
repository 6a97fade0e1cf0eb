package forecast

import (
	"fmt"

	"github.com/streamtwin/streamtwin/results/statistics"
)

// Seasonal is the seasonal empirical-quantile model: the forecast of a step
// is the empirical distribution of the values at the same phase in the past
// seasons of the history, each season shifted to the recent level.
//
// With the history y[0..n−1], period P, level window W and half-width b,
// step k (1-based) forecasts time n−1+k. Season j (j ≥ 1) is the one j
// periods back; its level is the mean of the W points y[n−jP−W .. n−jP−1]
// (the level window of the recent level L = mean(y[n−W .. n−1]), moved back
// j periods), and it is usable if that window lies in the history
// (n ≥ jP + W). The sample of step k is
//
//	{ y[n−1+k−jP+δ] + (L − level_j) : usable j ≥ ⌈k/P⌉, |δ| ≤ b, 0 ≤ n−1+k−jP+δ ≤ n−1 }
//
// (j ≥ ⌈k/P⌉ keeps the value in the history), and its levels[i] quantile is
// statistics.Quantile of that sample, the tree's one quantile definition
// (type 7). b = 0 takes the exact phase only; b > 0 pools neighbouring
// phases, which gives 2b+1 values per season instead of one when only a few
// seasons fit in the history.
//
// Fallback: a step with no usable season (a history shorter than P + W, or
// k beyond the seasons it holds) takes the quantiles of the last W points,
// unshifted (the recent window's distribution, the same for every such
// step).
//
// With the IoT workload compressed 60× (a "day" of 1,440 s) the seasons only
// come in when the history passed holds more than 1,440 + W points: the
// adaptive-monitoring replay's 300–360 s history alone always falls back.
type Seasonal struct {
	Period    int // P, steps per season (≥ 1)
	Window    int // W, steps of the level window and of the fallback (≥ 1)
	Halfwidth int // b, neighbouring phases pooled on each side (≥ 0)
}

// NewSeasonal returns the seasonal model with period P, level window W and
// half-width b (see Seasonal).
func NewSeasonal(period, window, halfwidth int) (*Seasonal, error) {
	s := &Seasonal{Period: period, Window: window, Halfwidth: halfwidth}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Seasonal) validate() error {
	if s.Period < 1 || s.Window < 1 || s.Halfwidth < 0 {
		return fmt.Errorf("forecast: seasonal model needs period ≥ 1, window ≥ 1 and half-width ≥ 0, got %d, %d, %d", s.Period, s.Window, s.Halfwidth)
	}
	return nil
}

// Name is "seasonal(P,W,b)".
func (s *Seasonal) Name() string {
	return fmt.Sprintf("seasonal(%d,%d,%d)", s.Period, s.Window, s.Halfwidth)
}

// Quantiles implements Quantiler; the history needs at least Window points.
func (s *Seasonal) Quantiles(history []float64, h int, levels []float64) ([][]float64, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	if err := checkQuantileArgs(s.Name(), history, h, levels, s.Window); err != nil {
		return nil, err
	}
	n, P, W, b := len(history), s.Period, s.Window, s.Halfwidth
	// prefix[i] = Σ y[0..i−1], for the window means.
	prefix := make([]float64, n+1)
	for i, v := range history {
		prefix[i+1] = prefix[i] + v
	}
	windowMean := func(end int) float64 { return (prefix[end] - prefix[end-W]) / float64(W) }
	recent := windowMean(n)
	seasons := (n - W) / P // usable j = 1..seasons
	shift := make([]float64, seasons+1)
	for j := 1; j <= seasons; j++ {
		shift[j] = recent - windowMean(n-j*P)
	}

	out := newQuantileRows(len(levels), h)
	var fallback []float64 // quantiles of the last W points, computed on first use
	sample := make([]float64, 0, seasons*(2*b+1))
	for k := 1; k <= h; k++ {
		sample = sample[:0]
		for j := max(1, (k+P-1)/P); j <= seasons; j++ {
			base := n - 1 + k - j*P
			for idx := max(0, base-b); idx <= min(n-1, base+b); idx++ {
				sample = append(sample, history[idx]+shift[j])
			}
		}
		if len(sample) == 0 {
			if fallback == nil {
				last := append([]float64(nil), history[n-W:]...)
				fallback = make([]float64, len(levels))
				for i, l := range levels {
					fallback[i] = statistics.Quantile(last, l)
				}
			}
			for i := range levels {
				out[i][k-1] = fallback[i]
			}
			continue
		}
		for i, l := range levels {
			out[i][k-1] = statistics.Quantile(sample, l)
		}
	}
	return out, nil
}
