package figures

import (
	"fmt"
	"image/color"
	"math"
	"slices"

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
func faultZooms(runs []LabelledRun, o figureOptions) (*gridFigure, error) {
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
	cols := min(len(which), 4)
	if o.width > 0 && o.width <= SingleColumn+0.5*vg.Inch {
		cols = min(len(which), 2)
	}
	nrows := (len(which) + cols - 1) / cols
	w, h, f := o.size(figWidth, 0.9*vg.Inch+2.1*vg.Inch*vg.Length(nrows))
	g := &gridFigure{w: w, h: h}
	var panels []*plot.Plot
	for n, k := range which {
		p := newPanel("")
		if n%cols == 0 {
			p.Y.Label.Text = "lag (records)"
		}
		if n >= len(which)-cols {
			p.X.Label.Text = "time since the fault (s)"
		}
		right := 0.0 // the latest recovery (or end) after the fault, s
		var at float64
		var notes []note
		for i, s := range series {
			if k > len(s.faults) {
				continue
			}
			fr := s.faults[k-1]
			if len(notes) == 0 {
				at = fr.AtS
			}
			end := s.endS - fr.AtS
			if fr.Recovered() {
				end = fr.RecoveryS
			}
			right = max(right, end)
			notes = append(notes, note{text: runs[i].Label + ": " + recoveryText(fr), color: styleOf(i).line.Color})
		}
		xMax := right + margin
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
		p.Add(vline{x: 0, style: faultStyle})
		for _, b := range bounds {
			p.Add(vline{x: b, style: zoomBoundStyle})
		}
		p.Add(notesBox{notes: notes, size: 7.5 * f})
		g.panelNotes = append(g.panelNotes, notes)
		p.X.Min, p.X.Max = -margin, xMax
		linearRange(p, 1.15+0.06*float64(len(notes))) // room for the notes
		p.Title.Text = fmt.Sprintf("fault %d at %s", k, durationLabel(at))
		p.Legend = plot.NewLegend()
		scaleText(f*0.9, p)
		panels = append(panels, p)
	}
	for r := 0; r < nrows; r++ {
		row := make([]*plot.Plot, cols)
		copy(row, panels[r*cols:min(len(panels), (r+1)*cols)])
		g.rows = append(g.rows, row)
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

// notesBox writes its notes, one per line in their colours, in the top
// right corner of a panel.
type notesBox struct {
	notes []note
	size  float64 // pt
}

func (b notesBox) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := figTextStyle(b.size)
	sty.XAlign, sty.YAlign = draw.XRight, draw.YTop
	y := c.Max.Y - vg.Points(2)
	for _, n := range b.notes {
		sty.Color = n.color
		c.FillText(sty, vg.Point{X: c.Max.X - vg.Points(3), Y: y}, n.text)
		y -= sty.Height(n.text)
	}
}
