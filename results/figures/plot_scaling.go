package figures

import (
	"cmp"
	"errors"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// The figures of an autoscaling comparison (results/evaluation Scaling).

// ScalingMetric is one panel of PlotScalingSummary: per variant, a mean
// and its 95 % interval (Low, High; NaN: none drawn).
type ScalingMetric struct {
	Label           string // x axis, with its unit
	Mean, Low, High []float64
	// Reference draws a dashed line at this value (NaN: none): the
	// baseline's value, 1 for a usage normalised to it.
	Reference float64
	// ReferenceLabel names the reference in the key, e.g. "static-12".
	ReferenceLabel string
	Log            bool // log x axis (latency, lag)
}

// Sizes of PlotScalingSummary: a row of dots per variant, and the room of
// a panel's axis and title.
const (
	scalingSummaryWidth = 7.5 * vg.Inch
	scalingRowHeight    = 0.27 * vg.Inch
	scalingPanelChrome  = 0.75 * vg.Inch
)

// PlotScalingSummary draws one panel per metric, two to a row: a
// horizontal dot plot with a row per variant (names on the left, in the
// given order from the top, in the given style), the dot at the mean and
// whiskers for the 95 % confidence interval over the seeds, and the
// metric's reference (the baseline) as a dashed line, so each autoscaler's
// saving and cost read as its distance from that line. WithWidth sizes it
// for print: below 6 in (a single column) the panels stand one above the
// other, each naming the variants; WithTitle replaces title.
func PlotScalingSummary(base, title string, variants []string, metrics []ScalingMetric, opts ...Option) ([]string, error) {
	o := collectOptions(opts)
	title = o.titleOr(title)
	cols := min(2, len(metrics))
	if cols == 0 {
		return nil, errors.New("results: scaling summary: no metrics")
	}
	w, f := scalingSummaryWidth, 1.0
	rowH, chrome := scalingRowHeight, scalingPanelChrome
	if o.width > 0 {
		w, f = o.width, textFactor(o.width)
		rowH, chrome = rowH*vg.Length(f), chrome*vg.Length(f)
	}
	if narrow(o) {
		cols, rowH, chrome = 1, 0.22*vg.Inch*vg.Length(f), 0.7*vg.Inch*vg.Length(f)
	}
	rows := (len(metrics) + cols - 1) / cols
	cells := make([][]*plot.Plot, rows)
	for r := range cells {
		cells[r] = make([]*plot.Plot, cols)
	}
	names := slices.Clone(variants)
	slices.Reverse(names) // the first variant on top
	key := []keyEntry{{label: "mean over seeds, 95 % CI", thumbs: []plot.Thumbnailer{ciThumb{f: f}}}}
	for k, m := range metrics {
		p := scalingSummaryPanel(m, len(variants), f)
		p.Y.Tick.Marker = categoryTicks(names)
		if k%cols != 0 {
			p.Y.Tick.Marker = unlabelled{categoryTicks(names)}
		}
		scaleText(f, p)
		cells[k/cols][k%cols] = p
		if m.ReferenceLabel != "" && !slices.ContainsFunc(key, func(e keyEntry) bool { return e.label == m.ReferenceLabel }) {
			key = append(key, keyEntry{label: m.ReferenceLabel, thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: boundStyle}}})
		}
	}
	head := 0.6 * vg.Inch
	if o.width > 0 {
		title = wrapText(title, figTextStyle(12*f), w-vg.Points(12))
		head = max(head, keyHeight(w, title, key, f)+vg.Points(6))
	}
	h := vg.Length(rows)*(vg.Length(len(variants))*rowH+chrome) + head
	return writeFigure(base, w, h, func(dc draw.Canvas) {
		top := drawKey(dc, title, key, f)
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadTop: vg.Points(4), PadBottom: vg.Points(4),
			PadLeft: vg.Points(4), PadRight: vg.Points(12 * f), PadX: vg.Points(18 * f), PadY: vg.Points(12 * f)}
		for r, cs := range plot.Align(cells, tiles, draw.Crop(dc, 0, 0, 0, -top)) {
			for c, p := range cells[r] {
				if p != nil {
					drawOn(p, cs[c])
				}
			}
		}
	})
}

// narrow tells whether the figure is sized for print narrower than 6 in
// (a single column, or a column and a half): too narrow for the two
// columns of panels of its screen size.
func narrow(o figureOptions) bool {
	return o.width > 0 && o.width < 6*vg.Inch
}

// keyHeight is the height drawKey takes for title and key, text scaled by
// f, across a figure w wide.
func keyHeight(w vg.Length, title string, key []keyEntry, f float64) vg.Length {
	return drawKey(draw.Canvas{Canvas: nullCanvas{}, Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: 100 * vg.Inch}}}, title, key, f)
}

// scalingSummaryPanel is one metric's dot plot over n variants, variant i
// at y = n-1-i, its dots and whiskers scaled by f with the text.
func scalingSummaryPanel(m ScalingMetric, n int, f float64) *plot.Plot {
	p := newPanel("")
	p.X.Label.Text = m.Label
	p.X.Tick.Marker = siTicks{niceTicks{}}
	p.Add(rowGuides{})
	lo, hi := math.Inf(1), math.Inf(-1)
	if m.Log {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = siTicks{logTicks{}}
	}
	floor := scalingFloor(m)
	clamp := func(v float64) float64 {
		if m.Log && !(v >= floor) {
			return floor
		}
		return v
	}
	for i := range n {
		if i >= len(m.Mean) || math.IsNaN(m.Mean[i]) {
			continue
		}
		st, y := styleOf(i), float64(n-1-i)
		if !math.IsNaN(m.Low[i]) && !math.IsNaN(m.High[i]) {
			l, h := clamp(m.Low[i]), clamp(m.High[i])
			p.Add(&plotter.Line{XYs: plotter.XYs{{X: l, Y: y}, {X: h, Y: y}},
				LineStyle: draw.LineStyle{Color: st.line.Color, Width: vg.Points(2 * f)}})
			lo, hi = min(lo, l), max(hi, h)
		}
		x := clamp(m.Mean[i])
		g := st.glyph
		g.Radius = vg.Points(3.5 * f)
		p.Add(&plotter.Scatter{XYs: plotter.XYs{{X: x, Y: y}}, GlyphStyle: g})
		lo, hi = min(lo, x), max(hi, x)
	}
	if !math.IsNaN(m.Reference) && (!m.Log || m.Reference > 0) {
		p.Add(vline{x: m.Reference, style: boundStyle})
		lo, hi = min(lo, m.Reference), max(hi, m.Reference)
	}
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	switch {
	case !(lo <= hi):
		p.X.Min, p.X.Max = 0, 1
		if m.Log {
			p.X.Min, p.X.Max = 1, 10
		}
	case m.Log:
		p.X.Min, p.X.Max = lo/1.6, hi*1.6
	default:
		p.X.Min, p.X.Max = math.Min(0, lo), hi*1.08+1e-9
	}
	return p
}

// scalingFloor is where a log axis starts for m: its smallest positive
// mean or CI end (values at or below zero are drawn there), 1 without one.
func scalingFloor(m ScalingMetric) float64 {
	floor := math.Inf(1)
	for i := range m.Mean {
		for _, v := range []float64{m.Mean[i], m.Low[i]} {
			if v > 0 {
				floor = min(floor, v)
			}
		}
	}
	if math.IsInf(floor, 1) {
		return 1
	}
	return floor
}

// rowGuides are faint lines across a dot plot at each row (the integer y
// values), so a dot is read against its variant's name on the left.
type rowGuides struct{}

func (rowGuides) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	for v := math.Ceil(p.Y.Min); v <= p.Y.Max; v++ {
		y := trY(v)
		c.StrokeLine2(gridStyle, c.Min.X, y, c.Max.X, y)
	}
}

// ciThumb is the key's sample of a dot with its interval, sized by f as
// the figure's text (0: 1).
type ciThumb struct{ f float64 }

func (t ciThumb) Thumbnail(c *draw.Canvas) {
	f := cmp.Or(t.f, 1)
	y := c.Center().Y
	st := draw.LineStyle{Color: color.Black, Width: vg.Points(2 * f)}
	c.StrokeLine2(st, c.Min.X+vg.Points(3), y, c.Max.X-vg.Points(3), y)
	c.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5 * f), Shape: draw.CircleGlyph{}}, c.Center())
}

// categoryTicks labels the integer positions 0..n-1 with names.
type categoryTicks []string

func (c categoryTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for i, n := range c {
		if float64(i) >= min && float64(i) <= max {
			out = append(out, plot.Tick{Value: float64(i), Label: n})
		}
	}
	return out
}

// Sizes of PlotScalingTimeline: a row per variant under the input's.
const (
	scalingTimelineWidth  = 7.5 * vg.Inch
	scalingTimelineRow    = 1.05 * vg.Inch
	scalingTimelineChrome = 0.9 * vg.Inch
	// lagBuckets is how many time buckets a lag area is drawn with (the
	// largest lag of each): enough for a page, few enough to fill fast.
	lagBuckets = 600
)

// PlotScalingTimeline draws one run per variant over time as small
// multiples, so no variant's lag hides another's: on top the input rate
// (over both columns), then a row per variant titled with its rescalings,
// its parallelism on the left (steps, one linear axis for all rows) and its
// consumer lag on the right (a filled area, one log axis for all rows), in
// the variants' colours. Each row reads as when the autoscaler rescales
// against the load above, and what lag it lets build meanwhile. WithWidth
// sizes it for print: below 6 in (a single column) the input rate spans
// the page, each row is named once above its two panels and the key says
// what each column shows; WithTitle replaces title.
func PlotScalingTimeline(base, title string, runDirs, labels []string, opts ...Option) ([]string, error) {
	o := collectOptions(opts)
	g := &timelineFigure{title: o.titleOr(title), w: scalingTimelineWidth, f: 1, single: narrow(o)}
	if o.width > 0 {
		g.w, g.f = o.width, textFactor(o.width)
		g.title = wrapText(g.title, figTextStyle(12*g.f), g.w-vg.Points(12))
	}
	runs := make([][][]float64, len(runDirs))
	spanS := 0.0
	for i, dir := range runDirs {
		cols, err := results.ReadRunColumns(dir, "time_s", "input_rate", "parallelism", "lag")
		if err != nil {
			return nil, err
		}
		if t := cols[0]; len(t) > 0 {
			spanS = max(spanS, t[len(t)-1])
		}
		runs[i] = cols
	}
	if len(runs) == 0 {
		return nil, errors.New("results: scaling timeline: no runs")
	}
	scale, unit := timeUnit(spanS)
	inUnit := func(ts []float64) []float64 {
		out := make([]float64, len(ts))
		for k, t := range ts {
			out[k] = t / scale
		}
		return out
	}
	g.cells = make([][]*plot.Plot, len(runs)+1)
	g.rowTitles = make([]string, len(runs)+1)
	for range 2 {
		in := newPanel("")
		in.Title.Text = "input rate, all variants (records/s)"
		addLine(in, inUnit(runs[0][0]), runs[0][1], inputStyle, "", 0)
		linearRange(in, 1.1)
		g.cells[0] = append(g.cells[0], in)
	}
	parMax, lagHi, lagLo := 1.0, 0.0, math.Inf(1)
	for i, cols := range runs {
		rescalings := ""
		if sum, err := results.ReadSummary(runDirs[i]); err == nil {
			rescalings = ", " + textfmt.Plural(sum.Reconfigurations, "rescaling")
		}
		st := styleOf(i)
		par := newPanel("")
		par.Title.Text = labels[i] + ": parallelism" + rescalings
		ts := inUnit(cols[0])
		solid := draw.LineStyle{Color: st.line.Color, Width: vg.Points(1.5)}
		for _, l := range addLine(par, ts, cols[2], solid, "", 0) {
			l.StepStyle = plotter.PreStep
		}
		parMax = max(parMax, maxFinite(cols[2]))
		lag := newPanel("")
		lag.Title.Text = labels[i] + ": consumer lag (records)"
		lag.Y.Tick.Length = vg.Points(4) // the minor ticks of seven decades, short
		lag.Y.Scale = plot.LogScale{}
		lag.Y.Tick.Marker = siTicks{logTicks{}}
		area := lagArea{xys: envelope(ts, cols[3], lagBuckets), color: st.line.Color}
		lag.Add(area)
		for _, xy := range area.xys {
			if xy.Y > 0 {
				lagLo, lagHi = min(lagLo, xy.Y), max(lagHi, xy.Y)
			}
		}
		if g.single {
			// Named once above the row; the key says what each column
			// shows (a rotated y label taller than a panel makes
			// plot.Align misplace the rows).
			g.rowTitles[i+1] = labels[i] + rescalings
			par.Title.Text, lag.Title.Text = "", ""
		}
		g.cells[i+1] = []*plot.Plot{par, lag}
	}
	lo, hi := lagAxis(lagLo, lagHi)
	for r, row := range g.cells {
		for c, p := range row {
			// The panels' titles name what their y axes show, with its
			// unit: a rotated y label longer than a panel is tall makes
			// plot.Align misplace the rows.
			p.Title.TextStyle.Font.Size = vg.Points(10)
			p.X.Min, p.X.Max = 0, spanS/scale
			if r < len(g.cells)-1 {
				p.X.Tick.Marker = unlabelled{p.X.Tick.Marker}
			} else {
				p.X.Label.Text = "time (" + unit + ")"
			}
			if r > 0 && c == 0 {
				p.Y.Min, p.Y.Max = 0, parMax*1.15
			}
			if r > 0 && c == 1 {
				p.Y.Min, p.Y.Max = lo, hi
			}
			scaleText(g.f, p)
		}
	}
	rowH, chrome := vg.Length(scalingTimelineRow), vg.Length(scalingTimelineChrome)
	if o.width > 0 {
		rowH, chrome = rowH*vg.Length(g.f), max(chrome*vg.Length(g.f), keyHeight(g.w, g.title, g.key(), g.f)+0.5*vg.Inch)
	}
	h := vg.Length(len(g.cells))*rowH + chrome
	return writeFigure(base, g.w, h, g.draw)
}

// timelineFigure lays out PlotScalingTimeline: cells[0] the input rate
// (twice), then a row per variant; narrow (single), the input rate is
// drawn across both columns and each variant row under its rowTitle.
type timelineFigure struct {
	title     string
	w         vg.Length
	f         float64
	single    bool
	cells     [][]*plot.Plot
	rowTitles []string
}

// key names the columns of a single-column timeline, whose panels have no
// titles; nil otherwise.
func (g *timelineFigure) key() []keyEntry {
	if !g.single {
		return nil
	}
	return []keyEntry{
		{label: "parallelism (left)", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)}}}},
		{label: "consumer lag, records (right)", thumbs: []plot.Thumbnailer{lagThumb{}}},
	}
}

// lagThumb is the key's sample of a lag area.
type lagThumb struct{}

func (lagThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(color.Gray{Y: 0xb0}, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
	c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(1)}, r.Min.X, r.Max.Y, r.Max.X, r.Max.Y)
}

func (g *timelineFigure) draw(dc draw.Canvas) {
	top := drawKey(dc, g.title, g.key(), g.f)
	tiles := draw.Tiles{Rows: len(g.cells), Cols: 2, PadTop: vg.Points(2), PadBottom: vg.Points(4),
		PadLeft: vg.Points(4), PadRight: vg.Points(12), PadX: vg.Points(18), PadY: vg.Points(4)}
	rowSty := figTextStyle(10 * g.f)
	rowSty.XAlign, rowSty.YAlign = draw.XLeft, draw.YBottom
	if g.single {
		tiles.PadRight, tiles.PadX = vg.Points(6), vg.Points(10)
		tiles.PadY = rowSty.Height("A") + vg.Points(3)
	}
	body := draw.Crop(dc, 0, 0, 0, -top)
	// The labels of a short log axis overhang its ends until
	// fitTicks thins them, and plot.Align aligns the data areas of
	// the ticks it is given: thin first, then align.
	for r, cs := range plot.Align(g.cells, tiles, body) {
		for c, p := range g.cells[r] {
			fitTicks(p, cs[c])
		}
	}
	for r, cs := range plot.Align(g.cells, tiles, body) {
		if g.single && r == 0 {
			across := cs[0]
			across.Max.X = cs[1].Max.X
			drawOn(g.cells[0][0], across)
			continue
		}
		for c, p := range g.cells[r] {
			drawOn(p, cs[c])
		}
		if g.rowTitles[r] != "" {
			dc.FillText(rowSty, vg.Point{X: cs[0].Min.X, Y: cs[0].Max.Y + vg.Points(1)}, g.rowTitles[r])
		}
	}
}

// lagAxis is the log range of lags from lo to hi: whole decades, at most
// seven of them below the top (smaller lags sit on the axis), or 1–10
// with no lag at all.
func lagAxis(lo, hi float64) (float64, float64) {
	if !(hi > 0) {
		return 1, 10
	}
	top := math.Pow(10, math.Ceil(math.Log10(hi)))
	bottom := math.Pow(10, math.Floor(math.Log10(lo)))
	bottom = min(max(bottom, top/1e7), top/100)
	return bottom, top
}

// envelope reduces y(t) to at most n points, the largest finite y of each
// run of samples (0 where a run has none), at the run's first time, so
// every peak of the lag stays visible.
func envelope(t, y []float64, n int) plotter.XYs {
	if len(t) == 0 {
		return nil
	}
	k := max(1, (len(t)+n-1)/n)
	var out plotter.XYs
	for start := 0; start < len(t); start += k {
		m := 0.0
		for _, v := range y[start:min(start+k, len(t))] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				m = max(m, v)
			}
		}
		out = append(out, plotter.XY{X: t[start], Y: m})
	}
	return out
}

// lagArea fills the area under a lag series down to the axis, in a light
// shade of color with the series drawn on top; values below the axis
// (zero lag) sit on it. It reports no data range: the caller sets the
// axis, one for all variants.
type lagArea struct {
	xys   plotter.XYs
	color color.Color
}

func (a lagArea) Plot(c draw.Canvas, p *plot.Plot) {
	if len(a.xys) == 0 {
		return
	}
	trX, trY := p.Transforms(&c)
	y := func(v float64) vg.Length { return trY(max(v, p.Y.Min)) }
	line := make([]vg.Point, len(a.xys))
	for i, xy := range a.xys {
		line[i] = vg.Point{X: trX(xy.X), Y: y(xy.Y)}
	}
	poly := append([]vg.Point{{X: line[0].X, Y: c.Min.Y}}, line...)
	poly = append(poly, vg.Point{X: line[len(line)-1].X, Y: c.Min.Y})
	r, g, b, _ := a.color.RGBA()
	fill := color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x60}
	c.FillPolygon(fill, c.ClipPolygonXY(poly))
	c.StrokeLines(draw.LineStyle{Color: a.color, Width: vg.Points(1)}, c.ClipLinesXY(line)...)
}
