package figures

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results"
)

// PlotTradeoff draws the adaptive-monitoring trade-off (issue 23): one
// panel per metric (the summed "all" first), data transmitted (% of a 1 s
// scrape, log x) against the reconstruction's MAPE (%), one line per
// sampler through its parameter values, in the samplers' first-seen order.
// A sampler that transmitted nothing is drawn at the axis's left end,
// ticked "0", not left out.
func PlotTradeoff(base, title string, rows []results.TradeoffRow) ([]string, error) {
	var metrics, samplers []string
	for _, r := range rows {
		if !slices.Contains(metrics, r.Metric) {
			metrics = append(metrics, r.Metric)
		}
		if !slices.Contains(samplers, r.Sampler) {
			samplers = append(samplers, r.Sampler)
		}
	}
	if i := slices.Index(metrics, "all"); i > 0 {
		metrics = append([]string{"all"}, slices.Delete(metrics, i, i+1)...)
	}
	var panels []*plot.Plot
	for _, m := range metrics {
		p := newPanel("MAPE (%)")
		p.Title.Text = m
		p.X.Label.Text = "data transmitted (% of 1 s scraping)"
		p.X.Scale = plot.LogScale{}
		lo, hi, zero := 100.0, 0.0, false
		for _, r := range rows {
			if r.Metric == m && !math.IsNaN(r.MAPE) {
				if r.BytesShare > 0 {
					lo = min(lo, 100*r.BytesShare)
				} else {
					zero = true
				}
			}
		}
		zeroX := lo / 10 // where "nothing sent" sits on the log axis, a decade left
		ticks := zeroTicks{Ticker: logTicks{}}
		if zero {
			ticks.zero = zeroX
		}
		p.X.Tick.Marker = ticks
		for si, s := range samplers {
			var pts plotter.XYs
			for _, r := range rows {
				if r.Metric == m && r.Sampler == s && r.BytesShare >= 0 && !math.IsNaN(r.MAPE) {
					x := 100 * r.BytesShare
					if x == 0 {
						x = zeroX
					}
					pts = append(pts, plotter.XY{X: x, Y: r.MAPE})
				}
			}
			if len(pts) == 0 {
				continue
			}
			slices.SortFunc(pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
			st := styleOf(si)
			p.Add(&plotter.Line{XYs: pts, LineStyle: st.line}, &plotter.Scatter{XYs: pts, GlyphStyle: st.glyph})
			for _, q := range pts {
				hi = max(hi, q.Y)
			}
		}
		p.X.Min, p.X.Max = lo/1.3, 130
		if zero {
			p.X.Min = zeroX / 1.3
		}
		p.Y.Min, p.Y.Max = 0, hi*1.1+1e-9
		panels = append(panels, p)
	}
	var key []keyEntry
	for si, s := range samplers {
		key = append(key, keyEntry{label: s, thumbs: styleOf(si).thumbs()})
	}
	cols := min(len(panels), 3)
	rowsN := (len(panels) + cols - 1) / max(cols, 1)
	return writeFigure(base, vg.Length(cols)*3*vg.Inch, vg.Length(rowsN)*2.8*vg.Inch+0.6*vg.Inch, func(dc draw.Canvas) {
		h := drawKey(dc, title, key, 1)
		body := draw.Crop(dc, 0, 0, 0, -h)
		grid := make([][]*plot.Plot, rowsN)
		for i := range grid {
			grid[i] = make([]*plot.Plot, cols)
			for j := range cols {
				if k := i*cols + j; k < len(panels) {
					grid[i][j] = panels[k]
				}
			}
		}
		tiles := draw.Tiles{Rows: rowsN, Cols: cols, PadTop: vg.Points(4), PadBottom: vg.Points(4),
			PadLeft: vg.Points(4), PadRight: vg.Points(10), PadX: vg.Points(14), PadY: vg.Points(14)}
		for i, row := range plot.Align(grid, tiles, body) {
			for j, c := range row {
				if grid[i][j] != nil {
					drawOn(grid[i][j], c)
				}
			}
		}
	})
}

// zeroTicks are log ticks with one more, "0", at zero (when > 0): where a
// log axis shows the points of nothing.
type zeroTicks struct {
	plot.Ticker
	zero float64
}

func (t zeroTicks) Ticks(min, max float64) []plot.Tick {
	ts := t.Ticker.Ticks(min, max)
	if t.zero > 0 {
		for i := range ts {
			if ts[i].Value < 3*t.zero { // its label would run into "0"
				ts[i].Label = ""
			}
		}
		ts = append(ts, plot.Tick{Value: t.zero, Label: "0"})
	}
	return ts
}
