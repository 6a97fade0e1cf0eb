package forecast

import (
	"testing"
)

// handSeasons is four seasons of period 4: the pattern (0, 10, 20, 10) on
// the levels 0, 100, 150, 300, with +6 and −6 at indices 5 and 6 (their sum
// leaves the level window of season 1 unchanged). Recent level L = 310; the
// season levels j = 1, 2, 3 periods back are 160, 110, 10, so the shifts
// L − level_j are 150, 200, 300.
var handSeasons = []float64{
	0, 10, 20, 10,
	100, 116, 114, 110,
	150, 160, 170, 160,
	300, 310, 320, 310,
}

// TestSeasonalByHand checks the rule of Seasonal (exact phase, b = 0) on
// handSeasons, step by step:
//   - k = 1 (phase 0): y[12] + 150, y[8] + 200, y[4] + 300 = 450, 350, 400;
//     type-7 quantiles of (350, 400, 450): 360, 400, 440.
//   - k = 2 (phase 1): 310 + 150, 160 + 200, 116 + 300 = (360, 416, 460):
//     360 + 0.2·56 = 371.2, 416, 416 + 0.8·44 = 451.2.
//   - k = 5 (phase 0, one period on): seasons j ≥ 2 only, y[12] + 200 and
//     y[8] + 300 = (450, 500): 455, 475, 495.
//   - k = 9: season 3 only, y[12] + 300 = 600 at every level.
//   - k = 13: no season left (j ≥ 4 > 3): the fallback, quantiles of the
//     last 4 points (300, 310, 310, 320): 303, 310, 317.
func TestSeasonalByHand(t *testing.T) {
	s, err := NewSeasonal(4, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Quantiles(handSeasons, 13, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k    int
		want [3]float64
	}{
		{1, [3]float64{360, 400, 440}},
		{2, [3]float64{371.2, 416, 451.2}},
		{5, [3]float64{455, 475, 495}},
		{9, [3]float64{600, 600, 600}},
		{13, [3]float64{303, 310, 317}},
	} {
		for i := range 3 {
			if d := got[i][c.k-1] - c.want[i]; d > 1e-9 || d < -1e-9 {
				t.Errorf("step %d level %v: got %v, want %v", c.k, DefaultLevels[i], got[i][c.k-1], c.want[i])
			}
		}
	}
}

// TestSeasonalPeriodicSeriesIsExact: a purely periodic series with a level
// that steps up by the same amount every season is continued exactly (every
// season's value at the phase, moved by its level difference, is the true
// next value), so all quantiles coincide with it.
func TestSeasonalPeriodicSeriesIsExact(t *testing.T) {
	pattern := []float64{3, 1, 4, 1, 5, 9}
	var y []float64
	for s := range 6 {
		for _, v := range pattern {
			y = append(y, v+2*float64(s))
		}
	}
	m, err := NewSeasonal(6, 6, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Quantiles(y, 6, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 6 {
		want := pattern[k] + 12
		for i := range 3 {
			if d := got[i][k] - want; d > 1e-12 || d < -1e-12 {
				t.Errorf("step %d level %v: got %v, want %v", k+1, DefaultLevels[i], got[i][k], want)
			}
		}
	}
}

// TestSeasonalHalfwidth pools phases ±1 on handSeasons:
//   - k = 1: indices (11, 12, 13) + 150, (7, 8, 9) + 200, (3, 4, 5) + 300 =
//     310 450 460, 310 350 360, 310 400 416; sorted 310 310 310 350 360 400
//     416 450 460: 310, 360, 450 + 0.2·10 = 452.
//   - k = 4: index 16 is beyond the history, so indices (14, 15) + 150,
//     (10, 11, 12) + 200, (6, 7, 8) + 300 = 470 460, 370 360 500, 414 410
//     450; the median of the 8 sorted values is between 414 and 450: 432.
func TestSeasonalHalfwidth(t *testing.T) {
	s, err := NewSeasonal(4, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Quantiles(handSeasons, 4, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]int]float64{{0, 0}: 310, {1, 0}: 360, {2, 0}: 452, {1, 3}: 432}
	for ik, w := range want {
		if g := got[ik[0]][ik[1]]; g-w > 1e-9 || w-g > 1e-9 {
			t.Errorf("level %v step %d: got %v, want %v", DefaultLevels[ik[0]], ik[1]+1, g, w)
		}
	}
}

// TestSeasonalFallback: a history shorter than a season plus the level
// window (the monitoring replay's 360 s against a 1,440 s "day") gives the
// quantiles of the last W points at every step: for 0..59, 5.9, 29.5 and
// 53.1. Shorter than W is an error.
func TestSeasonalFallback(t *testing.T) {
	s, err := NewSeasonal(1440, 60, 2)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, 360)
	for i := range y {
		y[i] = float64(1000 + i)
	}
	for i := range 60 {
		y[300+i] = float64((i * 7) % 60) // a permutation of 0..59
	}
	got, err := s.Quantiles(y, 420, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 420 {
		for i, w := range []float64{5.9, 29.5, 53.1} {
			if d := got[i][k] - w; d > 1e-9 || d < -1e-9 {
				t.Fatalf("step %d level %v: got %v, want %v", k+1, DefaultLevels[i], got[i][k], w)
			}
		}
	}
	if y[300] != 0 || y[301] != 7 {
		t.Error("Quantiles modified the history")
	}
	if _, err := s.Quantiles(y[:59], 1, DefaultLevels); err == nil {
		t.Error("59 points for a 60-point window: no error")
	}
}

func TestNewSeasonalErrors(t *testing.T) {
	for _, c := range [][3]int{{0, 1, 0}, {1, 0, 0}, {4, 4, -1}} {
		if _, err := NewSeasonal(c[0], c[1], c[2]); err == nil {
			t.Errorf("NewSeasonal%v: no error", c)
		}
	}
}
