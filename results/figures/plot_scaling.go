package figures

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results"
)

// The figures of an autoscaling comparison (results/evaluation Scaling).

// ScalingMetric is one panel of PlotScalingSummary: per variant, a mean
// and its 95 % interval (Low, High; NaN: none drawn).
type ScalingMetric struct {
	Label           string // y axis, with its unit
	Mean, Low, High []float64
	// Reference draws a dashed line at this value (NaN: none), e.g. 1 for
	// the baseline of a normalised usage.
	Reference float64
	Log       bool // log y axis (latency, lag)
}

// PlotScalingSummary draws one panel per metric side by side, each with a
// dot per variant at its mean and whiskers for its 95 % confidence
// interval over the seeds, variants along x in the given order and style.
func PlotScalingSummary(base, title string, variants []string, metrics []ScalingMetric) ([]string, error) {
	var panels []*plot.Plot
	for _, m := range metrics {
		p := newPanel(m.Label)
		p.X.Tick.Marker = categoryTicks(variants)
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
		floor := 0.0
		if m.Log {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
			floor = math.Inf(1)
			for i := range variants {
				for _, v := range []float64{m.Mean[i], m.Low[i]} {
					if v > 0 {
						floor = min(floor, v)
					}
				}
			}
			if math.IsInf(floor, 1) {
				floor = 1
			}
		}
		clamp := func(v float64) float64 {
			if m.Log && !(v >= floor) {
				return floor
			}
			return v
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range variants {
			if math.IsNaN(m.Mean[i]) {
				continue
			}
			st := styleOf(i)
			y := clamp(m.Mean[i])
			if !math.IsNaN(m.Low[i]) && !math.IsNaN(m.High[i]) {
				w := &plotter.Line{XYs: plotter.XYs{{X: float64(i), Y: clamp(m.Low[i])}, {X: float64(i), Y: clamp(m.High[i])}},
					LineStyle: draw.LineStyle{Color: st.line.Color, Width: vg.Points(1.5)}}
				p.Add(w)
				lo, hi = min(lo, clamp(m.Low[i])), max(hi, clamp(m.High[i]))
			}
			p.Add(&plotter.Scatter{XYs: plotter.XYs{{X: float64(i), Y: y}}, GlyphStyle: st.glyph})
			lo, hi = min(lo, y), max(hi, y)
		}
		if !math.IsNaN(m.Reference) {
			p.Add(hline{y: m.Reference, style: boundStyle})
			lo, hi = min(lo, m.Reference), max(hi, m.Reference)
		}
		p.X.Min, p.X.Max = -0.5, float64(len(variants))-0.5
		if lo <= hi {
			if m.Log {
				p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
			} else {
				p.Y.Min, p.Y.Max = math.Min(0, lo), hi*1.1+1e-9
			}
		}
		panels = append(panels, p)
	}
	w := vg.Length(len(metrics)) * 2.6 * vg.Inch
	return writeFigure(base, w, 3.6*vg.Inch, func(dc draw.Canvas) {
		ts := figTextStyle(12)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		dc.FillText(ts, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(6)}, title)
		body := draw.Crop(dc, 0, 0, 0, -vg.Points(24))
		tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadTop: vg.Points(4), PadBottom: vg.Points(4),
			PadLeft: vg.Points(4), PadRight: vg.Points(10), PadX: vg.Points(14)}
		for i, c := range plot.Align([][]*plot.Plot{panels}, tiles, body)[0] {
			panels[i].Draw(c)
		}
	})
}

// categoryTicks labels the integer positions 0..n-1 with names.
type categoryTicks []string

func (c categoryTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for i, n := range c {
		if float64(i) >= min && float64(i) <= max {
			out = append(out, plot.Tick{Value: float64(i), Label: n})
		}
	}
	return out
}

// PlotScalingTimeline draws one run per variant over time: the input rate
// on top, each variant's parallelism in the middle (steps) and its consumer
// lag at the bottom (log axis), in the variants' styles.
func PlotScalingTimeline(base, title string, runDirs, labels []string) ([]string, error) {
	input := newPanel("input (records/s)")
	par := newPanel("parallelism")
	lag := newPanel("consumer lag (records)")
	lag.Y.Scale = plot.LogScale{}
	lag.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var key []keyEntry
	runs := make([][][]float64, len(runDirs))
	spanS := 0.0
	for i, dir := range runDirs {
		cols, err := results.ReadRunColumns(dir, "time_s", "input_rate", "parallelism", "lag")
		if err != nil {
			return nil, err
		}
		if t := cols[0]; len(t) > 0 {
			spanS = max(spanS, t[len(t)-1])
		}
		runs[i] = cols
	}
	scale, unit := timeUnit(spanS)
	for i, cols := range runs {
		ts := make([]float64, len(cols[0]))
		for k, t := range cols[0] {
			ts[k] = t / scale
		}
		if i == 0 {
			addLine(input, ts, cols[1], inputStyle, "", 0)
		}
		st := styleOf(i)
		addLine(par, ts, cols[2], st.line, "", 0)
		addLine(lag, ts, cols[3], st.line, "", 1)
		key = append(key, keyEntry{label: labels[i], thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: st.line}}})
	}
	lag.X.Label.Text = "time (" + unit + ")"
	for _, p := range []*plot.Plot{input, par, lag} {
		p.X.Min, p.X.Max = 0, spanS/scale
	}
	linearRange(input, 1.1)
	linearRange(par, 1.15)
	par.Y.Min = 0
	return writeFigure(base, 7.5*vg.Inch, 7*vg.Inch, func(dc draw.Canvas) {
		h := drawKey(dc, title, key, 1)
		drawStack([]*plot.Plot{input, par, lag}, draw.Crop(dc, 0, 0, 0, -h))
	})
}
