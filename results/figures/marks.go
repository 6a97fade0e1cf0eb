package figures

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results/measure"
)

// Marks on the time panels: recoveries, bands of jagged series, labels,
// and where fault lines and line markers go.

var (
	// recoveryFill shades a fault's recovery (Okabe–Ito orange, light).
	recoveryFill = color.NRGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0x48}
	// p50Fill and p99Fill are the bands of the latency p50 (black line)
	// and p99 (dashed blue line) in PlotRun.
	p50Fill = color.NRGBA{A: 0xb0}
	p99Fill = color.NRGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0x70}
)

// minSpanWidth is the narrowest a shaded recovery is drawn: a 30 s
// recovery in a day-long run would otherwise be under a pixel.
const minSpanWidth = 3 // points

// bandBuckets is the number of buckets a band is reduced to.
const bandBuckets = 500

// band fills the area between the minimum and maximum of y per bucket of
// samples; NaN (and, on log axes, values below floor) break it.
type band struct {
	polys                  [][]vg.Point // in data coordinates: lower edge forward, upper edge back
	fill                   color.Color
	xmin, xmax, ymin, ymax float64
}

// addBand adds y(t) as a band to p, k samples a bucket, with a legend
// entry when name is set.
func addBand(p *plot.Plot, t, y []float64, k int, fill color.Color, name string, floor float64) {
	b := &band{fill: fill, xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
	var lower, upper []vg.Point
	flush := func() {
		if len(lower) > 0 {
			poly := append([]vg.Point{}, lower...)
			for i := len(upper) - 1; i >= 0; i-- {
				poly = append(poly, upper[i])
			}
			b.polys = append(b.polys, poly)
		}
		lower, upper = nil, nil
	}
	for start := 0; start < len(t); start += k {
		end := min(start+k, len(t))
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range y[start:end] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) && v >= floor {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		if math.IsInf(lo, 1) {
			flush()
			continue
		}
		// The bucket spans its first to its last sample, so neighbouring
		// buckets share no x and a lone bucket still has a width.
		x0, x1 := t[start], t[end-1]
		lower = append(lower, vg.Point{X: vg.Length(x0), Y: vg.Length(lo)}, vg.Point{X: vg.Length(x1), Y: vg.Length(lo)})
		upper = append(upper, vg.Point{X: vg.Length(x0), Y: vg.Length(hi)}, vg.Point{X: vg.Length(x1), Y: vg.Length(hi)})
		b.xmin, b.xmax = min(b.xmin, x0), max(b.xmax, x1)
		b.ymin, b.ymax = min(b.ymin, lo), max(b.ymax, hi)
	}
	flush()
	if len(b.polys) == 0 {
		return
	}
	p.Add(b)
	if name != "" {
		p.Legend.Add(name, &plotter.Polygon{Color: fill})
	}
}

func (b *band) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, poly := range b.polys {
		pts := make([]vg.Point, len(poly))
		for i, q := range poly {
			pts[i] = vg.Point{X: trX(float64(q.X)), Y: trY(float64(q.Y))}
		}
		c.FillPolygon(b.fill, pts)
	}
}

func (b *band) DataRange() (xmin, xmax, ymin, ymax float64) { return b.xmin, b.xmax, b.ymin, b.ymax }

// recoverySpan shades a recovery across the whole height of a panel, at
// least minSpanWidth wide. Like vline it reports no data range.
type recoverySpan struct{ x0, x1 float64 }

func (s recoverySpan) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0, x1 := trX(s.x0), trX(s.x1)
	if x1-x0 < vg.Points(minSpanWidth) {
		x1 = x0 + vg.Points(minSpanWidth)
	}
	x0, x1 = max(x0, c.Min.X), min(x1, c.Max.X)
	if x1 <= x0 {
		return
	}
	c.FillPolygon(recoveryFill, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
}

// topLabel writes text just right of x at the top of a panel.
type topLabel struct {
	x     float64
	text  string
	style draw.TextStyle
}

func (l topLabel) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(l.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	c.FillText(l.style, vg.Point{X: x + vg.Points(2), Y: c.Max.Y - vg.Points(2)}, l.text)
}

// maxRecoveryLabels is the most recoveries labelled with their time in one
// panel; more would overlap.
const maxRecoveryLabels = 8

// addRecoverySpans shades each recovered fault's recovery (fault →
// recovered) inside [lo, hi] s on every panel and, with label set and at
// most maxRecoveryLabels of them, writes its time ("31 s", "> 2 h
// unrecovered") at the top of labelOn. Times are in s / scale on the axis.
func addRecoverySpans(panels []*plot.Plot, faults []measure.FaultRecovery, scale, lo, hi float64, labelOn *plot.Plot, label bool) {
	var shown []measure.FaultRecovery
	for _, f := range faults {
		if f.AtS <= hi && f.AtS >= lo-max(f.RecoveryS, 0) {
			shown = append(shown, f)
		}
	}
	shaded := false
	for _, f := range shown {
		if !f.Recovered() {
			continue
		}
		shaded = true
		for _, p := range panels {
			p.Add(recoverySpan{x0: f.AtS / scale, x1: (f.AtS + f.RecoveryS) / scale})
		}
	}
	if shaded {
		labelOn.Legend.Add("recovery", &plotter.Polygon{Color: recoveryFill})
	}
	if !label || len(shown) > maxRecoveryLabels {
		return
	}
	sty := figTextStyle(labelOn.Legend.TextStyle.Font.Size.Points() - 1)
	sty.YAlign = draw.YTop
	for _, f := range shown {
		labelOn.Add(topLabel{x: f.AtS / scale, text: recoveryText(f), style: sty})
	}
}

// recoveryText is a fault's recovery as printed on a figure: its time, or
// how long it had not recovered by the run's end. Never "0 s".
func recoveryText(f measure.FaultRecovery) string {
	switch {
	case f.Recovered():
		return durationLabel(f.RecoveryS)
	case !math.IsNaN(f.UnrecoveredS):
		return "unrecovered (> " + durationLabel(f.UnrecoveredS) + ")"
	}
	return "unrecovered"
}

// durationLabel prints seconds as "31 s", "4.5 min" or "2.1 h".
func durationLabel(s float64) string {
	switch {
	case s < 600:
		return fmt.Sprintf("%.3g s", s)
	case s < 3*3600:
		return fmt.Sprintf("%.3g min", s/60)
	}
	return fmt.Sprintf("%.3g h", s/3600)
}

// bandBucket is the number of samples (at times ts) per bucket of a band:
// at least two periods of the series' sawtooth (periodS, e.g. the longest
// checkpoint interval), so every bucket holds a peak and the envelope does
// not alias into stripes, and at most bandBuckets buckets. It returns the
// bucket's duration as a label too.
func bandBucket(ts []float64, periodS float64) (k int, label string) {
	if len(ts) < 2 {
		return 1, "sample"
	}
	step := (ts[len(ts)-1] - ts[0]) / float64(len(ts)-1)
	k = max(1, (len(ts)+bandBuckets-1)/bandBuckets)
	if periodS > 0 && step > 0 {
		k = max(k, int(math.Ceil(2*periodS/step)))
	}
	return k, durationLabel(float64(k) * step)
}

// faultTick marks a fault in a small panel: a red triangle on its top edge
// above a hairline, so a dozen faults do not bury the data the way
// full-height dashed lines would.
type faultTick struct{ x float64 }

var faultHairline = draw.LineStyle{Color: color.NRGBA{R: 0xc0, G: 0x20, B: 0x20, A: 0x80}, Width: vg.Points(0.5)}

func (f faultTick) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(f.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	c.StrokeLine2(faultHairline, x, c.Min.Y, x, c.Max.Y)
	s := vg.Points(3.2)
	c.FillPolygon(faultStyle.Color, []vg.Point{{X: x - s, Y: c.Max.Y}, {X: x + s, Y: c.Max.Y}, {X: x, Y: c.Max.Y - 1.6*s}})
}

// Thumbnail draws the legend sample: the triangle over the hairline.
func (f faultTick) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(faultHairline, x, c.Min.Y, x, c.Max.Y)
	s := vg.Points(3.2)
	c.FillPolygon(faultStyle.Color, []vg.Point{{X: x - s, Y: c.Max.Y}, {X: x + s, Y: c.Max.Y}, {X: x, Y: c.Max.Y - 1.6*s}})
}

// mergeTimes sorts ts and keeps one time per cluster of times closer than
// gap: the runs of a comparison usually share their faults, a few seconds
// apart, and a bundle of marker lines would hide the data under them.
func mergeTimes(ts []float64, gap float64) []float64 {
	sort.Float64s(ts)
	var out []float64
	for _, t := range ts {
		if len(out) == 0 || t-out[len(out)-1] > gap {
			out = append(out, t)
		}
	}
	return out
}

// sparseMarkers places panelMarkers markers along a line, shifted by phase
// (0..1 of the marker spacing) so the markers of different runs do not sit
// on top of each other.
func sparseMarkers(t, y []float64, xMax, phase, floor float64) plotter.XYs {
	var out plotter.XYs
	step := xMax / panelMarkers
	usable := func(j int) bool { v := y[j]; return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= floor }
	for k := 0; k < panelMarkers; k++ {
		at := (float64(k) + phase) * step
		// The first usable sample at or after at, else the last before it,
		// within a quarter of the spacing.
		i := sort.SearchFloat64s(t, at)
		j := i
		for j < len(t) && t[j] <= at+step/4 && !usable(j) {
			j++
		}
		if j >= len(t) || t[j] > at+step/4 {
			for j = i - 1; j >= 0 && t[j] >= at-step/4 && !usable(j); j-- {
			}
			if j < 0 || t[j] < at-step/4 {
				continue
			}
		}
		out = append(out, plotter.XY{X: t[j], Y: y[j]})
	}
	return out
}
