package figures

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Test hooks, as net/http's: the rules every figure keeps (round ticks,
// text that never overlaps) are checked on what the figures really draw.
var (
	// testHookPlot, when set, sees every plot as it is drawn.
	testHookPlot func(*plot.Plot)
	// testHookRender, when set, is handed every figure's renderer once
	// more, to draw onto a canvas of its own.
	testHookRender func(w, h vg.Length, render func(draw.Canvas))
)

// drawOn draws p into c, its tick labels spaced to fit (fitTicks): every
// plot of every figure is drawn here.
func drawOn(p *plot.Plot, c draw.Canvas) {
	fitTicks(p, c)
	if testHookPlot != nil {
		testHookPlot(p)
	}
	p.Draw(c)
}
