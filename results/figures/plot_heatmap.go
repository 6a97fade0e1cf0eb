package figures

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
)

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
	reps := replicationText(groups, statistics.Pooled(t, levelColumns(xl, yl)), "cell")
	if reps == "" {
		return nil, &results.ColumnError{File: file, Column: z, Problem: "has no finite values", Available: t.Names}
	}
	g := &heatGrid{cols: xl.len(), rows: yl.len(), z: make([]float64, xl.len()*yl.len())}
	for r := range g.rows {
		for c := range g.cols {
			m, _, _ := statistics.MeanCI(groups[r][c]) // NaN for an empty cell
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
	p.X.Tick.Marker = cellTicks(xl)
	p.Y.Tick.Marker = cellTicks(yl)
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
		drawOn(p, heatC)
		data := p.DataCanvas(heatC)
		bc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: dc.Max.X - barW - axisW, Y: data.Min.Y},
			Max: vg.Point{X: dc.Max.X, Y: data.Max.Y}}}
		// Align the bar's data area with the heat map's.
		bd := bar.DataCanvas(bc)
		bc.Min.Y -= bd.Min.Y - bc.Min.Y
		bc.Max.Y += bc.Max.Y - bd.Max.Y
		drawOn(bar, bc)
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

// cellTicks labels grid cells with their parameter values.
func cellTicks(l *paramLevels) plot.Ticker {
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
	return levelTicks(ticks)
}

// heatGrid is a GridXYZ on cell indices.
type heatGrid struct {
	cols, rows int
	z          []float64
}

func (g *heatGrid) Dims() (c, r int) { return g.cols, g.rows }

func (g *heatGrid) Z(c, r int) float64 { return g.z[r*g.cols+c] }

func (g *heatGrid) X(c int) float64 { return float64(c) }

func (g *heatGrid) Y(r int) float64 { return float64(r) }

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
