package figures

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Calibration fit figure: how well a model's predictions match the
// observed points it was fitted to, and the points held out of the fit.
// The observed points are named by who observed them (FitObserved):
// "measured" only for real measurements, never for the twin's own runs.

const (
	// fitWidth x fitHeight holds two roughly square panels side by side.
	fitWidth  = 9.5 * vg.Inch
	fitHeight = 5 * vg.Inch
	// fitBandPct is the half-width of the shaded tolerance band, in %.
	fitBandPct = 10
	// fitMarkerRadius is the radius of the point markers.
	fitMarkerRadius = 3.4
)

var (
	// fitBandStyle draws the edges of the ±10 % band: thin, light and
	// dashed, behind the points, which stay the figure's focus.
	fitBandStyle = draw.LineStyle{Color: color.Gray{Y: 0x90}, Width: vg.Points(0.7), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	fitRefStyle  = draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(0.9)}
)

// DefaultFitObserved names the observed points of a fit figure when the
// caller does not (FitObserved): neutral, so that no simulated point is
// ever labelled "measured" by default.
const DefaultFitObserved = "observed"

// FitOption sets an option of PlotFit and PlotFitCompared.
type FitOption func(*fitOptions)

type fitOptions struct{ observed string }

// FitObserved names the observed points in the axis titles and panel
// titles: "measured" for real measurements (a calibration against a
// cluster), "profiled (twin)" for the twin's own chaos experiments.
func FitObserved(name string) FitOption {
	return func(o *fitOptions) {
		if name != "" {
			o.observed = name
		}
	}
}

// FitPoint is one observed point of a calibration with the model's
// prediction.
type FitPoint struct {
	Group string  // legend group, e.g. "CI 30 s" (one colour/marker per group, in first-seen order)
	X     float64 // the point's load, e.g. throughput in records/s (x axis of the residual panel)
	// Measured is the observed value: a measurement, or the twin's when
	// the points were simulated (FitObserved names which).
	Measured  float64
	Predicted float64
	HeldOut   bool // held out of the fit: drawn hollow; fitted points are filled
	// Censored marks a measurement that is a lower bound (the recovery
	// outlasted the measurement's cap): crossed out, and its residual is
	// the prediction's shortfall below the cap (0 at or above it).
	Censored bool
}

// PlotFit draws a calibration's fit as two side-by-side panels and writes
// base.png/.svg/.pdf: left, predicted against observed with the y = x line
// and the edges of a ±10 % band (thin dashed lines, behind the points);
// right, the residual (predicted − observed)/observed in % against X, with
// a zero line and the same band. quantity names what is compared, with its
// unit, e.g. "recovery time (s)"; xlabel labels X, e.g. "throughput
// (records/s)". FitObserved names the observed points ("measured",
// "profiled (twin)"; DefaultFitObserved without it).
//
// Each group gets the colour and marker of styleOf, in first-seen order;
// fitted points are filled and held-out ones hollow. Points whose measured
// or predicted value is not finite are skipped; so are, on the residual
// panel only, points with a non-finite X or a zero measured value. It
// returns the paths of the three files.
func PlotFit(base, title, quantity, xlabel string, pts []FitPoint, opts ...FitOption) (paths []string, err error) {
	return PlotFitCompared(base, title, quantity, xlabel, pts, FitErrors{}, opts...)
}

// FitErrors are the errors of a model and its baselines per group of
// points (e.g. per checkpoint interval, plus all held-out points), for
// the third panel of PlotFitCompared.
type FitErrors struct {
	Title  string      // panel title, e.g. "held-out recovery MAPE"
	Models []string    // e.g. twin, closed form, Khaos OLS: one colour each, in order
	Groups []string    // x-axis categories
	MAPE   [][]float64 // [model][group], in %; NaN draws no bar
}

func (e FitErrors) empty() bool { return len(e.Models) == 0 || len(e.Groups) == 0 }

// PlotFitCompared is PlotFit with, when errs is not empty, a third panel:
// grouped bars of each model's MAPE per group, so that the twin is seen
// beside its baselines.
func PlotFitCompared(base, title, quantity, xlabel string, pts []FitPoint, errs FitErrors, opts ...FitOption) (paths []string, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("results: fit figure: %w", err)
		}
	}()
	if len(pts) == 0 {
		return nil, errors.New("no points")
	}
	o := fitOptions{observed: DefaultFitObserved}
	for _, opt := range opts {
		opt(&o)
	}
	left, right, err := fitPanels(quantity, xlabel, o.observed, pts)
	if err != nil {
		return nil, err
	}
	row := []*plot.Plot{left, right}
	width := fitWidth
	if !errs.empty() {
		bars, err := fitErrorPanel(errs)
		if err != nil {
			return nil, err
		}
		row, width = append(row, bars), fitWidth*3/2
	}
	return writeFigure(base, width, fitHeight, func(dc draw.Canvas) {
		h := drawKey(dc, title, nil, 1)
		tiles := draw.Tiles{Rows: 1, Cols: len(row), PadTop: vg.Points(2), PadBottom: vg.Points(4),
			PadLeft: vg.Points(4), PadRight: vg.Points(10), PadX: vg.Points(22)}
		cs := plot.Align([][]*plot.Plot{row}, tiles, draw.Crop(dc, 0, 0, 0, -h))
		for i, p := range row {
			drawOn(p, cs[0][i])
		}
	})
}

// fitErrorPanel draws errs as bars grouped by errs.Groups, one colour per
// model, with each bar's value printed above it.
func fitErrorPanel(errs FitErrors) (*plot.Plot, error) {
	if len(errs.MAPE) != len(errs.Models) {
		return nil, fmt.Errorf("errors panel: %d models but %d rows of MAPE", len(errs.Models), len(errs.MAPE))
	}
	p := newPanel("MAPE (%)")
	p.Title.Text = errs.Title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.NominalX(errs.Groups...)
	p.X.Tick.Label.Font.Size = vg.Points(8)
	w := vg.Points(min(14, 150/float64(len(errs.Groups)*len(errs.Models))))
	top := 0.0
	for m, name := range errs.Models {
		if len(errs.MAPE[m]) != len(errs.Groups) {
			return nil, fmt.Errorf("errors panel: %s has %d values for %d groups", name, len(errs.MAPE[m]), len(errs.Groups))
		}
		vals := make(plotter.Values, len(errs.Groups))
		for g, v := range errs.MAPE[m] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals[g] = v
				top = max(top, v)
			}
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		bars.Color = styleOf(m).glyph.Color
		bars.LineStyle.Width = 0
		bars.Offset = (vg.Length(m) - vg.Length(len(errs.Models)-1)/2) * w
		p.Add(bars)
		p.Legend.Add(name, bars)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.ThumbnailWidth = vg.Points(10)
	// Headroom for the legend, top left, above the tallest bar.
	p.Y.Min, p.Y.Max = 0, math.Max(1, top*1.45)
	return p, nil
}

// fitPanels builds the two panels of PlotFit, the observed points named
// observed.
func fitPanels(quantity, xlabel, observed string, pts []FitPoint) (left, right *plot.Plot, err error) {
	s := sortFitPoints(pts)
	if s.n == 0 {
		return nil, nil, fmt.Errorf("no finite points: all %d have a NaN or infinite measured or predicted value", len(pts))
	}

	left = newPanel("predicted " + quantity)
	left.X.Label.Text = observed + " " + quantity
	left.Title.Text = fmt.Sprintf("predicted vs %s; line: y = x, dashed: ±%d %%", observed, fitBandPct)
	left.X.Tick.Marker = siTicks{niceTicks{}}
	band := fitBandPct / 100.0
	left.Add(fitBand{a1: 1 - band, a2: 1 + band}, fitLine{a: 1})

	right = newPanel("residual (%)")
	right.X.Label.Text = xlabel
	right.Title.Text = "residual (predicted − observed) / observed"
	right.X.Tick.Marker = siTicks{niceTicks{}}
	right.Add(fitBand{b1: -fitBandPct, b2: fitBandPct}, fitLine{})
	for _, p := range []*plot.Plot{left, right} {
		p.Title.TextStyle.Font.Size = vg.Points(10)
	}

	s.addTo(left, right)
	s.setRanges(left, right)
	return left, right, nil
}

// fitSeries are PlotFit's drawable points sorted into scatter series, with
// the ranges of their values.
type fitSeries struct {
	groups  []string
	ser     []fitGroupSeries
	drawn   []bool // whether a group has a drawable point
	n       int    // the drawable points
	heldOut bool
	// the censored points of each panel
	censL, censR plotter.XYs
	// the measured and predicted values, the loads and the largest residual
	lo, hi, xlo, xhi, rmax float64
}

// fitGroupSeries are a group's series: [fitted, held out] for each panel.
type fitGroupSeries struct{ fit, res [2]plotter.XYs }

// sortFitPoints sorts the points with a finite measured and predicted value
// into series.
func sortFitPoints(pts []FitPoint) *fitSeries {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

	// Colours follow the first appearance of a group in pts, NaN points
	// included, so dropping a point never recolours the others.
	groupIdx := map[string]int{}
	s := &fitSeries{lo: math.Inf(1), hi: math.Inf(-1), xlo: math.Inf(1), xhi: math.Inf(-1)}
	for _, p := range pts {
		if _, ok := groupIdx[p.Group]; !ok {
			groupIdx[p.Group] = len(s.groups)
			s.groups = append(s.groups, p.Group)
		}
	}
	s.ser = make([]fitGroupSeries, len(s.groups))
	s.drawn = make([]bool, len(s.groups))
	for _, p := range pts {
		if !finite(p.Measured) || !finite(p.Predicted) {
			continue
		}
		g, h := groupIdx[p.Group], 0
		if p.HeldOut {
			h, s.heldOut = 1, true
		}
		s.n++
		s.drawn[g] = true
		s.ser[g].fit[h] = append(s.ser[g].fit[h], plotter.XY{X: p.Measured, Y: p.Predicted})
		s.lo, s.hi = min(s.lo, p.Measured, p.Predicted), max(s.hi, p.Measured, p.Predicted)
		r := (p.Predicted - p.Measured) / p.Measured * 100
		if p.Censored {
			r = min(0, r)
			s.censL = append(s.censL, plotter.XY{X: p.Measured, Y: p.Predicted})
		}
		if !finite(p.X) || !finite(r) {
			continue
		}
		s.ser[g].res[h] = append(s.ser[g].res[h], plotter.XY{X: p.X, Y: r})
		if p.Censored {
			s.censR = append(s.censR, plotter.XY{X: p.X, Y: r})
		}
		s.xlo, s.xhi = min(s.xlo, p.X), max(s.xhi, p.X)
		s.rmax = max(s.rmax, math.Abs(r))
	}
	return s
}

// addTo draws the series on the panels, with the legend on the left one.
func (s *fitSeries) addTo(left, right *plot.Plot) {
	// Filled points first, hollow ones on top so they stay visible.
	for h := range 2 {
		for g := range s.groups {
			sty := fitGlyphStyle(g, h == 1)
			if len(s.ser[g].fit[h]) > 0 {
				left.Add(&plotter.Scatter{XYs: s.ser[g].fit[h], GlyphStyle: sty})
			}
			if len(s.ser[g].res[h]) > 0 {
				right.Add(&plotter.Scatter{XYs: s.ser[g].res[h], GlyphStyle: sty})
			}
		}
	}
	cross := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
	for _, c := range []struct {
		p   *plot.Plot
		xys plotter.XYs
	}{{left, s.censL}, {right, s.censR}} {
		if len(c.xys) > 0 {
			c.p.Add(&plotter.Scatter{XYs: c.xys, GlyphStyle: cross})
		}
	}
	for g, name := range s.groups {
		if s.drawn[g] && name != "" {
			left.Legend.Add(name, &plotter.Scatter{GlyphStyle: fitGlyphStyle(g, false)})
		}
	}
	if len(s.censL) > 0 {
		left.Legend.Add("censored (a lower bound)", &plotter.Scatter{GlyphStyle: cross})
	}
	if s.heldOut {
		sty := fitGlyphStyle(0, true)
		sty.Color = color.Black
		left.Legend.Add("held out (hollow)", &plotter.Scatter{GlyphStyle: sty})
	}
	// Top-left, where predicted ≫ measured: away from the y = x diagonal.
	left.Legend.Left, left.Legend.Top = true, true
	left.Legend.XOffs, left.Legend.YOffs = vg.Points(6), -vg.Points(4)
	left.Legend.ThumbnailWidth = vg.Points(12)
	left.Legend.Padding = vg.Points(2)
	right.Legend = plot.NewLegend()
}

// setRanges sets the panels' axis ranges to the series'.
func (s *fitSeries) setRanges(left, right *plot.Plot) {
	// Left: one range for both axes, a bit beyond the data, from zero at
	// most when every value is non-negative.
	pad := fitPad(s.lo, s.hi)
	amin, amax := s.lo-pad, s.hi+pad
	if s.lo >= 0 && amin < 0 {
		amin = 0
	}
	left.X.Min, left.X.Max = amin, amax
	left.Y.Min, left.Y.Max = amin, amax

	// Right: the load range padded, residuals symmetric about zero with
	// the band always in view.
	xlo, xhi := s.xlo, s.xhi
	if xlo > xhi { // no residual could be computed
		xlo, xhi = 0, 1
	}
	xpad := fitPad(xlo, xhi)
	right.X.Min, right.X.Max = xlo-xpad, xhi+xpad
	if xlo >= 0 && right.X.Min < 0 {
		right.X.Min = 0
	}
	rlim := math.Max(s.rmax*1.12, fitBandPct*1.5)
	right.Y.Min, right.Y.Max = -rlim, rlim
}

// fitPad is the margin around the data range [lo, hi]: 6 % of it, or 10 %
// of the value (at least 1) when all values are equal.
func fitPad(lo, hi float64) float64 {
	if span := hi - lo; span > 0 {
		return 0.06 * span
	}
	return math.Max(0.1*math.Abs(hi), 1)
}

// fitGlyphStyle is the marker of group g: the colour of styleOf(g) and a
// closed shape derived from its marker, filled or hollow.
func fitGlyphStyle(g int, hollow bool) draw.GlyphStyle {
	st := styleOf(g).glyph
	shape := fitGlyph{hollow: hollow, scale: 1}
	switch st.Shape.(type) {
	case draw.SquareGlyph, draw.BoxGlyph:
		shape.sides, shape.rot, shape.scale = 4, math.Pi/4, 1.15
	case draw.TriangleGlyph:
		shape.sides, shape.rot, shape.scale = 3, math.Pi/2, 1.3
	case draw.PyramidGlyph:
		shape.sides, shape.rot, shape.scale = 3, -math.Pi/2, 1.3
	case draw.CrossGlyph:
		shape.sides, shape.scale = 4, 1.3 // diamond
	case draw.PlusGlyph:
		shape.sides, shape.rot, shape.scale = 5, math.Pi/2, 1.15
	}
	return draw.GlyphStyle{Color: st.Color, Radius: vg.Points(fitMarkerRadius), Shape: shape}
}

// fitGlyph is a circle (sides 0) or regular polygon, rotated by rot,
// filled or drawn as an outline. The markers of package draw mix filled and
// outline shapes, so they cannot show fitted and held-out points apart.
type fitGlyph struct {
	sides  int
	rot    float64
	scale  float64
	hollow bool
}

func (g fitGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * vg.Length(g.scale)
	var p vg.Path
	if g.sides == 0 {
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
	} else {
		for k := range g.sides {
			a := g.rot + 2*math.Pi*float64(k)/float64(g.sides)
			v := vg.Point{X: pt.X + r*vg.Length(math.Cos(a)), Y: pt.Y + r*vg.Length(math.Sin(a))}
			if k == 0 {
				p.Move(v)
			} else {
				p.Line(v)
			}
		}
	}
	p.Close()
	if g.hollow {
		c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.2)})
		c.Stroke(p)
		return
	}
	c.SetColor(sty.Color)
	c.Fill(p)
}

// fitLine is the reference line y = a*x + b across the whole panel. It
// reports no data range, so it never stretches an axis.
type fitLine struct{ a, b float64 }

func (l fitLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, x1 := p.X.Min, p.X.Max
	line := []vg.Point{{X: trX(x0), Y: trY(l.a*x0 + l.b)}, {X: trX(x1), Y: trY(l.a*x1 + l.b)}}
	c.StrokeLines(fitRefStyle, c.ClipLinesXY(line)...)
}

// fitBand draws the edges of the band between the lines y = a1*x + b1 and
// y = a2*x + b2 across the whole panel, as thin dashed lines (fitBandStyle):
// a shaded band swallowed the points it was to frame.
type fitBand struct{ a1, b1, a2, b2 float64 }

func (b fitBand) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x0, x1 := p.X.Min, p.X.Max
	for _, e := range [][2]float64{{b.a1, b.b1}, {b.a2, b.b2}} {
		line := []vg.Point{{X: trX(x0), Y: trY(e[0]*x0 + e[1])}, {X: trX(x1), Y: trY(e[0]*x1 + e[1])}}
		c.StrokeLines(fitBandStyle, c.ClipLinesXY(line)...)
	}
}
