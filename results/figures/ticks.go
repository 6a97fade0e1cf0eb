package figures

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The axis rule of every figure: labelled ticks on round numbers (steps of
// 1, 2 or 5 x 10^k on a linear axis; decades, with their 2s and 5s when few,
// on a log axis), never on a value read off the data, and at least
// minLabelled of them on every axis, so a value can be read off any panel.
// Tick labels are written 1.5k, 2M, ... (siLabel), never 1e+06.

// minLabelled is the fewest labelled ticks an axis may carry.
const minLabelled = 3

// niceTicks puts about five labelled ticks at 1, 2 or 5 x 10^k steps, with a
// minor tick between; plot.DefaultTicks labels only two or three, which is
// too sparse to read values off a short panel. most, when at least
// minLabelled, caps the labels (fitTicks sets it from the room the axis has).
type niceTicks struct{ most int }

func (n niceTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 4, 64)}}
	}
	step := niceStep((max - min) / 5)
	// A step chosen for five labels can leave two on an unlucky range
	// (0.9–2.1 with step 1): shorten it until three fit.
	for labelledMultiples(min, max, step) < minLabelled {
		step = smallerStep(step)
	}
	most := n.most
	if most > 0 && most < minLabelled {
		most = minLabelled
	}
	for most > 0 && labelledMultiples(min, max, step) > most && labelledMultiples(min, max, largerStep(step)) >= minLabelled {
		step = largerStep(step)
	}
	var ts []plot.Tick
	for i := math.Ceil(min / step * 2); i*step/2 <= max*(1+1e-9)+1e-12; i++ {
		v := i * step / 2
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		t := plot.Tick{Value: v}
		if int64(i)%2 == 0 {
			t.Label = strconv.FormatFloat(v, 'g', 6, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

// niceStep is the 1-2-5 x 10^k step nearest above raw*0.75.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if raw/mag > m*0.75 {
			step = m * mag
		}
	}
	return step
}

// smallerStep is the next 1-2-5 step below step: 10 → 5 → 2 → 1.
func smallerStep(step float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	switch m := step / mag; {
	case m > 4.5:
		return 2 * mag
	case m > 1.5:
		return mag
	}
	return 0.5 * mag
}

// largerStep is the next 1-2-5 step above step: 1 → 2 → 5 → 10.
func largerStep(step float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	switch m := step / mag; {
	case m < 1.5:
		return 2 * mag
	case m < 3:
		return 5 * mag
	}
	return 10 * mag
}

// labelledMultiples counts the multiples of step in [min, max].
func labelledMultiples(min, max, step float64) int {
	return int(math.Floor(max/step+1e-9)-math.Ceil(min/step-1e-9)) + 1
}

// siTicks relabels major ticks as 1.5k, 2M, ... so rates and lags in the
// millions do not print as 1e+06.
type siTicks struct{ plot.Ticker }

func (s siTicks) Ticks(min, max float64) []plot.Tick {
	ts := s.Ticker.Ticks(min, max)
	for i := range ts {
		if !ts[i].IsMinor() {
			ts[i].Label = siLabel(ts[i].Value)
		}
	}
	return ts
}

func siLabel(v float64) string {
	a := math.Abs(v)
	if a < 1 {
		return strconv.FormatFloat(v, 'g', 3, 64) // log axes go below 1 ms
	}
	suffix, div := "", 1.0
	switch {
	case a >= 1e9:
		suffix, div = "G", 1e9
	case a >= 1e6:
		suffix, div = "M", 1e6
	case a >= 1e3:
		suffix, div = "k", 1e3
	}
	s := strconv.FormatFloat(v/div, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s + suffix
}

// logTicks labels the decades of a log axis, and their 2s and 5s when they
// fit, with minor ticks at the other integers of each decade; past most
// labels (fitTicks' cap) only every second, fifth, … decade is labelled. An
// axis too short to hold three such labels (400–900 ms) gets niceTicks'
// 1-2-5 steps instead, so it still reads.
type logTicks struct{ most int }

func (l logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return niceTicks{most: l.most}.Ticks(min, max)
	}
	most := l.most
	if most < minLabelled {
		most = minLabelled
	}
	if l.most == 0 {
		most = 9 // no cap: the 2s and 5s up to three decades
		if max/min > 1e3 {
			most = 4
		}
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	in := func(v float64) bool { return v >= min*(1-1e-9) && v <= max*(1+1e-9) }
	// The labelled mantissas and decade strides, densest first; the first
	// that fits is taken, or the sparsest that still labels three.
	type choice struct {
		mants  []float64
		stride float64
	}
	var choices []choice
	for _, ms := range [][]float64{{1, 2, 5}, {1}} {
		choices = append(choices, choice{ms, 1})
	}
	for _, k := range []float64{2, 5, 10, 20} {
		choices = append(choices, choice{[]float64{1}, k})
	}
	count := func(c choice) int {
		n := 0
		for k := lo; k <= hi; k++ {
			for _, m := range c.mants {
				if math.Mod(k, c.stride) == 0 && in(m*math.Pow(10, k)) {
					n++
				}
			}
		}
		return n
	}
	pick := -1
	for i, c := range choices {
		if n := count(c); n >= minLabelled {
			pick = i
			if n <= most {
				break
			}
		}
	}
	if pick < 0 {
		return niceTicks{most: l.most}.Ticks(min, max)
	}
	c := choices[pick]
	var ts []plot.Tick
	for k := lo; k <= hi; k++ {
		dec := math.Pow(10, k)
		for m := 1.0; m < 10; m++ {
			v := m * dec
			if !in(v) {
				continue // a label past the axis end makes plot.Align pad the panel
			}
			t := plot.Tick{Value: v}
			if math.Mod(k, c.stride) == 0 && slices.Contains(c.mants, m) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// decadeTicks label an axis that holds the log10 of its values, a log axis
// drawn on a linear scale, at the values logTicks would choose. gonum
// reserves room for a log y axis's title around its linear midpoint, near
// the top, which pushes the whole panel down; an axis of exponents has no
// such midpoint. PlotLatencyDistributions' ratio panel draws on one.
type decadeTicks struct{ most int }

func (d decadeTicks) Ticks(min, max float64) []plot.Tick {
	ts := logTicks{most: d.most}.Ticks(math.Pow(10, min), math.Pow(10, max))
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = siLabel(ts[i].Value)
		}
		ts[i].Value = math.Log10(ts[i].Value)
	}
	return ts
}

// fitTicks caps the labels of p's axes at what its data area in c holds
// apart: on y a label every 1.8 em, on x the widest label plus 1.5 em. It
// is the one place where label spacing is decided, so no figure prints
// "-100-50 0 50 100150" on a narrow panel.
func fitTicks(p *plot.Plot, c draw.Canvas) {
	da := p.DataCanvas(c)
	if h := da.Max.Y - da.Min.Y; h > 0 {
		pitch := 1.8 * p.Y.Tick.Label.Font.Size
		p.Y.Tick.Marker = withMost(p.Y.Tick.Marker, int(h/pitch)+1)
	}
	if w := da.Max.X - da.Min.X; w > 0 {
		widest := vg.Length(0)
		for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
			widest = max(widest, p.X.Tick.Label.Width(t.Label))
		}
		pitch := widest + 1.5*p.X.Tick.Label.Font.Size
		p.X.Tick.Marker = withMost(p.X.Tick.Marker, int(w/pitch)+1)
	}
}

// withMost sets the label cap of the round tickers inside t.
func withMost(t plot.Ticker, n int) plot.Ticker {
	switch t := t.(type) {
	case niceTicks:
		t.most = n
		return t
	case logTicks:
		t.most = n
		return t
	case decadeTicks:
		t.most = n
		return t
	case siTicks:
		return siTicks{withMost(t.Ticker, n)}
	case unlabelled:
		return unlabelled{withMost(t.Ticker, n)}
	case zeroTicks:
		t.Ticker = withMost(t.Ticker, n)
		return t
	}
	return t
}

// levelTicks label the data's own levels: the values a sweep ran, a grid's
// cells. They name what was run, so the round-number rule is not theirs.
type levelTicks []plot.Tick

func (l levelTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range l {
		if t.Value >= min && t.Value <= max {
			out = append(out, t)
		}
	}
	return out
}
