package figures

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
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
	// p50Fill and p99Fill are the bands of the latency p50 (grey line) and
	// p99 (dashed blue line) in PlotRun: the p99 is drawn over the p50, so
	// its band is the stronger and its upper edge is stroked (p99Edge).
	p50Fill = color.NRGBA{R: 0x60, G: 0x60, B: 0x60, A: 0x60}
	p99Fill = color.NRGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xb0}
	p99Edge = draw.LineStyle{Color: color.NRGBA{R: 0x10, G: 0x40, B: 0x90, A: 0xff}, Width: vg.Points(0.6)}
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
	edge                   draw.LineStyle // strokes the upper edge unless its width is 0
	xmin, xmax, ymin, ymax float64
}

// addBand adds y(t) as a band to p, k samples a bucket, its upper edge
// stroked with edge (none when its width is 0), with a legend entry when
// name is set.
func addBand(p *plot.Plot, t, y []float64, k int, fill color.Color, edge draw.LineStyle, name string, floor float64) {
	b := &band{fill: fill, edge: edge, xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
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
		p.Legend.Add(name, &plotter.Polygon{Color: fill, LineStyle: edge})
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
		if b.edge.Width > 0 {
			c.StrokeLines(b.edge, c.ClipLinesXY(pts[len(pts)/2:])...)
		}
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

// addRecoverySpans shades each recovered fault's recovery (fault →
// recovered) inside [lo, hi] s on every panel, into the panel's underlay
// so that the shading lies under the data, and tells whether it shaded
// one (the caller adds the key entry). Times are in s / scale on the axis.
// Their times are written in the fault strip (drawFaultStrip), clear of
// the data.
func addRecoverySpans(panels []*underlay, faults []measure.FaultRecovery, scale, lo, hi float64) (shaded bool) {
	for _, f := range faults {
		if !f.Recovered() || f.AtS > hi || f.AtS < lo-f.RecoveryS {
			continue
		}
		shaded = true
		for _, u := range panels {
			u.items = append(u.items, recoverySpan{x0: f.AtS / scale, x1: (f.AtS + f.RecoveryS) / scale})
		}
	}
	return shaded
}

// underlay is drawn where it was added to its panel, under the data added
// after it, whatever is put into it later: the recovery shading, known
// once every panel is built, stays under the lines instead of tinting them.
type underlay struct{ items []plot.Plotter }

// underlayOf adds an empty underlay to p, to be added to before p is drawn.
func underlayOf(p *plot.Plot) *underlay {
	u := &underlay{}
	p.Add(u)
	return u
}

func (u *underlay) Plot(c draw.Canvas, p *plot.Plot) {
	for _, it := range u.items {
		it.Plot(c, p)
	}
}

// RecoveryText is a fault's recovery as printed on a figure: its time, or
// how long it had not recovered by the run's end. Never "0 s".
func RecoveryText(f measure.FaultRecovery) string {
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

// faultTick is the key's sample of a fault in the small multiples: a red
// triangle over a hairline.
type faultTick struct{}

var faultHairline = draw.LineStyle{Color: color.NRGBA{R: 0xc0, G: 0x20, B: 0x20, A: 0x80}, Width: vg.Points(0.5)}

// Thumbnail draws the legend sample: the triangle over the hairline.
func (faultTick) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(faultHairline, x, c.Min.Y, x, c.Max.Y)
	s := vg.Points(3)
	c.FillPolygon(faultStyle.Color, []vg.Point{{X: x - s, Y: c.Max.Y}, {X: x + s, Y: c.Max.Y}, {X: x, Y: c.Max.Y - 1.6*s}})
}

// faultMarks marks the faults at xs (sorted, axis units) in a small panel:
// a hairline each, so a dozen faults do not bury the data the way
// full-height dashed lines would, and a red triangle on the top edge;
// faults closer than a triangle's width to a triangle share it (it sits on
// the first of them), so triangles never touch.
type faultMarks struct{ xs []float64 }

// faultMarkSize is the half width of a small panel's fault triangle.
const faultMarkSize = 2.2 // points

func (f faultMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	s := vg.Points(faultMarkSize)
	var cluster []vg.Length // the xs of the triangle being gathered
	flush := func() {
		if len(cluster) == 0 {
			return
		}
		x := cluster[0] // the next triangle starts over 2s+1 pt right of it
		c.FillPolygon(faultStyle.Color, []vg.Point{{X: x - s, Y: c.Max.Y}, {X: x + s, Y: c.Max.Y}, {X: x, Y: c.Max.Y - 1.6*s}})
		cluster = nil
	}
	for _, v := range f.xs {
		x := trX(v)
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		c.StrokeLine2(faultHairline, x, c.Min.Y, x, c.Max.Y)
		if len(cluster) > 0 && x-cluster[0] > 2*s+vg.Points(1) {
			flush()
		}
		cluster = append(cluster, x)
	}
	flush()
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

// addMean plots y(t) as its mean per bucket of k samples, drawn at the
// bucket's middle: over a bucket of equally spaced samples that is the
// records processed over the bucket's time, the honest rate, where the
// min–max of segments would zig-zag with every checkpoint stall. NaN
// samples are left out of a mean; a bucket without any is a gap.
func addMean(p *plot.Plot, t, y []float64, k int, style draw.LineStyle, name string) []*plotter.Line {
	var xs, ms []float64
	for start := 0; start < len(t); start += k {
		end := min(start+k, len(t))
		sum, n := 0.0, 0
		for _, v := range y[start:end] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum, n = sum+v, n+1
			}
		}
		m := math.NaN()
		if n > 0 {
			m = sum / float64(n)
		}
		xs, ms = append(xs, (t[start]+t[end-1])/2), append(ms, m)
	}
	return addLine(p, xs, ms, style, name, 0)
}

// flatValue is the one finite value of ys when every finite value is
// that one (flat), and whether there is such a value.
func flatValue(ys []float64) (v float64, flat bool) {
	seen := false
	for _, y := range ys {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		if seen && y != v {
			return v, false
		}
		v, seen = y, true
	}
	return v, seen
}

// stripMark is a fault in the strip above PlotRun's top panel: a
// triangle at x (axis units) numbered as the run's num'th fault (the N of
// --fault N), with its recovery time beside it when there is room.
type stripMark struct {
	x     float64
	num   int
	label string
}

// faultNumberColor and recoveryTextColor write the strip: the fault's
// number in the red of its line, its recovery time in a dark orange that
// reads as the shading's (a mid grey in black and white).
var (
	faultNumberColor  = color.NRGBA{R: 0xa0, G: 0x10, B: 0x10, A: 0xff}
	recoveryTextColor = color.NRGBA{R: 0x8a, G: 0x52, B: 0x00, A: 0xff}
)

// stripHeight is the height of the fault strip for text of size fs: a
// line of text over a triangle.
func stripHeight(fs vg.Length) vg.Length { return fs + triangleSize(fs)*1.4 + vg.Points(3) }

// triangleSize is the half width of a fault triangle beside text of size fs.
func triangleSize(fs vg.Length) vg.Length { return 0.42 * fs }

// placedMark is a strip mark laid out: whether its triangle, number and
// label are drawn (they are dropped rather than overlap).
type placedMark struct {
	x              vg.Length
	num, label     string
	triangle       bool
	numX0, labelX0 vg.Length
	numOK, labelOK bool
	numW, labelW   vg.Length
}

// layoutStrip places the marks (in x order, device x given by xs) between
// x0 and x1: a triangle is left out when it would touch the previous one,
// a number when it would touch the text before it, and a recovery label
// when it would reach the next number or the strip's end. Nothing drawn
// overlaps.
func layoutStrip(marks []stripMark, xs []vg.Length, x0, x1 vg.Length, sty draw.TextStyle, s vg.Length) []placedMark {
	gap := vg.Points(3)
	out := make([]placedMark, len(marks))
	for i, m := range marks {
		num := fmt.Sprint(m.num)
		out[i] = placedMark{x: xs[i], num: num, label: m.label, numW: sty.Width(num), labelW: sty.Width(m.label)}
	}
	used := x0 - vg.Points(1000) // right end of the last text drawn
	lastTri := used
	for i := range out {
		pm := &out[i]
		if pm.x < x0-vg.Points(0.5) || pm.x > x1+vg.Points(0.5) {
			continue
		}
		pm.triangle = pm.x-lastTri >= 2*s+vg.Points(1)
		if pm.triangle {
			lastTri = pm.x
		}
		pm.numX0 = pm.x - pm.numW/2
		pm.numOK = pm.triangle && pm.numX0 >= used+gap
		if !pm.numOK {
			continue
		}
		used = pm.numX0 + pm.numW
		limit := x1 + vg.Points(8) // the panels' right pad
		for _, next := range out[i+1:] {
			if next.x-lastTri >= 2*s+vg.Points(1) { // the next numbered one
				limit = min(limit, next.x-next.numW/2-gap)
				break
			}
		}
		pm.labelX0 = used + vg.Points(2)
		pm.labelOK = pm.label != "" && pm.labelX0+pm.labelW <= limit
		if pm.labelOK {
			used = pm.labelX0 + pm.labelW
		}
	}
	return out
}

// drawFaultStrip draws the marks in the strip above p's data area (p drawn
// in c): a triangle pointing at the fault's line, its number over it and
// its recovery time beside, so each fault can be found at any zoom.
func drawFaultStrip(p *plot.Plot, c draw.Canvas, marks []stripMark) {
	if len(marks) == 0 {
		return
	}
	da := p.DataCanvas(c)
	trX, _ := p.Transforms(&da)
	fs := p.Y.Tick.Label.Font.Size
	s := triangleSize(fs)
	sty := figTextStyle(fs.Points())
	sty.YAlign = draw.YBottom
	xs := make([]vg.Length, len(marks))
	for i, m := range marks {
		xs[i] = trX(m.x)
	}
	base := da.Max.Y + 1.4*s + vg.Points(1.5)
	for _, pm := range layoutStrip(marks, xs, da.Min.X, da.Max.X, sty, s) {
		if pm.triangle {
			c.FillPolygon(faultStyle.Color, []vg.Point{{X: pm.x - s, Y: da.Max.Y + 1.4*s}, {X: pm.x + s, Y: da.Max.Y + 1.4*s}, {X: pm.x, Y: da.Max.Y}})
		}
		if pm.numOK {
			sty.Color = faultNumberColor
			c.FillText(sty, vg.Point{X: pm.numX0, Y: base}, pm.num)
		}
		if pm.labelOK {
			sty.Color = recoveryTextColor
			c.FillText(sty, vg.Point{X: pm.labelX0, Y: base}, pm.label)
		}
	}
}

// runFaultThumb is the key's sample of a fault in PlotRun: the strip's
// triangle over the dashed line.
type runFaultThumb struct{}

func (runFaultThumb) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	s := vg.Points(3)
	c.StrokeLine2(faultStyle, x, c.Min.Y, x, c.Max.Y-1.4*s)
	c.FillPolygon(faultStyle.Color, []vg.Point{{X: x - s, Y: c.Max.Y}, {X: x + s, Y: c.Max.Y}, {X: x, Y: c.Max.Y - 1.4*s}})
}

// nullCanvas draws nothing: drawKey measures the key's height on it.
type nullCanvas struct{}

func (nullCanvas) SetLineWidth(vg.Length)                 {}
func (nullCanvas) SetLineDash([]vg.Length, vg.Length)     {}
func (nullCanvas) SetColor(color.Color)                   {}
func (nullCanvas) Rotate(float64)                         {}
func (nullCanvas) Translate(vg.Point)                     {}
func (nullCanvas) Scale(float64, float64)                 {}
func (nullCanvas) Push()                                  {}
func (nullCanvas) Pop()                                   {}
func (nullCanvas) Stroke(vg.Path)                         {}
func (nullCanvas) Fill(vg.Path)                           {}
func (nullCanvas) FillString(font.Face, vg.Point, string) {}
func (nullCanvas) DrawImage(vg.Rectangle, image.Image)    {}
func (nullCanvas) Size() (w, h vg.Length)                 { return 0, 0 }
