package figures

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotRates draws a workload's per-second rates: the rate over time and,
// below it, the mean rate per hour (by hour of day when the schedule spans
// more than two days). It writes base+".png", ".svg" and ".pdf" and
// returns their paths.
func PlotRates(base, title string, rates []float64) (paths []string, err error) {
	if len(rates) == 0 {
		return nil, fmt.Errorf("results: plot %s: no rates", base)
	}
	n := len(rates)
	unit, div := "min", 60.0
	switch {
	case n > 2*86400:
		unit, div = "d", 86400
	case n > 6*3600:
		unit, div = "h", 3600
	}
	t := make([]float64, n)
	for i := range t {
		t[i] = (float64(i) + 0.5) / div
	}
	top := newPanel("input rate (records/s)")
	top.Title.Text = title
	top.X.Label.Text = "time (" + unit + ")"
	addLine(top, t, rates, solid, "", 0)
	top.Y.Min = 0

	means, byHourOfDay := HourlyProfile(rates)
	hours := len(means)
	prof := newPanel("mean rate (records/s)")
	prof.X.Label.Text = "hour since start"
	if byHourOfDay {
		prof.X.Label.Text = "hour of day (mean over days)"
	}
	bars := plotter.Values(means)
	b, err := plotter.NewBarChart(bars, vg.Points(300/float64(hours+1)))
	if err != nil {
		return nil, err
	}
	b.LineStyle = solid
	b.Color = gridStyle.Color
	prof.Add(b)
	prof.Y.Min = 0

	plots := []*plot.Plot{top, prof}
	return writeFigure(base, figWidth, 6*vg.Inch, func(dc draw.Canvas) { drawStack(plots, dc) })
}

// HourlyProfile is the mean rate per hour since the start or, for more
// than two days, per hour of day averaged over the days (byHourOfDay).
func HourlyProfile(rates []float64) (means []float64, byHourOfDay bool) {
	byHourOfDay = len(rates) > 2*86400
	hours := (len(rates) + 3599) / 3600
	if byHourOfDay {
		hours = 24
	}
	sum, cnt := make([]float64, hours), make([]float64, hours)
	for i, r := range rates {
		h := i / 3600
		if byHourOfDay {
			h %= 24
		}
		sum[h] += r
		cnt[h]++
	}
	for h := range sum {
		sum[h] /= cnt[h]
	}
	return sum, byHourOfDay
}
