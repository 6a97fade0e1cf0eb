package monitor

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/models/forecast"
)

// stubQ answers each call with answer(call, h, levels) and keeps a copy of
// every history it was given.
type stubQ struct {
	answer func(call, h int, levels []float64) ([][]float64, error)
	hists  [][]float64
	hs     []int
	levels [][]float64
}

func (s *stubQ) Name() string { return "stub" }

func (s *stubQ) Quantiles(history []float64, h int, levels []float64) ([][]float64, error) {
	s.hists = append(s.hists, slices.Clone(history))
	s.hs = append(s.hs, h)
	s.levels = append(s.levels, levels)
	return s.answer(len(s.hists), h, levels)
}

// flat returns per-level values, the same at every step.
func flat(qs ...float64) func(int, int, []float64) ([][]float64, error) {
	return func(_, h int, _ []float64) ([][]float64, error) {
		out := make([][]float64, len(qs))
		for i, q := range qs {
			out[i] = make([]float64, h)
			for k := range out[i] {
				out[i][k] = q
			}
		}
		return out, nil
	}
}

// script is a rand.Source whose Float64s are the given dyadic u, in turn:
// rand.Rand.Float64 is (Uint64()<<11>>11)/2⁵³.
type script struct {
	u []float64
	i int
}

func (s *script) Uint64() uint64 {
	u := s.u[s.i%len(s.u)]
	s.i++
	return uint64(u * (1 << 53))
}

func TestForecastRuleDecisions(t *testing.T) {
	// The spread of (b): q0.1 = 0, q0.5 = 0.5, q0.9 = 1 is Q(u) = 0 below
	// 0.1, 1.25·(u − 0.1) on [0.1, 0.9], 1 above. With u = 1/32, 1/4, 3/4,
	// 31/32 the 4 draws are 0, 0.1875, 0.8125, 1: mean 0.5, squared
	// deviations 0.25, 0.09765625, 0.09765625, 0.25, population variance
	// 0.6953125/4 = 0.173828125, std 0.416927 (the sample std, /3, would be
	// 0.481428). Both steps see the same 4 draws, so the mean std is 0.416927;
	// the fill draws are the next u, 1/32 and 1/4: 0 and 0.1875 scaled, 10
	// and 13.75 on [10, 30].
	u := []float64{1.0 / 32, 0.25, 0.75, 31.0 / 32}
	const spreadStd = 0.41692705
	cases := []struct {
		name   string
		q      []float64
		thr    float64
		rng    rand.Source
		want   Step
		std    float64
		stdTol float64
	}{
		// (a) equal quantiles: every draw is 0.25, std exactly 0, and 0 is
		// not above a threshold of 0; the fill is 10 + 0.25·20 = 15.
		{"equal quantiles skip", []float64{0.25, 0.25, 0.25}, 0, rand.NewPCG(1, 2),
			Step{Skip: 2, Fill: []float64{15, 15}}, 0, 0},
		{"spread above threshold fetches", []float64{0, 0.5, 1}, 0.41, &script{u: u},
			Step{Scrape: 3}, spreadStd, 1e-6},
		// 0.45 lies between the population and the sample std.
		{"spread below threshold skips", []float64{0, 0.5, 1}, 0.45, &script{u: u},
			Step{Skip: 2, Fill: []float64{10, 13.75}}, spreadStd, 1e-6},
		{"NaN quantile fetches", []float64{0, math.NaN(), 1}, 10, rand.NewPCG(1, 2),
			Step{Scrape: 3}, math.NaN(), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := &stubQ{answer: flat(c.q...)}
			r, err := NewForecastRule(ForecastConfig{Quantiler: q, Scale: Scale{Min: 10, Max: 30},
				Threshold: c.thr, Predict: 2, Fetch: 3, Samples: 4, Rand: rand.New(c.rng)})
			if err != nil {
				t.Fatal(err)
			}
			if st := r.Next(0, nil); !stepEqual(st, Step{Scrape: 3}) {
				t.Fatalf("first step %+v, want the initial fetch", st)
			}
			pts := []Point{{0, 10}, {1, 20}, {2, 30}}
			st := r.Next(3, pts)
			if !stepEqual(st, c.want) && !(st.Skip == c.want.Skip && closeAll(st.Fill, c.want.Fill, 1e-12)) {
				t.Errorf("step %+v, want %+v", st, c.want)
			}
			if !closeTo(r.Std(), c.std, c.stdTol) {
				t.Errorf("mean std %.8f, want %.8f", r.Std(), c.std)
			}
			if want := []float64{0, 0.5, 1}; !slices.Equal(q.hists[0], want) {
				t.Errorf("history %v, want the scaled points %v", q.hists[0], want)
			}
		})
	}
}

// TestForecastRuleStdConverges checks the sampling against the distribution
// of (b) with a real generator. Q(U) is 0 w.p. 0.1, uniform on [0, 1] w.p.
// 0.8, 1 w.p. 0.1: mean 0.5, E[X²] = 0.8/3 + 0.1 = 0.366667, variance
// 7/60, std √(7/60) = 0.341565.
func TestForecastRuleStdConverges(t *testing.T) {
	sigma := math.Sqrt(7.0 / 60)
	t.Run("many draws", func(t *testing.T) {
		// 20 000 draws per step: the std of one step's std is about
		// σ·√((κ−1)/4n) = 0.001 (kurtosis κ = 0.0225/(7/60)² = 1.653), of
		// the mean over 5 steps 0.00044; ddof 0 biases it by σ/2n, nothing.
		r, err := NewForecastRule(ForecastConfig{Quantiler: &stubQ{answer: flat(0, 0.5, 1)},
			Scale: Scale{0, 1}, Predict: 5, Fetch: 1, Samples: 20000, Rand: rand.New(rand.NewPCG(3, 4))})
		if err != nil {
			t.Fatal(err)
		}
		r.Next(0, nil)
		r.Next(1, []Point{{0, 0.5}})
		if math.Abs(r.Std()-sigma) > 0.003 {
			t.Errorf("mean std %.5f, want √(7/60) = %.5f ± 0.003", r.Std(), sigma)
		}
	})
	// The deployed 100 draws over 420 steps: the population std of 100
	// draws averages σ·√(99/100)·(1 − (κ−1)/800) = 0.9942σ = 0.33958, with a
	// spread of 0.0138/√420 = 0.0007 over the steps. A threshold 0.97σ
	// (0.3313) is below it, 1.02σ (0.3484) above.
	for _, c := range []struct {
		thr  float64
		skip bool
	}{{0.97 * sigma, false}, {1.02 * sigma, true}} {
		r, err := NewForecastRule(ForecastConfig{Quantiler: &stubQ{answer: flat(0, 0.5, 1)},
			Scale: Scale{0, 1}, Threshold: c.thr, Fetch: 1, Rand: rand.New(rand.NewPCG(5, 6))})
		if err != nil {
			t.Fatal(err)
		}
		r.Next(0, nil)
		st := r.Next(1, []Point{{0, 0.5}})
		if skip := st.Skip == 420; skip != c.skip || math.Abs(r.Std()-0.9942*sigma) > 0.003 {
			t.Errorf("threshold %.4f: step {%d, %d}, std %.5f; want skip %v, std ≈ %.5f",
				c.thr, st.Scrape, st.Skip, r.Std(), c.skip, 0.9942*sigma)
		}
	}
}

// TestForecastRuleChains runs (c) and (d) through a replay. Fetch 4,
// predict 3, truth[i] = i on the scale [0, 10], so scaled i/10:
//   - 0: the initial fetch of seconds 0–3;
//   - 4: history 0, 0.1, 0.2, 0.3; equal quantiles (k+1)/10 at step k: skip
//     4–6 filling 1, 2, 3; the draws 0.1, 0.2, 0.3 become history;
//   - 7: history 0.3, 0.1, 0.2, 0.3 (the last fetched point, then the
//     draws); equal 0.5: skip 7–9 filling 5;
//   - 10: history 0.3, 0.5, 0.5, 0.5; spread 0, 0.5, 1 (std ≈ 0.34, see
//     TestForecastRuleStdConverges, far above 0.01): fetch 10–13;
//   - 14: history 1.0–1.3, the fetched points; an error: fetch 14–17.
func TestForecastRuleChains(t *testing.T) {
	q := &stubQ{answer: func(call, h int, levels []float64) ([][]float64, error) {
		switch call {
		case 1:
			out := make([][]float64, len(levels))
			for i := range out {
				out[i] = []float64{0.1, 0.2, 0.3}
			}
			return out, nil
		case 2:
			return flat(0.5, 0.5, 0.5)(call, h, levels)
		case 3:
			return flat(0, 0.5, 1)(call, h, levels)
		}
		return nil, errors.New("singular")
	}}
	r, err := NewForecastRule(ForecastConfig{Quantiler: q, Scale: Scale{0, 10}, Threshold: 0.01,
		Predict: 3, Fetch: 4, Rand: rand.New(rand.NewPCG(7, 8))})
	if err != nil {
		t.Fatal(err)
	}
	truth := make([]float64, 18)
	for i := range truth {
		truth[i] = float64(i)
	}
	res := Replay(truth, r)
	wantHists := [][]float64{{0, 0.1, 0.2, 0.3}, {0.3, 0.1, 0.2, 0.3}, {0.3, 0.5, 0.5, 0.5}, {1, 1.1, 1.2, 1.3}}
	if len(q.hists) != len(wantHists) {
		t.Fatalf("%d forecasts, want %d", len(q.hists), len(wantHists))
	}
	for i, w := range wantHists {
		if !closeAll(q.hists[i], w, 1e-12) {
			t.Errorf("forecast %d: history %v, want %v", i+1, q.hists[i], w)
		}
	}
	wantRecon := []float64{0, 1, 2, 3, 1, 2, 3, 5, 5, 5, 10, 11, 12, 13, 14, 15, 16, 17}
	if !closeAll(res.Recon, wantRecon, 1e-12) || res.Count != 12 || res.Decisions != 5 {
		t.Errorf("recon %v, %d scraped, %d decisions; want %v, 12, 5", res.Recon, res.Count, res.Decisions, wantRecon)
	}
	if n, err := r.QuantilerErrors(); n != 1 || err == nil || !strings.Contains(err.Error(), "stub at second 14: singular") {
		t.Errorf("QuantilerErrors = %d, %v; want 1, stub at second 14: singular", n, err)
	}
}

// TestForecastRuleDefaults is (d) with the deployed defaults: the first
// call fetches 360 s without forecasting; the next forecasts 420 steps at
// DefaultLevels from those 360 points.
func TestForecastRuleDefaults(t *testing.T) {
	q := &stubQ{answer: flat(0.5, 0.5, 0.5)}
	r, err := NewForecastRule(ForecastConfig{Quantiler: q, Scale: Scale{0, 1}, Threshold: 0.0475, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	pts := make([]Point, 500) // more than a fetch: only the last 360 count
	for i := range pts {
		pts[i] = Point{T: i, V: float64(i) / 1000}
	}
	if st := r.Next(0, nil); !stepEqual(st, Step{Scrape: 360}) || len(q.hists) != 0 {
		t.Fatalf("first step %+v after %d forecasts, want {Scrape: 360} and none", st, len(q.hists))
	}
	st := r.Next(500, pts)
	if st.Scrape != 0 || st.Skip != 420 || len(st.Fill) != 420 || st.Fill[419] != 0.5 {
		t.Errorf("step {%d, %d} with %d fills, want {0, 420} filled with 0.5", st.Scrape, st.Skip, len(st.Fill))
	}
	if h := q.hists[0]; len(h) != 360 || h[0] != 0.14 || h[359] != 0.499 || q.hs[0] != 420 ||
		!slices.Equal(q.levels[0], forecast.DefaultLevels) {
		t.Errorf("forecast from %d points %g…%g, %d steps at %v; want 360 points 0.14…0.499, 420 steps at %v",
			len(h), h[0], h[len(h)-1], q.hs[0], q.levels[0], forecast.DefaultLevels)
	}
}

func TestForecastRuleMalformedAnswer(t *testing.T) {
	for _, c := range []struct {
		name string
		q    [][]float64
	}{
		{"too few levels", [][]float64{{0, 0}, {0, 0}}},
		{"too few steps", [][]float64{{0, 0}, {0}, {0, 0}}},
	} {
		q := &stubQ{answer: func(int, int, []float64) ([][]float64, error) { return c.q, nil }}
		r, err := NewForecastRule(ForecastConfig{Quantiler: q, Scale: Scale{0, 1}, Threshold: 1,
			Predict: 2, Fetch: 1, Rand: rand.New(rand.NewPCG(1, 1))})
		if err != nil {
			t.Fatal(err)
		}
		r.Next(0, nil)
		if st := r.Next(1, []Point{{0, 0}}); !stepEqual(st, Step{Scrape: 1}) {
			t.Errorf("%s: step %+v, want a fetch", c.name, st)
		}
		if n, _ := r.QuantilerErrors(); n != 1 {
			t.Errorf("%s: %d errors, want 1", c.name, n)
		}
	}
}

func TestNewForecastRuleValidates(t *testing.T) {
	ok := func() ForecastConfig {
		return ForecastConfig{Quantiler: &stubQ{}, Scale: Scale{0, 1}, Threshold: 0.02, Rand: rand.New(rand.NewPCG(1, 1))}
	}
	mod := func(f func(*ForecastConfig)) ForecastConfig { c := ok(); f(&c); return c }
	for _, c := range []struct {
		name string
		cfg  ForecastConfig
		err  string // "" for none
	}{
		{"defaults", ok(), ""},
		{"threshold 0", mod(func(c *ForecastConfig) { c.Threshold = 0 }), ""},
		{"five levels", mod(func(c *ForecastConfig) { c.Levels = []float64{0.05, 0.25, 0.5, 0.75, 0.95} }), ""},
		{"no quantiler", mod(func(c *ForecastConfig) { c.Quantiler = nil }), "Quantiler"},
		{"no rand", mod(func(c *ForecastConfig) { c.Rand = nil }), "rand"},
		{"empty scale", mod(func(c *ForecastConfig) { c.Scale = Scale{3, 3} }), "scale"},
		{"negative threshold", mod(func(c *ForecastConfig) { c.Threshold = -0.1 }), "threshold"},
		{"NaN threshold", mod(func(c *ForecastConfig) { c.Threshold = math.NaN() }), "threshold"},
		{"negative predict", mod(func(c *ForecastConfig) { c.Predict = -1 }), "predict"},
		{"empty levels", mod(func(c *ForecastConfig) { c.Levels = []float64{} }), "levels"},
		{"level 1", mod(func(c *ForecastConfig) { c.Levels = []float64{0.5, 1} }), "levels"},
		{"unsorted levels", mod(func(c *ForecastConfig) { c.Levels = []float64{0.5, 0.1} }), "levels"},
	} {
		_, err := NewForecastRule(c.cfg)
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
}

// TestDrawFiveLevels checks the interpolation at the knots and between
// them for five levels, the generalisation of darts' three: the knots are
// (0, −4), (0.05, −4), (0.25, −1), (0.5, 0), (0.75, 2), (0.95, 6), (1, 6).
func TestDrawFiveLevels(t *testing.T) {
	cases := []struct{ u, want float64 }{
		{0, -4}, {0.05, -4}, {0.15, -2.5}, {0.25, -1}, {0.375, -0.5}, {0.5, 0},
		{0.625, 1}, {0.85, 4}, {0.95, 6}, {0.99, 6},
	}
	src := &script{}
	for _, c := range cases {
		src.u = append(src.u, c.u)
	}
	r, err := NewForecastRule(ForecastConfig{Quantiler: &stubQ{}, Scale: Scale{0, 1},
		Levels: []float64{0.05, 0.25, 0.5, 0.75, 0.95}, Rand: rand.New(src)})
	if err != nil {
		t.Fatal(err)
	}
	r.setStep([][]float64{{-4}, {-1}, {0}, {2}, {6}}, 0)
	for _, c := range cases {
		if got := r.draw(); !closeTo(got, c.want, 1e-12) {
			t.Errorf("Q(%g) = %g, want %g", c.u, got, c.want)
		}
	}
}

// With Prior the rule holds history from before second 0: it forecasts at
// once, from the last History values, instead of fetching first.
func TestForecastRulePriorAndHistory(t *testing.T) {
	var got []int
	q := quantilerFunc(func(h []float64, n int, levels []float64) ([][]float64, error) {
		got = append(got, len(h))
		out := make([][]float64, len(levels))
		for i := range out {
			out[i] = make([]float64, n)
		}
		return out, nil
	})
	r, err := NewForecastRule(ForecastConfig{Quantiler: q, Scale: Scale{0, 1}, Threshold: 0.1, Predict: 5, Fetch: 3, History: 4,
		Prior: []float64{0.1, 0.2, 0.3, 0.4, 0.5}, Rand: rand.New(rand.NewPCG(1, 1))})
	if err != nil {
		t.Fatal(err)
	}
	st := r.Next(0, nil)
	if st.Skip != 5 || st.Scrape != 0 || len(got) != 1 || got[0] != 4 {
		t.Errorf("first step %+v with histories %v; want a skip forecast from the 4 latest prior values", st, got)
	}
}

type quantilerFunc func(history []float64, h int, levels []float64) ([][]float64, error)

func (f quantilerFunc) Name() string { return "func" }
func (f quantilerFunc) Quantiles(history []float64, h int, levels []float64) ([][]float64, error) {
	return f(history, h, levels)
}
