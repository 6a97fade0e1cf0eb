package figures

import (
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// keyEntry is one item of the key drawn above a multi-panel figure.
type keyEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

// drawKey draws the title and a horizontal key (wrapped, centred) at the
// top of dc and returns the height used.
func drawKey(dc draw.Canvas, title string, entries []keyEntry, factor float64) vg.Length {
	const thumbW, gap, sep = 26, 4, 16
	sty := figTextStyle(9 * factor)
	sty.YAlign = draw.YCenter
	rowH := vg.Points(15)
	pad := vg.Points(6)
	y := dc.Max.Y - pad
	used := pad
	if title != "" {
		ts := figTextStyle(12 * factor)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		title = wrapText(title, ts, dc.Max.X-dc.Min.X-vg.Points(12)) // a title never runs off the page
		dc.FillText(ts, vg.Point{X: dc.Center().X, Y: y}, title)
		th := ts.Height(title) + vg.Points(4)
		y -= th
		used += th
	}
	// Lay out rows that fit the width, then centre each.
	width := dc.Max.X - dc.Min.X - 2*pad
	var rows [][]int
	var rowWidths []vg.Length
	var cur []int
	var curW vg.Length
	for i, e := range entries {
		w := vg.Points(thumbW+gap) + sty.Width(e.label)
		if len(cur) > 0 && curW+vg.Points(sep)+w > width {
			rows, rowWidths = append(rows, cur), append(rowWidths, curW)
			cur, curW = nil, 0
		}
		if len(cur) > 0 {
			curW += vg.Points(sep)
		}
		cur, curW = append(cur, i), curW+w
	}
	if len(cur) > 0 {
		rows, rowWidths = append(rows, cur), append(rowWidths, curW)
	}
	for r, row := range rows {
		cy := y - rowH/2
		x := dc.Center().X - rowWidths[r]/2
		for _, i := range row {
			e := entries[i]
			tc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: cy - vg.Points(5)}, Max: vg.Point{X: x + vg.Points(thumbW), Y: cy + vg.Points(5)}}}
			for _, th := range e.thumbs {
				th.Thumbnail(&tc)
			}
			x += vg.Points(thumbW + gap)
			dc.FillText(sty, vg.Point{X: x, Y: cy}, e.label)
			x += sty.Width(e.label) + vg.Points(sep)
		}
		y -= rowH
		used += rowH
	}
	return used
}

// wrapText breaks s into lines (at spaces, after a colon first) no wider
// than w in sty; a word wider than w keeps a line of its own.
func wrapText(s string, sty text.Style, w vg.Length) string {
	if sty.Width(s) <= w {
		return s
	}
	if head, tail, ok := strings.Cut(s, ": "); ok && sty.Width(head+":") <= w {
		return head + ":\n" + wrapText(tail, sty, w)
	}
	words := strings.Fields(s)
	var lines []string
	line := ""
	for _, wd := range words {
		switch {
		case line == "":
			line = wd
		case sty.Width(line+" "+wd) <= w:
			line += " " + wd
		default:
			lines, line = append(lines, line), wd
		}
	}
	return strings.Join(append(lines, line), "\n")
}
