package figures

import (
	"math"
	"testing"

	"gonum.org/v1/plot"
)

// TestQuantileDiffs: the overview's differences from the baseline, for a
// hand-made pair: the baseline 1…10, the variant 3 more except a tail of
// 100. Quantiles are type 7 (statistics.Quantile): at h = q·(n−1) between
// the sorted values.
func TestQuantileDiffs(t *testing.T) {
	base := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	variant := []float64{4, 5, 6, 7, 8, 9, 10, 11, 12, 100}
	got := quantileDiffs([][]float64{base, variant}, 0)
	// p50: 8.5 − 5.5; p90: (12 + 0.1·88) − 9.1; p99: (12 + 0.91·88) − 9.91;
	// p99.9: (12 + 0.991·88) − 9.991; max: 100 − 10.
	want := []float64{3, 11.7, 82.17, 89.217, 90}
	for j, l := range diffLevels {
		if got[0][j] != 0 {
			t.Errorf("baseline %s: %g, want 0", l.label, got[0][j])
		}
		if math.Abs(got[1][j]-want[j]) > 1e-9 {
			t.Errorf("variant %s: %g, want %g", l.label, got[1][j], want[j])
		}
	}
	// Against another baseline the signs turn.
	back := quantileDiffs([][]float64{base, variant}, 1)
	for j := range diffLevels {
		if math.Abs(back[0][j]+want[j]) > 1e-9 {
			t.Errorf("baseline 1, %s: %g, want %g", diffLevels[j].label, back[0][j], -want[j])
		}
	}
	// The panel: the quantiles as the x axis' levels, and the y axis
	// spanning every difference and the baseline's zero line.
	p, ratio := latencyDiffs([][]float64{base, variant}, 0, "Δ latency (ms)", "latency ÷ base's (×)")
	if ratio {
		t.Error("ratios drawn for a variant at most 10 times the baseline")
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels = append(labels, tk.Label)
	}
	if len(labels) != 5 || labels[0] != "p50" || labels[4] != "max" {
		t.Errorf("x labels %q, want p50 … max", labels)
	}
	if !(p.Y.Min < 0 && p.Y.Max > 90) {
		t.Errorf("y axis %g…%g, want 0 and 90 inside", p.Y.Min, p.Y.Max)
	}
	if _, ok := p.Y.Scale.(plot.LinearScale); !ok {
		t.Errorf("y scale %T, want linear: differences can be negative", p.Y.Scale)
	}
}

// TestQuantileRatios: a run more than 10 times the baseline at some
// quantile turns the overview into ratios on a log axis: 100 against 10 at
// the maximum is 10 (not yet), 1000 is 100.
func TestQuantileRatios(t *testing.T) {
	base := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	near := []float64{2, 3, 4, 5, 6, 7, 8, 9, 10, 100}
	far := []float64{2, 3, 4, 5, 6, 7, 8, 9, 10, 1000}
	r, ok := quantileRatios([][]float64{base, far}, 0)
	if !ok || r[1][0] != 6.5/5.5 || r[1][4] != 100 {
		t.Errorf("ratios %v (%v), want p50 6.5/5.5 and max 100", r, ok)
	}
	if _, ratio := latencyDiffs([][]float64{base, near}, 0, "d", "r"); ratio {
		t.Error("a maximum 10 times the baseline's: want differences")
	}
	p, ratio := latencyDiffs([][]float64{base, far}, 0, "d", "r")
	if !ratio || p.Y.Label.Text != "r" {
		t.Errorf("a maximum 100 times the baseline's: ratio %v, label %q, want ratios", ratio, p.Y.Label.Text)
	}
	if _, ok := p.Y.Tick.Marker.(decadeTicks); !ok || math.Abs(p.Y.Max-math.Log10(130)) > 1e-9 {
		t.Errorf("y axis %T up to %g, want the log10 of the ratios up to 100 × 1.3", p.Y.Tick.Marker, p.Y.Max)
	}
	if _, ok := quantileRatios([][]float64{{0, 0, 1}, far}, 0); ok {
		t.Error("a baseline quantile of 0 has no ratio")
	}
}
