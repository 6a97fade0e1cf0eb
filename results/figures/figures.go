package figures

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	// gonum's vgpdf writes with fpdf; its defaults make PDFs reproducible
	"codeberg.org/go-pdf/fpdf"
)

// Comparison figures: sweeps (runs.parquet) and several runs side by side.
// PDFs carry a fixed creation date and sorted resource catalogs (fpdf,
// under gonum's vgpdf, stamps the current time and keeps map order
// otherwise), so the same run gives the same bytes in every file.
func init() {
	fixed := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	fpdf.SetDefaultCreationDate(fixed)
	fpdf.SetDefaultModificationDate(fixed)
	fpdf.SetDefaultCatalogSort(true)
}

// Every figure is written as base+".png", base+".svg" and base+".pdf", each
// atomically, and keeps the look of PlotRun: the same fonts, grid and tick
// labels, units on every axis, and lines told apart by dash pattern and
// marker shape as well as by colour, so they survive black-and-white print.

const (
	// singleWidth x singleHeight is the size of a one-plot figure.
	singleWidth  = 6 * vg.Inch
	singleHeight = 4.2 * vg.Inch
	// cdfPoints caps the points of an empirical CDF line.
	cdfPoints = 2000
	// boxOutliers caps the outlier glyphs of one box.
	boxOutliers = 200
	// heatLabelCells is the largest grid side whose cells get their value
	// written in them.
	heatLabelCells = 12
	// tailRatio is the max/median ratio above which a latency distribution
	// is drawn on a log axis.
	tailRatio = 10
	// panelMarkers is the number of markers per line on the time panels.
	panelMarkers = 8
)

// Option changes a default of the comparison figures.
type Option func(*figureOptions)

type figureOptions struct {
	xLabel, yLabel, zLabel string
	title                  *string
	latency                string
	width                  vg.Length // 0: the figure's own default
	window                 window
	overlay                bool
}

// WithXLabel replaces the x axis label derived from the column name.
func WithXLabel(s string) Option { return func(o *figureOptions) { o.xLabel = s } }

// WithYLabel replaces the y axis label derived from the column name.
func WithYLabel(s string) Option { return func(o *figureOptions) { o.yLabel = s } }

// WithZLabel replaces the colour bar label of a heat map.
func WithZLabel(s string) Option { return func(o *figureOptions) { o.zLabel = s } }

// WithTitle sets the figure title; "" removes the default one.
func WithTitle(s string) Option { return func(o *figureOptions) { o.title = &s } }

// WithLatencyColumn picks the timeseries column PlotLatencyDistributions
// draws (default latency_p99_ms; latency_p50_ms and latency_mean_ms work too).
func WithLatencyColumn(col string) Option {
	return func(o *figureOptions) { o.latency = col }
}

// WithOverlay draws PlotPanels as before small multiples: every run in one
// set of axes.
func WithOverlay() Option { return func(o *figureOptions) { o.overlay = true } }

func collectOptions(opts []Option) figureOptions {
	o := figureOptions{latency: "latency_p99_ms", window: window{fromS: math.NaN(), toS: math.NaN(), marginS: math.NaN()}}
	for _, f := range opts {
		f(&o)
	}
	return o
}

func (o figureOptions) titleOr(def string) string {
	if o.title != nil {
		return *o.title
	}
	return def
}

// ---------------------------------------------------------------------------
// Labels and units

// UnitOf derives the unit of a runs.parquet or timeseries column from its
// name: the suffixes _ms, _s, _seconds and _bytes; scenario paths ending in
// interval, at, duration, timeout, delay → s and rate, peak → records/s; and
// the summary figures that carry no suffix. It returns "" when unknown.
func UnitOf(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.HasSuffix(n, "_ms"):
		return "ms"
	case strings.HasSuffix(n, "_s"), strings.HasSuffix(n, "_seconds"):
		return "s"
	case strings.HasSuffix(n, "_bytes"):
		return "bytes"
	}
	if strings.Contains(n, ".") {
		last := n[strings.LastIndex(n, ".")+1:]
		switch {
		case last == "at" || strings.HasSuffix(last, "interval") || strings.HasSuffix(last, "duration") ||
			strings.HasSuffix(last, "timeout") || strings.HasSuffix(last, "delay") || strings.HasSuffix(last, "period") ||
			strings.HasPrefix(last, "before_"):
			return "s"
		case strings.HasSuffix(last, "rate") || strings.HasSuffix(last, "peak") || strings.HasSuffix(last, "capacity"):
			return "records/s"
		case strings.HasSuffix(last, "size") || strings.HasSuffix(last, "bytes"):
			return "bytes"
		}
		return ""
	}
	switch n {
	case "throughput_mean", "throughput", "input_rate", "output_rate", "capacity":
		return "records/s"
	case "records_in", "records_processed", "final_lag", "lag_max", "lag", "end_offset", "committed_offset":
		return "records"
	case "faults", "recoveries", "checkpoints_completed", "checkpoints_failed", "reconfigurations", "qos_recovery_violations":
		return "count"
	case "cpu_busy_mean", "cpu_busy_max", "backpressure":
		return "fraction"
	}
	return ""
}

// AxisLabel turns a column name into an axis label with its unit:
// recovery_mean_s → "recovery mean (s)", job.checkpoint.interval →
// "checkpoint interval (s)".
func AxisLabel(name string) string {
	label := ReadableName(name)
	if u := UnitOf(name); u != "" {
		label += " (" + u + ")"
	}
	return label
}

// latencyNames are the latency columns and figures by their definition:
// the event-time latencies (end-to-end from each event's time, the wait in
// Kafka included) and the latency-marker ones (what Flink's latency
// markers report: source-to-sink transit), which differ by orders of
// magnitude and must not read as one "latency p99".
var latencyNames = map[string]string{
	"latency_p99_ms":         "event-time p99",
	"latency_p50_ms":         "event-time p50",
	"latency_mean_ms":        "event-time mean",
	"latency_steady_mean_ms": "steady-state event-time mean",
	"latency_marker_p99_ms":  "latency-marker p99",
	"latency_marker_mean_ms": "latency-marker mean",
}

// ReadableName names a latency by its definition (latency_p99_ms →
// "event-time p99", latency_marker_p99_ms → "latency-marker p99"); for
// anything else it drops the unit suffix and, for scenario paths, keeps the
// last two elements: workload.rate → "workload rate".
func ReadableName(name string) string {
	if l, ok := latencyNames[name]; ok {
		return l
	}
	if strings.Contains(name, ".") {
		parts := strings.Split(name, ".")
		if len(parts) > 2 {
			parts = parts[len(parts)-2:]
		}
		return strings.ReplaceAll(strings.Join(parts, " "), "_", " ")
	}
	for _, suf := range []string{"_ms", "_seconds", "_s", "_bytes"} {
		if s, ok := strings.CutSuffix(name, suf); ok && s != "" {
			name = s
			break
		}
	}
	return strings.ReplaceAll(name, "_", " ")
}

// valueLabel formats a parameter value with its unit for legends and ticks.
func valueLabel(v float64, unit string) string {
	s := siLabel(v)
	switch unit {
	case "", "count", "fraction":
		return s
	}
	return s + " " + unit
}

// ---------------------------------------------------------------------------
// Styles

// variantStyle is the look of one line (variant, sweep level): colour, dash
// pattern and marker shape all differ between neighbours.
type variantStyle struct {
	line  draw.LineStyle
	glyph draw.GlyphStyle
}

var (
	// Okabe–Ito colours, which stay apart for colour-blind readers.
	variantColors = []color.Color{
		color.Black,
		color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff},
		color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff},
		color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff},
		color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff},
		color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff},
		color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff},
		color.Gray{Y: 0x70},
	}
	variantDashes = [][]vg.Length{
		nil,
		{vg.Points(5), vg.Points(3)},
		{vg.Points(1.5), vg.Points(2)},
		{vg.Points(7), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
		{vg.Points(10), vg.Points(3)},
		{vg.Points(3), vg.Points(2), vg.Points(1), vg.Points(2), vg.Points(1), vg.Points(2)},
		{vg.Points(2.5), vg.Points(4)},
		{vg.Points(12), vg.Points(2), vg.Points(2), vg.Points(2)},
	}
	variantGlyphs = []draw.GlyphDrawer{
		draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
		draw.PyramidGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{},
	}
	// inputStyle is the input rate under the throughputs: wide and light, so
	// every throughput line stays visible on top of it.
	inputStyle = draw.LineStyle{Color: color.Gray{Y: 0xb0}, Width: vg.Points(3)}
)

func styleOf(i int) variantStyle {
	n := len(variantColors)
	round := i / n
	return variantStyle{
		line: draw.LineStyle{Color: variantColors[i%n], Width: vg.Points(1.3), Dashes: variantDashes[(i+round)%n]},
		glyph: draw.GlyphStyle{Color: variantColors[i%n], Radius: vg.Points(3),
			Shape: variantGlyphs[(i+2*round)%n]},
	}
}

// thumbs is the legend sample of a style: the line with its marker on it.
func (s variantStyle) thumbs() []plot.Thumbnailer {
	return []plot.Thumbnailer{&plotter.Line{LineStyle: s.line}, &plotter.Scatter{GlyphStyle: s.glyph}}
}

// ---------------------------------------------------------------------------
// Output

// writeFigure renders one figure of size w x h as PNG, SVG and PDF next to
// base and returns the three paths. render is called once per format.
func writeFigure(base string, w, h vg.Length, render func(draw.Canvas)) ([]string, error) {
	if base == "" {
		return nil, errors.New("no output path")
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return nil, err
	}
	paint := func(c vg.CanvasWriterTo) ([]byte, error) {
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		render(dc)
		var buf bytes.Buffer
		_, err := c.WriteTo(&buf)
		return buf.Bytes(), err
	}
	formats := []struct {
		ext    string
		canvas func() vg.CanvasWriterTo
	}{
		{".png", func() vg.CanvasWriterTo {
			return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(figDPI))}
		}},
		{".svg", func() vg.CanvasWriterTo { return vgsvg.New(w, h) }},
		{".pdf", func() vg.CanvasWriterTo {
			c := vgpdf.New(w, h)
			c.EmbedFonts(true) // a journal's PDF check rejects figures without their fonts
			return c
		}},
	}
	var paths []string
	for _, f := range formats {
		b, err := paint(f.canvas())
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", base, f.ext, err)
		}
		if err := results.WriteFileAtomic(base+f.ext, b); err != nil {
			return nil, err
		}
		paths = append(paths, base+f.ext)
	}
	return paths, nil
}

// drawPlot draws a single plot with the margins drawStack uses.
func drawPlot(p *plot.Plot, dc draw.Canvas) {
	p.Draw(draw.Crop(dc, vg.Points(4), -vg.Points(10), vg.Points(4), -vg.Points(4)))
}

// figTextStyle is the default plot text at size pt.
func figTextStyle(pt float64) text.Style {
	sty := plot.New().Legend.TextStyle
	sty.Font.Size = vg.Points(pt)
	sty.Color = color.Black
	return sty
}

// ---------------------------------------------------------------------------
// Columns

// sweepColumn is one runs.parquet column: numbers, or text.
type sweepColumn struct {
	name string
	num  []float64
	text []string
}

func (c sweepColumn) numeric() bool { return c.text == nil }

// tableColumn looks up a column of t, read from file.
func tableColumn(t *results.Table, file, name string, needNumber bool) (sweepColumn, error) {
	if f, ok := t.Floats[name]; ok {
		return sweepColumn{name: name, num: f}, nil
	}
	if s, ok := t.Strings[name]; ok {
		if needNumber {
			return sweepColumn{}, &results.ColumnError{File: file, Column: name, Problem: "is not numeric", Available: t.Names}
		}
		if s == nil {
			s = []string{}
		}
		return sweepColumn{name: name, text: s}, nil
	}
	return sweepColumn{}, &results.ColumnError{File: file, Column: name, Available: t.Names}
}

// levels are the distinct values of a parameter column: numbers ascending,
// text in order of first appearance. A row whose value is NaN has none.
type paramLevels struct {
	col    sweepColumn
	values []float64 // numeric levels
	names  []string  // text levels
	numIdx map[float64]int
	strIdx map[string]int
}

func newLevels(c sweepColumn, rows int) *paramLevels {
	l := &paramLevels{col: c, numIdx: map[float64]int{}, strIdx: map[string]int{}}
	if c.numeric() {
		for _, v := range c.num {
			if !math.IsNaN(v) {
				if _, ok := l.numIdx[v]; !ok {
					l.numIdx[v] = 0
					l.values = append(l.values, v)
				}
			}
		}
		sort.Float64s(l.values)
		for i, v := range l.values {
			l.numIdx[v] = i
		}
		return l
	}
	for _, s := range c.text[:min(rows, len(c.text))] {
		if _, ok := l.strIdx[s]; !ok {
			l.strIdx[s] = len(l.names)
			l.names = append(l.names, s)
		}
	}
	return l
}

func (l *paramLevels) len() int {
	if l.col.numeric() {
		return len(l.values)
	}
	return len(l.names)
}

// index is the level of row i, or -1.
func (l *paramLevels) index(i int) int {
	if l.col.numeric() {
		v := l.col.num[i]
		if math.IsNaN(v) {
			return -1
		}
		return l.numIdx[v]
	}
	if i >= len(l.col.text) {
		return -1
	}
	return l.strIdx[l.col.text[i]]
}

// label formats level k with the column's unit.
func (l *paramLevels) label(k int) string {
	if l.col.numeric() {
		return valueLabel(l.values[k], UnitOf(l.col.name))
	}
	return l.names[k]
}

// position is where level k sits on a numeric axis (its value), or on a
// nominal one (its index).
func (l *paramLevels) position(k int) float64 {
	if l.col.numeric() {
		return l.values[k]
	}
	return float64(k)
}

// readRunsTable reads runs.parquet (a sweep folder is accepted too).
func readRunsTable(path string) (*results.Table, string, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, results.RunsFile)
	}
	t, err := results.ReadTable(path)
	if err != nil {
		return nil, path, err
	}
	if t.Rows == 0 {
		return nil, path, fmt.Errorf("%s: no runs", path)
	}
	return t, path, nil
}

// groupValues collects the finite values of y per (line level, x level).
func groupValues(y sweepColumn, rows int, xl, ll *paramLevels) [][][]float64 {
	nl := 1
	if ll != nil {
		nl = ll.len()
	}
	out := make([][][]float64, nl)
	for i := range out {
		out[i] = make([][]float64, xl.len())
	}
	for i := 0; i < rows; i++ {
		xi, li := xl.index(i), 0
		if ll != nil {
			li = ll.index(i)
		}
		v := y.num[i]
		if xi < 0 || li < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		out[li][xi] = append(out[li][xi], v)
	}
	return out
}

// replicationText describes how many runs each point (or cell) averages,
// and over which other parameters it pools them; "" when there are none.
func replicationText(groups [][][]float64, pooled []string, per string) string {
	lo, hi := math.MaxInt, 0
	for _, g := range groups {
		for _, vs := range g {
			if len(vs) > 0 {
				lo, hi = min(lo, len(vs)), max(hi, len(vs))
			}
		}
	}
	n := strconv.Itoa(hi)
	if lo != hi {
		n = strconv.Itoa(lo) + "–" + n
	}
	switch {
	case hi == 0:
		return ""
	case len(pooled) > 0:
		return n + " runs per " + per + ", pooled over " + strings.Join(pooled, ", ")
	case hi == 1:
		return "1 run per " + per
	default:
		return n + " replications"
	}
}

// levelColumns are the columns of the levels given (nil ones skipped):
// the grouping of a figure's points or cells, whose pooled parameters are
// results.Pooled's, as summarize's.
func levelColumns(levels ...*paramLevels) []string {
	var out []string
	for _, l := range levels {
		if l != nil {
			out = append(out, l.col.name)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// 1. Sweep lines

// PlotSweepLines draws figure y of runs.parquet (runsPath; a sweep folder is
// accepted too) against parameter x, one line per value of parameter lines
// ("" for a single line). Runs with the same x and line value are
// replications: the figure shows their mean with 95% confidence-interval
// error bars (Student t). A numeric x spanning more than two decades gets a
// log axis; a text x is drawn as nominal categories. It writes base+".png",
// ".svg" and ".pdf" and returns their paths.
func PlotSweepLines(runsPath, base, x, y, lines string, opts ...Option) (paths []string, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("results: lines figure: %w", err)
		}
	}()
	t, file, err := readRunsTable(runsPath)
	if err != nil {
		return nil, err
	}
	p, _, err := sweepLinesPlot(t, file, x, y, lines, collectOptions(opts))
	if err != nil {
		return nil, err
	}
	return writeFigure(base, singleWidth, singleHeight, func(dc draw.Canvas) { drawPlot(p, dc) })
}

// sweepLinesPlot builds the plot of PlotSweepLines and returns its series.
func sweepLinesPlot(t *results.Table, file, x, y, lines string, o figureOptions) (*plot.Plot, []*ciSeries, error) {
	xc, err := tableColumn(t, file, x, false)
	if err != nil {
		return nil, nil, err
	}
	yc, err := tableColumn(t, file, y, true)
	if err != nil {
		return nil, nil, err
	}
	xl := newLevels(xc, t.Rows)
	var ll *paramLevels
	if lines != "" {
		lc, err := tableColumn(t, file, lines, false)
		if err != nil {
			return nil, nil, err
		}
		ll = newLevels(lc, t.Rows)
	}
	groups := groupValues(yc, t.Rows, xl, ll)
	reps := replicationText(groups, results.Pooled(t, levelColumns(xl, ll)), "point")
	if reps == "" {
		return nil, nil, &results.ColumnError{File: file, Column: y, Problem: "has no finite values for any " + x, Available: t.Names}
	}

	p := newPanel(cmp.Or(o.yLabel, AxisLabel(y)))
	p.X.Label.Text = cmp.Or(o.xLabel, AxisLabel(x))
	p.Title.Text = o.titleOr("mean ± 95% CI of " + reps)
	p.Title.TextStyle.Font.Size = vg.Points(10)

	nl := len(groups)
	allNonNeg := true
	yMax := math.Inf(-1)
	yMin := math.Inf(1)
	entries := 0
	var series []*ciSeries
	for li, g := range groups {
		s := &ciSeries{style: styleOf(li), dx: vg.Points(4) * vg.Length(float64(li)-float64(nl-1)/2)}
		if nl == 1 {
			s.dx = 0
		}
		for xi, vs := range g {
			if len(vs) == 0 {
				continue
			}
			m, h, _ := results.MeanCI(vs) // vs are finite (groupValues)
			nonNeg := true
			for _, v := range vs {
				nonNeg = nonNeg && v >= 0
			}
			allNonNeg = allNonNeg && nonNeg
			// The one CI rule of the printed tables: clamped at 0 for
			// values that cannot be negative.
			lo, hi := results.CIBounds(m, h, nonNeg)
			if len(vs) < 2 || !(h > 0) {
				lo, hi = math.NaN(), math.NaN() // a lone run: no bar
			}
			s.pts = append(s.pts, plotter.XY{X: xl.position(xi), Y: m})
			s.lo, s.hi = append(s.lo, lo), append(s.hi, hi)
			top, bot := m, m
			if !math.IsNaN(lo) {
				top, bot = hi, lo
			}
			yMax, yMin = max(yMax, top), min(yMin, bot)
		}
		if len(s.pts) == 0 {
			continue
		}
		p.Add(s)
		series = append(series, s)
		if ll != nil {
			p.Legend.Add(ReadableName(lines)+" = "+ll.label(li), s)
			entries++
		}
	}
	p.Legend.Padding = vg.Points(1.5)
	// y: from zero for non-negative figures, with room above for the legend.
	headroom := 1.08 + 0.085*float64(entries)
	if allNonNeg {
		p.Y.Min = 0
		p.Y.Max = yMax * headroom
		if !(p.Y.Max > 0) {
			p.Y.Max = 1
		}
	} else {
		span := yMax - yMin
		if !(span > 0) {
			span = math.Max(math.Abs(yMax), 1)
		}
		p.Y.Min, p.Y.Max = yMin-0.05*span, yMax+span*(headroom-1)
	}
	setLevelAxis(&p.X, xl)
	return p, series, nil
}

// setLevelAxis sets the range and ticks of an axis showing parameter levels:
// a log scale past two decades, ticks at the swept values when they are few
// and not crowded, and names for text levels.
func setLevelAxis(ax *plot.Axis, l *paramLevels) {
	n := l.len()
	if !l.col.numeric() {
		ticks := make([]plot.Tick, n)
		for k := range ticks {
			ticks[k] = plot.Tick{Value: float64(k), Label: l.names[k]}
		}
		ax.Tick.Marker = plot.ConstantTicks(ticks)
		ax.Min, ax.Max = -0.5, float64(n)-0.5
		return
	}
	lo, hi := l.values[0], l.values[n-1]
	logAxis := lo > 0 && hi/lo > logRatio
	norm := func(v float64) float64 { return v }
	if logAxis {
		norm = math.Log10
		ax.Scale = plot.LogScale{}
		ax.Min, ax.Max = lo/1.25, hi*1.25
	} else {
		span := hi - lo
		if span == 0 {
			span = math.Max(math.Abs(lo), 1)
		}
		ax.Min, ax.Max = lo-0.06*span, hi+0.06*span
		if lo >= 0 && ax.Min < 0 && lo < 0.2*span {
			ax.Min = 0
		}
	}
	crowded := false
	for k := 1; k < n; k++ {
		if norm(l.values[k])-norm(l.values[k-1]) < 0.04*(norm(hi)-norm(lo)) {
			crowded = true
		}
	}
	if n <= 15 && !crowded {
		ticks := make([]plot.Tick, n)
		for k, v := range l.values {
			ticks[k] = plot.Tick{Value: v, Label: siLabel(v)}
		}
		ax.Tick.Marker = plot.ConstantTicks(ticks)
	} else if logAxis {
		ax.Tick.Marker = siTicks{logTicks{}}
	} else {
		ax.Tick.Marker = siTicks{niceTicks{}}
	}
}

// logTicks is plot.LogTicks that also labels the 2 and 5 of each decade
// when the axis spans at most three decades, so values can be read off.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for _, t := range (plot.LogTicks{Prec: -1}).Ticks(min, max) {
		// LogTicks runs on to the next decade; a label past the axis end
		// would make plot.Align reserve room for it beside the panel.
		if t.Value >= min*(1-1e-9) && t.Value <= max*(1+1e-9) {
			ts = append(ts, t)
		}
	}
	if max/min > 1e3 {
		return ts
	}
	for i, t := range ts {
		m := t.Value / math.Pow(10, math.Floor(math.Log10(t.Value)+1e-9))
		if math.Abs(m-2) < 1e-6 || math.Abs(m-5) < 1e-6 {
			ts[i].Label = strconv.FormatFloat(t.Value, 'g', -1, 64)
		}
	}
	return ts
}

// ciSeries is one line of means with confidence-interval bars. dx shifts it
// sideways on the canvas so the bars of neighbouring lines do not overlap.
type ciSeries struct {
	pts    plotter.XYs
	lo, hi []float64 // the interval per point, NaN for none
	style  variantStyle
	dx     vg.Length
}

func (s *ciSeries) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pts := make([]vg.Point, len(s.pts))
	for i, xy := range s.pts {
		pts[i] = vg.Point{X: trX(xy.X) + s.dx, Y: trY(xy.Y)}
	}
	if len(pts) > 1 {
		c.StrokeLines(s.style.line, c.ClipLinesXY(pts)...)
	}
	bar := draw.LineStyle{Color: s.style.line.Color, Width: vg.Points(0.9)}
	capW := vg.Points(3.5)
	for i := range s.pts {
		if math.IsNaN(s.lo[i]) {
			continue
		}
		x, lo, hi := pts[i].X, trY(s.lo[i]), trY(s.hi[i])
		if !c.ContainsX(x) {
			continue
		}
		c.StrokeLines(bar, c.ClipLinesY([]vg.Point{{X: x, Y: lo}, {X: x, Y: hi}})...)
		for _, y := range []vg.Length{lo, hi} {
			if c.ContainsY(y) {
				c.StrokeLine2(bar, x-capW, y, x+capW, y)
			}
		}
	}
	for _, pt := range pts {
		c.DrawGlyph(s.style.glyph, pt)
	}
}

func (s *ciSeries) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, xy := range s.pts {
		lo, hi := s.lo[i], s.hi[i]
		if math.IsNaN(lo) {
			lo, hi = xy.Y, xy.Y
		}
		xmin, xmax = min(xmin, xy.X), max(xmax, xy.X)
		ymin, ymax = min(ymin, lo), max(ymax, hi)
	}
	return
}

func (s *ciSeries) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(s.style.line, c.Min.X, y, c.Max.X, y)
	c.DrawGlyph(s.style.glyph, c.Center())
}

// ---------------------------------------------------------------------------
// 2. Latency distributions

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

// mergeTimes sorts ts and keeps one time per cluster of times closer than
// gap: the runs of a comparison usually share their faults, a few seconds
// apart, and a bundle of marker lines would hide the data under them.
func mergeTimes(ts []float64, gap float64) []float64 {
	sort.Float64s(ts)
	var out []float64
	for _, t := range ts {
		if len(out) == 0 || t-out[len(out)-1] > gap {
			out = append(out, t)
		}
	}
	return out
}

// sparseMarkers places panelMarkers markers along a line, shifted by phase
// (0..1 of the marker spacing) so the markers of different runs do not sit
// on top of each other.
func sparseMarkers(t, y []float64, xMax, phase, floor float64) plotter.XYs {
	var out plotter.XYs
	step := xMax / panelMarkers
	usable := func(j int) bool { v := y[j]; return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= floor }
	for k := 0; k < panelMarkers; k++ {
		at := (float64(k) + phase) * step
		// The first usable sample at or after at, else the last before it,
		// within a quarter of the spacing.
		i := sort.SearchFloat64s(t, at)
		j := i
		for j < len(t) && t[j] <= at+step/4 && !usable(j) {
			j++
		}
		if j >= len(t) || t[j] > at+step/4 {
			for j = i - 1; j >= 0 && t[j] >= at-step/4 && !usable(j); j-- {
			}
			if j < 0 || t[j] < at-step/4 {
				continue
			}
		}
		out = append(out, plotter.XY{X: t[j], Y: y[j]})
	}
	return out
}

// keyEntry is one item of the key drawn above a multi-panel figure.
type keyEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

// drawKey draws the title and a horizontal key (wrapped, centred) at the
// top of dc and returns the height used.
func drawKey(dc draw.Canvas, title string, entries []keyEntry, factor float64) vg.Length {
	const thumbW, gap, sep = 26, 4, 16
	sty := figTextStyle(9 * factor)
	sty.YAlign = draw.YCenter
	rowH := vg.Points(15)
	pad := vg.Points(6)
	y := dc.Max.Y - pad
	used := pad
	if title != "" {
		ts := figTextStyle(12 * factor)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		dc.FillText(ts, vg.Point{X: dc.Center().X, Y: y}, title)
		th := ts.Height(title) + vg.Points(4)
		y -= th
		used += th
	}
	// Lay out rows that fit the width, then centre each.
	width := dc.Max.X - dc.Min.X - 2*pad
	var rows [][]int
	var rowWidths []vg.Length
	var cur []int
	var curW vg.Length
	for i, e := range entries {
		w := vg.Points(thumbW+gap) + sty.Width(e.label)
		if len(cur) > 0 && curW+vg.Points(sep)+w > width {
			rows, rowWidths = append(rows, cur), append(rowWidths, curW)
			cur, curW = nil, 0
		}
		if len(cur) > 0 {
			curW += vg.Points(sep)
		}
		cur, curW = append(cur, i), curW+w
	}
	if len(cur) > 0 {
		rows, rowWidths = append(rows, cur), append(rowWidths, curW)
	}
	for r, row := range rows {
		cy := y - rowH/2
		x := dc.Center().X - rowWidths[r]/2
		for _, i := range row {
			e := entries[i]
			tc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: cy - vg.Points(5)}, Max: vg.Point{X: x + vg.Points(thumbW), Y: cy + vg.Points(5)}}}
			for _, th := range e.thumbs {
				th.Thumbnail(&tc)
			}
			x += vg.Points(thumbW + gap)
			dc.FillText(sty, vg.Point{X: x, Y: cy}, e.label)
			x += sty.Width(e.label) + vg.Points(sep)
		}
		y -= rowH
		used += rowH
	}
	return used
}

// ---------------------------------------------------------------------------
// 4. Heat map

// PlotHeatmap draws the mean of figure z over replications on the grid of
// parameters x and y of runs.parquet (runsPath; a sweep folder is accepted
// too): one cell per pair of swept values, evenly spaced whatever the
// values, on a luminance ramp (light = low, dark = high) that reads in
// black and white, with a colour bar labelled with z and its unit. Grids of
// up to 12 x 12 cells get their values written in. Cells without runs are
// crossed out.
func PlotHeatmap(runsPath, base, x, y, z string, opts ...Option) (paths []string, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("results: heatmap figure: %w", err)
		}
	}()
	o := collectOptions(opts)
	t, file, err := readRunsTable(runsPath)
	if err != nil {
		return nil, err
	}
	xc, err := tableColumn(t, file, x, false)
	if err != nil {
		return nil, err
	}
	yc, err := tableColumn(t, file, y, false)
	if err != nil {
		return nil, err
	}
	zc, err := tableColumn(t, file, z, true)
	if err != nil {
		return nil, err
	}
	if x == y {
		return nil, fmt.Errorf("x and y are both %q", x)
	}
	xl, yl := newLevels(xc, t.Rows), newLevels(yc, t.Rows)
	// groupValues by (y level, x level): y plays the part of the lines.
	groups := groupValues(zc, t.Rows, xl, yl)
	reps := replicationText(groups, results.Pooled(t, levelColumns(xl, yl)), "cell")
	if reps == "" {
		return nil, &results.ColumnError{File: file, Column: z, Problem: "has no finite values", Available: t.Names}
	}
	g := &heatGrid{cols: xl.len(), rows: yl.len(), z: make([]float64, xl.len()*yl.len())}
	for r := range g.rows {
		for c := range g.cols {
			m, _, _ := results.MeanCI(groups[r][c]) // NaN for an empty cell
			g.z[r*g.cols+c] = m
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range g.z {
		if !math.IsNaN(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if hi == lo { // a flat grid still needs a colour bar with a range
		if lo == 0 {
			hi = 1
		} else {
			d := math.Abs(lo) * 0.05
			lo, hi = lo-d, hi+d
		}
	}
	cmap := heatColorMap()
	cmap.SetMin(lo)
	cmap.SetMax(hi)
	hm := plotter.NewHeatMap(g, cmap.Palette(256))
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.White

	p := newPanel(cmp.Or(o.yLabel, AxisLabel(y)))
	p.X.Label.Text = cmp.Or(o.xLabel, AxisLabel(x))
	p.Title.Text = o.titleOr("mean of " + reps)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Add(hm, cellBorders{g})
	if g.cols <= heatLabelCells && g.rows <= heatLabelCells {
		p.Add(&cellLabels{g: g, cmap: cmap})
	}
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Tick.Marker = levelTicks(xl)
	p.Y.Tick.Marker = levelTicks(yl)
	p.X.Min, p.X.Max = -0.5, float64(g.cols)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(g.rows)-0.5

	bar := plot.New()
	bar.HideX()
	bar.X.Padding, bar.Y.Padding = 0, 0
	bar.Add(colorBar{cmap})
	bar.Y.Label.Text = cmp.Or(o.zLabel, AxisLabel(z))
	bar.Y.Label.TextStyle.Font.Size = vg.Points(10)
	bar.Y.Tick.Label.Font.Size = vg.Points(9)
	bar.Y.Tick.Marker = siTicks{niceTicks{}}
	bar.Y.Min, bar.Y.Max = lo, hi
	bar.X.Min, bar.X.Max = 0, 1

	return writeFigure(base, singleWidth+0.6*vg.Inch, singleHeight+0.4*vg.Inch, func(dc draw.Canvas) {
		dc = draw.Crop(dc, vg.Points(4), -vg.Points(8), vg.Points(4), -vg.Points(4))
		barW, gapW := vg.Points(14), vg.Points(14)
		// The bar's axis width, measured on a canvas of the full height.
		probe := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: 0, Y: dc.Min.Y}, Max: vg.Point{X: 200, Y: dc.Max.Y}}}
		axisW := bar.DataCanvas(probe).Min.X - probe.Min.X
		heatC := draw.Crop(dc, 0, -(axisW + barW + gapW), 0, 0)
		p.Draw(heatC)
		data := p.DataCanvas(heatC)
		bc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: dc.Max.X - barW - axisW, Y: data.Min.Y},
			Max: vg.Point{X: dc.Max.X, Y: data.Max.Y}}}
		// Align the bar's data area with the heat map's.
		bd := bar.DataCanvas(bc)
		bc.Min.Y -= bd.Min.Y - bc.Min.Y
		bc.Max.Y += bc.Max.Y - bd.Max.Y
		bar.Draw(bc)
	})
}

// colorBar is plotter.ColorBar drawn as vector bands: vgpdf draws the
// image ColorBar makes upside down, and bands stay sharp at any zoom.
type colorBar struct{ cmap palette.ColorMap }

func (b colorBar) Plot(c draw.Canvas, p *plot.Plot) {
	const bands = 96
	trX, trY := p.Transforms(&c)
	lo, hi := b.cmap.Min(), b.cmap.Max()
	x0, x1 := trX(0), trX(1)
	for i := range bands {
		v0, v1 := lo+(hi-lo)*float64(i)/bands, lo+(hi-lo)*float64(i+1)/bands
		col, err := b.cmap.At((v0 + v1) / 2)
		if err != nil {
			continue
		}
		y0, y1 := trY(v0), trY(v1)
		if i < bands-1 {
			y1 += vg.Points(0.5) // overlap the next band: no hairline seams
		}
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
	edge := draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
	y0, y1 := trY(lo), trY(hi)
	c.StrokeLines(edge, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
}

func (b colorBar) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, 1, b.cmap.Min(), b.cmap.Max()
}

// heatColorMap is a luminance ramp from near white to near black through
// moreland's black-body hues, reversed so that high values are dark.
func heatColorMap() palette.ColorMap {
	cm := palette.Reverse(moreland.BlackBody())
	return &trimmedMap{ColorMap: cm}
}

// trimmedMap uses the inner 8–92% of a colour map: pure white cells would
// vanish into the page and pure black ones hide their labels.
type trimmedMap struct{ palette.ColorMap }

func (m *trimmedMap) At(v float64) (color.Color, error) {
	lo, hi := m.ColorMap.Min(), m.ColorMap.Max()
	if v < lo || v > hi || math.IsNaN(v) {
		return m.ColorMap.At(v)
	}
	f := (v - lo) / (hi - lo)
	return m.ColorMap.At(lo + (0.08+0.84*f)*(hi-lo))
}

func (m *trimmedMap) Palette(n int) palette.Palette {
	lo, hi := m.Min(), m.Max()
	cs := make([]color.Color, n)
	for i := range cs {
		c, err := m.At(lo + (hi-lo)*float64(i)/float64(max(1, n-1)))
		if err != nil {
			c = color.White
		}
		cs[i] = c
	}
	return plainPalette(cs)
}

type plainPalette []color.Color

func (p plainPalette) Colors() []color.Color { return p }

// levelTicks labels grid cells with their parameter values.
func levelTicks(l *paramLevels) plot.Ticker {
	ticks := make([]plot.Tick, l.len())
	for k := range ticks {
		label := ""
		if l.col.numeric() {
			label = siLabel(l.values[k])
		} else {
			label = l.names[k]
		}
		ticks[k] = plot.Tick{Value: float64(k), Label: label}
	}
	return plot.ConstantTicks(ticks)
}

// heatGrid is a GridXYZ on cell indices.
type heatGrid struct {
	cols, rows int
	z          []float64
}

func (g *heatGrid) Dims() (c, r int)   { return g.cols, g.rows }
func (g *heatGrid) Z(c, r int) float64 { return g.z[r*g.cols+c] }
func (g *heatGrid) X(c int) float64    { return float64(c) }
func (g *heatGrid) Y(r int) float64    { return float64(r) }

// cellBorders draws thin white lines between the cells, which also hides
// the hairline seams anti-aliasing leaves between adjacent rectangles, and
// crosses out the cells that have no runs.
type cellBorders struct{ g *heatGrid }

func (b cellBorders) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	white := draw.LineStyle{Color: color.White, Width: vg.Points(0.8)}
	x0, x1 := trX(-0.5), trX(float64(b.g.cols)-0.5)
	y0, y1 := trY(-0.5), trY(float64(b.g.rows)-0.5)
	for col := 1; col < b.g.cols; col++ {
		x := trX(float64(col) - 0.5)
		c.StrokeLine2(white, x, y0, x, y1)
	}
	for r := 1; r < b.g.rows; r++ {
		y := trY(float64(r) - 0.5)
		c.StrokeLine2(white, x0, y, x1, y)
	}
	cross := draw.LineStyle{Color: color.Gray{Y: 0x90}, Width: vg.Points(0.8)}
	for r := range b.g.rows {
		for col := range b.g.cols {
			if !math.IsNaN(b.g.Z(col, r)) {
				continue
			}
			l, rt := trX(float64(col)-0.3), trX(float64(col)+0.3)
			bt, tp := trY(float64(r)-0.3), trY(float64(r)+0.3)
			c.StrokeLine2(cross, l, bt, rt, tp)
			c.StrokeLine2(cross, l, tp, rt, bt)
		}
	}
}

// cellLabels writes each cell's value in it, white on dark cells.
type cellLabels struct {
	g    *heatGrid
	cmap palette.ColorMap
}

func (l *cellLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	size := 9.0
	if max(l.g.cols, l.g.rows) > 8 {
		size = 7.5
	}
	sty := figTextStyle(size)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	for r := range l.g.rows {
		for col := range l.g.cols {
			v := l.g.Z(col, r)
			pt := vg.Point{X: trX(float64(col)), Y: trY(float64(r))}
			s := sty
			label := cellLabel(v)
			if math.IsNaN(v) {
				continue // crossed out by cellBorders
			} else if bg, err := l.cmap.At(v); err == nil && relLuminance(bg) < 0.45 {
				s.Color = color.White
			}
			c.FillText(s, pt, label)
		}
	}
}

// cellLabel prints 3 significant digits, with k/M for large values.
func cellLabel(v float64) string {
	a := math.Abs(v)
	if a >= 1000 {
		return siLabel(float64(float32(roundSig(v, 3))))
	}
	return strconv.FormatFloat(roundSig(v, 3), 'g', -1, 64)
}

func roundSig(v float64, digits int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	return f
}

func relLuminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}
