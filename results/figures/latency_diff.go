package figures

import (
	"cmp"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/streamtwin/streamtwin/results/statistics"
)

// The overview of PlotLatencyDistributions: how much more latency each run
// pays than the baseline (the first run), and where in the distribution —
// each run's quantiles minus the baseline's on one axis — beside the tails
// of all runs on one log axis. Near-identical distributions look
// near-identical as boxes; their differences do not.

// diffLevel is one quantile the overview compares.
type diffLevel struct {
	q     float64
	label string
}

// diffLevels are the quantiles of the overview, from the median to the
// largest value.
var diffLevels = []diffLevel{{0.5, "p50"}, {0.9, "p90"}, {0.99, "p99"}, {0.999, "p99.9"}, {1, "max"}}

// quantileDiffs is, for each run's sorted values, its quantile at each of
// diffLevels minus the baseline's (data[base]); the baseline's row is
// zeros.
func quantileDiffs(data [][]float64, base int) [][]float64 {
	ref := make([]float64, len(diffLevels))
	for j, l := range diffLevels {
		ref[j] = statistics.Quantile(data[base], l.q)
	}
	out := make([][]float64, len(data))
	for i, xs := range data {
		out[i] = make([]float64, len(diffLevels))
		for j, l := range diffLevels {
			out[i][j] = statistics.Quantile(xs, l.q) - ref[j]
		}
	}
	return out
}

// diffRatioAbove is the ratio of a run's quantile to the baseline's past
// which the overview draws ratios on a log axis instead of differences: an
// autoscaler paying 4,000 s more than static beside one paying 100 ms more
// would put the second on the zero line.
const diffRatioAbove = 10

// quantileRatios are each run's quantiles at diffLevels divided by the
// baseline's, and whether every ratio is defined (all quantiles > 0).
func quantileRatios(data [][]float64, base int) ([][]float64, bool) {
	out := make([][]float64, len(data))
	for i, xs := range data {
		out[i] = make([]float64, len(diffLevels))
		for j, l := range diffLevels {
			num, den := statistics.Quantile(xs, l.q), statistics.Quantile(data[base], l.q)
			if !(num > 0 && den > 0) {
				return nil, false
			}
			out[i][j] = num / den
		}
	}
	return out, true
}

// latencyDiffs draws quantileDiffs: the quantiles across, the difference
// up (diffLabel, in the latency's unit), each run in its style, dodged
// within a quantile and joined across them, the baseline as the zero line.
// When some run's quantile is more than diffRatioAbove times the
// baseline's (or less than its 1/diffRatioAbove), it draws the ratios on a
// log axis (ratioLabel) around the baseline's 1 instead, and says so.
func latencyDiffs(data [][]float64, base int, diffLabel, ratioLabel string) (p *plot.Plot, ratio bool) {
	vals := quantileDiffs(data, base)
	const ref = 0.0 // the baseline: no difference, or log10 of a ratio of 1
	label := diffLabel
	if ratios, ok := quantileRatios(data, base); ok {
		far := 1.0
		for _, row := range ratios {
			for _, r := range row {
				far = max(far, r, 1/r)
			}
		}
		if far > diffRatioAbove {
			// log10 of the ratios on a linear axis (decadeTicks says why)
			for _, row := range ratios {
				for j := range row {
					row[j] = math.Log10(row[j])
				}
			}
			vals, label, ratio = ratios, ratioLabel, true
		}
	}
	p = newPanel(label)
	p.Legend = plot.NewLegend()
	n := len(data)
	var ticks levelTicks
	for j, l := range diffLevels {
		ticks = append(ticks, plot.Tick{Value: float64(j), Label: l.label})
	}
	p.X.Tick.Marker = ticks
	p.X.Label.Text = "quantile of the intervals"
	p.X.Min, p.X.Max = -0.5, float64(len(diffLevels))-0.5
	zero := styleOf(base).line
	zero.Width = vg.Points(1.5)
	p.Add(&plotter.Line{XYs: plotter.XYs{{X: p.X.Min, Y: ref}, {X: p.X.Max, Y: ref}}, LineStyle: zero})
	lo, hi := ref, ref
	for i, row := range vals {
		if i == base {
			continue
		}
		st := styleOf(i)
		// Dodge the runs within a quantile so equal differences stay apart.
		dx := 0.0
		if n > 2 {
			dx = 0.6 * (float64(i)/float64(n-1) - 0.5)
		}
		var pts plotter.XYs
		for j, d := range row {
			pts = append(pts, plotter.XY{X: float64(j) + dx, Y: d})
			lo, hi = min(lo, d), max(hi, d)
		}
		line := st.line
		line.Width = vg.Points(1)
		p.Add(&plotter.Line{XYs: pts, LineStyle: line}, &plotter.Scatter{XYs: pts, GlyphStyle: st.glyph})
	}
	if ratio {
		p.Y.Tick.Marker = decadeTicks{}
		p.Y.Min, p.Y.Max = lo-math.Log10(1.3), hi+math.Log10(1.3)
		return p, true
	}
	pad := 0.08 * (hi - lo)
	if !(pad > 0) {
		pad = math.Max(1, 0.05*math.Abs(hi))
	}
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	return p, false
}

// diffHeading is the overview's heading over the differences (or ratios),
// naming the baseline, and saying it is the first run when it was not
// chosen.
func diffHeading(baseLabel string, first, ratio bool) string {
	how := " (the baseline)"
	if first {
		how = " (the first run)"
	}
	what := "difference from "
	if ratio {
		what = "ratio to "
	}
	return what + cmp.Or(baseLabel, "the first run") + how + ", by quantile"
}
