package figures

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results/measure"
)

// The fault zooms of PlotFaults write each run's recovery time in a strip
// under the lag panel, one row per run, fastest on top: a bar from the
// fault to the recovery in the run's colour, its marker at the end, and the
// run's name and time as the row's label. Nothing is written over a line.

// faultXLabel is the time axis of every fault zoom.
const faultXLabel = "time since the fault (s)"

// recoveryRow is one run's row of a recovery strip.
type recoveryRow struct {
	label string
	style variantStyle
	fault measure.FaultRecovery
}

// recoveryKey orders rows fastest first, the unrecovered last.
func recoveryKey(r recoveryRow) float64 {
	if r.fault.Recovered() {
		return r.fault.RecoveryS
	}
	return math.Inf(1)
}

// stripText is a row's label: "ci10 162 s", "ci10 > 300 s" unrecovered.
func stripText(r recoveryRow) string {
	switch {
	case r.fault.Recovered():
		return r.label + " " + durationLabel(r.fault.RecoveryS)
	case !math.IsNaN(r.fault.UnrecoveredS):
		return r.label + " > " + durationLabel(r.fault.UnrecoveredS)
	}
	return r.label + " unrecovered"
}

// recoveryStrip draws the rows' recovery times on the time axis [lo, hi]
// of the lag panel above, with its marks (the fault, the bound R).
func recoveryStrip(rows []recoveryRow, lo, hi float64, marks []plot.Plotter) *plot.Plot {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b recoveryRow) int { return cmp.Compare(recoveryKey(a), recoveryKey(b)) })
	p := newPanel("")
	p.Legend = plot.NewLegend()
	n := len(rows)
	var ticks levelTicks
	for i, r := range rows {
		y := float64(n - 1 - i) // fastest on top
		ticks = append(ticks, plot.Tick{Value: y, Label: stripText(r)})
		end := hi
		if r.fault.Recovered() {
			end = r.fault.RecoveryS
		}
		line := r.style.line
		line.Dashes = nil // one bar per row: colour, marker and label tell it
		line.Width = vg.Points(1.6)
		p.Add(&plotter.Line{XYs: plotter.XYs{{X: 0, Y: y}, {X: end, Y: y}}, LineStyle: line})
		if r.fault.Recovered() {
			p.Add(&plotter.Scatter{XYs: plotter.XYs{{X: end, Y: y}}, GlyphStyle: r.style.glyph})
		}
	}
	p.Add(marks...)
	slices.Reverse(ticks)
	p.Y.Tick.Marker = ticks
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
	p.X.Min, p.X.Max = lo, hi
	return p
}

// faultFigure is PlotFaults' figure: under a title and a key, a cell per
// fault in rows of cols, each the lag panel over its recovery strip, and
// the time axis' title once under them.
type faultFigure struct {
	title string
	key   []keyEntry
	// rows are the lag panels, strips the recovery strips under them (nil
	// past the last fault).
	rows, strips [][]*plot.Plot
	cols         int
	w, h         vg.Length
	f            float64 // text size factor
	// rowLabels and rowStyles are the runs and their styles, as keyed.
	rowLabels []string
	rowStyles []variantStyle
	// panelNotes are each fault's recovery times, in the runs' order.
	panelNotes [][]note
}

func (g *faultFigure) write(base string) ([]string, error) {
	return writeFigure(base, g.w, g.h, g.draw)
}

// stripHeight is the height of a strip of n rows: a text line per row and
// the time axis' tick labels.
func (g *faultFigure) stripHeight(n int) vg.Length {
	fs := vg.Points(9 * 0.9 * g.f) // the tick labels' size
	return vg.Length(n)*1.3*fs + 2.4*fs + vg.Points(4)
}

func (g *faultFigure) draw(dc draw.Canvas) {
	top := drawKey(dc, g.title, g.key, g.f)
	xs := figTextStyle(10 * 0.9 * g.f)
	xs.XAlign, xs.YAlign = draw.XCenter, draw.YBottom
	bottom := xs.Height(faultXLabel) + vg.Points(4)
	area := draw.Crop(dc, 0, 0, bottom, -top)
	tiles := draw.Tiles{Rows: len(g.rows), Cols: g.cols, PadTop: vg.Points(2), PadBottom: vg.Points(2),
		PadLeft: vg.Points(4), PadRight: vg.Points(8), PadX: vg.Points(10), PadY: vg.Points(8 * g.f)}
	stripH := g.stripHeight(len(g.rowLabels))
	type placed struct {
		p *plot.Plot
		c draw.Canvas
	}
	var all []placed
	for i, row := range g.rows {
		for j, p := range row {
			if p == nil {
				continue
			}
			tc := tiles.At(area, j, i)
			all = append(all,
				placed{p, draw.Crop(tc, 0, 0, stripH+vg.Points(3), 0)},
				placed{g.strips[i][j], draw.Crop(tc, 0, 0, 0, stripH-(tc.Max.Y-tc.Min.Y))})
		}
	}
	// Align the data areas down each column: the widest left and right
	// margins of its plots, for all of them.
	left, right := map[vg.Length]vg.Length{}, map[vg.Length]vg.Length{}
	for _, pc := range all {
		fitTicks(pc.p, pc.c)
		da := pc.p.DataCanvas(pc.c)
		col := pc.c.Min.X
		left[col] = max(left[col], da.Min.X-pc.c.Min.X)
		right[col] = max(right[col], pc.c.Max.X-da.Max.X)
	}
	for _, pc := range all {
		da := pc.p.DataCanvas(pc.c)
		col := pc.c.Min.X
		c := draw.Crop(pc.c, left[col]-(da.Min.X-pc.c.Min.X), -(right[col] - (pc.c.Max.X - da.Max.X)), 0, 0)
		drawOn(pc.p, c)
	}
	dc.FillText(xs, vg.Point{X: (area.Min.X + area.Max.X) / 2, Y: dc.Min.Y + vg.Points(2)}, faultXLabel)
}
