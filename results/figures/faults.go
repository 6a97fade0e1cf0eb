package figures

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/streamtwin/streamtwin/results/textfmt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// zoomBoundStyle is the recovery bound R in a fault zoom: grey long dashes,
// apart from the red fault line.
var zoomBoundStyle = draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(9), vg.Points(3)}}

// maxFaultPanels is the most fault zooms PlotFaults draws; WithFault picks
// any one of the others.
const maxFaultPanels = 24

// PlotFaults zooms on each fault of several runs, one panel per fault
// (the n'th fault of every run in panel n), aligned at the fault: the lag
// of each run (in its colour, dash and marker, the same as in the other
// figures of the run set) from DefaultFaultMarginS (WithFaultMargin, or
// WithFault's margin) before the fault to that margin after the latest
// recovery, a marker where each run recovered, the
// recovery bound R of the runs' QoS, and each run's recovery time written
// in the panel ("unrecovered (> 2 h)" for a fault that never recovered).
// WithFault draws one fault. It writes nothing, and returns no paths, when
// no run has a fault.
func PlotFaults(runDirs []string, labels []string, base string, opts ...Option) (paths []string, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("results: faults figure: %w", err)
		}
	}()
	o := collectOptions(opts)
	runs, err := LabelRuns(runDirs, labels)
	if err != nil {
		return nil, err
	}
	g, err := faultZooms(runs, o)
	if err != nil || g == nil {
		return nil, err
	}
	return g.write(base + o.window.suffix())
}

// faultZooms lays out PlotFaults; nil when there is no fault.
func faultZooms(runs []LabelledRun, o figureOptions) (*faultFigure, error) {
	series, err := readRunSeries(runs)
	if err != nil {
		return nil, err
	}
	most := 0
	for _, s := range series {
		most = max(most, len(s.faults))
	}
	if o.window.fault > most {
		return nil, fmt.Errorf("%w: fault %d: no run has that many faults (at most %d)", ErrWindow, o.window.fault, most)
	}
	margin := o.window.margin()
	var which []int // fault numbers, 1-based
	switch {
	case most == 0:
		return nil, nil
	case o.window.fault > 0:
		which = []int{o.window.fault}
	default:
		for k := 1; k <= min(most, maxFaultPanels); k++ {
			which = append(which, k)
		}
	}
	var bounds []float64 // the runs' recovery bounds R, s
	for _, r := range runs {
		if r.Summary != nil && r.Summary.QoS.RecoveryBoundS > 0 && !slices.Contains(bounds, r.Summary.QoS.RecoveryBoundS) {
			bounds = append(bounds, r.Summary.QoS.RecoveryBoundS)
		}
	}
	// Three cells across a page (two in a single column): the strip's
	// labels take a third of a cell, and the time axis needs room for
	// three round labels.
	cols := min(len(which), 3)
	if o.width > 0 && o.width <= SingleColumn+0.5*vg.Inch {
		cols = min(len(which), 2)
	}
	nrows := (len(which) + cols - 1) / cols
	w := figWidth
	if o.width > 0 {
		w = o.width
	}
	f := textFactor(w)
	g := &faultFigure{w: w, f: f, cols: cols}
	// A cell per fault: the lag panel over the strip of recovery times.
	lagH := 1.2 * vg.Inch
	if f == 1 {
		lagH = 1.6 * vg.Inch
	}
	g.h = vg.Points(70*f) + vg.Length(nrows)*(lagH+g.stripHeight(len(runs))+vg.Points(26*f))
	var lags, strips []*plot.Plot
	for n, k := range which {
		z := newFaultZoom(runs, series, bounds, k, margin)
		if z.lag == nil {
			continue
		}
		if n%cols == 0 {
			z.lag.Y.Label.Text = "lag (records)"
		}
		scaleText(f*0.9, z.lag, z.strip)
		lags, strips = append(lags, z.lag), append(strips, z.strip)
		g.panelNotes = append(g.panelNotes, z.notes)
	}
	for r := 0; r*cols < len(lags); r++ {
		row, srow := make([]*plot.Plot, cols), make([]*plot.Plot, cols)
		copy(row, lags[r*cols:min(len(lags), (r+1)*cols)])
		copy(srow, strips[r*cols:min(len(strips), (r+1)*cols)])
		g.rows, g.strips = append(g.rows, row), append(g.strips, srow)
	}
	for i, r := range runs {
		g.key = append(g.key, keyEntry{label: r.Label, thumbs: styleOf(i).thumbs()})
		g.rowLabels, g.rowStyles = append(g.rowLabels, r.Label), append(g.rowStyles, styleOf(i))
	}
	g.key = append(g.key, keyEntry{label: "fault", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: faultStyle}}})
	if len(bounds) > 0 {
		g.key = append(g.key, keyEntry{label: "recovery bound R", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: zoomBoundStyle}}})
	}
	title := runSetTitle(runs)
	if len(which) < most && o.window.fault == 0 {
		title += fmt.Sprintf(" (the first %d of %d faults; --fault N draws any)", len(which), most)
	}
	g.title = o.titleOr(title)
	return g, nil
}

// faultZoom is one fault's cell of PlotFaults: the runs' lag around the
// fault, the strip of their recovery times under it (fastest on top), and
// the recovery times as notes, in the runs' order.
type faultZoom struct {
	lag, strip *plot.Plot
	notes      []note
}

// newFaultZoom draws the k'th fault (1-based) of the runs that have one,
// from margin s before it to margin s after the latest recovery; lag is
// nil when no run has a k'th fault.
func newFaultZoom(runs []LabelledRun, series []runSeries, bounds []float64, k int, margin float64) faultZoom {
	var z faultZoom
	right := 0.0 // the latest recovery (or end) after the fault, s
	at := math.NaN()
	var rows []recoveryRow
	for i, s := range series {
		if k > len(s.faults) {
			continue
		}
		fr := s.faults[k-1]
		if math.IsNaN(at) {
			at = fr.AtS
		}
		end := s.endS - fr.AtS
		if fr.Recovered() {
			end = fr.RecoveryS
		}
		right = max(right, end)
		z.notes = append(z.notes, note{text: runs[i].Label + ": " + RecoveryText(fr), color: styleOf(i).line.Color})
		rows = append(rows, recoveryRow{label: runs[i].Label, style: styleOf(i), fault: fr})
	}
	if len(rows) == 0 {
		return z
	}
	xMax := right + margin
	p := newPanel("")
	for i, s := range series {
		if k > len(s.faults) {
			continue
		}
		fr := s.faults[k-1]
		st := styleOf(i)
		d := s.d.window(fr.AtS-margin, fr.AtS+xMax)
		x := make([]float64, len(d.t))
		for j, v := range d.t {
			x[j] = v - fr.AtS
		}
		addLine(p, x, d.lag, st.line, "", 0)
		if fr.Recovered() {
			p.Add(&plotter.Scatter{XYs: plotter.XYs{{X: fr.RecoveryS, Y: valueAt(d.t, d.lag, fr.AtS+fr.RecoveryS)}}, GlyphStyle: st.glyph})
		}
	}
	marks := []plot.Plotter{vline{x: 0, style: faultStyle}}
	for _, b := range bounds {
		marks = append(marks, vline{x: b, style: zoomBoundStyle})
	}
	p.Add(marks...)
	p.X.Min, p.X.Max = -margin, xMax
	linearRange(p, 1.08)
	p.Title.Text = fmt.Sprintf("fault %d at %s", k, textfmt.Clock(at))
	p.Legend = plot.NewLegend()
	p.X.Tick.Marker = unlabelled{p.X.Tick.Marker} // the strip under it labels the shared axis
	z.lag = p
	z.strip = recoveryStrip(rows, -margin, xMax, marks)
	return z
}

// valueAt is y at the sample nearest to time at (NaN: none).
func valueAt(t, y []float64, at float64) float64 {
	best, v := math.Inf(1), math.NaN()
	for i, ti := range t {
		if d := math.Abs(ti - at); d < best && !math.IsNaN(y[i]) {
			best, v = d, y[i]
		}
	}
	return v
}

// note is one line of a notesBox.
type note struct {
	text  string
	color color.Color
}
