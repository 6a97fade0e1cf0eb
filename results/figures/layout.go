package figures

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/streamtwin/streamtwin/results/measure"
)

// Print widths of a journal or conference page.
const (
	SingleColumn = 3.5 * vg.Inch
	DoubleColumn = 7 * vg.Inch
)

// DefaultFaultMarginS is the time shown before a fault and after its
// recovery by WithFault and the fault zooms of PlotFaults.
const DefaultFaultMarginS = 120

// ErrWindow marks a time window or fault number that the run cannot give
// (the user's mistake, not a broken file).
var ErrWindow = errors.New("time window")

// window is the time range a figure shows: [fromS, toS] (NaN: the run's
// start or end), or the fault'th fault (1-based) from marginS before it to
// marginS after its recovery. marginS also sets the fault zooms of
// PlotFaults; NaN is DefaultFaultMarginS.
type window struct {
	fromS, toS float64
	fault      int
	marginS    float64
}

// WithWidth sets the figure width, e.g. SingleColumn or DoubleColumn; the
// height follows the figure's aspect and the text is sized to stay legible
// printed at that width (7 pt in a single column, 8 pt in a double one).
func WithWidth(w vg.Length) Option { return func(o *figureOptions) { o.width = w } }

// WithWindow limits the time axis of PlotRun and PlotPanels to
// [fromS, toS] seconds since the run's start; NaN leaves that end open.
func WithWindow(fromS, toS float64) Option {
	return func(o *figureOptions) { o.window.fromS, o.window.toS = fromS, toS }
}

// WithFault zooms PlotRun and PlotPanels on the n'th fault (1-based): from
// marginS before it to marginS after the latest of its recoveries (or the
// run's end when it never recovered). PlotFaults draws only that fault's
// zoom, with that margin.
func WithFault(n int, marginS float64) Option {
	return func(o *figureOptions) { o.window.fault, o.window.marginS = n, marginS }
}

// WithFaultMargin sets the time PlotFaults shows before each fault and
// after its latest recovery (default DefaultFaultMarginS).
func WithFaultMargin(marginS float64) Option {
	return func(o *figureOptions) { o.window.marginS = marginS }
}

// margin is the time shown around a fault, s.
func (w window) margin() float64 {
	if math.IsNaN(w.marginS) || w.marginS < 0 {
		return DefaultFaultMarginS
	}
	return w.marginS
}

// bounds resolves the window against runs whose faults are faults[i] and
// which end at spanS: the time range to draw, in seconds.
func (w window) bounds(faults [][]measure.FaultRecovery, endS []float64) (lo, hi float64, err error) {
	span := 0.0
	for _, e := range endS {
		span = max(span, e)
	}
	if w.fault > 0 {
		lo, hi = math.Inf(1), math.Inf(-1)
		most := 0
		for i, fs := range faults {
			most = max(most, len(fs))
			if w.fault > len(fs) {
				continue
			}
			f := fs[w.fault-1]
			end := endS[i]
			if f.Recovered() {
				end = f.AtS + f.RecoveryS
			}
			lo, hi = min(lo, f.AtS-w.margin()), max(hi, end+w.margin())
		}
		if most == 0 {
			return 0, 0, fmt.Errorf("%w: fault %d: the run has no faults", ErrWindow, w.fault)
		}
		if math.IsInf(lo, 1) {
			return 0, 0, fmt.Errorf("%w: fault %d: no run has that many faults (at most %d; give 1..%d)", ErrWindow, w.fault, most, most)
		}
		return max(lo, 0), min(hi, span), nil
	}
	lo, hi = 0, span
	if !math.IsNaN(w.fromS) {
		lo = w.fromS
	}
	if !math.IsNaN(w.toS) {
		hi = w.toS
	}
	if !(hi > lo) {
		return 0, 0, fmt.Errorf("%w: from %gs to %gs is empty (the run lasts %gs)", ErrWindow, lo, hi, span)
	}
	if lo >= span {
		return 0, 0, fmt.Errorf("%w: from %gs is past the run's end at %gs", ErrWindow, lo, span)
	}
	return lo, hi, nil
}

// suffix names the figure file of a zoom ("-fault2", "-3600s-7200s"), so it
// never replaces the run's full figure.
func (w window) suffix() string {
	switch {
	case w.fault > 0:
		return fmt.Sprintf("-fault%d", w.fault)
	case math.IsNaN(w.fromS) && math.IsNaN(w.toS):
		return ""
	}
	end := func(v float64, open string) string {
		if math.IsNaN(v) {
			return open
		}
		return strconv.FormatFloat(v, 'f', -1, 64) + "s"
	}
	return "-" + end(w.fromS, "start") + "-" + end(w.toS, "end")
}

// timeUnit picks the unit of a time axis spanning spanS seconds: seconds
// for a zoom, minutes for an hour, hours for days.
func timeUnit(spanS float64) (scale float64, unit string) {
	switch {
	case spanS <= 15*60:
		return 1, "s"
	case spanS <= 6*3600:
		return 60, "min"
	}
	return 3600, "h"
}

// size is the figure size for the default size w x h: the given width, the
// height scaled with it (never below 60%, so stacked panels keep room), and
// the factor by which text shrinks from its 9 pt default.
func (o figureOptions) size(w, h vg.Length) (vg.Length, vg.Length, float64) {
	if o.width <= 0 {
		return w, h, textFactor(w)
	}
	return o.width, max(h*o.width/w, 0.6*h), textFactor(o.width)
}

// textFactor sizes text for a figure printed w wide: 7 pt in a single
// column, 8 pt in a double one, 9 pt on wider (screen) figures.
func textFactor(w vg.Length) float64 {
	switch {
	case w <= SingleColumn+0.5*vg.Inch:
		return 7.0 / 9
	case w <= DoubleColumn+0.5*vg.Inch:
		return 8.0 / 9
	}
	return 1
}

// scaleText multiplies every text size of the plots by f.
func scaleText(f float64, plots ...*plot.Plot) {
	if f == 1 {
		return
	}
	for _, p := range plots {
		p.Title.TextStyle.Font.Size *= vg.Length(f)
		p.Legend.TextStyle.Font.Size *= vg.Length(f)
		p.Legend.ThumbnailWidth *= vg.Length(f)
		for _, ax := range []*plot.Axis{&p.X, &p.Y} {
			ax.Label.TextStyle.Font.Size *= vg.Length(f)
			ax.Tick.Label.Font.Size *= vg.Length(f)
			ax.Tick.Length *= vg.Length(f)
		}
	}
}

// sliceWindow returns the index range [i, j) of the samples of ts (sorted)
// inside [lo, hi], widened by one sample on each side so lines reach the
// axis edges.
func sliceWindow(ts []float64, lo, hi float64) (i, j int) {
	i, j = 0, len(ts)
	for i < len(ts) && ts[i] < lo {
		i++
	}
	for j > i && ts[j-1] > hi {
		j--
	}
	return max(i-1, 0), min(j+1, len(ts))
}
