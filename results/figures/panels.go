package figures

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// ---------------------------------------------------------------------------
// 3. Time-series panels of several runs

// panelColumns are the timeseries columns PlotPanels reads.
var panelColumns = []string{"time_s", "input_rate", "throughput", "lag", "latency_p99_ms", "checkpoint_interval_s"}

// panelsOverlay is PlotPanels WithOverlay: several runs on one shared time
// axis: input rate (of the first run, drawn once, wide and grey) with each
// run's throughput, then lag, latency p99 and checkpoint interval, one line
// style per run. Faults of every run are marked as in PlotRun, faults less
// than 1% of the time axis apart with one line; a key above the panels
// names the styles.
func panelsOverlay(runs []LabelledRun, base string, o figureOptions) (paths []string, err error) {
	series, err := readRunSeries(runs)
	if err != nil {
		return nil, err
	}
	data := make([]plotData, len(runs))
	var faults []float64
	span := 0.0
	for i, s := range series {
		data[i] = s.d
		span = max(span, s.endS)
		for _, f := range s.faults {
			faults = append(faults, f.AtS)
		}
	}
	faults = mergeTimes(faults, span/100)
	scale, unit := 60.0, "min"
	if span > 6*3600 {
		scale, unit = 3600, "h"
	}
	xMax := span / scale
	if !(xMax > 0) {
		xMax = 1
	}
	scaled := func(ts []float64) []float64 {
		out := make([]float64, len(ts))
		for i, v := range ts {
			out[i] = v / scale
		}
		return out
	}

	rates := newPanel("rate (records/s)")
	lag := newPanel("lag (records)")
	lat := newPanel(AxisLabel("latency_p99_ms"))
	ci := newPanel("checkpoint interval (s)")
	ci.X.Label.Text = "time (" + unit + ")"
	key := []keyEntry{{label: "input rate (" + runs[0].Label + ")", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: inputStyle}}}}

	t0 := scaled(data[0].t)
	addLine(rates, t0, data[0].in, inputStyle, "", 0)
	var p99s [][]float64
	for i := range data {
		p99s = append(p99s, data[i].p99)
	}
	latLo, latHi := positiveRange(p99s...)
	// Log past a factor 10: the spikes of a catch-up would flatten the
	// steady latency of every row into the zero line.
	latLog := latLo > 0 && latHi/latLo > tailRatio
	latFloor := 0.0
	if latLog {
		lat.Y.Scale = plot.LogScale{}
		lat.Y.Tick.Marker = siTicks{logTicks{}}
		latFloor = math.SmallestNonzeroFloat64
	}
	for i, d := range data {
		st := styleOf(i)
		t := scaled(d.t)
		phase := (float64(i) + 1) / float64(len(data)+1)
		for _, pl := range []struct {
			p     *plot.Plot
			y     []float64
			floor float64
			step  bool
		}{{rates, d.thr, 0, false}, {lag, d.lag, 0, false}, {lat, d.p99, latFloor, false}, {ci, d.ci, 0, true}} {
			for _, seg := range addLine(pl.p, t, pl.y, st.line, "", pl.floor) {
				if pl.step {
					seg.StepStyle = plotter.PreStep
				}
			}
			pl.p.Add(&plotter.Scatter{XYs: sparseMarkers(t, pl.y, xMax, phase, pl.floor), GlyphStyle: st.glyph})
		}
		key = append(key, keyEntry{label: runs[i].Label, thumbs: st.thumbs()})
	}
	linearRange(rates, 1.08)
	linearRange(lag, 1.08)
	if latLog {
		lat.Y.Min, lat.Y.Max = latLo/1.5, latHi*1.5
	} else {
		linearRange(lat, 1.08)
	}
	linearRange(ci, 1.1)
	panels := []*plot.Plot{rates, lag, lat, ci}
	for _, ft := range faults {
		for _, p := range panels {
			p.Add(vline{x: ft / scale, style: faultStyle})
		}
	}
	if len(faults) > 0 {
		key = append(key, keyEntry{label: "fault", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: faultStyle}}})
	}
	for i, p := range panels {
		p.X.Min, p.X.Max = 0, xMax
		p.Legend = plot.NewLegend() // the key above replaces the legends
		if i < len(panels)-1 {
			p.X.Tick.Marker = unlabelled{p.X.Tick.Marker}
		}
	}
	title := o.titleOr(runSetTitle(runs))
	return writeFigure(base, figWidth, figHeight, func(dc draw.Canvas) {
		h := drawKey(dc, title, key, 1)
		drawStack(panels, draw.Crop(dc, 0, 0, 0, -h))
	})
}

// panelsRowHeight is the height of one run's row of small multiples, and
// minRowHeight the least it shrinks to at a narrow width.
const (
	panelsRowHeight = 1.15 * vg.Inch
	minRowHeight    = 0.85 * vg.Inch
)

// runSeries is what the time panels read of one run.
type runSeries struct {
	d      plotData
	faults []measure.FaultRecovery
	endS   float64
}

// readRunSeries reads the panel columns and the faults of each run.
func readRunSeries(runs []LabelledRun) ([]runSeries, error) {
	out := make([]runSeries, len(runs))
	for i, r := range runs {
		cols, err := results.ReadRunColumns(r.Dir, panelColumns...)
		if err != nil {
			return nil, err
		}
		d := plotData{t: cols[0], in: cols[1], thr: cols[2], lag: cols[3], p99: cols[4], ci: cols[5]}
		if len(d.t) == 0 {
			return nil, fmt.Errorf("%s: no samples", filepath.Join(r.Dir, results.TimeseriesFile))
		}
		out[i] = runSeries{d: d, endS: d.t[len(d.t)-1]}
		evPath := filepath.Join(r.Dir, results.EventsFile)
		if _, err := os.Stat(evPath); err != nil {
			continue // events are markers only: a folder without them still plots
		}
		events, err := results.ReadEvents(evPath)
		if err != nil {
			return nil, err
		}
		out[i].faults = measure.FaultRecoveries(events)
	}
	return out, nil
}

// PlotPanels compares several runs over time as small multiples: one row
// per run (in the run's colour, the same in every figure of the run set),
// one column per series (throughput over the input rate, lag, latency p99,
// checkpoint interval) on a shared time axis, with the same y axis down a
// column. Each row marks its own faults, shades their recoveries and, when
// a fault never recovered, the time from it to the end. WithWindow and
// WithFault zoom in; WithOverlay draws the older single set of axes
// instead. labels name the runs as in PlotLatencyDistributions.
func PlotPanels(runDirs []string, labels []string, base string, opts ...Option) (paths []string, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("results: panels figure: %w", err)
		}
	}()
	o := collectOptions(opts)
	runs, err := LabelRuns(runDirs, labels)
	if err != nil {
		return nil, err
	}
	if o.overlay {
		return panelsOverlay(runs, base, o)
	}
	g, err := smallMultiples(runs, o)
	if err != nil {
		return nil, err
	}
	return g.write(base + o.window.suffix())
}

// gridFigure is a figure of panels in rows and columns under a title, a key
// and column headings.
type gridFigure struct {
	title     string
	key       []keyEntry
	colTitles []string // "" for none
	rows      [][]*plot.Plot
	w, h      vg.Length
	// rowLabels, rowStyles and rowFaults say what each row shows: its run,
	// that run's style and the fault times marked in it (axis units).
	rowLabels []string
	rowStyles []variantStyle
	rowFaults [][]float64
	// panelNotes are the notes written in each panel, in panel order.
	panelNotes [][]note
}

func (g *gridFigure) write(base string) ([]string, error) {
	return writeFigure(base, g.w, g.h, g.draw)
}

func (g *gridFigure) draw(dc draw.Canvas) {
	top := drawKey(dc, g.title, g.key, g.factor())
	head := vg.Length(0)
	sty := figTextStyle(9 * g.factor())
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	for _, t := range g.colTitles {
		if t != "" {
			head = sty.Height(t) + vg.Points(4)
		}
	}
	area := draw.Crop(dc, 0, 0, 0, -top-head)
	cols := len(g.rows[0])
	tiles := draw.Tiles{Rows: len(g.rows), Cols: cols, PadTop: vg.Points(2), PadBottom: vg.Points(4),
		PadLeft: vg.Points(4), PadRight: vg.Points(8), PadX: vg.Points(10), PadY: vg.Points(5)}
	cs := alignFitted(g.rows, tiles, area)
	for i, row := range g.rows {
		for j, p := range row {
			if p != nil {
				drawOn(p, cs[i][j])
			}
		}
	}
	for j, t := range g.colTitles {
		c := cs[0][j]
		dc.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: area.Max.Y + head - vg.Points(1)}, t)
	}
}

// factor is the text size factor of the figure's width.
func (g *gridFigure) factor() float64 { return textFactor(g.w) }

// smallMultiples lays out PlotPanels.
func smallMultiples(runs []LabelledRun, o figureOptions) (*gridFigure, error) {
	series, err := readRunSeries(runs)
	if err != nil {
		return nil, err
	}
	faults := make([][]measure.FaultRecovery, len(series))
	ends := make([]float64, len(series))
	for i, s := range series {
		faults[i], ends[i] = s.faults, s.endS
	}
	lo, hi, err := o.window.bounds(faults, ends)
	if err != nil {
		return nil, err
	}
	w, h, f := o.size(figWidth, 0.7*vg.Inch+panelsRowHeight*vg.Length(len(runs)))
	// A row keeps room for four labels on its y axes, however narrow.
	h = max(h, 0.7*vg.Inch+minRowHeight*vg.Length(len(runs)))
	g := &gridFigure{w: w, h: h, colTitles: []string{"rate (records/s)", "lag (records)", AxisLabel("latency_p99_ms"), "checkpoint interval (s)"}}

	win := make([]plotData, len(series))
	for i, s := range series {
		win[i] = s.d.window(lo, hi)
	}
	ax := newPanelsAxes(win, lo, hi)
	var top [4]float64 // the largest value per column
	var recovered, unrecovered bool
	for i, d := range win {
		st := styleOf(i)
		row, marks, rec, unrec := ax.runRow(runs[i].Label, st, d, series[i].faults)
		recovered, unrecovered = recovered || rec, unrecovered || unrec
		for k, p := range row {
			top[k] = max(top[k], p.Y.Max)
			p.Add(faultMarks{xs: marks})
		}
		g.rows = append(g.rows, row)
		g.rowLabels = append(g.rowLabels, runs[i].Label)
		g.rowStyles = append(g.rowStyles, st)
		g.rowFaults = append(g.rowFaults, marks)
	}
	ax.share(g.rows, top, f)
	ciFlat := true
	for _, d := range win {
		_, flat := flatValue(d.ci)
		ciFlat = ciFlat && flat
	}
	keep := panelsColumns(w, f, ciFlat)
	g.keepColumns(keep)
	if keep[0] == 0 { // the rate column, which draws the input rate
		g.key = []keyEntry{{label: "input rate", thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: inputStyle}}}}
	}
	if len(g.rowFaults) > 0 {
		g.key = append(g.key, keyEntry{label: "fault", thumbs: []plot.Thumbnailer{faultTick{}}})
	}
	if recovered {
		g.key = append(g.key, keyEntry{label: "recovery", thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: recoveryFill}}})
	}
	if unrecovered {
		g.key = append(g.key, keyEntry{label: "unrecovered (fault → end)", thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: unrecoveredFill}}})
	}
	if ciFlat {
		g.key = append(g.key, keyEntry{label: "checkpoint interval constant in each row (not drawn)"})
	}
	g.title = o.titleOr(runSetTitle(runs))
	if o.window.fault > 0 && g.title != "" {
		g.title += fmt.Sprintf(" — fault %d", o.window.fault)
	}
	return g, nil
}

// minPanelWidth is the narrowest data area of a small multiple: five
// labels of a time axis ("0 2 4 6 8") fit.
const minPanelWidth = 70 // points

// panelsColumns are the columns of PlotPanels (0 rate, 1 lag, 2 latency,
// 3 checkpoint interval) that a figure w wide with text at factor f has
// room for at minPanelWidth each, in order: lag and latency p99 first,
// where the runs differ most, then the checkpoint interval, unless ciFlat
// (flat in every row: each row's name says it), then the rate, whose input
// is the same in every row.
func panelsColumns(w vg.Length, f float64, ciFlat bool) []int {
	prio := []int{1, 2, 3, 0}
	if ciFlat {
		prio = []int{1, 2, 0}
	}
	n := len(prio)
	for n > 1 {
		// the grid's side pads and the row names; per column its tick
		// labels and the gap to the next
		fixed, per := vg.Points(12+12*f), vg.Points(30*f+10)
		if (w-fixed)/vg.Length(n)-per >= vg.Points(minPanelWidth) {
			break
		}
		n--
	}
	keep := slices.Clone(prio[:n])
	slices.Sort(keep)
	return keep
}

// keepColumns keeps only the columns keep of g (and their titles); the run's
// name moves to the first one kept.
func (g *gridFigure) keepColumns(keep []int) {
	if len(keep) == len(g.colTitles) {
		return
	}
	var titles []string
	for _, k := range keep {
		titles = append(titles, g.colTitles[k])
	}
	g.colTitles = titles
	for i, row := range g.rows {
		kept := make([]*plot.Plot, 0, len(keep))
		for _, k := range keep {
			kept = append(kept, row[k])
		}
		if first := row[keep[0]]; first != row[0] {
			first.Y.Label = row[0].Y.Label
		}
		g.rows[i] = kept
	}
}

// panelsAxes are what the rows of PlotPanels share: the time window [lo,
// hi] s drawn in unit (scale s each), and the latency axis.
type panelsAxes struct {
	lo, hi, scale float64
	unit          string
	// the positive latencies' range, whether the axis is logarithmic, and
	// the lowest value a latency band draws
	latLo, latHi float64
	latLog       bool
	latFloor     float64
}

// newPanelsAxes is the axes of the runs' data win in the window [lo, hi].
func newPanelsAxes(win []plotData, lo, hi float64) panelsAxes {
	ax := panelsAxes{lo: lo, hi: hi}
	ax.scale, ax.unit = timeUnit(hi - lo)
	// One latency axis for all rows: log when the values span past logRatio.
	var p99s [][]float64
	for _, d := range win {
		p99s = append(p99s, d.p99)
	}
	ax.latLo, ax.latHi = positiveRange(p99s...)
	// Log past a factor 10: the spikes of a catch-up would flatten the
	// steady latency of every row into the zero line.
	ax.latLog = ax.latLo > 0 && ax.latHi/ax.latLo > tailRatio
	if ax.latLog {
		ax.latFloor = math.SmallestNonzeroFloat64
	}
	return ax
}

// runRow draws a run's row of panels (rate, lag, latency, checkpoint
// interval) from its data d and its faults; it returns the faults' times
// on the axis to mark, and whether a fault recovered or did not.
func (ax panelsAxes) runRow(label string, st variantStyle, d plotData, faults []measure.FaultRecovery) (row []*plot.Plot, marks []float64, recovered, unrecovered bool) {
	lo, hi, scale := ax.lo, ax.hi, ax.scale
	line := st.line
	line.Dashes = nil // a row holds one run: colour and label tell it
	t := make([]float64, len(d.t))
	for k, v := range d.t {
		t[k] = v / scale
	}
	rates, lag, lat, ci := newPanel(label), newPanel(""), newPanel(""), newPanel("")
	rates.Y.Label.TextStyle.Color = st.line.Color
	row = []*plot.Plot{rates, lag, lat, ci}
	// Recoveries first, under the data; fault marks last, over it.
	for _, fr := range faults {
		if fr.AtS < lo || fr.AtS > hi {
			continue
		}
		marks = append(marks, fr.AtS/scale)
		for _, p := range row {
			switch {
			case fr.Recovered():
				recovered = true
				p.Add(recoverySpan{x0: fr.AtS / scale, x1: (fr.AtS + fr.RecoveryS) / scale})
			case !math.IsNaN(fr.UnrecoveredS):
				unrecovered = true
				p.Add(span{x0: fr.AtS / scale, x1: (fr.AtS + fr.UnrecoveredS) / scale})
			}
		}
	}
	// Many more samples than pixels: rates as means per bucket, as in
	// PlotRun, and the latency as a band.
	dense := len(t) > denseSamples
	k := 1
	if dense {
		k, _ = bandBucket(d.t, maxFinite(d.ci))
		addMean(rates, t, d.in, k, inputStyle, "")
		addMean(rates, t, d.thr, k, line, "")
	} else {
		addLine(rates, t, d.in, inputStyle, "", 0)
		addLine(rates, t, d.thr, line, "", 0)
	}
	addLine(lag, t, d.lag, line, "", 0)
	if dense {
		fill := color.NRGBA{}
		r, gr, b, _ := st.line.Color.RGBA()
		fill.R, fill.G, fill.B, fill.A = uint8(r>>8), uint8(gr>>8), uint8(b>>8), 0x90
		edge := draw.LineStyle{Color: st.line.Color, Width: vg.Points(0.7)}
		addBand(lat, t, d.p99, k, fill, edge, "", ax.latFloor)
	} else {
		addLine(lat, t, d.p99, line, "", ax.latFloor)
	}
	for _, seg := range addLine(ci, t, d.ci, line, "", 0) {
		seg.StepStyle = plotter.PreStep
	}
	if ax.latLog {
		lat.Y.Scale = plot.LogScale{}
		lat.Y.Tick.Marker = siTicks{logTicks{}}
	}
	return row, marks, recovered, unrecovered
}

// share gives the rows' panels shared axes down each column (top: the
// largest value per column) and along the time axis, and text at size
// factor f.
func (ax panelsAxes) share(rows [][]*plot.Plot, top [4]float64, f float64) {
	for i, row := range rows {
		for k, p := range row {
			p.Legend = plot.NewLegend()
			p.X.Min, p.X.Max = ax.lo/ax.scale, ax.hi/ax.scale
			p.Y.Max = top[k]
			if k == 2 && ax.latLog {
				p.Y.Min, p.Y.Max = decadeBelow(ax.latLo), decadeAbove(ax.latHi)
			} else {
				linearRange(p, 1.08)
			}
			if i < len(rows)-1 {
				p.X.Tick.Marker = unlabelled{p.X.Tick.Marker}
			} else {
				p.X.Label.Text = "time (" + ax.unit + ")"
			}
		}
		scaleText(f*0.9, row...)
	}
}

// runSetTitle is the scenario the runs share with their backends, e.g.
// "live-khaos (twin vs live)", or "".
func runSetTitle(runs []LabelledRun) string {
	s := runs[0].Summary
	if s == nil {
		return ""
	}
	sums := []*results.Summary{s}
	for _, r := range runs[1:] {
		if r.Summary == nil || r.Summary.Scenario != s.Scenario {
			return ""
		}
		sums = append(sums, r.Summary)
	}
	return s.Scenario + BackendTag(sums...)
}

// BackendTag names the backends of runs for a title, so a twin run's figure
// and a live run's of the same scenario tell themselves apart: " (twin)",
// " (live)", " (twin vs live)" in the runs' order, or "" when no summary
// says (written before summaries had a backend). Every figure titled by a
// scenario carries it: plot's and evaluate's.
func BackendTag(sums ...*results.Summary) string {
	var names []string
	for _, s := range sums {
		if s == nil || s.Backend == "" {
			continue
		}
		n := s.Backend
		if n == "sim" {
			n = "twin" // the simulator runs the twin
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, " vs ") + ")"
}
