package monitor

import (
	"slices"
	"testing"
)

func TestFixed(t *testing.T) {
	for _, c := range []struct {
		interval int
		want     Step
		err      bool
	}{
		{1, Step{Scrape: 1}, false},
		{5, Step{Scrape: 1, Skip: 4}, false},
		{15, Step{Scrape: 1, Skip: 14}, false},
		{60, Step{Scrape: 1, Skip: 59}, false},
		{0, Step{}, true},
		{-3, Step{}, true},
	} {
		f, err := NewFixed(c.interval)
		if (err != nil) != c.err {
			t.Errorf("NewFixed(%d): error %v, want error %v", c.interval, err, c.err)
			continue
		}
		if err == nil {
			if got := f.Next(7, nil); !stepEqual(got, c.want) {
				t.Errorf("Fixed{%d}.Next = %+v, want %+v", c.interval, got, c.want)
			}
		}
	}
	// 60 s over 2 minutes: seconds 0 and 60.
	if r := Replay(make([]float64, 120), Fixed{60}); r.Count != 2 || !r.Scraped[0] || !r.Scraped[60] {
		t.Errorf("Fixed{60} over 120 s scraped %d seconds", r.Count)
	}
}

func stepEqual(a, b Step) bool {
	return a.Scrape == b.Scrape && a.Skip == b.Skip && slices.Equal(a.Fill, b.Fill)
}

// call is one Next: when, what it answered and AdaM's period after it.
type call struct {
	now    int
	step   Step
	period int
}

type adamRecorder struct {
	a     *AdaM
	calls []call
}

func (r *adamRecorder) Next(now int, scraped []Point) Step {
	st := r.a.Next(now, scraped)
	r.calls = append(r.calls, call{now, st, r.a.Period()})
	return st
}

// series returns n seconds of −1 with the given values at the given seconds.
func series(n int, at map[int]float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = -1
	}
	for t, v := range at {
		s[t] = v
	}
	return s
}

func TestAdaMHandComputed(t *testing.T) {
	scrape, hold := Step{Scrape: 1}, func(n int) Step { return Step{Skip: n} }
	cases := []struct {
		name  string
		tmax  int
		truth []float64
		want  []call
	}{{
		// Ten samples, δ = 2, 4, 2, 4, 3 | 3, 3, 3 | 10; defaults α 0.45,
		// β 1, γ 0.9, λ 1, learning 5, TMin 1. (t counts δs.)
		//
		// Learning, α_t = 1 − 1/t, so s1, s2 are the running means of δ, δ²:
		//   t=1 δ 2: s1 2,   s2 4,   σ̂ 0
		//   t=2 δ 4: s1 3,   s2 10,  σ̂ 1
		//   t=3 δ 2: s1 8/3, s2 8,   σ̂ √(8/9) = 0.942809
		//   t=4 δ 4: s1 3,   s2 10,  σ̂ 1
		//   t=5 δ 3: s1 3,   s2 9.8, σ̂ √0.8 = 0.894427
		// T = 1 throughout, so samples 1–7 are at seconds 0–6.
		// t=6..8 δ 3 = μ̂: Z 0, P 1/√(2π) = 0.398942,
		//   α* = 0.45·(1 − 0.398942) = 0.270476; s1 stays 3 and
		//   s2 − 9 shrinks by α*: 0.8 → 0.216381 → 0.058526 → 0.015830, so
		//   σ̂ = √(s2 − 9): 0.465167, 0.241921, 0.125817, each √α* of the last;
		//   c = 1 − (σ̂_{i−1} − σ̂_i)/σ̂_{i−1} = √α* = 0.520073 ≥ 1 − γ = 0.1;
		//   T += round(1 + (0.520073 − 0.1)/0.520073) = round(1.807717) = 2:
		//   T 3 after second 6, 5 after 9, 7 after 14.
		// t=9 δ 10: Z = (10 − 3)/0.125817 = 55.6, P ≈ 0, α = 0.45;
		//   s1 = 0.45·3 + 0.55·10 = 6.85, s2 = 0.45·9.015830 + 0.55·100 = 59.057124,
		//   σ̂ = √(59.057124 − 6.85²) = 3.483479, c = 1 − (3.483479 − 0.125817)/0.125817
		//   = −25.69 < 0.1: T = TMin = 1 after second 21.
		name: "steady then a surprise",
		tmax: 60,
		truth: series(23, map[int]float64{0: 0, 1: 2, 2: 6, 3: 4, 4: 8, 5: 5, 6: 8,
			9: 5, 14: 8, 21: 18, 22: 18}),
		want: []call{
			{0, scrape, 1}, {1, scrape, 1}, {2, scrape, 1}, {3, scrape, 1}, {4, scrape, 1},
			{5, scrape, 1}, {6, scrape, 1},
			{7, hold(2), 3}, {9, scrape, 3},
			{10, hold(4), 5}, {14, scrape, 5},
			{15, hold(6), 7}, {21, scrape, 7},
			{22, scrape, 1},
		},
	}, {
		// A flat metric: δ = 0, σ̂ = 0, so Z = 0 and c = 1 by the guards;
		// after learning T += round(1 + 0.9/1) = 2: 3, 5, then 7 clamped
		// to TMax 6.
		name:  "flat, σ̂ = 0, clamped at TMax",
		tmax:  6,
		truth: series(27, map[int]float64{0: 5, 1: 5, 2: 5, 3: 5, 4: 5, 5: 5, 6: 5, 9: 5, 14: 5, 20: 5, 26: 5}),
		want: []call{
			{0, scrape, 1}, {1, scrape, 1}, {2, scrape, 1}, {3, scrape, 1}, {4, scrape, 1},
			{5, scrape, 1}, {6, scrape, 1},
			{7, hold(2), 3}, {9, scrape, 3},
			{10, hold(4), 5}, {14, scrape, 5},
			{15, hold(5), 6}, {20, scrape, 6},
			{21, hold(5), 6}, {26, scrape, 6},
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := NewAdaM(DefaultAdaM(c.tmax))
			if err != nil {
				t.Fatal(err)
			}
			rec := &adamRecorder{a: a}
			res := Replay(c.truth, rec)
			if len(rec.calls) != len(c.want) {
				t.Errorf("%d calls, want %d: %+v", len(rec.calls), len(c.want), rec.calls)
			}
			for i := range min(len(rec.calls), len(c.want)) {
				g, w := rec.calls[i], c.want[i]
				if g.now != w.now || !stepEqual(g.step, w.step) || g.period != w.period {
					t.Errorf("call %d: at %d %+v, T %d; want at %d %+v, T %d", i, g.now, g.step, g.period, w.now, w.step, w.period)
				}
			}
			for sec, ok := range res.Scraped {
				if ok && c.truth[sec] == -1 {
					t.Errorf("scraped second %d, which the hand computation skips", sec)
				}
			}
		})
	}
}

func TestNewAdaMValidates(t *testing.T) {
	mod := func(f func(*AdaMConfig)) AdaMConfig {
		c := DefaultAdaM(60)
		f(&c)
		return c
	}
	for _, c := range []struct {
		name string
		cfg  AdaMConfig
		ok   bool
	}{
		{"default", DefaultAdaM(60), true},
		{"TMin = TMax", mod(func(c *AdaMConfig) { c.TMax = 1 }), true},
		{"β 0", mod(func(c *AdaMConfig) { c.Beta = 0 }), true},
		{"TMin 0", mod(func(c *AdaMConfig) { c.TMin = 0 }), false},
		{"TMax < TMin", mod(func(c *AdaMConfig) { c.TMin = 5; c.TMax = 4 }), false},
		{"α 1", mod(func(c *AdaMConfig) { c.Alpha = 1 }), false},
		{"β 2", mod(func(c *AdaMConfig) { c.Beta = 2 }), false},
		{"γ 1", mod(func(c *AdaMConfig) { c.Gamma = 1 }), false},
		{"λ 0", mod(func(c *AdaMConfig) { c.Lambda = 0 }), false},
		{"no learning", mod(func(c *AdaMConfig) { c.Learn = 0 }), false},
	} {
		if _, err := NewAdaM(c.cfg); (err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok %v", c.name, err, c.ok)
		}
	}
}
