package figures

import (
	"cmp"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
)

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
	reps := replicationText(groups, statistics.Pooled(t, levelColumns(xl, ll)), "point")
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
			m, h, _ := statistics.MeanCI(vs) // vs are finite (groupValues)
			nonNeg := true
			for _, v := range vs {
				nonNeg = nonNeg && v >= 0
			}
			allNonNeg = allNonNeg && nonNeg
			// The one CI rule of the printed tables: clamped at 0 for
			// values that cannot be negative.
			lo, hi := statistics.CIBounds(m, h, nonNeg)
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
		ax.Tick.Marker = levelTicks(ticks)
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
		ax.Tick.Marker = levelTicks(ticks)
	} else if logAxis {
		ax.Tick.Marker = siTicks{logTicks{}}
	} else {
		ax.Tick.Marker = siTicks{niceTicks{}}
	}
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
