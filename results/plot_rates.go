package results

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PlotRates draws a workload's per-second rates: the rate over time and,
// below it, the mean rate per hour (by hour of day when the schedule spans
// more than two days). It writes base+".png" and base+".svg".
func PlotRates(base, title string, rates []float64) (pngPath, svgPath string, err error) {
	if len(rates) == 0 {
		return "", "", fmt.Errorf("results: plot %s: no rates", base)
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

	byHourOfDay := n > 2*86400
	hours := (n + 3599) / 3600
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
	prof := newPanel("mean rate (records/s)")
	prof.X.Label.Text = "hour since start"
	if byHourOfDay {
		prof.X.Label.Text = "hour of day (mean over days)"
	}
	bars := make(plotter.Values, hours)
	for h := range bars {
		bars[h] = sum[h] / cnt[h]
	}
	b, err := plotter.NewBarChart(bars, vg.Points(300/float64(hours+1)))
	if err != nil {
		return "", "", err
	}
	b.LineStyle = solid
	b.Color = gridStyle.Color
	prof.Add(b)
	prof.Y.Min = 0

	pngPath, svgPath = base+".png", base+".svg"
	plots := []*plot.Plot{top, prof}
	h := 6 * vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(figWidth, h), vgimg.UseDPI(figDPI))
	drawStack(plots, draw.New(img))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return "", "", err
	}
	if err := WriteFileAtomic(pngPath, buf.Bytes()); err != nil {
		return "", "", err
	}
	svg := vgsvg.New(figWidth, h)
	drawStack(plots, draw.New(svg))
	buf.Reset()
	if _, err := svg.WriteTo(&buf); err != nil {
		return "", "", err
	}
	return pngPath, svgPath, WriteFileAtomic(svgPath, buf.Bytes())
}
