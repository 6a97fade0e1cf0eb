package figures

import (
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
// paths.
func PlotRecovery(base, title string, variants []RecoveryVariant, measured []MeasuredRecoveries) ([]string, error) {
	p := newPanel("recovery time (s)")
	p.X.Label.Text = "throughput before failure (records/s)"
	p.X.Tick.Marker = siTicks{niceTicks{}}
	var key []keyEntry
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for i, v := range variants {
		var pts plotter.XYs
		for _, f := range v.Points {
			if !math.IsNaN(f.RecoveryS) && !math.IsNaN(f.Throughput) {
				pts = append(pts, plotter.XY{X: f.Throughput, Y: f.RecoveryS})
			}
		}
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		st := styleOf(i)
		glyph := fitGlyphStyle(i, false)
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
		for _, f := range m.Points {
			pts = append(pts, plotter.XY{X: f.Throughput, Y: f.RecoveryS})
			xlo, xhi = min(xlo, f.Throughput), max(xhi, f.Throughput)
		}
		glyph := fitGlyphStyle(m.Variant, true)
		p.Add(&plotter.Scatter{XYs: pts, GlyphStyle: glyph})
		key = append(key, keyEntry{label: m.Label, thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: glyph}}})
	}
	var bounds []float64
	for _, v := range variants {
		if v.BoundS > 0 && !slices.Contains(bounds, v.BoundS) {
			bounds = append(bounds, v.BoundS)
		}
	}
	for _, r := range bounds {
		p.Add(hline{y: r, style: boundStyle, label: "R = " + strconv.FormatFloat(r, 'g', -1, 64) + " s"})
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
	return writeFigure(base, recoveryWidth, recoveryHeight, func(dc draw.Canvas) {
		h := drawKey(dc, title, key, 1)
		drawPlot(p, draw.Crop(dc, 0, 0, 0, -h))
	})
}

// hline is a horizontal line across a panel with a label above its right
// end. It reports no data range; the caller makes room for it.
type hline struct {
	y     float64
	style draw.LineStyle
	label string
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
	sty := figTextStyle(9)
	sty.Color = h.style.Color
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	at := vg.Point{X: c.Min.X + vg.Points(6), Y: y + vg.Points(3)}
	box := vg.Rectangle{Min: vg.Point{X: at.X - vg.Points(2), Y: at.Y - vg.Points(1)},
		Max: vg.Point{X: at.X + sty.Width(h.label) + vg.Points(2), Y: at.Y + sty.Height(h.label)}}
	c.SetColor(color.White)
	c.Fill(box.Path())
	c.FillText(sty, at, h.label)
}
