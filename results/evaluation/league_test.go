package evaluation

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results/compare"
)

// τ-b by hand: (C − D) / √((P − Ta)(P − Tb)).
func TestKendallTauB(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name         string
		a, b         []float64
		want         float64
		c, d, ta, tb int
	}{
		// one swapped pair of 10: (9 − 1) / 10
		{"one swap", []float64{1, 2, 3, 4, 5}, []float64{1, 2, 3, 5, 4}, 0.8, 9, 1, 0, 0},
		{"identical", []float64{1, 2, 3, 4, 5}, []float64{10, 20, 30, 40, 50}, 1, 10, 0, 0, 0},
		{"reversed", []float64{1, 2, 3}, []float64{3, 2, 1}, -1, 0, 3, 0, 0},
		// scipy.stats.kendalltau([1,2,3],[1,1,2]) = 0.8165: 2 / √(3·2)
		{"a tie in b", []float64{1, 2, 3}, []float64{1, 1, 2}, 2 / math.Sqrt(6), 2, 0, 0, 1},
		// ties in both: pairs (0,1) tied in a, (2,3) in b; C = 4 → 4 / √(5·5)
		{"ties in both", []float64{1, 1, 2, 3}, []float64{1, 2, 3, 3}, 0.8, 4, 0, 1, 1},
		{"all tied", []float64{1, 1, 1}, []float64{1, 2, 3}, nan, 0, 0, 3, 0},
	} {
		got := KendallTauB(c.a, c.b, nil, nil)
		if got.Concordant != c.c || got.Discordant != c.d || got.TiedA != c.ta || got.TiedB != c.tb {
			t.Errorf("%s: C %d D %d Ta %d Tb %d, want %d %d %d %d", c.name, got.Concordant, got.Discordant, got.TiedA, got.TiedB, c.c, c.d, c.ta, c.tb)
		}
		if !(math.Abs(got.TauB-c.want) < 1e-12 || math.IsNaN(got.TauB) && math.IsNaN(c.want)) {
			t.Errorf("%s: τ-b %g, want %g", c.name, got.TauB, c.want)
		}
	}
}

// A live pair closer than the spread ties in both rankings.
func TestLeagueTau(t *testing.T) {
	for _, c := range []struct {
		name       string
		twin, live []float64
		spread     float64
		want       float64
	}{
		// live 10 and 11 differ by less than 2: that pair drops out of
		// both rankings; the other 5 are concordant → 5 / √(5·5)
		{"noise tie", []float64{2, 1, 3, 4}, []float64{10, 11, 20, 30}, 2, 1},
		// without a spread the same pair is discordant: (5 − 1) / 6
		{"no spread", []float64{2, 1, 3, 4}, []float64{10, 11, 20, 30}, math.NaN(), 4.0 / 6},
		// the twin swaps 3 and 4, which live orders beyond the spread:
		// C 4, D 1, one pair tied in both → (4 − 1) / 5
		{"real swap", []float64{1, 2, 4, 3}, []float64{10, 11, 20, 30}, 2, 0.6},
		// a twin tie the live cluster orders: tied in the twin only →
		// C 5 / √(5·6)
		{"twin tie", []float64{1, 1, 3, 4}, []float64{10, 20, 30, 40}, 2, 5 / math.Sqrt(30)},
		// a policy without a live value is left out: 3 items, 3 pairs
		{"NaN", []float64{1, 2, 3, 4}, []float64{10, math.NaN(), 30, 40}, 0, 1},
	} {
		if got := leagueTau(c.twin, c.live, c.spread).TauB; math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: τ-b %g, want %g", c.name, got, c.want)
		}
	}
}

func TestRanks(t *testing.T) {
	got := Ranks([]float64{3, 1, 3, math.NaN(), 2, 3})
	want := []float64{4, 1, 4, math.NaN(), 2, 4} // 3, 3, 3 share ranks 3, 4, 5
	for i := range want {
		if !(got[i] == want[i] || math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("ranks %v, want %v", got, want)
		}
	}
}

func TestDecisionsAgree(t *testing.T) {
	run := func(start float64, ds ...compare.Decision) LeagueRun {
		return LeagueRun{StartParallelism: start, Decisions: ds}
	}
	r := func(at, to float64) compare.Decision { return compare.Decision{TimeS: at, Kind: "rescale", Value: to} }
	note := compare.Decision{TimeS: 5, Kind: "note", Value: math.NaN()}
	rejected := compare.Decision{TimeS: 50, Kind: "rescale", Value: 3, Rejected: true}
	for _, c := range []struct {
		name       string
		twin, live LeagueRun
		k          int
		worst      float64
		ok         bool
	}{
		{"same", run(1, r(60, 3), r(240, 2), r(360, 3)), run(1, note, r(90, 3), r(250, 1), r(400, 2)), 3, 40, true},
		{"late", run(1, r(60, 3)), run(1, r(121, 3)), 1, 61, false},
		// a live decision a few milliseconds after its tick, one
		// interval after the twin's
		{"tick jitter", run(1, r(60, 3)), run(1, r(120.004, 3)), 1, 60, true},
		{"direction", run(2, r(60, 3)), run(2, r(60, 1)), 1, 0, false},
		{"missing", run(1, r(60, 3), r(120, 2)), run(1, r(60, 3)), 2, 0, false},
		{"none", run(2), run(2), 0, 0, true},
		// a rejected rescale keeps the parallelism: the next one (to 3
		// again) is still up
		{"rejected", run(1, rejected, r(100, 3)), run(1, r(50, 3), r(100, 3)), 2, 0, false},
		{"only first 3", run(1, r(60, 3), r(120, 2), r(180, 3), r(240, 1)), run(1, r(60, 3), r(120, 2), r(180, 3), r(240, 2)), 3, 0, true},
	} {
		k, worst, why := decisionsAgree(c.twin, c.live, 3, 60)
		if k != c.k || worst != c.worst || (why == "") != c.ok {
			t.Errorf("%s: %d compared, worst %g, %q; want %d, %g, ok %v", c.name, k, worst, why, c.k, c.worst, c.ok)
		}
	}
}
