package results

import (
	"math"
	"slices"
	"testing"
)

// TestQuantile checks the one quantile definition (linear interpolation
// between order statistics, numpy's default) on values worked out by hand:
// h = p·(n−1), q = s[⌊h⌋] + (h−⌊h⌋)·(s[⌊h⌋+1] − s[⌊h⌋]).
func TestQuantile(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"median of 1..4 between 2 and 3", []float64{1, 2, 3, 4}, 0.5, 2.5}, // nearest rank gave 3
		{"p99 of 1..4", []float64{1, 2, 3, 4}, 0.99, 3.97},                  // h = 2.97
		{"p25 of 1..4", []float64{1, 2, 3, 4}, 0.25, 1.75},                  // h = 0.75
		{"p0 is the minimum", []float64{1, 2, 3, 4}, 0, 1},
		{"p1 is the maximum", []float64{1, 2, 3, 4}, 1, 4},
		{"unsorted input", []float64{4, 1, 3, 2}, 0.5, 2.5},
		{"median of an odd count is the middle", []float64{5, 1, 3}, 0.5, 3},
		{"p99 of 1..10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.99, 9.91}, // h = 8.91
		{"p50 of 1..10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.5, 5.5},
		{"single value, p50", []float64{7}, 0.5, 7},
		{"single value, p99", []float64{7}, 0.99, 7},
		{"ties", []float64{2, 2, 2, 9}, 0.5, 2},
		{"no values give 0", nil, 0.99, 0},
		{"NaN sorts first: median of NaN, 1, 2", []float64{2, nan, 1}, 0.5, 1}, // s = NaN, 1, 2; h = 1
		{"NaN sorts first: p75 of NaN, 1, 2", []float64{2, nan, 1}, 0.75, 1.5},
		{"NaN sorts first: p25 touches it", []float64{2, nan, 1}, 0.25, nan},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xs := slices.Clone(c.xs)
			got := Quantile(xs, c.p)
			if math.IsNaN(c.want) {
				if !math.IsNaN(got) {
					t.Errorf("Quantile(%v, %g) = %g, want NaN", c.xs, c.p, got)
				}
				return
			}
			if math.Abs(got-c.want) > 1e-12 {
				t.Errorf("Quantile(%v, %g) = %.17g, want %g", c.xs, c.p, got, c.want)
			}
			if !slices.IsSortedFunc(xs, func(a, b float64) int {
				switch {
				case a < b || (math.IsNaN(a) && !math.IsNaN(b)):
					return -1
				case a > b || (!math.IsNaN(a) && math.IsNaN(b)):
					return 1
				}
				return 0
			}) {
				t.Errorf("Quantile left %v unsorted", xs)
			}
		})
	}
}

// TestMeanCI checks the one confidence interval (95 %, Student t with
// n − 1 degrees of freedom) on values worked out by hand.
func TestMeanCI(t *testing.T) {
	cases := []struct {
		name            string
		xs              []float64
		mean, half, std float64
	}{
		// t(0.975, 2) = 4.302653; s = 2; 4.302653 · 2 / √3 = 4.968275
		{"10, 12, 14", []float64{10, 12, 14}, 12, 4.968275423687506, 2},
		// t(0.975, 4) = 2.776445; s = √2.5; 2.776445 · √2.5 / √5 = 1.963243
		{"1..5", []float64{1, 2, 3, 4, 5}, 3, 1.9632431614775607, math.Sqrt(2.5)},
		// t(0.975, 9) = 2.262157; s = 3.533962; 2.262157 · s / √10 = 2.528044
		{"ten values", []float64{2, 4, 4, 4, 5, 5, 7, 9, 11, 13}, 6.4, 2.5280442710014617, 3.533962208186286},
		{"equal values", []float64{3, 3, 3}, 3, 0, 0},
		{"one value: no spread, half-width 0", []float64{7}, 7, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, h, s := MeanCI(c.xs)
			if math.Abs(m-c.mean) > 1e-12 || math.Abs(h-c.half) > 1e-9 || math.Abs(s-c.std) > 1e-12 {
				t.Errorf("MeanCI(%v) = %.15g ± %.15g (std %.15g), want %g ± %g (std %g)", c.xs, m, h, s, c.mean, c.half, c.std)
			}
		})
	}
	if m, h, s := MeanCI(nil); !math.IsNaN(m) || !math.IsNaN(h) || !math.IsNaN(s) {
		t.Errorf("MeanCI(no values) = %g ± %g (std %g), want NaN", m, h, s)
	}
}

// TestCIBounds: a non-negative quantity's interval never reaches below 0
// (a latency of 1 ms and 20 000 ms over two replications has a t interval
// of about −117 000 ms to 127 000 ms); any other keeps mean ± half.
func TestCIBounds(t *testing.T) {
	m, h, _ := MeanCI([]float64{1, 20000})
	if m-h >= 0 {
		t.Fatalf("the case does not test anything: mean %g ± %g", m, h)
	}
	cases := []struct {
		name              string
		mean, half        float64
		nonNegative       bool
		wantLow, wantHigh float64
	}{
		{"skewed latency clamped", m, h, true, 0, m + h},
		{"signed quantity kept", m, h, false, m - h, m + h},
		{"interval above 0 untouched", 10, 2, true, 8, 12},
		{"no interval", 7, 0, true, 7, 7},
	}
	for _, c := range cases {
		lo, hi := CIBounds(c.mean, c.half, c.nonNegative)
		if lo != c.wantLow || hi != c.wantHigh {
			t.Errorf("%s: CIBounds(%g, %g, %v) = [%g, %g], want [%g, %g]", c.name, c.mean, c.half, c.nonNegative, lo, hi, c.wantLow, c.wantHigh)
		}
	}
	table := &Table{Rows: 2, Names: []string{"latency_p99_ms"}, Floats: map[string][]float64{"latency_p99_ms": {1, 20000}}}
	stats, err := SummarizeRuns(table, nil)
	if err != nil || len(stats) != 1 {
		t.Fatalf("SummarizeRuns: %v, %d stats", err, len(stats))
	}
	if stats[0].CILow != 0 {
		t.Errorf("SummarizeRuns: latency ci95_low = %g, want 0 (clamped)", stats[0].CILow)
	}
}
