package autoscaler

import (
	"math"
	"testing"
	"time"
)

// rates: 10k/s in and targeted, 180k records of lag (18 s of input).
func rates(tpr, lag float64) Rates {
	return Rates{TrueProcessingRate: tpr, TargetDataRate: 10000, Lag: lag, InputRate: 10000}
}

// TestTargetCapacity by hand, defaults (catch-up 1800 s, restart 300 s,
// target 0.7): catch-up 180k/1800 = 100/s, restart 10k·300/1800 =
// 1666.7/s, steady 10k/0.7 = 14285.7/s.
func TestTargetCapacity(t *testing.T) {
	c := Defaults()
	for _, k := range []struct {
		name        string
		util        float64
		withRestart bool
		want        float64
	}{
		{"with restart", 0.7, true, 16052},     // 100 + 1666.7 + 14285.7
		{"without restart", 0.7, false, 14386}, // 100 + 14285.7
		{"utilisation 0 is unbounded", 0, true, math.Inf(1)},
		{"utilisation clamped to 1", 1.5, false, 10100},
	} {
		if got := c.TargetCapacity(rates(0, 180000), k.util, k.withRestart); got != k.want {
			t.Errorf("%s: %g, want %g", k.name, got, k.want)
		}
	}
}

// TestBounds: scale-up below 100 + 10k/1.0 = 10,100/s, scale-down above
// 100 + 1666.7 + 10k/0.4 = 26,767/s; with 6M of lag (600 s of input, over
// the 300 s threshold) the bounds are utilisation 1 and 0: up at
// 3333.3 + 10k = 13,333/s, and never down.
func TestBounds(t *testing.T) {
	c := Defaults()
	if up, down := c.Bounds(rates(0, 180000)); up != 10100 || down != 26767 {
		t.Errorf("bounds %g, %g; want 10100, 26767", up, down)
	}
	if up, down := c.Bounds(rates(0, 6e6)); up != 13333 || !math.IsInf(down, 1) {
		t.Errorf("backlog bounds %g, %g; want 13333, +Inf", up, down)
	}
	for tpr, want := range map[float64]bool{20000: false, 9000: true, 30000: true} {
		if got := c.OutOfBounds(rates(tpr, 180000)); got != want {
			t.Errorf("TPR %g: out of bounds %v, want %v", tpr, got, want)
		}
	}
}

// TestParallelism: target 16,052/s at 4 subtasks. TPR 20k: factor 0.80,
// ceil(3.2) = 4; TPR 5k: factor 3.21, ceil(12.8) = 13; TPR 100k: factor
// 0.16 clamped to 1 − 0.6, ceil(1.6) = 2; max parallelism 8 caps 13 at 8.
func TestParallelism(t *testing.T) {
	c := Defaults()
	for _, k := range []struct {
		tpr    float64
		maxPar int
		want   int
	}{{20000, 128, 4}, {5000, 128, 13}, {100000, 128, 2}, {5000, 8, 8}} {
		if got := c.Parallelism(rates(k.tpr, 180000), 4, k.maxPar); got != k.want {
			t.Errorf("TPR %g, max %d: parallelism %d, want %d", k.tpr, k.maxPar, got, k.want)
		}
	}
}

// TestAlign: 12 partitions: 5 → 6 and 7 → 12; with an upper limit of 10, 7
// and 8 fall back to 6 (limited). No combination gives 5 or 7.
func TestAlign(t *testing.T) {
	for _, k := range []struct {
		newP, upper, want int
		limited           bool
	}{{5, 200, 6, false}, {7, 200, 12, false}, {7, 10, 6, true}, {8, 10, 6, true}, {12, 200, 12, false}, {1, 200, 1, false}} {
		if p, lim := Align(k.newP, 12, 1, k.upper); p != k.want || lim != k.limited {
			t.Errorf("Align(%d, 12, 1, %d) = %d, %v; want %d, %v", k.newP, k.upper, p, lim, k.want, k.limited)
		}
	}
	for newP := 1; newP <= 12; newP++ {
		for upper := 1; upper <= 20; upper++ {
			if p, _ := Align(newP, 12, 1, upper); 12%p != 0 {
				t.Errorf("Align(%d, 12, 1, %d) = %d, which does not divide 12", newP, upper, p)
			}
		}
	}
	if p, lim := Align(5, 0, 1, 200); p != 5 || lim {
		t.Errorf("no partitions known: %d, %v", p, lim)
	}
}

// TestScaleDownInterval: a scale-down waits an hour from its first
// recommendation, then is required at the largest recommendation of the
// last hour (the caller applies it only when the vertex is out of its
// bounds, so it may stay required for a while); a recommendation of the
// current parallelism or a scale-up drops it; interval 0 scales down at once.
func TestScaleDownInterval(t *testing.T) {
	h, m := time.Hour, time.Minute
	var s ScaleDowns
	for _, k := range []struct {
		at           time.Duration
		current, rec int
		interval     time.Duration
		want         int
		change       Change
	}{
		{0, 6, 3, h, 3, Optional},
		{30 * m, 6, 4, h, 4, Optional},
		{60 * m, 6, 2, h, 4, Required},  // the hour is up: max(3, 4, 2)
		{70 * m, 6, 2, h, 4, Required},  // not applied yet: 4 of 30 min is still within the hour
		{95 * m, 6, 2, h, 2, Required},  // 4 has left the last hour
		{100 * m, 6, 6, h, 6, NoChange}, // keep: dropped
		{110 * m, 6, 5, h, 5, Optional}, // a new wait starts
		{120 * m, 6, 8, h, 8, Required}, // scale-up: at once, the wait dropped
		{130 * m, 6, 5, h, 5, Optional}, // a new wait starts here …
		{189 * m, 6, 5, h, 5, Optional},
		{190 * m, 6, 5, h, 5, Required}, // … and ends an hour later
		{191 * m, 6, 3, 0, 3, Required}, // no interval: at once
	} {
		got, change := s.Decide(k.at, k.current, k.rec, k.interval)
		if got != k.want || change != k.change {
			t.Errorf("at %v (current %d, recommended %d): %d (change %d), want %d (change %d)", k.at, k.current, k.rec, got, change, k.want, k.change)
		}
	}
}

// TestAlignKeyGroups: the operator's alignment before 1.11 takes the first
// divisor of the key groups at or above the recommendation, up to half of
// them and the upper bound; past those it keeps the recommendation.
func TestAlignKeyGroups(t *testing.T) {
	for _, k := range []struct{ newP, n, upper, want int }{
		{10, 24, 24, 12}, // 24 → ⌈0.4 · 24⌉ = 10 → 12: what Demeter's runs show
		{5, 24, 24, 6},
		{13, 24, 24, 13}, // above 24/2: no divisor searched
		{24, 24, 24, 24},
		{7, 128, 200, 8},
		{70, 128, 200, 70},
		{10, 24, 11, 10}, // the upper bound stops the search before 12
	} {
		if got := AlignKeyGroups(k.newP, k.n, k.upper); got != k.want {
			t.Errorf("AlignKeyGroups(%d, %d, %d) = %d, want %d", k.newP, k.n, k.upper, got, k.want)
		}
	}
}
