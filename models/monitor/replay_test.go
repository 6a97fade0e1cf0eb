package monitor

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// scripted returns its steps in order, then skips to the end.
type scripted struct {
	steps []Step
	nows  []int
}

func (s *scripted) Next(now int, _ []Point) Step {
	s.nows = append(s.nows, now)
	if len(s.steps) == 0 {
		return Step{Skip: 1 << 30}
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	return st
}

func closeTo(a, b, tol float64) bool {
	return a == b || math.Abs(a-b) <= tol || (math.IsNaN(a) && math.IsNaN(b))
}

func closeAll(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !closeTo(a[i], b[i], tol) {
			return false
		}
	}
	return true
}

func TestReplay(t *testing.T) {
	nan := math.NaN()
	truth := []float64{1, 5, 2, 8, 4, 0, 6}
	cases := []struct {
		name      string
		s         Sampler
		scraped   []int // seconds
		nows      []int // nil: not checked
		recon     []float64
		decisions int
	}{
		// Scraped 0, 3, 6; between them a straight line:
		// 1 + (8−1)·1/3, 1 + 7·2/3; 8 + (6−8)/3, 8 − 2·2/3.
		{"fixed 3 s", Fixed{3}, []int{0, 3, 6}, nil,
			[]float64{1, 1 + 7.0/3, 1 + 14.0/3, 8, 8 - 2.0/3, 8 - 4.0/3, 6}, 3},
		// Scraped 0, 4; seconds 5 and 6 hold 4, the last scraped value.
		{"fixed 4 s holds the last value", Fixed{4}, []int{0, 4}, nil,
			[]float64{1, 1 + 3.0/4, 1 + 6.0/4, 1 + 9.0/4, 4, 4, 4}, 2},
		{"fixed 1 s", Fixed{1}, []int{0, 1, 2, 3, 4, 5, 6}, nil, truth, 7},
		// Scrape 0–1; fill 2–3; skip 4 without fill: between 5 (s 1) and
		// 0 (s 5), at 3/4: 5 − 5·3/4 = 1.25; scrape 5; the fill of 3 is cut
		// at the end after one second.
		{"fill, interpolation between scraped, cut at the end",
			&scripted{steps: []Step{{Scrape: 2}, {Skip: 2, Fill: []float64{10, 11}}, {Skip: 1}, {Scrape: 1}, {Skip: 3, Fill: []float64{7, 7, 7}}}},
			[]int{0, 1, 5}, []int{0, 2, 4, 5, 6}, []float64{1, 5, 10, 11, 1.25, 0, 7}, 5},
		// Nothing before second 2: hold the first scraped value backwards.
		{"hold the first scraped value backwards",
			&scripted{steps: []Step{{Skip: 2}, {Scrape: 1}}}, []int{2}, []int{0, 2, 3},
			[]float64{2, 2, 2, 2, 2, 2, 2}, 3},
		{"nothing scraped", &scripted{}, nil, []int{0},
			[]float64{nan, nan, nan, nan, nan, nan, nan}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Replay(truth, c.s)
			var got []int
			for sec, ok := range r.Scraped {
				if ok {
					got = append(got, sec)
				}
			}
			if !slices.Equal(got, c.scraped) || r.Count != len(c.scraped) {
				t.Errorf("scraped %v (count %d), want %v", got, r.Count, c.scraped)
			}
			if want := 100 * float64(len(c.scraped)) / 7; r.Transmitted() != want {
				t.Errorf("transmitted %g %%, want %g", r.Transmitted(), want)
			}
			if s, ok := c.s.(*scripted); ok && c.nows != nil && !slices.Equal(s.nows, c.nows) {
				t.Errorf("Next called at %v, want %v", s.nows, c.nows)
			}
			if !closeAll(r.Recon, c.recon, 1e-12) {
				t.Errorf("recon %v, want %v", r.Recon, c.recon)
			}
			if r.Decisions != c.decisions {
				t.Errorf("%d decisions, want %d", r.Decisions, c.decisions)
			}
		})
	}
}

// pointsSeen checks the points Next receives: every scraped point so far,
// oldest first, and nothing else.
type pointsSeen struct {
	t     *testing.T
	truth []float64
	last  int
}

func (p *pointsSeen) Next(now int, scraped []Point) Step {
	if len(scraped) != now {
		p.t.Errorf("at %d: %d points, want %d", now, len(scraped), now)
	}
	for i, pt := range scraped {
		if pt != (Point{T: i, V: p.truth[i]}) {
			p.t.Errorf("at %d: point %d is %+v", now, i, pt)
		}
	}
	return Step{Scrape: 2}
}

func TestReplayPassesScrapedPoints(t *testing.T) {
	truth := []float64{3, 1, 4, 1, 5, 9, 2}
	Replay(truth, &pointsSeen{t: t, truth: truth})
}

func TestReplayRejectsBadSteps(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Sampler
	}{
		{"nothing", &scripted{steps: []Step{{}}}},
		{"fixed 0 s", Fixed{0}},
		{"negative skip", &scripted{steps: []Step{{Scrape: 2, Skip: -1}}}},
		{"negative scrape", &scripted{steps: []Step{{Scrape: -1, Skip: 3}}}},
		{"short fill", &scripted{steps: []Step{{Skip: 2, Fill: []float64{1}}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "invalid step at second 0") {
					t.Errorf("panic %v, want an invalid step", r)
				}
			}()
			Replay([]float64{1, 2, 3}, c.s)
		})
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name         string
		truth, recon []float64
		peak         float64
		mae, mape    float64
		missed       int
	}{
		// |err| 1, 0, 1, 5: MAE 7/4. MAPE skips the 0: (1/2 + 0 + 5/5)/3 = 50 %.
		// Peaks above 3: s 1 (recon 4) and s 3 (recon 10), both seen.
		{"both peaks seen", []float64{2, 4, 0, 5}, []float64{1, 4, 1, 10}, 3, 1.75, 50, 0},
		// Runs above 4: s 1–2 (recon 5 at s 2: seen), s 4 (recon 1: missed),
		// s 6–7 at the end (recon 4 is not above 4: missed).
		// |err| 0,2,0,0,5,0,3,3: MAE 13/8; MAPE (2/5 + 0 + 5/6 + 3/7 + 3/7)/5.
		{"missed peaks", []float64{0, 5, 5, 0, 6, 0, 7, 7}, []float64{0, 3, 5, 0, 1, 0, 4, 4}, 4,
			13.0 / 8, 100 * (2.0/5 + 5.0/6 + 6.0/7) / 5, 2},
		{"all zero: no MAPE", []float64{0, 0}, []float64{1, -1}, 10, 1, math.NaN(), 0},
		{"empty", nil, nil, 0, math.NaN(), math.NaN(), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mae, mape, missed := Errors(c.truth, c.recon, c.peak)
			if !closeTo(mae, c.mae, 1e-12) || !closeTo(mape, c.mape, 1e-12) || missed != c.missed {
				t.Errorf("Errors = %g, %g %%, %d missed; want %g, %g %%, %d", mae, mape, missed, c.mae, c.mape, c.missed)
			}
		})
	}
}
