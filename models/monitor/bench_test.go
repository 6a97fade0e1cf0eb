package monitor

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/streamtwin/streamtwin/models/forecast"
)

// cheapQ is a persistence forecaster with a band from the history's mean
// absolute step change d (level l at step k: last + 4·(l − 0.5)·d·√(1 +
// k/60)), reusing its answer: it costs O(len(history) + h·levels), so the
// benchmark measures the rule and the replay. On week() it fetches about
// 70 % of the seconds over the 20 thresholds.
type cheapQ struct{ out [][]float64 }

func (*cheapQ) Name() string { return "cheap" }

func (c *cheapQ) Quantiles(h []float64, steps int, levels []float64) ([][]float64, error) {
	d := 0.0
	for i := 1; i < len(h); i++ {
		d += math.Abs(h[i] - h[i-1])
	}
	d /= float64(len(h) - 1)
	if len(c.out) != len(levels) || len(c.out[0]) != steps {
		c.out = make([][]float64, len(levels))
		for i := range c.out {
			c.out[i] = make([]float64, steps)
		}
	}
	for i, l := range levels {
		for k := range steps {
			c.out[i][k] = h[len(h)-1] + 4*(l-0.5)*d*math.Sqrt(1+float64(k)/60)
		}
	}
	return c.out, nil
}

// week is 10 080 s of a metric in [0, 1]: a daily (1 440 s) wave and noise.
func week(seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := make([]float64, 10080)
	for t := range w {
		w[t] = 0.5 + 0.3*math.Sin(2*math.Pi*float64(t)/1440) + 0.01*rng.NormFloat64()
	}
	return w
}

// BenchmarkReplayWeek is issue 23's budget without the forecaster: a week
// of decisions for 4 metrics × 20 thresholds (the reference's
// linspace(0.005, 0.05)), deployed defaults; one op is the 80 replays.
func BenchmarkReplayWeek(b *testing.B) {
	var truths [4][]float64
	for m := range truths {
		truths[m] = week(uint64(m))
	}
	b.ReportAllocs()
	for b.Loop() {
		scraped := 0
		for m, truth := range truths {
			for i := range 20 {
				r, err := NewForecastRule(ForecastConfig{Quantiler: &cheapQ{}, Scale: Scale{0, 1},
					Threshold: 0.005 + 0.045*float64(i)/19, Rand: rand.New(rand.NewPCG(uint64(m), uint64(i)))})
				if err != nil {
					b.Fatal(err)
				}
				scraped += Replay(truth, r).Count
			}
		}
		b.ReportMetric(100*float64(scraped)/float64(80*10080), "%transmitted")
	}
}

var flatAnswer, _ = flat(0.5, 0.5, 0.5)(0, 420, nil)

// fixedQ answers out whatever the history, allocating nothing.
type fixedQ struct{ out [][]float64 }

func (fixedQ) Name() string                                               { return "fixed" }
func (f fixedQ) Quantiles([]float64, int, []float64) ([][]float64, error) { return f.out, nil }

// TestForecastRuleAllocs pins the allocation-light path: a decision
// allocates nothing but its Fill (the Quantiler's own aside).
func TestForecastRuleAllocs(t *testing.T) {
	for _, c := range []struct {
		name string
		q    forecast.Quantiler
		want float64
	}{
		{"fetch", &cheapQ{}, 0}, // the band is wide, the threshold 0.01
		{"skip", fixedQ{flatAnswer}, 1},
	} {
		r, err := NewForecastRule(ForecastConfig{Quantiler: c.q, Scale: Scale{0, 1}, Threshold: 0.01,
			Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		pts := make([]Point, 360)
		for i := range pts {
			pts[i] = Point{i, float64(i%7) / 10}
		}
		r.Next(0, nil)
		r.Next(360, pts) // warms the scratch and the Quantiler's answer
		if got := testing.AllocsPerRun(20, func() { r.Next(360, pts) }); got != c.want {
			t.Errorf("%s: %g allocations per decision, want %g", c.name, got, c.want)
		}
	}
}
