package figures

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// Latency distribution kinds.
const (
	// LatencyOverview is each run's difference from the first at several
	// quantiles, beside the tail (CCDF).
	LatencyOverview = "overview"
	LatencyCDF      = "cdf"
	LatencyCCDF     = "ccdf"
	LatencyLetter   = "letter"
	LatencyBox      = "box"
)

// LatencyKinds are the kinds PlotLatencyDistributions draws.
var LatencyKinds = []string{LatencyOverview, LatencyCDF, LatencyCCDF, LatencyLetter, LatencyBox}

// maxLetterLevels caps the boxes of a letter-value plot: the 8th level
// spans the quantiles 1/512 … 511/512, past the p99.
const maxLetterLevels = 8

// PlotLatencyDistributions compares the distribution of the per-interval
// latency_p99_ms (WithLatencyColumn picks another column) of several runs,
// NaN intervals (no output) skipped, each run in its style of the run set.
// kind:
//   - "overview": each run's difference from the first (the baseline) at
//     the p50, p90, p99, p99.9 and maximum, beside the tails (CCDF) of all
//     runs on one log axis, the runs named in a key above;
//   - "cdf": empirical CDFs, on a log x axis when the values span more
//     than a factor 100 (or the largest reaches 10x past the largest
//     median), with round ticks only;
//   - "ccdf": the tail, P(latency > x) on a log axis down to 1/n, with the
//     p99 and p99.9 levels marked;
//   - "letter": letter-value plots (Hofmann, Wickham, Kafadar 2017): the
//     box of the quartiles, then of the eighths, sixteenths, … up to
//     maxLetterLevels boxes, each narrower, the rest as points — a box plot
//     for the long tails that collapse an ordinary one;
//   - "box": box plots (Tukey whiskers at 1.5 IQR).
//
// labels name the runs; nil names them by folder.
func PlotLatencyDistributions(runDirs []string, labels []string, base string, kind string, opts ...Option) (paths []string, err error) {
	return plotLatency(runDirs, labels, base, kind, "", opts...)
}

// PlotLatencyDifferences is PlotLatencyDistributions' overview against the
// run labelled baseline ("": the first run): each run's difference from it
// at the p50, p90, p99, p99.9 and maximum, beside the tails of all runs.
func PlotLatencyDifferences(runDirs []string, labels []string, base string, baseline string, opts ...Option) (paths []string, err error) {
	return plotLatency(runDirs, labels, base, LatencyOverview, baseline, opts...)
}

func plotLatency(runDirs []string, labels []string, base, kind, baseline string, opts ...Option) (paths []string, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("results: latency figure: %w", err)
		}
	}()
	o := collectOptions(opts)
	plots, err := latencyPanels(runDirs, labels, kind, baseline, o)
	if err != nil {
		return nil, err
	}
	if len(plots) == 2 { // the overview: a key and headings over the two panels
		runs, err := LabelRuns(runDirs, labels)
		if err != nil {
			return nil, err
		}
		const tailHeading = "tail: share of intervals above each latency"
		w, h, f := o.size(2*singleWidth, singleHeight)
		// Side by side at double width, the panels keep the room of a
		// wrapped key and a y title as tall as the panel.
		h = max(h, 3.4*vg.Inch)
		heading := plots[0].Title.Text
		g := &gridFigure{title: o.titleOr(""), w: w, h: h, rows: [][]*plot.Plot{plots},
			colTitles: []string{heading, tailHeading}}
		plots[0].Title.Text = ""
		if o.width > 0 && o.width <= SingleColumn+0.5*vg.Inch {
			// A single column: the panels one above the other, full width.
			g.h = 2 * singleHeight * o.width / singleWidth
			g.rows, g.colTitles = [][]*plot.Plot{{plots[0]}, {plots[1]}}, nil
			plots[0].Title.Text, plots[1].Title.Text = heading, tailHeading
			for _, p := range plots {
				p.Title.TextStyle.Font.Size = vg.Points(9)
			}
		}
		scaleText(f, plots...)
		for i, r := range runs {
			g.key = append(g.key, keyEntry{label: r.Label, thumbs: styleOf(i).thumbs()})
		}
		return g.write(base)
	}
	w, h, f := o.size(singleWidth, singleHeight)
	scaleText(f, plots...)
	return writeFigure(base, w, h, func(dc draw.Canvas) { drawPlot(plots[0], dc) })
}

// latencyPlots builds the plots of PlotLatencyDistributions.
func latencyPlots(runDirs []string, labels []string, kind string, o figureOptions) ([]*plot.Plot, error) {
	return latencyPanels(runDirs, labels, kind, "", o)
}

// latencyPanels builds the plots of a latency figure, the overview's
// differences from the run labelled baseline ("": the first).
func latencyPanels(runDirs []string, labels []string, kind, baseline string, o figureOptions) ([]*plot.Plot, error) {
	known := false
	for _, k := range LatencyKinds {
		known = known || k == kind
	}
	if !known {
		return nil, fmt.Errorf("kind %q: want one of %v", kind, LatencyKinds)
	}
	runs, err := LabelRuns(runDirs, labels)
	if err != nil {
		return nil, err
	}
	data := make([][]float64, len(runs))
	for i, r := range runs {
		cols, err := results.ReadRunColumns(r.Dir, o.latency)
		if err != nil {
			return nil, err
		}
		data[i] = statistics.FiniteValues(cols[0])
		if len(data[i]) == 0 {
			return nil, fmt.Errorf("%s: no finite %s (the job never produced output)", filepath.Join(r.Dir, results.TimeseriesFile), o.latency)
		}
		sort.Float64s(data[i])
	}
	lo, hi := positiveRange(data...)
	// A log axis past a factor 100, as in PlotRun, or when the tail reaches
	// 10x past the largest median: on a linear axis such a distribution is
	// a vertical line at the left edge.
	var med float64
	for _, xs := range data {
		med = max(med, xs[len(xs)/2])
	}
	logAxis := lo > 0 && (hi/lo > logRatio || (med > 0 && hi/med > tailRatio))
	valueLabel := AxisLabel(o.latency)
	title := o.titleOr("")
	var plots []*plot.Plot
	switch kind {
	case LatencyCDF:
		plots = []*plot.Plot{latencyCDF(runs, data, cmp.Or(o.xLabel, valueLabel), logAxis, lo, hi, o)}
	case LatencyCCDF:
		plots = []*plot.Plot{latencyCCDF(runs, data, cmp.Or(o.xLabel, valueLabel), logAxis, lo, hi, true)}
	case LatencyLetter:
		plots = []*plot.Plot{latencyLetters(runs, data, cmp.Or(o.yLabel, valueLabel), logAxis, lo, hi)}
	case LatencyBox:
		p, err := latencyBoxes(runs, data, cmp.Or(o.yLabel, valueLabel), logAxis, lo, hi)
		if err != nil {
			return nil, err
		}
		plots = []*plot.Plot{p}
	case LatencyOverview:
		// The heading names the baseline; PlotLatencyDistributions moves it
		// over the panel.
		b := slices.IndexFunc(runs, func(r LabelledRun) bool { return r.Label == baseline })
		if b < 0 && baseline != "" {
			return nil, fmt.Errorf("baseline %q: no run has that label", baseline)
		}
		b = max(b, 0)
		ratioLabel := ReadableName(o.latency) + " ÷ " + runs[b].Label + "'s (×)"
		diff, ratio := latencyDiffs(data, b, cmp.Or(o.yLabel, "Δ "+valueLabel), cmp.Or(o.yLabel, ratioLabel))
		diff.Title.Text = diffHeading(runs[b].Label, b == 0 && baseline == "", ratio)
		tail := latencyCCDF(runs, data, cmp.Or(o.xLabel, valueLabel), logAxis, lo, hi, false)
		tail.Legend = plot.NewLegend() // the figure's key names the runs
		return []*plot.Plot{diff, tail}, nil
	}
	plots[0].Title.Text = title
	return plots, nil
}

func latencyCDF(runs []LabelledRun, data [][]float64, xlabel string, logAxis bool, lo, hi float64, o figureOptions) *plot.Plot {
	p := newPanel(cmp.Or(o.yLabel, "cumulative fraction of intervals"))
	p.X.Label.Text = xlabel
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(4)
	floor := math.Inf(-1)
	if logAxis {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = siTicks{logTicks{}}
		floor = 0 // a log axis cannot show zero
	} else {
		p.X.Tick.Marker = siTicks{niceTicks{}}
	}
	for i, xs := range data {
		st := styleOf(i)
		n := len(xs)
		k := max(1, (n+cdfPoints-1)/cdfPoints)
		var pts plotter.XYs
		add := func(x, f float64) {
			if x > floor {
				pts = append(pts, plotter.XY{X: x, Y: f})
			}
		}
		add(xs[0], 0)
		for j := k - 1; j < n; j += k {
			add(xs[j], float64(j+1)/float64(n))
		}
		if (n-1)%k != k-1 {
			add(xs[n-1], 1)
		}
		if len(pts) == 0 {
			continue
		}
		l := &plotter.Line{XYs: pts, LineStyle: st.line, StepStyle: plotter.PostStep}
		p.Add(l)
		// Markers at staggered fractions keep each line identifiable in
		// black and white without piling glyphs onto each other.
		// Some at fixed fractions, for the steep part, and some at even
		// steps along the x axis, for the flat tail.
		var ms plotter.XYs
		stagger := float64(i%5) / 5
		for _, f := range []float64{0.2, 0.5, 0.8} {
			f += 0.1 * stagger
			j := min(n-1, int(math.Ceil(f*float64(n)))-1)
			if j >= 0 && xs[j] > floor {
				ms = append(ms, plotter.XY{X: xs[j], Y: float64(j+1) / float64(n)})
			}
		}
		a0, a1 := xs[0], xs[n-1]
		toAxis, fromAxis := func(v float64) float64 { return v }, func(v float64) float64 { return v }
		if logAxis {
			a0 = xs[sort.SearchFloat64s(xs, math.SmallestNonzeroFloat64)]
			toAxis, fromAxis = math.Log10, func(v float64) float64 { return math.Pow(10, v) }
		}
		for k := range 3 {
			x := fromAxis(toAxis(a0) + (float64(k)+0.5+0.5*stagger)/3.5*(toAxis(a1)-toAxis(a0)))
			j := sort.Search(n, func(j int) bool { return xs[j] > x }) // intervals at or below x
			if j > 0 && j < n && x > floor {
				ms = append(ms, plotter.XY{X: x, Y: float64(j) / float64(n)})
			}
		}
		p.Add(&plotter.Scatter{XYs: ms, GlyphStyle: st.glyph})
		p.Legend.Add(runs[i].Label, st.thumbs()...)
	}
	p.Y.Min, p.Y.Max = 0, 1.02
	p.Y.Tick.Marker = niceTicks{}
	if logAxis {
		p.X.Min, p.X.Max = lo/1.2, hi*1.2
	} else {
		min0, max0 := data[0][0], data[0][len(data[0])-1]
		for _, xs := range data {
			min0, max0 = min(min0, xs[0]), max(max0, xs[len(xs)-1])
		}
		span := max0 - min0
		if span == 0 {
			span = math.Max(math.Abs(max0), 1)
		}
		p.X.Min, p.X.Max = min0-0.03*span, max0+0.03*span
		if min0 >= 0 {
			p.X.Min = max(0, p.X.Min)
		}
	}
	return p
}

func latencyBoxes(runs []LabelledRun, data [][]float64, ylabel string, logAxis bool, lo, hi float64) (*plot.Plot, error) {
	p := newPanel(ylabel)
	n := len(data)
	width := vg.Points(math.Min(50, 300/float64(n)))
	names := make([]string, n)
	for i, xs := range data {
		names[i] = runs[i].Label
		vals := xs
		if logAxis {
			vals = positives(xs)
		}
		b, err := plotter.NewBoxPlot(width, float64(i), plotter.Values(vals))
		if err != nil {
			return nil, err
		}
		b.FillColor = color.Gray{Y: 0xe8}
		b.BoxStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
		b.MedianStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(2.2)}
		b.WhiskerStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
		b.GlyphStyle = draw.GlyphStyle{Color: color.Gray{Y: 0x50}, Radius: vg.Points(1.8), Shape: draw.RingGlyph{}}
		b.Outside = thinOutliers(b.Values, b.Outside, logAxis)
		p.Add(b)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(n)-0.4
	rotateLongNames(p, names)
	if logAxis {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = siTicks{logTicks{}}
		p.Y.Min, p.Y.Max = lo/1.3, hi*1.3
	} else {
		var top float64
		for _, xs := range data {
			top = max(top, xs[len(xs)-1])
		}
		p.Y.Min, p.Y.Max = 0, top*1.05
		if !(p.Y.Max > 0) {
			p.Y.Max = 1
		}
	}
	return p, nil
}

// latencyCCDF draws the tail of each distribution: the share of intervals
// above x, on a log axis from 1 down to 1/n, with the p99 and p99.9
// levels marked (and named, when named).
func latencyCCDF(runs []LabelledRun, data [][]float64, xlabel string, logAxis bool, lo, hi float64, named bool) *plot.Plot {
	p := newPanel("share of intervals above")
	p.X.Label.Text = xlabel
	// Bottom left: the tails fall away to the right, the bulk is at the top.
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), vg.Points(6)
	// The y axis holds log10(share) on a linear scale: gonum centres an
	// axis label at the data midpoint, which on a log scale sits near the
	// top and makes plot.Align pad the panel.
	p.Y.Tick.Marker = shareTicks{}
	floor := math.Inf(-1)
	if logAxis {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = siTicks{logTicks{}}
		floor = 0
	} else {
		p.X.Tick.Marker = siTicks{niceTicks{}}
	}
	minShare := 1.0
	for i, xs := range data {
		st := styleOf(i)
		n := len(xs)
		minShare = min(minShare, 1/float64(n))
		k := max(1, (n+cdfPoints-1)/cdfPoints)
		var pts plotter.XYs
		for j := 0; j < n; j += k {
			if share := float64(n-j) / float64(n); xs[j] > floor {
				pts = append(pts, plotter.XY{X: xs[j], Y: math.Log10(share)})
			}
		}
		if xs[n-1] > floor {
			pts = append(pts, plotter.XY{X: xs[n-1], Y: math.Log10(1 / float64(n))})
		}
		if len(pts) == 0 {
			continue
		}
		p.Add(&plotter.Line{XYs: pts, LineStyle: st.line, StepStyle: plotter.PreStep})
		// One marker at the p99, where a reader looks first.
		j := min(n-1, int(math.Ceil(0.99*float64(n)))-1)
		if xs[j] > floor {
			p.Add(&plotter.Scatter{XYs: plotter.XYs{{X: xs[j], Y: math.Log10(float64(n-j) / float64(n))}}, GlyphStyle: st.glyph})
		}
		p.Legend.Add(runs[i].Label, st.thumbs()...)
	}
	for _, q := range []struct {
		share float64
		label string
	}{{0.01, "p99"}, {0.001, "p99.9"}} {
		if q.share >= minShare {
			if !named {
				q.label = ""
			}
			p.Add(hline{y: math.Log10(q.share), style: refStyle, label: q.label})
		}
	}
	p.Y.Min, p.Y.Max = math.Log10(minShare/1.5), math.Log10(1.5)
	if logAxis {
		p.X.Min, p.X.Max = lo/1.2, hi*1.2
	} else {
		p.X.Min, p.X.Max = 0, hi*1.05
	}
	return p
}

// latencyLetters draws a letter-value plot per run: nested boxes from the
// quartiles outwards (eighths, sixteenths, …), each narrower and lighter,
// in the run's colour, the median as a black bar, and the values beyond
// the outermost box as thinned points.
func latencyLetters(runs []LabelledRun, data [][]float64, ylabel string, logAxis bool, lo, hi float64) *plot.Plot {
	p := newPanel(ylabel)
	n := len(data)
	names := make([]string, n)
	for i, xs := range data {
		names[i] = runs[i].Label
		vals := xs
		if logAxis {
			vals = positives(xs)
		}
		if len(vals) == 0 {
			continue
		}
		p.Add(&letterValues{x: float64(i), xs: vals, color: styleOf(i).line.Color, logAxis: logAxis})
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(n)-0.4
	rotateLongNames(p, names)
	if logAxis {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = siTicks{logTicks{}}
		p.Y.Min, p.Y.Max = lo/1.3, hi*1.3
	} else {
		p.Y.Min, p.Y.Max = 0, max(hi*1.05, 1)
	}
	return p
}

// letterLevels is the number of letter values (boxes) for n values: while
// each tail beyond the box still holds at least 8 values, at most
// maxLetterLevels.
func letterLevels(n int) int {
	k := 1
	for k < maxLetterLevels && float64(n)/math.Pow(2, float64(k+2)) >= 8 {
		k++
	}
	return k
}

// letterValues is one run's letter-value plot at x.
type letterValues struct {
	x       float64
	xs      []float64 // sorted
	color   color.Color
	logAxis bool
}

func (l *letterValues) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	k := letterLevels(len(l.xs))
	x := trX(l.x)
	full := vg.Points(math.Min(44, 280/math.Max(1, p.X.Max-p.X.Min)))
	r, g, b, _ := l.color.RGBA()
	// Outermost first, so the inner boxes paint over it.
	for j := k; j >= 1; j-- {
		tail := math.Pow(2, -float64(j+1))
		y0, y1 := trY(statistics.Quantile(l.xs, tail)), trY(statistics.Quantile(l.xs, 1-tail))
		w := full * vg.Length(1-0.8*float64(j-1)/float64(max(k, 2)))
		// Lighter outwards: blend the colour with white.
		light := 0.75 * float64(j-1) / float64(max(k-1, 1))
		fill := color.NRGBA{
			R: uint8(float64(r>>8)*(1-light) + 255*light), G: uint8(float64(g>>8)*(1-light) + 255*light),
			B: uint8(float64(b>>8)*(1-light) + 255*light), A: 0xff}
		box := []vg.Point{{X: x - w/2, Y: y0}, {X: x + w/2, Y: y0}, {X: x + w/2, Y: y1}, {X: x - w/2, Y: y1}}
		c.FillPolygon(fill, box)
		c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: vg.Points(0.5)}, append(box, box[0]))
	}
	med := trY(statistics.Quantile(l.xs, 0.5))
	c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(2)}, x-full/2, med, x+full/2, med)
	// The values beyond the outermost box, thinned to what can be seen.
	tail := math.Pow(2, -float64(k+1))
	loV, hiV := statistics.Quantile(l.xs, tail), statistics.Quantile(l.xs, 1-tail)
	var outside []int
	for i, v := range l.xs {
		if v < loV || v > hiV {
			outside = append(outside, i)
		}
	}
	glyph := draw.GlyphStyle{Color: color.Gray{Y: 0x50}, Radius: vg.Points(1.6), Shape: draw.RingGlyph{}}
	for _, i := range thinOutliers(plotter.Values(l.xs), outside, l.logAxis) {
		c.DrawGlyph(glyph, vg.Point{X: x, Y: trY(l.xs[i])})
	}
}

func (l *letterValues) DataRange() (xmin, xmax, ymin, ymax float64) {
	return l.x, l.x, l.xs[0], l.xs[len(l.xs)-1]
}

// rotateLongNames slants the category names of p when they would collide.
func rotateLongNames(p *plot.Plot, names []string) {
	longest := 0.0
	for _, s := range names {
		longest = max(longest, p.X.Tick.Label.Width(s).Points())
	}
	if longest*float64(len(names)) > 340 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
}

// refStyle is a reference level (p99, p99.9): grey dots.
var refStyle = draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(0.7), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2)}}

// shareTicks labels an axis of log10(share) as shares: 100%, 10%, 1% …
// at the whole exponents, minor ticks at 2…9 of each decade.
type shareTicks struct{}

func (shareTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for k := math.Floor(min); k <= math.Ceil(max); k++ {
		for m := 1.0; m < 10; m++ {
			v := k + math.Log10(m)
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = strconv.FormatFloat(100*math.Pow(10, k), 'g', 3, 64) + "%"
			}
			ts = append(ts, t)
		}
	}
	return ts
}

func positives(xs []float64) []float64 {
	i := sort.SearchFloat64s(xs, math.SmallestNonzeroFloat64)
	return xs[i:]
}

// thinOutliers keeps at most about boxOutliers of a box's outliers, dropping
// those that would be drawn on top of one already kept: a week of 1-s
// intervals can have tens of thousands of them.
func thinOutliers(vals plotter.Values, outside []int, logAxis bool) []int {
	if len(outside) <= boxOutliers {
		return outside
	}
	pos := func(v float64) float64 {
		if logAxis {
			return math.Log10(v)
		}
		return v
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range outside {
		lo, hi = min(lo, pos(vals[i])), max(hi, pos(vals[i]))
	}
	step := (hi - lo) / boxOutliers
	sorted := slices.Clone(outside)
	sort.Slice(sorted, func(a, b int) bool { return vals[sorted[a]] < vals[sorted[b]] })
	var kept []int
	last := math.Inf(-1)
	for _, i := range sorted {
		if v := pos(vals[i]); v-last >= step || i == sorted[len(sorted)-1] {
			kept = append(kept, i)
			last = v
		}
	}
	return kept
}
