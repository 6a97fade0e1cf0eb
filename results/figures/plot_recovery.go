package figures

import (
	"cmp"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The recovery figure of a policy comparison (results/evaluation).

const (
	// recoveryWidth x recoveryHeight is the recovery figure, key above the
	// plot.
	recoveryWidth  = 7.5 * vg.Inch
	recoveryHeight = 5 * vg.Inch
)

// boundStyle is the recovery bound R across the recovery figure.
var boundStyle = draw.LineStyle{Color: color.RGBA{R: 0xc0, G: 0x20, B: 0x20, A: 0xff}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}

// RecoveryPoint is one failure: the throughput before it (records/s) and
// its recovery time (s).
type RecoveryPoint struct{ Throughput, RecoveryS float64 }

// RecoveryVariant is one variant of PlotRecovery: its failures, in time
// order (one without a recovery or a throughput, NaN, is not drawn), and
// its recovery bound R (≤ 0: none).
type RecoveryVariant struct {
	Label  string
	Points []RecoveryPoint
	BoundS float64
}

// MeasuredRecoveries are measured failures drawn as hollow markers in the
// colour and shape of variant Variant (an index into PlotRecovery's
// variants).
type MeasuredRecoveries struct {
	Label   string
	Variant int
	Points  []RecoveryPoint
}

// PlotRecovery draws recovery time against the throughput before each
// failure: one line (in throughput order) and filled marker per variant,
// the measured failures matched to a variant as hollow markers of its
// colour, and each distinct R as a labelled dashed line, under a key with
// the title. It writes base+".png", ".svg" and ".pdf" and returns their
// paths. WithWidth sizes it for print (the key wraps, the plot keeps its
// room under it); WithTitle replaces title.
func PlotRecovery(base, title string, variants []RecoveryVariant, measured []MeasuredRecoveries, opts ...Option) ([]string, error) {
	o := collectOptions(opts)
	title = o.titleOr(title)
	w, h, f := vg.Length(recoveryWidth), vg.Length(recoveryHeight), 1.0
	if o.width > 0 {
		w, f = o.width, textFactor(o.width)
	}
	p := newPanel("recovery time (s)")
	p.X.Label.Text = "throughput before failure (records/s)"
	p.X.Tick.Marker = siTicks{niceTicks{}}
	var key []keyEntry
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for i, v := range variants {
		var pts plotter.XYs
		for _, pt := range v.Points {
			if !math.IsNaN(pt.RecoveryS) && !math.IsNaN(pt.Throughput) {
				pts = append(pts, plotter.XY{X: pt.Throughput, Y: pt.RecoveryS})
			}
		}
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		st := styleOf(i)
		glyph := fitGlyphStyle(i, false)
		glyph.Radius *= vg.Length(f)
		if len(pts) > 1 {
			p.Add(&plotter.Line{XYs: pts, LineStyle: st.line})
		}
		if len(pts) > 0 {
			p.Add(&plotter.Scatter{XYs: pts, GlyphStyle: glyph})
		}
		for _, xy := range pts {
			xlo, xhi = min(xlo, xy.X), max(xhi, xy.X)
		}
		key = append(key, keyEntry{label: v.Label, thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: st.line}, &plotter.Scatter{GlyphStyle: glyph}}})
	}
	for _, m := range measured {
		var pts plotter.XYs
		for _, pt := range m.Points {
			pts = append(pts, plotter.XY{X: pt.Throughput, Y: pt.RecoveryS})
			xlo, xhi = min(xlo, pt.Throughput), max(xhi, pt.Throughput)
		}
		glyph := fitGlyphStyle(m.Variant, true)
		glyph.Radius *= vg.Length(f)
		p.Add(&plotter.Scatter{XYs: pts, GlyphStyle: glyph})
		if !narrow(o) {
			key = append(key, keyEntry{label: m.Label, thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: glyph}}})
		}
	}
	if len(measured) > 0 && narrow(o) {
		// One entry for all: a measured failure is its variant's marker,
		// hollow.
		glyph := fitGlyphStyle(0, true)
		glyph.Radius *= vg.Length(f)
		key = append(key, keyEntry{label: "measured (hollow)", thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: glyph}}})
	}
	var bounds []float64
	for _, v := range variants {
		if v.BoundS > 0 && !slices.Contains(bounds, v.BoundS) {
			bounds = append(bounds, v.BoundS)
		}
	}
	for _, r := range bounds {
		p.Add(hline{y: r, style: boundStyle, label: "R = " + strconv.FormatFloat(r, 'g', -1, 64) + " s", size: 9 * f})
		p.Y.Max = max(p.Y.Max, r)
	}
	if len(bounds) > 0 {
		label := "recovery bound R"
		if len(bounds) == 1 {
			label = "R = " + strconv.FormatFloat(bounds[0], 'g', -1, 64) + " s"
		}
		key = append(key, keyEntry{label: label, thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: boundStyle}}})
	}
	if xlo > xhi { // nothing recovered: still an axis
		xlo, xhi = 0, 1
	}
	pad := fitPad(xlo, xhi)
	p.X.Min, p.X.Max = xlo-pad, xhi+pad
	linearRange(p, 1.12)
	p.Legend = plot.NewLegend()
	scaleText(f, p)
	if o.width > 0 {
		title = wrapText(title, figTextStyle(12*f), w-vg.Points(12))
		// The plot keeps its share of the default figure, however many
		// rows the key wraps to.
		h = keyHeight(w, title, key, f) + max(2.2*vg.Inch, (recoveryHeight-1.2*vg.Inch)*w/recoveryWidth)
	}
	return writeFigure(base, w, h, func(dc draw.Canvas) {
		h := drawKey(dc, title, key, f)
		drawPlot(p, draw.Crop(dc, 0, 0, 0, -h))
	})
}

// hline is a horizontal line across a panel with a label above its left
// end, size points (0: 9). It reports no data range; the caller makes room
// for it.
type hline struct {
	y     float64
	style draw.LineStyle
	label string
	size  float64
}

func (h hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	if y < c.Min.Y || y > c.Max.Y {
		return
	}
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
	if h.label == "" {
		return
	}
	// Above the left end, where recoveries (low load) are shortest, on a
	// white box so markers under it do not garble it.
	sty := figTextStyle(cmp.Or(h.size, 9))
	sty.Color = h.style.Color
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	at := vg.Point{X: c.Min.X + vg.Points(6), Y: y + vg.Points(3)}
	box := vg.Rectangle{Min: vg.Point{X: at.X - vg.Points(2), Y: at.Y - vg.Points(1)},
		Max: vg.Point{X: at.X + sty.Width(h.label) + vg.Points(2), Y: at.Y + sty.Height(h.label)}}
	c.SetColor(color.White)
	c.Fill(box.Path())
	c.FillText(sty, at, h.label)
}
