package figures

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// TestLagAxis: the shared lag axis spans whole decades, at most seven
// below the top and at least two.
func TestLagAxis(t *testing.T) {
	for _, c := range []struct{ lo, hi, wantLo, wantHi float64 }{
		{37, 4.7e7, 10, 1e8},    // 10^1 … 10^8: seven decades
		{0.5, 3e8, 100, 1e9},    // 10^-1 capped at 1e9 / 1e7
		{500, 500, 10, 1000},    // one value: two decades below its top
		{0, 0, 1, 10},           // no lag at all
		{math.Inf(1), 0, 1, 10}, // no positive lag
		{2e3, 9.9e3, 100, 1e4},  // 10^3 … 10^4 widened to two decades
	} {
		lo, hi := lagAxis(c.lo, c.hi)
		if math.Abs(lo/c.wantLo-1) > 1e-9 || math.Abs(hi/c.wantHi-1) > 1e-9 {
			t.Errorf("lagAxis(%g, %g) = %g, %g; want %g, %g", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
}

// TestEnvelope: the largest finite value of each bucket, at its first
// time; a bucket without one is 0.
func TestEnvelope(t *testing.T) {
	nan := math.NaN()
	ts := []float64{0, 1, 2, 3, 4, 5, 6}
	ys := []float64{1, 5, nan, 2, 0, 7, 3}
	// 7 samples into 3 buckets: 3 per bucket, [1 5 NaN] [2 0 7] [3].
	if got, want := envelope(ts, ys, 3), (plotter.XYs{{X: 0, Y: 5}, {X: 3, Y: 7}, {X: 6, Y: 3}}); !slices.Equal(got, want) {
		t.Errorf("envelope = %v, want %v", got, want)
	}
	if got, want := envelope(ts, ys, 100), (plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 5}, {X: 2, Y: 0}, {X: 3, Y: 2}, {X: 4, Y: 0}, {X: 5, Y: 7}, {X: 6, Y: 3}}); !slices.Equal(got, want) {
		t.Errorf("envelope, one sample a bucket = %v, want %v", got, want)
	}
	if got := envelope(nil, nil, 3); got != nil {
		t.Errorf("envelope of nothing = %v", got)
	}
}

// TestScalingFloor: a log panel starts at the smallest positive mean or
// CI low; values at or below zero are drawn there.
func TestScalingFloor(t *testing.T) {
	nan := math.NaN()
	m := ScalingMetric{Mean: []float64{0, 5, 2}, Low: []float64{nan, 3, -1}}
	if got := scalingFloor(m); got != 2 {
		t.Errorf("floor = %g, want 2", got)
	}
	m = ScalingMetric{Mean: []float64{0, nan}, Low: []float64{-1, nan}}
	if got := scalingFloor(m); got != 1 {
		t.Errorf("floor without a positive value = %g, want 1", got)
	}
}

// TestScalingSummaryLayout: one horizontal dot plot per metric, two to a
// row; the variants are named on the left column only, the first on top;
// the baseline is a dashed line named once in the key; the metric labels
// are on x.
func TestScalingSummaryLayout(t *testing.T) {
	variants := []string{"daedalus", "hpa-80", "static-12"}
	ms := []ScalingMetric{
		{Label: "resource usage (÷ static-12)", Mean: []float64{0.5, 0.3, 1}, Low: []float64{0.45, 0.3, 1}, High: []float64{0.55, 0.3, 1}, Reference: 1, ReferenceLabel: "static-12 (baseline)"},
		{Label: "latency (s)", Mean: []float64{60, 4000, 2}, Low: []float64{40, 3900, 2}, High: []float64{90, 4100, 2}, Reference: 2, ReferenceLabel: "static-12 (baseline)", Log: true},
		{Label: "rescalings (count)", Mean: []float64{33, 8, 0}, Low: []float64{31, 8, 0}, High: []float64{35, 8, 0}, Reference: 0, ReferenceLabel: "static-12 (baseline)"},
	}
	d := inspect(t, func() ([]string, error) {
		return PlotScalingSummary(filepath.Join(t.TempDir(), "s"), "autoscalers", variants, ms)
	})
	d.plots = uniquePlots(d.plots)
	if len(d.plots) != 3 {
		t.Fatalf("%d panels, want 3", len(d.plots))
	}
	for i, p := range d.plots {
		if p.X.Label.Text != ms[i].Label || p.Y.Label.Text != "" {
			t.Errorf("panel %d: x %q, y %q; want the metric's label on x", i, p.X.Label.Text, p.Y.Label.Text)
		}
		if _, log := p.X.Scale.(plot.LogScale); log != ms[i].Log {
			t.Errorf("panel %d: log x = %v, want %v", i, log, ms[i].Log)
		}
		var names []string
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if tk.Label != "" {
				names = append(names, tk.Label)
			}
		}
		want := []string{"static-12", "hpa-80", "daedalus"} // bottom to top
		if i%2 == 1 {
			want = nil // the right column shares the left one's names
		}
		if !slices.Equal(names, want) {
			t.Errorf("panel %d: y labels %q, want %q", i, names, want)
		}
	}
	var keyed int
	for _, tx := range d.texts {
		if tx.s == "static-12 (baseline)" {
			keyed++
		}
	}
	if keyed != 1 {
		t.Errorf("the baseline is named %d times, want once (in the key)", keyed)
	}
}

// TestScalingTimelineRows: a row per variant under the input's, the
// variant's parallelism on the left and its lag on the right, every lag
// panel on one log axis.
func TestScalingTimelineRows(t *testing.T) {
	dir := t.TempDir()
	runs := figuresVariants(t, dir, 3600)
	labels := []string{"static", "hpa", "daedalus"}
	d := inspect(t, func() ([]string, error) {
		return PlotScalingTimeline(filepath.Join(dir, "tl"), "autoscalers", runs, labels)
	})
	d.plots = uniquePlots(d.plots)
	if len(d.plots) != 2*(len(runs)+1) {
		t.Fatalf("%d panels, want %d", len(d.plots), 2*(len(runs)+1))
	}
	var lagLo, lagHi []float64
	for i, p := range d.plots {
		row, col := i/2, i%2
		if row == 0 {
			if !strings.HasPrefix(p.Title.Text, "input rate") {
				t.Errorf("top row titled %q", p.Title.Text)
			}
			continue
		}
		name := labels[row-1]
		want := []string{name + ": parallelism", name + ": consumer lag (records)"}[col]
		if !strings.HasPrefix(p.Title.Text, want) {
			t.Errorf("row %d col %d titled %q, want %q…", row, col, p.Title.Text, want)
		}
		if col == 1 {
			if _, log := p.Y.Scale.(plot.LogScale); !log {
				t.Errorf("%s: lag axis not log", name)
			}
			lagLo, lagHi = append(lagLo, p.Y.Min), append(lagHi, p.Y.Max)
		}
		if bottom := row == len(runs); (p.X.Label.Text != "") != bottom {
			t.Errorf("row %d: time label %q", row, p.X.Label.Text)
		}
	}
	if slices.Min(lagLo) != slices.Max(lagLo) || slices.Min(lagHi) != slices.Max(lagHi) {
		t.Errorf("lag axes differ: %v – %v", lagLo, lagHi)
	}
}

// uniquePlots are the plots a figure drew, each once, in the order drawn
// (writeFigure draws the figure once per format).
func uniquePlots(ps []*plot.Plot) []*plot.Plot {
	var out []*plot.Plot
	for _, p := range ps {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// TestScalingSingleColumn: in a single column the summary's panels stand
// one above the other, each naming the variants; the timeline names each
// variant once above its row (no panel titles); a long title wraps inside
// the page, and no text leaves it.
func TestScalingSingleColumn(t *testing.T) {
	dir := t.TempDir()
	variants := []string{"daedalus", "flink-autoscaler-demeter", "static-12"}
	ms := []ScalingMetric{
		{Label: "resource usage (÷ static-12)", Mean: []float64{0.5, 0.9, 1}, Low: []float64{0.45, 0.85, 1}, High: []float64{0.55, 0.95, 1}, Reference: 1, ReferenceLabel: "static-12 (baseline)"},
		{Label: "latency (s)", Mean: []float64{60, 40, 2}, Low: []float64{40, 30, 2}, High: []float64{90, 50, 2}, Reference: 2, ReferenceLabel: "static-12 (baseline)", Log: true},
	}
	long := "daedalus-ysb (twin): usage saved vs latency, lag and rescalings paid (lower is better)"
	inBounds := func(d drawn) {
		t.Helper()
		for _, tx := range d.texts {
			if tx.r.Min.X < -0.5 || tx.r.Max.X > SingleColumn+0.5 {
				t.Errorf("%q runs off the page: x %.0f–%.0f pt of %.0f", tx.s, tx.r.Min.X.Points(), tx.r.Max.X.Points(), SingleColumn.Points())
			}
		}
	}
	d := inspect(t, func() ([]string, error) {
		return PlotScalingSummary(filepath.Join(dir, "s"), long, variants, ms, WithWidth(SingleColumn))
	})
	inBounds(d)
	for i, p := range uniquePlots(d.plots) {
		if got := len(p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)); got != len(variants) || p.Y.Tick.Marker.Ticks(0, 0)[0].Label == "" {
			t.Errorf("panel %d does not name its %d variants", i, len(variants))
		}
	}
	runs := figuresVariants(t, dir, 3600)
	labels := []string{"static", "hpa", "daedalus"}
	d = inspect(t, func() ([]string, error) {
		return PlotScalingTimeline(filepath.Join(dir, "tl"), long, runs, labels, WithWidth(SingleColumn))
	})
	inBounds(d)
	for _, p := range uniquePlots(d.plots)[2:] {
		if p.Title.Text != "" {
			t.Errorf("a variant panel is titled %q in a single column", p.Title.Text)
		}
	}
	for _, name := range labels {
		if !slices.ContainsFunc(d.texts, func(tx textBox) bool { return strings.HasPrefix(tx.s, name) }) {
			t.Errorf("no row named %s", name)
		}
	}
}
