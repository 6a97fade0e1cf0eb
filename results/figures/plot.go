package figures

import (
	"errors"
	"fmt"
	"image/color"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

const (
	figWidth  = 8 * vg.Inch
	figHeight = 9 * vg.Inch
	figDPI    = 150
	// maxBuckets caps the points drawn per line: a 7-day 1-s run would
	// otherwise put 600k points per line into the SVG. Each bucket keeps its
	// min and max, so spikes survive the reduction.
	maxBuckets = 1000
	// strokePoints is the most points stroked as one path.
	strokePoints = 200
	// logRatio is the max/min latency ratio above which the latency panel
	// switches to a log axis.
	logRatio = 100
)

// plotColumns are the timeseries columns the figure reads, in plotData order.
var plotColumns = []string{"time_s", "input_rate", "throughput", "lag", "latency_p50_ms", "latency_p99_ms", "checkpoint_interval_s"}

// plotData holds those columns; only they are read, column by column, which
// keeps a week-long run's figure cheap.
type plotData struct {
	t, in, thr, lag, p50, p99, ci []float64
}

// Styles: every pair of lines differs by dash pattern, not only colour, so
// the figure survives black-and-white printing.
var (
	solid      = draw.LineStyle{Color: color.Black, Width: vg.Points(1.1)}
	p50Line    = draw.LineStyle{Color: color.Gray{Y: 0x50}, Width: vg.Points(0.8)}
	p99Line    = draw.LineStyle{Color: color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}, Width: vg.Points(1.3)}
	dashed     = draw.LineStyle{Color: color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}, Width: vg.Points(1.1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	faultStyle = draw.LineStyle{Color: color.RGBA{R: 0xc0, G: 0x20, B: 0x20, A: 0xff}, Width: vg.Points(0.9), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
	reconStyle = draw.LineStyle{Color: color.RGBA{R: 0x20, G: 0x80, B: 0x40, A: 0xff}, Width: vg.Points(1.1), Dashes: []vg.Length{vg.Points(1), vg.Points(2.5)}}
	gridStyle  = draw.LineStyle{Color: color.Gray{Y: 0xe0}, Width: vg.Points(0.4)}
)

// PlotRun draws runDir/figure.png, .svg and .pdf: four stacked panels
// on a shared time axis (rates, lag, latency, checkpoint interval) with
// faults and reconfigurations marked as vertical lines and each fault's
// recovery shaded (and labelled with its time when few are shown). It
// returns the paths of the files written. WithWindow or WithFault zoom
// on a part of the run, WithWidth sizes it for print.
func PlotRun(runDir string, opts ...Option) (paths []string, err error) {
	f, err := runFigure(runDir, collectOptions(opts))
	if err != nil {
		return nil, fmt.Errorf("results: plot %s: %w", runDir, err)
	}
	paths, err = writeFigure(f.base, f.w, f.h, f.draw)
	if err != nil {
		return nil, fmt.Errorf("results: plot %s: %w", runDir, err)
	}
	// a run with a monitoring section also gets its trade-off figure
	trade := filepath.Join(runDir, results.TradeoffParquet)
	if _, serr := os.Stat(trade); serr == nil {
		rows, err := results.ReadTradeoff(trade)
		if err != nil {
			return nil, err
		}
		more, err := PlotTradeoff(filepath.Join(runDir, "tradeoff"), "Adaptive monitoring: data transmitted vs reconstruction error", rows)
		if err != nil {
			return nil, fmt.Errorf("results: plot %s: %w", trade, err)
		}
		paths = append(paths, more...)
	}
	return paths, nil
}

// stackFigure is PlotRun's figure before it is drawn.
type stackFigure struct {
	panels []*plot.Plot
	// title and key (what the panels draw) are written over them, marks
	// are the faults of the strip above the panels, note is written under
	// them; text is sized by factor.
	title  string
	marks  []stripMark
	key    []keyEntry
	note   string
	factor float64
	base   string
	w, h   vg.Length
}

// draw draws the panels, the key and the fault strip over them and the
// note under them.
func (f *stackFigure) draw(dc draw.Canvas) {
	area := dc
	if f.note != "" {
		sty := figTextStyle(8 * f.factor)
		sty.YAlign = draw.YBottom
		dc.FillText(sty, vg.Point{X: dc.Min.X + vg.Points(6), Y: dc.Min.Y + vg.Points(3)}, f.note)
		area = draw.Crop(dc, 0, 0, sty.Height(f.note)+vg.Points(3), 0)
	}
	head := drawKey(dc, f.title, f.key, f.factor)
	if len(f.marks) > 0 {
		head += stripHeight(f.panels[0].Y.Tick.Label.Font.Size)
	}
	cs := drawStack(f.panels, draw.Crop(area, 0, 0, 0, -head))
	drawFaultStrip(f.panels[0], cs[0], f.marks)
}

func runFigure(runDir string, o figureOptions) (*stackFigure, error) {
	cols, err := results.ReadFloatColumns(filepath.Join(runDir, results.TimeseriesFile), plotColumns...)
	if err != nil {
		return nil, err
	}
	d := plotData{cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6]}
	if len(d.t) == 0 {
		return nil, errors.New("no samples in " + results.TimeseriesFile)
	}
	events, err := results.ReadEvents(filepath.Join(runDir, results.EventsFile))
	if err != nil {
		return nil, err
	}
	// The title is a nicety: a folder without summary.json still plots.
	title := filepath.Base(runDir)
	if s, serr := results.ReadSummary(runDir); serr == nil {
		title = s.Scenario
		if s.Variant != "" {
			title += " / " + s.Variant
		}
		title += BackendTag(&s)
	} else if !errors.Is(serr, fs.ErrNotExist) {
		return nil, serr
	}
	faults := measure.FaultRecoveries(events)
	lo, hi, err := o.window.bounds([][]measure.FaultRecovery{faults}, []float64{d.t[len(d.t)-1]})
	if err != nil {
		return nil, err
	}
	if o.window.fault > 0 {
		title += fmt.Sprintf(" — fault %d", o.window.fault)
	}
	rp := buildPanels(d.window(lo, hi), events, faults, lo, hi)
	w, h, f := o.size(figWidth, figHeight)
	scaleText(f, rp.panels...)
	sf := &stackFigure{title: o.titleOr(title), panels: rp.panels, marks: rp.marks, key: rp.key,
		note: strings.Join(rp.notes, " "), factor: f, w: w, h: h}
	sf.base = filepath.Join(runDir, strings.TrimSuffix(results.FigurePNG, ".png")+o.window.suffix())
	return sf, nil
}

// maxFinite is the largest finite value of xs, or 0.
func maxFinite(xs []float64) float64 {
	m := 0.0
	for _, v := range xs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			m = max(m, v)
		}
	}
	return m
}

// window is the part of d inside [lo, hi] seconds.
func (d plotData) window(lo, hi float64) plotData {
	i, j := sliceWindow(d.t, lo, hi)
	cut := func(x []float64) []float64 {
		if x == nil { // a column the figure did not read
			return nil
		}
		return x[i:j]
	}
	return plotData{cut(d.t), cut(d.in), cut(d.thr), cut(d.lag), cut(d.p50), cut(d.p99), cut(d.ci)}
}

// drawStack draws plots one above the other on a shared x axis and returns
// the canvas each was drawn in.
func drawStack(plots []*plot.Plot, dc draw.Canvas) []draw.Canvas {
	// Panels paint only their own tiles; the SVG would be transparent between.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4),
		PadLeft: vg.Points(4), PadRight: vg.Points(10), PadY: vg.Points(6)}
	var out []draw.Canvas
	for i, cs := range alignFitted(rows, tiles, dc) {
		drawOn(rows[i][0], cs[0])
		out = append(out, cs[0])
	}
	return out
}

// alignFitted is plot.Align after the tick labels are fitted to the
// panels (fitTicks): aligned with the labels before fitting, a panel whose
// fitted labels are narrower would shift its data off the shared axis.
func alignFitted(rows [][]*plot.Plot, tiles draw.Tiles, dc draw.Canvas) [][]draw.Canvas {
	for i, cs := range plot.Align(rows, tiles, dc) {
		for j, p := range rows[i] {
			if p != nil {
				fitTicks(p, cs[j])
			}
		}
	}
	return plot.Align(rows, tiles, dc)
}

// denseSamples is the number of samples in a panel above which a jagged
// series (the latency p99 with its checkpoint sawtooth) is drawn as the
// band between its minimum and maximum per bucket: as a line it would
// zig-zag at under a pixel and print as a hatched ribbon.
const denseSamples = 1500

// runPanels is PlotRun's figure in axis units: its panels, the faults of
// its strip and a note under the panels (what a left-out panel showed).
type runPanels struct {
	panels []*plot.Plot
	marks  []stripMark
	key    []keyEntry
	notes  []string
}

func buildPanels(d plotData, events []results.Event, faults []measure.FaultRecovery, lo, hi float64) runPanels {
	scale, unit := timeUnit(hi - lo)
	t := make([]float64, len(d.t))
	for i, v := range d.t {
		t[i] = v / scale
	}
	// Many more samples than pixels: rates as means and latencies as
	// bands per bucket (at least two checkpoint intervals); a zoom keeps
	// every sample.
	dense := len(t) > denseSamples
	k, per := 1, ""
	if dense {
		k, per = bandBucket(d.t, maxFinite(d.ci))
	}

	rates := newPanel("rate (records/s)")
	under := []*underlay{underlayOf(rates)}
	if dense {
		addMean(rates, t, d.in, k, solid, "")
		addMean(rates, t, d.thr, k, dashed, "")
	} else {
		addLine(rates, t, d.in, solid, "", 0)
		addLine(rates, t, d.thr, dashed, "", 0)
	}
	linearRange(rates, 1.08)

	lag := newPanel("lag (records)")
	under = append(under, underlayOf(lag))
	addLine(lag, t, d.lag, solid, "", 0)
	linearRange(lag, 1.08)

	lat, latUnder := latencyPanel(d, t, dense, k)
	under = append(under, latUnder)
	out := runPanels{panels: []*plot.Plot{rates, lag, lat}}
	out.key = []keyEntry{
		{label: "input rate", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: solid}}},
		{label: "throughput", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: dashed}}},
	}
	if dense {
		out.key = append(out.key,
			keyEntry{label: "latency p50", thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: p50Fill}}},
			keyEntry{label: "latency p99", thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: p99Fill, LineStyle: p99Edge}}})
		out.notes = append(out.notes, "Rates: mean per "+per+"; latencies: min–max per "+per+".")
	} else {
		out.key = append(out.key,
			keyEntry{label: "latency p50", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: p50Line}}},
			keyEntry{label: "latency p99", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: p99Line}}})
	}
	// A checkpoint interval that never changes is said, not drawn.
	if v, flat := flatValue(d.ci); flat {
		out.notes = append(out.notes, "Checkpoint interval "+durationLabel(v)+" throughout.")
	} else {
		ci := newPanel("checkpoint interval (s)")
		under = append(under, underlayOf(ci))
		for _, seg := range addLine(ci, t, d.ci, solid, "", 0) {
			seg.StepStyle = plotter.PreStep // the value holds over the interval ending at TimeS
		}
		linearRange(ci, 1.15)
		out.panels = append(out.panels, ci)
	}
	panels := out.panels
	panels[len(panels)-1].X.Label.Text = "time (" + unit + ")"
	if addRecoverySpans(under, faults, scale, lo, hi) {
		out.key = append(out.key, keyEntry{label: "recovery", thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: recoveryFill}}})
	}
	out.key = append(out.key, addEventMarkers(panels, under, events, scale)...)
	for i, f := range faults {
		if f.AtS >= lo && f.AtS <= hi {
			out.marks = append(out.marks, stripMark{x: f.AtS / scale, num: i + 1, label: RecoveryText(f)})
		}
	}
	xMin, xMax := lo/scale, hi/scale
	if !(xMax > xMin) { // a lone sample at t=0 still needs a non-empty axis
		xMax = xMin + 1
	}
	for i, p := range panels {
		p.X.Min, p.X.Max = xMin, xMax
		p.Legend = plot.NewLegend() // the key above the panels names the lines
		if i < len(panels)-1 {
			p.X.Tick.Marker = unlabelled{p.X.Tick.Marker}
		}
	}
	return out
}

// latencyPanel draws the latency p50 and, over it, the p99: the tail is
// what a fault hurts, so nothing may hide it. Dense runs draw both as bands
// (min–max per bucket of k samples), the p50's light grey and the p99's
// blue with its upper edge stroked.
func latencyPanel(d plotData, t []float64, dense bool, k int) (*plot.Plot, *underlay) {
	lat := newPanel("latency (ms)")
	under := underlayOf(lat)
	p50, p99 := d.p50, d.p99
	lo99, hi99 := positiveRange(p50, p99)
	floor := 0.0
	if lo99 > 0 && hi99/lo99 > logRatio {
		// A log axis cannot show zero: those intervals are drawn as gaps.
		lat.Y.Scale = plot.LogScale{}
		lat.Y.Tick.Marker = siTicks{logTicks{}}
		floor = math.SmallestNonzeroFloat64
	}
	if dense {
		addBand(lat, t, p50, k, p50Fill, draw.LineStyle{}, "", floor)
		addBand(lat, t, p99, k, p99Fill, p99Edge, "", floor)
	} else {
		addLine(lat, t, p50, p50Line, "", floor)
		addLine(lat, t, p99, p99Line, "", floor)
	}
	if floor > 0 {
		// Whole decades: at least three labelled, however short the panel.
		lat.Y.Min, lat.Y.Max = decadeBelow(lo99), decadeAbove(hi99)
	} else {
		linearRange(lat, 1.08)
	}
	return lat, under
}

func newPanel(ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Y.Label.Text = ylabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = vg.Points(10)
		ax.Tick.Label.Font.Size = vg.Points(9)
	}
	p.Y.Tick.Marker = siTicks{niceTicks{}}
	p.X.Tick.Marker = niceTicks{}
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.Add(grid{})
	return p
}

// addLine plots y(t) as one Line per run of usable values, so NaN (job down)
// and, on log axes, values below floor break the line instead of failing NewLine.
// Long series are reduced to min/max per bucket.
func addLine(p *plot.Plot, t, y []float64, style draw.LineStyle, name string, floor float64) []*plotter.Line {
	usable := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= floor }
	var lines []*plotter.Line
	for _, seg := range segments(t, y, usable) {
		for len(seg) > 0 {
			// The PNG rasterizer slows down quadratically on one long
			// zig-zagging path (a noisy week took seconds), so long lines
			// are stroked in pieces that share their end points.
			n := min(len(seg), strokePoints)
			l := &plotter.Line{XYs: seg[:n], LineStyle: style}
			p.Add(l)
			lines = append(lines, l)
			if n == len(seg) {
				break
			}
			seg = seg[n-1:]
		}
	}
	if name != "" {
		p.Legend.Add(name, &plotter.Line{LineStyle: style})
	}
	return lines
}

// segments splits the series at unusable values and, when it is longer than
// 2*maxBuckets points, keeps each bucket's min and max in time order. A bucket
// with no usable value is a gap.
func segments(t, y []float64, usable func(float64) bool) []plotter.XYs {
	k := (len(t) + maxBuckets - 1) / maxBuckets
	if len(t) <= 2*maxBuckets {
		k = 1
	}
	var out []plotter.XYs
	var cur plotter.XYs
	for start := 0; start < len(t); start += k {
		end := min(start+k, len(t))
		lo, hi := -1, -1
		for i := start; i < end; i++ {
			if !usable(y[i]) {
				continue
			}
			if lo < 0 || y[i] < y[lo] {
				lo = i
			}
			if hi < 0 || y[i] > y[hi] {
				hi = i
			}
		}
		if lo < 0 {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		first, second := min(lo, hi), max(lo, hi)
		cur = append(cur, plotter.XY{X: t[first], Y: y[first]})
		if second != first {
			cur = append(cur, plotter.XY{X: t[second], Y: y[second]})
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// linearRange starts the y axis at zero and leaves headroom above the data
// for the legend; an empty or flat-zero panel still gets a unit range.
func linearRange(p *plot.Plot, headroom float64) {
	p.Y.Min = 0
	if p.Y.Max <= 0 || math.IsNaN(p.Y.Max) {
		p.Y.Max = 1
	}
	p.Y.Max *= headroom
}

// decadeBelow and decadeAbove are the powers of ten at or below and at or
// above v > 0.
func decadeBelow(v float64) float64 { return math.Pow(10, math.Floor(math.Log10(v)+1e-9)) }
func decadeAbove(v float64) float64 { return math.Pow(10, math.Ceil(math.Log10(v)-1e-9)) }

// positiveRange is the smallest and largest finite positive value of the
// series, or 0, 0 if there is none.
func positiveRange(series ...[]float64) (lo, hi float64) {
	for _, ys := range series {
		for _, v := range ys {
			if v > 0 && !math.IsInf(v, 0) {
				if lo == 0 || v < lo {
					lo = v
				}
				hi = max(hi, v)
			}
		}
	}
	return lo, hi
}

// vline marks one event across the whole height of a panel. It reports no
// data range, so markers never stretch an axis.
type vline struct {
	x     float64
	style draw.LineStyle
}

func (v vline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
}

// span shades a time range across the whole height of a panel (an
// unrecovered fault, from the fault to the end of the run). Like vline it
// reports no data range.
type span struct{ x0, x1 float64 }

// unrecoveredFill is a faint red, a light grey in black and white.
var unrecoveredFill = color.NRGBA{R: 0xc0, G: 0x20, B: 0x20, A: 0x26}

func (s span) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0, x1 := max(trX(s.x0), c.Min.X), min(trX(s.x1), c.Max.X)
	if x1 <= x0 {
		return
	}
	c.FillPolygon(unrecoveredFill, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
}

// addEventMarkers draws faults (dashed) and reconfigurations/savepoints
// (dotted) in every panel, and shades each unrecovered fault from its
// start to the end of the run in the panels' underlays (under the data);
// it returns their key entries.
func addEventMarkers(panels []*plot.Plot, under []*underlay, events []results.Event, scale float64) (key []keyEntry) {
	var faults, recons, unrecovered bool
	for _, e := range events {
		if e.Kind == results.KindUnrecovered && e.DurationS != nil && !e.IsReconfiguration() {
			unrecovered = true
			for _, u := range under {
				u.items = append(u.items, span{x0: (e.TimeS - *e.DurationS) / scale, x1: e.TimeS / scale})
			}
			continue
		}
		var st draw.LineStyle
		switch e.Kind {
		case results.KindFault:
			st, faults = faultStyle, true
		case results.KindReconfigured, results.KindSavepoint:
			st, recons = reconStyle, true
		default:
			continue
		}
		for _, p := range panels {
			p.Add(vline{x: e.TimeS / scale, style: st})
		}
	}
	if faults {
		key = append(key, keyEntry{label: "fault: number, recovery time", thumbs: []plot.Thumbnailer{runFaultThumb{}}})
	}
	if recons {
		key = append(key, keyEntry{label: "savepoint / reconfigured", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: reconStyle}}})
	}
	if unrecovered {
		key = append(key, keyEntry{label: "unrecovered (fault → end)", thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: unrecoveredFill}}})
	}
	return key
}

// unlabelled keeps the tick marks (and grid) of the panels above the bottom
// one but drops their labels, since the time axis is shared.
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(min, max float64) []plot.Tick {
	ts := u.Ticker.Ticks(min, max)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// grid is plotter.Grid, except that it sees through unlabelled: a tick
// without a label counts as minor, and Grid skips minor ticks.
type grid struct{}

func (grid) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	xt := p.X.Tick.Marker
	if u, ok := xt.(unlabelled); ok {
		xt = u.Ticker
	}
	for _, tk := range xt.Ticks(p.X.Min, p.X.Max) {
		if x := trX(tk.Value); !tk.IsMinor() && x >= c.Min.X && x <= c.Max.X {
			c.StrokeLine2(gridStyle, x, c.Min.Y, x, c.Max.Y)
		}
	}
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if y := trY(tk.Value); !tk.IsMinor() && y >= c.Min.Y && y <= c.Max.Y {
			c.StrokeLine2(gridStyle, c.Min.X, y, c.Max.X, y)
		}
	}
}
