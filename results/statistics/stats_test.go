package statistics

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
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
	table := &results.Table{Rows: 2, Names: []string{"latency_p99_ms"}, Floats: map[string][]float64{"latency_p99_ms": {1, 20000}}}
	stats, err := SummarizeRuns(table, nil, nil)
	if err != nil || len(stats) != 1 {
		t.Fatalf("SummarizeRuns: %v, %d stats", err, len(stats))
	}
	if stats[0].CILow != 0 {
		t.Errorf("SummarizeRuns: latency ci95_low = %g, want 0 (clamped)", stats[0].CILow)
	}
}

// sweepTable is a runs table of a 2 × 2 grid (interval 10 s / 30 s × rate
// 1,000,000 / 1,000,001 records/s: apart only in the 7th digit), 2
// replications each.
func sweepTable() *results.Table {
	t := &results.Table{Rows: 8, Names: []string{"run_id", "run_index", "replication", "seed", "job.checkpoint.interval", "workload.rate", "recovery_mean_s", "lag_max"},
		Floats: map[string][]float64{
			"run_index":               {0, 1, 2, 3, 4, 5, 6, 7},
			"replication":             {0, 1, 0, 1, 0, 1, 0, 1},
			"seed":                    {1, 2, 1, 2, 1, 2, 1, 2},
			"job.checkpoint.interval": {10, 10, 10, 10, 30, 30, 30, 30},
			"workload.rate":           {1e6, 1e6, 1e6 + 1, 1e6 + 1, 1e6, 1e6, 1e6 + 1, 1e6 + 1},
			"recovery_mean_s":         {10, 12, 20, 22, 30, 32, 40, 42},
			"lag_max":                 {1, 1, 1, 1, 1, 1, 1, 1},
		},
		Strings: map[string][]string{"run_id": {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"}}}
	return t
}

// TestSummarizeRunsRefusesPooling: a parameter that varies within the
// groups is refused, named, unless pooled on purpose; replications are not
// parameters; values 1 apart in the 7th digit are different groups.
func TestSummarizeRunsRefusesPooling(t *testing.T) {
	tab := sweepTable()
	if got := ParamColumns(tab); !slices.Equal(got, []string{"job.checkpoint.interval", "workload.rate"}) {
		t.Errorf("ParamColumns = %q", got)
	}
	_, err := SummarizeRuns(tab, []string{"job.checkpoint.interval"}, nil)
	var pe *PoolingError
	if !errors.As(err, &pe) || !slices.Equal(pe.Params, []string{"workload.rate"}) {
		t.Fatalf("by interval: err %v, want a PoolingError naming workload.rate", err)
	}
	_, err = SummarizeRuns(tab, nil, nil)
	if !errors.As(err, &pe) || !slices.Equal(pe.Params, []string{"job.checkpoint.interval", "workload.rate"}) {
		t.Fatalf("no by: err %v, want a PoolingError naming both parameters", err)
	}
	stats, err := SummarizeRuns(tab, []string{"job.checkpoint.interval", "workload.rate"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, s := range stats {
		if s.Figure == "recovery_mean_s" {
			groups = append(groups, strings.Join(s.Group, " "))
			if s.N != 2 {
				t.Errorf("group %v: n = %d, want the 2 replications", s.Group, s.N)
			}
		}
	}
	if want := []string{"10 1000000", "10 1000001", "30 1000000", "30 1000001"}; !slices.Equal(groups, want) {
		t.Errorf("groups %q, want %q", groups, want)
	}
	stats, err = SummarizeRuns(tab, []string{"job.checkpoint.interval"}, []string{"workload.rate"})
	if err != nil {
		t.Fatal(err)
	}
	if stats[0].N != 4 || stats[0].Group[0] != "10" {
		t.Errorf("pooled: %+v, want n = 4 in group 10", stats[0])
	}
	for _, c := range []struct {
		by, pool []string
		want     string
	}{
		{[]string{"interval"}, nil, `unknown parameter "interval"; did you mean job.checkpoint.interval?`},
		{[]string{"job.checkpoint.interval"}, []string{"rate"}, `unknown parameter "rate"; did you mean workload.rate?`},
		{[]string{"job.checkpoint.interval"}, []string{"job.checkpoint.interval"}, "both grouped by and pooled over"},
		{[]string{"job.checkpoint.interval"}, []string{"lag_max"}, "lag_max is not a parameter"},
	} {
		if _, err := SummarizeRuns(tab, c.by, c.pool); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("by %q pool %q: err %v, want %q", c.by, c.pool, err, c.want)
		}
	}
	// a parameter that varies only together with a grouped one is not pooled
	tab.Names = append(tab.Names[:6:6], "job.parallelism", "recovery_mean_s", "lag_max")
	tab.Floats["job.parallelism"] = []float64{2, 2, 2, 2, 4, 4, 4, 4}
	if _, err := SummarizeRuns(tab, []string{"job.checkpoint.interval", "workload.rate"}, nil); err != nil {
		t.Errorf("a parameter tied to a grouped one: %v", err)
	}
}

func TestCheckFigure(t *testing.T) {
	if err := CheckFigure("recovery_mean_s"); err != nil {
		t.Error(err)
	}
	err := CheckFigure("recovery")
	var ne *NameError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), `unknown figure "recovery"; did you mean recovery_mean_s, recovery_median_s or recovery_max_s? (figures: `) {
		t.Errorf("CheckFigure(recovery) = %v", err)
	}
}

// TestWriteStatsPooled: the statistics parquet names what was pooled, and
// keeps a numeric group column numeric (base units, as runs.parquet), so
// results cat prints it by the table rule and pandas can compute with it.
func TestWriteStatsPooled(t *testing.T) {
	tab := sweepTable()
	stats, err := SummarizeRuns(tab, []string{"job.checkpoint.interval"}, []string{"workload.rate"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stats.parquet")
	if err := WriteStats(path, tab, []string{"job.checkpoint.interval"}, []string{"workload.rate"}, stats); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"job.checkpoint.interval", "figure", "n", "mean", "std", "ci95_low", "ci95_high", "min", "max", PooledColumn}
	if !slices.Equal(got.Names, want) {
		t.Errorf("columns %q, want %q", got.Names, want)
	}
	if c := got.Strings[PooledColumn]; len(c) != len(stats) || c[0] != "workload.rate" {
		t.Errorf("%s = %q", PooledColumn, c)
	}
	if c := got.Floats["job.checkpoint.interval"]; len(c) != len(stats) || c[0] != 10 || c[len(c)-1] != 30 {
		t.Errorf("job.checkpoint.interval: %v (text %q), want the numbers 10 … 30", c, got.Strings["job.checkpoint.interval"])
	}
}
