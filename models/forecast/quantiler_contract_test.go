package forecast

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// syntheticMetric is a host-metric-like series: 25 + 5·sin(2πt/period) plus
// AR(1) noise (φ 0.8, σ 0.5).
func syntheticMetric(seed uint64, n, period int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 23))
	y := make([]float64, n)
	x := 0.0
	for t := range y {
		x = 0.8*x + 0.5*rng.NormFloat64()
		y[t] = 25 + 5*math.Sin(2*math.Pi*float64(t)/float64(period)) + x
	}
	return y
}

// quantilerCase is a Quantiler of the contract test and benchmark, and the
// shortest history it accepts.
type quantilerCase struct {
	name   string
	q      Quantiler
	minLen int
}

// quantilerCases fits every implementation on 3,000 points of
// syntheticMetric with period 60.
func quantilerCases(tb testing.TB) []quantilerCase {
	tb.Helper()
	train := syntheticMetric(1, 3000, 60)
	must := func(q Quantiler, err error) Quantiler {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return q
	}
	arima201 := must(NewARIMAQuantiler(train, 2, 0, 1))
	arima111 := must(NewARIMAQuantiler(train, 1, 1, 1))
	psi := must(NewQuantReg(train, 5, DefaultLevels)).(*QuantReg)
	sqrtK := *psi
	sqrtK.Widen = WidenSqrtK
	return []quantilerCase{
		{"arima(2,0,1)", arima201, 4},
		{"arima(1,1,1)", arima111, 4},
		{"seasonal(60,30,2)", must(NewSeasonal(60, 30, 2)), 30},
		{"seasonal(1440,60,2)", must(NewSeasonal(1440, 60, 2)), 60},
		{"quantreg(5)", psi, 5},
		{"quantreg(5)/sqrtk", &sqrtK, 5},
	}
}

// TestQuantilerContract: every implementation returns len(levels) rows of
// h finite values, non-decreasing in the level at every step, the same on a
// second call, without touching the history; it accepts its shortest
// history and refuses one point less, h < 1, bad levels and non-finite
// history.
func TestQuantilerContract(t *testing.T) {
	history := syntheticMetric(2, 360, 60)
	for _, c := range quantilerCases(t) {
		t.Run(c.name, func(t *testing.T) {
			for _, h := range []int{1, 7, 420} {
				for _, levels := range [][]float64{DefaultLevels, {0.5}} {
					keep := slices.Clone(history)
					out, err := c.q.Quantiles(history, h, levels)
					if err != nil {
						t.Fatalf("h %d levels %v: %v", h, levels, err)
					}
					if !slices.Equal(keep, history) {
						t.Fatal("Quantiles modified the history")
					}
					if len(out) != len(levels) {
						t.Fatalf("h %d: %d rows for %d levels", h, len(out), len(levels))
					}
					for i := range out {
						if len(out[i]) != h {
							t.Fatalf("h %d: row %d has %d steps", h, i, len(out[i]))
						}
						for k, v := range out[i] {
							if math.IsNaN(v) || math.IsInf(v, 0) {
								t.Fatalf("h %d: out[%d][%d] = %v", h, i, k, v)
							}
							if i > 0 && v < out[i-1][k] {
								t.Fatalf("h %d step %d: level %v gives %v < level %v's %v", h, k+1, levels[i], v, levels[i-1], out[i-1][k])
							}
						}
					}
					again, err := c.q.Quantiles(history, h, levels)
					if err != nil {
						t.Fatal(err)
					}
					for i := range out {
						if !slices.Equal(out[i], again[i]) {
							t.Fatalf("h %d: second call differs at level %v", h, levels[i])
						}
					}
				}
			}
			short := history[len(history)-c.minLen:]
			if _, err := c.q.Quantiles(short, 10, DefaultLevels); err != nil {
				t.Errorf("%d points (the minimum): %v", c.minLen, err)
			}
			if _, err := c.q.Quantiles(short[1:], 10, DefaultLevels); err == nil {
				t.Errorf("%d points (one short): no error", c.minLen-1)
			}
			if _, err := c.q.Quantiles(nil, 10, DefaultLevels); err == nil {
				t.Error("no history: no error")
			}
			for _, levels := range [][]float64{nil, {0.9, 0.1}, {0.5, 0.5}, {0, 0.5}, {0.5, 1}, {math.NaN()}} {
				if _, err := c.q.Quantiles(history, 10, levels); err == nil {
					t.Errorf("levels %v: no error", levels)
				}
			}
			if _, err := c.q.Quantiles(history, 0, DefaultLevels); err == nil {
				t.Error("h 0: no error")
			}
			bad := slices.Clone(history)
			bad[100] = math.Inf(1)
			if _, err := c.q.Quantiles(bad, 10, DefaultLevels); err == nil {
				t.Error("+Inf in the history: no error")
			}
			if c.q.Name() == "" {
				t.Error("empty Name()")
			}
		})
	}
}

// BenchmarkQuantilers is the cost of one Quantiles call as the monitoring
// replay makes it: history 360, h 420, DefaultLevels. The seasonal model
// with a 1,440-step period falls back on a 360-step history;
// seasonal(1440,60,2)/history4320 is what it costs once the history holds
// three such seasons.
func BenchmarkQuantilers(b *testing.B) {
	history := syntheticMetric(2, 360, 60)
	cases := quantilerCases(b)
	long := syntheticMetric(3, 4320, 1440)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.q.Quantiles(history, 420, DefaultLevels); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	s, _ := NewSeasonal(1440, 60, 2)
	b.Run("seasonal(1440,60,2)/history4320", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Quantiles(long, 420, DefaultLevels); err != nil {
				b.Fatal(err)
			}
		}
	})
}
