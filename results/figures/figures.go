package figures

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/streamtwin/streamtwin/results"

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
// interval, at, duration, timeout, delay, period, _time, uptime, window → s and rate, peak → records/s; and
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
			strings.HasSuffix(last, "_time") || strings.HasSuffix(last, "uptime") || strings.HasSuffix(last, "window") ||
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
	if testHookRender != nil {
		testHookRender(w, h, render)
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
	drawOn(p, draw.Crop(dc, vg.Points(4), -vg.Points(10), vg.Points(4), -vg.Points(4)))
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
// statistics.Pooled's, as summarize's.
func levelColumns(levels ...*paramLevels) []string {
	var out []string
	for _, l := range levels {
		if l != nil {
			out = append(out, l.col.name)
		}
	}
	return out
}
