package figures

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// The rules every figure keeps (issue 37), checked on what each figure
// kind really draws, at the default size and at both print widths: every
// axis carries at least three labelled ticks on round numbers, and no two
// laid-out texts overlap.

// textBox is one laid-out text: its bounding rectangle on the page.
type textBox struct {
	r vg.Rectangle
	s string
}

// affine is a 2-D transform: x' = a·x + c·y + e, y' = b·x + d·y + f.
type affine struct{ a, b, c, d, e, f float64 }

func (m affine) then(n affine) affine { // m applied after n: m·n
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m affine) apply(p vg.Point) vg.Point {
	x, y := float64(p.X), float64(p.Y)
	return vg.Point{X: vg.Length(m.a*x + m.c*y + m.e), Y: vg.Length(m.b*x + m.d*y + m.f)}
}

// textRecorder is a vg.Canvas that keeps the rectangle of every string
// drawn on it and draws nothing.
type textRecorder struct {
	m     affine
	stack []affine
	texts []textBox
}

func newTextRecorder() *textRecorder { return &textRecorder{m: affine{a: 1, d: 1}} }

func (r *textRecorder) SetLineWidth(vg.Length)              {}
func (r *textRecorder) SetLineDash([]vg.Length, vg.Length)  {}
func (r *textRecorder) SetColor(color.Color)                {}
func (r *textRecorder) Stroke(vg.Path)                      {}
func (r *textRecorder) Fill(vg.Path)                        {}
func (r *textRecorder) DrawImage(vg.Rectangle, image.Image) {}
func (r *textRecorder) Push()                               { r.stack = append(r.stack, r.m) }
func (r *textRecorder) Pop() {
	r.m = r.stack[len(r.stack)-1]
	r.stack = r.stack[:len(r.stack)-1]
}
func (r *textRecorder) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	r.m = r.m.then(affine{a: c, b: s, c: -s, d: c})
}
func (r *textRecorder) Translate(p vg.Point) {
	r.m = r.m.then(affine{a: 1, d: 1, e: float64(p.X), f: float64(p.Y)})
}
func (r *textRecorder) Scale(x, y float64) { r.m = r.m.then(affine{a: x, d: y}) }

func (r *textRecorder) FillString(f font.Face, pt vg.Point, s string) {
	if strings.TrimSpace(s) == "" || f.Font.Size == 0 {
		return
	}
	// The ink of the text: Liberation's descender (0.216 em) below the
	// baseline, its ascender (0.683 em) above. The font's ascent is taller:
	// it holds accents and the line gap, which neighbouring lines share.
	em := f.Font.Size
	lo := vg.Point{X: pt.X, Y: pt.Y - 0.216*em}
	hi := vg.Point{X: pt.X + f.Width(s), Y: pt.Y + 0.683*em}
	box := vg.Rectangle{Min: vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}, Max: vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}}
	for _, c := range []vg.Point{lo, hi, {X: lo.X, Y: hi.Y}, {X: hi.X, Y: lo.Y}} {
		p := r.m.apply(c)
		box.Min.X, box.Min.Y = min(box.Min.X, p.X), min(box.Min.Y, p.Y)
		box.Max.X, box.Max.Y = max(box.Max.X, p.X), max(box.Max.Y, p.Y)
	}
	r.texts = append(r.texts, textBox{r: box, s: s})
}

// overlaps are the pairs of texts whose rectangles overlap by more than
// tol on both axes.
func overlaps(texts []textBox, tol vg.Length) []string {
	var out []string
	for i, a := range texts {
		for _, b := range texts[i+1:] {
			dx := min(a.r.Max.X, b.r.Max.X) - max(a.r.Min.X, b.r.Min.X)
			dy := min(a.r.Max.Y, b.r.Max.Y) - max(a.r.Min.Y, b.r.Min.Y)
			if dx > tol && dy > tol {
				out = append(out, fmt.Sprintf("%q at (%.0f,%.0f) and %q at (%.0f,%.0f) overlap by %.1f x %.1f pt",
					a.s, a.r.Min.X.Points(), a.r.Min.Y.Points(), b.s, b.r.Min.X.Points(), b.r.Min.Y.Points(), dx.Points(), dy.Points()))
			}
		}
	}
	return out
}

// drawn is what a figure drew: its plots and its texts.
type drawn struct {
	plots []*plot.Plot
	texts []textBox
}

// inspect runs make with the test hooks set and returns what it drew.
func inspect(t *testing.T, make func() ([]string, error)) drawn {
	t.Helper()
	var d drawn
	testHookPlot = func(p *plot.Plot) { d.plots = append(d.plots, p) }
	testHookRender = func(w, h vg.Length, render func(draw.Canvas)) {
		rec := newTextRecorder()
		render(draw.NewCanvas(rec, w, h))
		d.texts = rec.texts
	}
	defer func() { testHookPlot, testHookRender = nil, nil }()
	if _, err := make(); err != nil {
		t.Fatal(err)
	}
	// writeFigure renders three formats and the hook once more: each plot
	// is drawn four times, and is checked once.
	d.plots = slices.CompactFunc(d.plots, func(a, b *plot.Plot) bool { return a == b })
	return d
}

// valueTicks are ticks at the data's own levels (swept values, variant
// names): they label what was run, so the round-number rule does not
// apply to them, and fewer than three levels give fewer labels.
func isLevelAxis(t plot.Ticker) bool {
	switch t.(type) {
	case levelTicks, categoryTicks:
		return true
	}
	return false
}

// roundStep tells whether s is 1, 2 or 5 x 10^k.
func roundStep(s float64) bool {
	if !(s > 0) {
		return false
	}
	m := s / math.Pow(10, math.Floor(math.Log10(s)+1e-9))
	for _, r := range []float64{1, 2, 5, 10} {
		if math.Abs(m-r) < 1e-6*r {
			return true
		}
	}
	return false
}

// axisProblems checks one axis against the rule; "" when it keeps it.
func axisProblems(ax *plot.Axis) string {
	var labelled []plot.Tick
	for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
		if tk.Label != "" && tk.Value >= ax.Min-1e-9*math.Abs(ax.Min) && tk.Value <= ax.Max+1e-9*math.Abs(ax.Max) {
			labelled = append(labelled, tk)
		}
	}
	if len(labelled) == 0 {
		return "" // a shared or hidden axis: its labels are on another panel
	}
	var labels []string
	for _, tk := range labelled {
		labels = append(labels, tk.Label)
	}
	if isLevelAxis(ax.Tick.Marker) {
		if n := len(ax.Tick.Marker.Ticks(math.Inf(-1), math.Inf(1))); len(labelled) < min(minLabelled, n) {
			return fmt.Sprintf("labels %d of its %d levels %q", len(labelled), n, labels)
		}
		return ""
	}
	if len(labelled) < minLabelled {
		return fmt.Sprintf("has %d labelled ticks %q, want at least %d", len(labelled), labels, minLabelled)
	}
	// Round: equal 1-2-5 steps on which every value falls, or on a log
	// axis values of 1, 2 or 5 x 10^k. A "0" stands for zero on a log
	// axis (PlotTradeoff's "nothing sent").
	var vals []float64
	for _, tk := range labelled {
		if _, exp := ax.Tick.Marker.(decadeTicks); exp {
			tk.Value = math.Pow(10, tk.Value) // an axis of exponents
		}
		vals = append(vals, tk.Value)
	}
	slices.Sort(vals)
	linear := len(vals) > 1
	for i := 1; i < len(vals) && linear; i++ {
		step := vals[1] - vals[0]
		d := vals[i] - vals[i-1]
		linear = roundStep(step) && math.Abs(d-step) < 1e-6*step &&
			math.Abs(vals[i]/step-math.Round(vals[i]/step)) < 1e-6
	}
	if linear {
		return ""
	}
	for i, v := range vals {
		if labelled[i].Label != "0" && !roundStep(math.Abs(v)) {
			return fmt.Sprintf("labels %q: %g is not a round number (1, 2 or 5 x 10^k, or an even 1-2-5 step)", labels, v)
		}
	}
	return ""
}

// figureKinds make one figure of each kind from synthetic runs shaped like
// the real ones (faults, catch-up, log-scale lags), at the width given.
func figureKinds(t *testing.T, dir string) []struct {
	name string
	make func(w Option) ([]string, error)
} {
	run := filepath.Join(dir, "run")
	samples, events, sum := resultstest.SyntheticRun(7200)
	resultstest.WriteRun(t, run, samples, events, sum)
	variants := figuresVariants(t, dir, 8*3600)
	runs, _ := faultRuns(t)
	var faultDirs []string
	for _, r := range runs {
		faultDirs = append(faultDirs, r.Dir)
	}
	sweep := figuresSweep(t, dir)
	base := func(name string) string { return filepath.Join(dir, strings.ReplaceAll(name, " ", "-")) }
	type kind = struct {
		name string
		make func(w Option) ([]string, error)
	}
	kinds := []kind{
		{"run", func(w Option) ([]string, error) { return PlotRun(run, w) }},
		{"run fault zoom", func(w Option) ([]string, error) { return PlotRun(run, w, WithFault(1, 120)) }},
		{"panels", func(w Option) ([]string, error) { return PlotPanels(variants, nil, base("panels"), w) }},
		{"panels overlay", func(w Option) ([]string, error) {
			return PlotPanels(variants, nil, base("overlay"), w, WithOverlay())
		}},
		{"faults", func(w Option) ([]string, error) { return PlotFaults(faultDirs, nil, base("faults"), w) }},
		{"sweep lines", func(w Option) ([]string, error) {
			return PlotSweepLines(sweep, base("lines"), "job.checkpoint.interval", "recovery_mean_s", "workload.rate", w)
		}},
		{"heatmap", func(w Option) ([]string, error) {
			return PlotHeatmap(sweep, base("heat"), "job.checkpoint.interval", "workload.rate", "latency_p99_ms", w)
		}},
	}
	recovery := []RecoveryVariant{
		{Label: "ci10", BoundS: 60, Points: []RecoveryPoint{{8000, 20}, {12000, 31}, {15000, 44}}},
		{Label: "ci60", BoundS: 60, Points: []RecoveryPoint{{8000, 35}, {12000, 52}, {15000, 75}}},
	}
	measuredRecoveries := []MeasuredRecoveries{{Label: "measured CI 10 s", Variant: 0, Points: []RecoveryPoint{{9000, 25}, {14000, 40}}}}
	scaling := []ScalingMetric{
		{Label: "usage (normalised)", Mean: []float64{1, 0.8, 0.7}, Low: []float64{1, 0.75, 0.6}, High: []float64{1, 0.85, 0.8}, Reference: 1},
		{Label: "event-time p99 (ms)", Mean: []float64{500, 2300, 9000}, Low: []float64{480, 1800, 5690}, High: []float64{520, 2900, 677e3}, Reference: math.NaN(), Log: true},
		{Label: "lag max (records)", Mean: []float64{2e5, 9e5, 3e6}, Low: []float64{1.5e5, 8e5, 2e6}, High: []float64{2.5e5, 1e6, 4e6}, Reference: math.NaN(), Log: true},
	}
	tradeoff := []results.TradeoffRow{
		{Sampler: "fixed", Param: 5, Metric: "cpu", BytesShare: 0.2, MAPE: 3},
		{Sampler: "fixed", Param: 1, Metric: "cpu", BytesShare: 1, MAPE: 0.5},
		{Sampler: "forecast", Param: 0.1, Metric: "cpu", BytesShare: 0, MAPE: 9},
		{Sampler: "forecast", Param: 0.5, Metric: "cpu", BytesShare: 0.05, MAPE: 4},
	}
	var rates []float64
	for i := range 7 * 24 * 60 {
		rates = append(rates, 20000+15000*math.Sin(float64(i)/240))
	}
	kinds = append(kinds,
		kind{"recovery", func(w Option) ([]string, error) {
			return PlotRecovery(base("recovery"), "recovery", recovery, measuredRecoveries, w)
		}},
		kind{"scaling summary", func(w Option) ([]string, error) {
			return PlotScalingSummary(base("scaling-summary"), "autoscalers", []string{"static", "hpa", "daedalus"}, scaling, w)
		}},
		kind{"scaling timeline", func(w Option) ([]string, error) {
			return PlotScalingTimeline(base("scaling-timeline"), "autoscalers", variants, []string{"static", "hpa", "daedalus"}, w)
		}},
		kind{"fit", func(Option) ([]string, error) {
			return PlotFit(base("fit"), "fit", "recovery time (s)", "throughput (records/s)", fitSample())
		}},
		kind{"tradeoff", func(Option) ([]string, error) { return PlotTradeoff(base("tradeoff"), "trade-off", tradeoff) }},
		kind{"rates", func(Option) ([]string, error) { return PlotRates(base("rates"), "a week", rates) }},
	)
	for _, k := range LatencyKinds {
		kinds = append(kinds, kind{"latency " + k, func(w Option) ([]string, error) {
			return PlotLatencyDistributions(variants, nil, base("latency-"+k), k, w)
		}})
	}
	return kinds
}

// TestFigureRules: every figure kind, at the default size and at both print
// widths, labels at least three ticks on round numbers on every axis, and
// lays out no text over another.
func TestFigureRules(t *testing.T) {
	dir := t.TempDir()
	for _, k := range figureKinds(t, dir) {
		for _, w := range []struct {
			name string
			opt  Option
		}{{"default", func(*figureOptions) {}}, {"single", WithWidth(SingleColumn)}, {"double", WithWidth(DoubleColumn)}} {
			t.Run(k.name+"/"+w.name, func(t *testing.T) {
				d := inspect(t, func() ([]string, error) { return k.make(w.opt) })
				if len(d.plots) == 0 || len(d.texts) == 0 {
					t.Fatalf("drew %d plots and %d texts", len(d.plots), len(d.texts))
				}
				for i, p := range d.plots {
					for _, ax := range []struct {
						name string
						a    *plot.Axis
					}{{"x", &p.X}, {"y", &p.Y}} {
						if msg := axisProblems(ax.a); msg != "" {
							t.Errorf("plot %d (%q), %s axis %q: %s", i, p.Title.Text, ax.name, ax.a.Label.Text, msg)
						}
					}
				}
				for _, o := range overlaps(d.texts, vg.Points(0.5)) {
					t.Error(o)
				}
			})
		}
	}
}

// TestAxisRule: the checks of TestFigureRules catch what they must.
func TestAxisRule(t *testing.T) {
	for _, c := range []struct {
		name   string
		ticker plot.Ticker
		lo, hi float64
		ok     bool
	}{
		{"nice", niceTicks{}, 0, 200e3, true},
		{"nice, unlucky range", niceTicks{}, 0.9, 2.1, true},
		{"nice, narrow", niceTicks{}, 99.5, 100.6, true},
		{"log, 3 decades", logTicks{}, 1, 1000, true},
		{"log, 2 decades from the data", logTicks{}, 5690, 677e3, true},
		{"log, short", logTicks{}, 400, 900, true},
		{"log, 8 decades", siTicks{logTicks{}}, 1, 1e8, true},
		{"exponents", decadeTicks{}, -0.1, 3.3, true},
		{"gonum's log ticks: one label", plot.LogTicks{Prec: -1}, 2e5, 3e6, false},
		{"data ends as labels", plot.ConstantTicks{{Value: 5690, Label: "5.69k"}, {Value: 10e3, Label: "10k"}, {Value: 100e3, Label: "100k"}, {Value: 677e3, Label: "677k"}}, 5690, 677e3, false},
		{"two labels", plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 10, Label: "10"}}, 0, 10, false},
		{"uneven steps", plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 10, Label: "10"}, {Value: 30, Label: "30"}}, 0, 30, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ax := &plot.Axis{Min: c.lo, Max: c.hi}
			ax.Tick.Marker = c.ticker
			msg := axisProblems(ax)
			if (msg == "") != c.ok {
				t.Errorf("axisProblems = %q, want ok=%v", msg, c.ok)
			}
		})
	}
	a := textBox{r: vg.Rectangle{Max: vg.Point{X: 20, Y: 8}}, s: "-100"}
	b := textBox{r: vg.Rectangle{Min: vg.Point{X: 15}, Max: vg.Point{X: 30, Y: 8}}, s: "-50"}
	c := textBox{r: vg.Rectangle{Min: vg.Point{X: 31}, Max: vg.Point{X: 40, Y: 8}}, s: "0"}
	if got := overlaps([]textBox{a, b, c}, 0.5); len(got) != 1 {
		t.Errorf("overlaps = %q, want the one of -100 and -50", got)
	}
}
