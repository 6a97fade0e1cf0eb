package figures

import (
	"image"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/streamtwin/streamtwin/results/resultstest"
)

// The one-run figure and the small multiples (issue 37): p99 over p50, a
// flat checkpoint interval said rather than drawn, fault marks that never
// overlap, and columns that fit a single column.

// paintRecorder is a vg.Canvas that keeps the colour of every fill and
// stroke, in drawing order, and draws nothing.
type paintRecorder struct {
	cur   color.Color
	fills []color.Color
	lines []color.Color
}

func (r *paintRecorder) SetLineWidth(vg.Length)                 {}
func (r *paintRecorder) SetLineDash([]vg.Length, vg.Length)     {}
func (r *paintRecorder) SetColor(c color.Color)                 { r.cur = c }
func (r *paintRecorder) Rotate(float64)                         {}
func (r *paintRecorder) Translate(vg.Point)                     {}
func (r *paintRecorder) Scale(float64, float64)                 {}
func (r *paintRecorder) Push()                                  {}
func (r *paintRecorder) Pop()                                   {}
func (r *paintRecorder) Stroke(vg.Path)                         { r.lines = append(r.lines, r.cur) }
func (r *paintRecorder) Fill(vg.Path)                           { r.fills = append(r.fills, r.cur) }
func (r *paintRecorder) FillString(font.Face, vg.Point, string) {}
func (r *paintRecorder) DrawImage(vg.Rectangle, image.Image)    {}

// paint draws p on a recorder and returns it.
func paint(p *plot.Plot) *paintRecorder {
	r := &paintRecorder{}
	p.Draw(draw.Canvas{Canvas: r, Rectangle: vg.Rectangle{Max: vg.Point{X: 500, Y: 200}}})
	return r
}

func syntheticRunDir(t *testing.T, n int, edit func(i int, ci *float64)) string {
	t.Helper()
	samples, events, sum := resultstest.SyntheticRun(n)
	for i := range samples {
		if edit != nil {
			edit(i, &samples[i].CheckpointIntervalS)
		}
	}
	dir := filepath.Join(t.TempDir(), "run")
	resultstest.WriteRun(t, dir, samples, events, sum)
	return dir
}

// TestP99DrawnOverP50: in the latency panel every mark of the p99 (band or
// line) is painted after every mark of the p50, so the p50 never hides the
// p99 where they meet (at a fault's catch-up).
func TestP99DrawnOverP50(t *testing.T) {
	for _, c := range []struct {
		name      string
		n         int
		p50, p99  color.Color
		fill      bool
		wantPanel string
	}{
		{"bands of a long run", 7200, p50Fill, p99Fill, true, "latency (ms)"},
		{"lines of a short run", 900, p50Line.Color, p99Line.Color, false, "latency (ms)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := runFigure(syntheticRunDir(t, c.n, nil), collectOptions(nil))
			if err != nil {
				t.Fatal(err)
			}
			lat := f.panels[2]
			if lat.Y.Label.Text != c.wantPanel {
				t.Fatalf("panel 3 is %q, want the latency panel", lat.Y.Label.Text)
			}
			r := paint(lat)
			marks := r.lines
			if c.fill {
				marks = r.fills
			}
			last50, first99 := -1, -1
			for i, col := range marks {
				switch col {
				case c.p50:
					last50 = i
				case c.p99:
					if first99 < 0 {
						first99 = i
					}
				}
			}
			if last50 < 0 || first99 < 0 {
				t.Fatalf("p50 painted last at %d, p99 first at %d: one is missing", last50, first99)
			}
			if first99 < last50 {
				t.Errorf("p99 painted from mark %d, p50 until mark %d: p50 hides p99", first99, last50)
			}
		})
	}
}

// TestFlatCheckpointInterval: a checkpoint interval that never changes is
// a note, not a panel; one that changes keeps its panel.
func TestFlatCheckpointInterval(t *testing.T) {
	flat := syntheticRunDir(t, 1800, func(_ int, ci *float64) { *ci = 30 })
	f, err := runFigure(flat, collectOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.panels) != 3 || !strings.Contains(f.note, "Checkpoint interval 30 s throughout") {
		t.Errorf("flat interval: %d panels, note %q; want 3 and the interval said", len(f.panels), f.note)
	}
	if got := f.panels[len(f.panels)-1].X.Label.Text; got != "time (min)" {
		t.Errorf("the bottom panel's time axis reads %q", got)
	}
	f, err = runFigure(syntheticRunDir(t, 1800, nil), collectOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.panels) != 4 || strings.Contains(f.note, "Checkpoint") {
		t.Errorf("changing interval: %d panels, note %q; want its panel", len(f.panels), f.note)
	}
}

// TestFaultStrip: each fault in the window is numbered as --fault numbers
// it, and the strip's triangles, numbers and recovery times never overlap,
// however close the faults.
func TestFaultStrip(t *testing.T) {
	runs, _ := faultRuns(t)
	f, err := runFigure(runs[0].Dir, collectOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.marks) != 2 || f.marks[0].num != 1 || f.marks[1].num != 2 ||
		f.marks[0].label != "40 s" || !strings.HasPrefix(f.marks[1].label, "unrecovered") {
		t.Errorf("strip marks %+v, want fault 1 (40 s) and fault 2 (unrecovered)", f.marks)
	}
	f, err = runFigure(runs[0].Dir, collectOptions([]Option{WithFault(2, 30)}))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.marks) != 1 || f.marks[0].num != 2 {
		t.Errorf("zoom on fault 2 marks %+v, want fault 2 alone", f.marks)
	}

	sty := figTextStyle(7)
	s := triangleSize(sty.Font.Size)
	var marks []stripMark
	var xs []vg.Length
	for i, x := range []float64{10, 12, 20, 60, 66, 140, 200, 205, 240} {
		marks = append(marks, stripMark{x: x, num: i + 1, label: durationLabel(30 + 10*x)})
		xs = append(xs, vg.Points(x))
	}
	placed := layoutStrip(marks, xs, 0, vg.Points(250), sty, s)
	var boxes [][2]vg.Length // the x extents of what is drawn
	lastTri := vg.Length(math.Inf(-1))
	labels := 0
	for _, pm := range placed {
		if pm.triangle {
			if pm.x-lastTri < 2*s {
				t.Errorf("triangles at %v and %v touch", lastTri, pm.x)
			}
			lastTri = pm.x
		}
		if pm.numOK {
			boxes = append(boxes, [2]vg.Length{pm.numX0, pm.numX0 + pm.numW})
		}
		if pm.labelOK {
			labels++
			boxes = append(boxes, [2]vg.Length{pm.labelX0, pm.labelX0 + pm.labelW})
		}
	}
	slices.SortFunc(boxes, func(a, b [2]vg.Length) int { return int(a[0] - b[0]) })
	for i := 1; i < len(boxes); i++ {
		if boxes[i][0] < boxes[i-1][1] {
			t.Errorf("strip texts %v and %v overlap", boxes[i-1], boxes[i])
		}
	}
	if placed[0].triangle != true || !placed[0].numOK || placed[1].triangle || labels == 0 {
		t.Errorf("faults 1 and 2 (2 pt apart) should share a numbered triangle, some recovery times fit: %+v", placed)
	}
}

// TestFaultMarksMerge: in the small multiples, faults closer than a
// triangle's width share one triangle; each keeps its hairline.
func TestFaultMarksMerge(t *testing.T) {
	p := plot.New()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 500, 0, 1
	r := &paintRecorder{}
	faultMarks{xs: []float64{100, 101, 102, 300}}.Plot(draw.Canvas{Canvas: r, Rectangle: vg.Rectangle{Max: vg.Point{X: 500, Y: 100}}}, p)
	if len(r.fills) != 2 || len(r.lines) != 4 {
		t.Errorf("%d triangles and %d hairlines, want 2 and 4", len(r.fills), len(r.lines))
	}
}

// TestPanelsColumns: the small multiples keep the columns that fit: all
// four at the default and double width, lag and latency in a single
// column; a checkpoint interval flat in every row goes first.
func TestPanelsColumns(t *testing.T) {
	for _, c := range []struct {
		name   string
		w      vg.Length
		ciFlat bool
		want   []int
	}{
		{"default", figWidth, false, []int{0, 1, 2, 3}},
		{"double", DoubleColumn, false, []int{0, 1, 2, 3}},
		{"double, flat interval", DoubleColumn, true, []int{0, 1, 2}},
		{"single", SingleColumn, false, []int{1, 2}},
	} {
		if got := panelsColumns(c.w, textFactor(c.w), c.ciFlat); !slices.Equal(got, c.want) {
			t.Errorf("%s: columns %v, want %v", c.name, got, c.want)
		}
	}
	runs, _ := faultRuns(t)
	g, err := smallMultiples(runs, collectOptions([]Option{WithWidth(SingleColumn)}))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.rows[0]) != 2 || len(g.colTitles) != 2 || g.rows[1][0].Y.Label.Text != "b" {
		t.Errorf("single column: %d panels a row, titles %q, row 2 named %q", len(g.rows[0]), g.colTitles, g.rows[1][0].Y.Label.Text)
	}
}

// TestAddMean: a dense rate is drawn as its mean per bucket, gaps where a
// bucket has no sample.
func TestAddMean(t *testing.T) {
	p := plot.New()
	nan := math.NaN()
	ts := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	ys := []float64{0, 10, 0, 10, nan, nan, 4, nan}
	lines := addMean(p, ts, ys, 2, solid, "")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2 (the all-NaN bucket is a gap)", len(lines))
	}
	got := append(slices.Clone(lines[0].XYs), lines[1].XYs...)
	want := []struct{ x, y float64 }{{0.5, 5}, {2.5, 5}, {6.5, 4}}
	for i, w := range want {
		if got[i].X != w.x || got[i].Y != w.y {
			t.Errorf("point %d = %v, want %v", i, got[i], w)
		}
	}
}
