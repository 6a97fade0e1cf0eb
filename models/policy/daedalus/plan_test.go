package daedalus

import (
	"strings"
	"testing"
)

// linear is a capacity of perTM records/s per TaskManager.
func linear(perTM float64) func(int) float64 {
	return func(q int) float64 { return perTM * float64(q) }
}

func flat(rate float64, n int) []float64 {
	f := make([]float64, n)
	for i := range f {
		f[i] = rate
	}
	return f
}

// situation: 25k/s now and forecast flat for 15 min, 10k/s per
// TaskManager, 250k records in the last 10 s, the code's initial downtime
// estimates (30 s up, 15 s down).
func situation(p int, sinceS, lag float64) Situation {
	return Situation{Parallelism: p, SinceRescaleS: sinceS, Workload: 25000, Last10sInput: 250000, Lag: lag,
		Forecast: flat(25000, 900), UpDowntimeS: UpDowntimeS, DownDowntimeS: DownDowntimeS, Capacity: linear(10000)}
}

// TestRecoveryTime, by hand: to 3 TaskManagers from 2 (up, d = 30 s) with
// no lag, B = 250k + 30 s × 25k = 1M; the surplus is 5k/s from k = 30, so
// it first exceeds 1M at k = 230 (201 s × 5k); the code returns k + d =
// 260. With 3M of lag, B = 4M: 3 TaskManagers need k = 830 (RT 860), 4
// need k = 296 (267 s × 15k). Down to 1 (d = 15 s) never catches up.
func TestRecoveryTime(t *testing.T) {
	for _, c := range []struct {
		name string
		lag  float64
		q    int
		rt   int
		ok   bool
	}{
		{"up, no lag", 0, 3, 260, true},
		{"up, 3M lag", 3e6, 3, 860, true},
		{"up more, 3M lag", 3e6, 4, 296 + 30, true},
		{"down below the load", 0, 1, 0, false},
	} {
		rt, ok := RecoveryTime(situation(2, 1000, c.lag), c.q)
		if rt != c.rt || ok != c.ok {
			t.Errorf("%s: RecoveryTime = %d, %v; want %d, %v", c.name, rt, ok, c.rt, c.ok)
		}
	}
}

// TestPlan: the decisions the reference's order of checks gives on
// hand-made situations (25k/s now and forecast, 10k/s per TaskManager).
func TestPlan(t *testing.T) {
	for _, c := range []struct {
		name       string
		s          Situation
		want       int
		reasonPart string
	}{
		{"no planning right after a rescale", situation(2, 100, 0), 2, "no planning"},
		{"keeps p within 600 s when its capacity covers the forecast", situation(4, 300, 0), 4, "keep 4: within 600 s"},
		// the cheapest q with C(q) > W, RT ≤ 600 s and C(q) over the peak
		{"the cheapest q that recovers in time", situation(2, 1000, 0), 3, "2 → 3"},
		// with 3M of lag, 3 would take 860 s to recover: 4 (326 s)
		{"the cheapest q whose recovery is ≤ 600 s", situation(2, 1000, 3e6), 4, "2 → 4"},
		// 6 running, 100k of lag > C(6) = 60k: no scale-down; 6 itself is
		// the first feasible one left (RT 91 s)
		{"no scale-down with a backlog", situation(6, 1000, 100000), 6, "keep 6: the cheapest"},
		{"scale-down without a backlog", situation(6, 1000, 0), 3, "6 → 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, why := Plan(c.s)
			if q != c.want || !strings.Contains(why, c.reasonPart) {
				t.Errorf("Plan = %d (%q), want %d (…%q…)", q, why, c.want, c.reasonPart)
			}
		})
	}
	// a forecast peak no parallelism covers: the maximum
	s := situation(2, 1000, 0)
	s.Forecast[800] = 1e9
	if q, _ := Plan(s); q != MaxScaleOut {
		t.Errorf("uncoverable peak: %d, want %d", q, MaxScaleOut)
	}
	// a smaller cluster: its max_scaleout, and once there it stays
	s.MaxScaleOut = 3
	if q, _ := Plan(s); q != 3 {
		t.Errorf("uncoverable peak, max_scaleout 3: %d, want 3", q)
	}
	s.Parallelism, s.Forecast[100] = 3, 1e9 // covered by none within any recovery
	if q, why := Plan(s); q != 3 || !strings.Contains(why, "it is max_scaleout") {
		t.Errorf("at max_scaleout: %d (%q), want to keep 3", q, why)
	}
}

// TestCapacities: observed capacities average with their last value; the
// others are the latest extrapolated linearly.
func TestCapacities(t *testing.T) {
	var c Capacities
	c.Update(2, 20000)
	c.Update(2, 30000)
	for q, want := range map[int]float64{0: 0, 1: 15000, 2: 25000, 4: 60000, 18: 270000, 19: 0} {
		if got := c.Get(q); got != want {
			t.Errorf("Get(%d) = %g, want %g", q, got, want)
		}
	}
}
