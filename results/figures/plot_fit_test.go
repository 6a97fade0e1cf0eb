package figures

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// fitSample is a small calibration: recovery time against throughput for
// two checkpoint intervals, the highest load of each held out.
func fitSample() []FitPoint {
	var pts []FitPoint
	for gi, g := range []struct {
		name string
		base float64
	}{{"CI 30 s", 12}, {"CI 60 s", 21}} {
		for k, rate := range []float64{10000, 20000, 30000, 45000, 60000} {
			meas := g.base + rate/4000*(1+float64(gi))
			dev := []float64{0.04, -0.06, 0.02, -0.03, 0.12}[k] * (1 - 0.5*float64(gi))
			pts = append(pts, FitPoint{
				Group: g.name, X: rate, Measured: meas, Predicted: meas * (1 + dev),
				HeldOut: k == 4 || (gi == 1 && k == 1),
			})
		}
	}
	return pts
}

// manyGroups is n groups of three points each, the last one held out, to
// show every marker shape filled and hollow.
func manyGroups(n int) []FitPoint {
	var pts []FitPoint
	for g := range n {
		for k := range 3 {
			meas := 10 + 5*float64(g) + 2*float64(k)
			pts = append(pts, FitPoint{
				Group: "group " + string(rune('A'+g)), X: 20000 * float64(k+1), Measured: meas,
				Predicted: meas * (1 + 0.03*float64(g-k)), HeldOut: k == 2,
			})
		}
	}
	return pts
}

func TestPlotFit(t *testing.T) {
	nan := math.NaN()
	withNaN := append(fitSample(), FitPoint{Group: "CI 30 s", X: 5000, Measured: nan, Predicted: 3},
		FitPoint{Group: "CI 60 s", X: nan, Measured: 20, Predicted: 21})
	tests := []struct {
		name    string
		pts     []FitPoint
		wantErr string
	}{
		{"two groups, some held out", fitSample(), ""},
		{"NaN points skipped", withNaN, ""},
		{"one ungrouped point", []FitPoint{{X: 60000, Measured: 30, Predicted: 28}}, ""},
		{"six groups", manyGroups(6), ""},
		{"empty", nil, "no points"},
		{"all NaN", []FitPoint{{Group: "a", X: 1, Measured: nan, Predicted: 2}, {Group: "b", X: 2, Measured: 3, Predicted: nan}}, "no finite points"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if d := os.Getenv("RESULTS_SAMPLE_DIR"); d != "" {
				dir = filepath.Join(d, "plot_fit", strings.ReplaceAll(t.Name(), "/", "-"))
			}
			base := filepath.Join(dir, "fit")
			paths, err := PlotFit(base, "recovery time calibration", "recovery time (s)", "throughput (records/s)", tc.pts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if _, serr := os.Stat(base + ".png"); serr == nil {
					t.Errorf("%s.png written despite the error", base)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != 3 {
				t.Fatalf("paths = %v, want 3", paths)
			}
			for i, ext := range []string{".png", ".svg", ".pdf"} {
				if paths[i] != base+ext {
					t.Errorf("paths[%d] = %s, want %s", i, paths[i], base+ext)
				}
				st, err := os.Stat(base + ext)
				if err != nil {
					t.Fatal(err)
				}
				if st.Size() == 0 {
					t.Errorf("%s is empty", base+ext)
				}
			}
			f, err := os.Open(base + ".png")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := png.Decode(f); err != nil {
				t.Errorf("png: %v", err)
			}
			svg, err := os.ReadFile(base + ".svg")
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tc.pts {
				if p.HeldOut && !strings.Contains(string(svg), "held out (hollow)") {
					t.Errorf("svg lacks the held-out legend entry")
					break
				}
			}
			if strings.Contains(string(svg), "60000") || !strings.Contains(string(svg), "60k") {
				t.Errorf("throughput axis not in SI style (want 60k, not 60000)")
			}
		})
	}
}

// TestPlotFitCompared: the errors panel widens the figure by half and
// names every model and group; rows that do not match the models or groups
// are an error before anything is written.
func TestPlotFitCompared(t *testing.T) {
	nan := math.NaN()
	good := FitErrors{Title: "recovery MAPE per CI (* held out)", Models: []string{"twin", "closed form", "Khaos OLS"},
		Groups: []string{"10 s*", "30 s", "held out"}, MAPE: [][]float64{{9.6, 11.2, 7.1}, {17.4, 11.2, 9.5}, {19.2, 11, nan}}}
	cases := []struct {
		name    string
		errs    FitErrors
		wantErr string
	}{
		{"three models", good, ""},
		{"a row short", FitErrors{Models: good.Models, Groups: good.Groups, MAPE: [][]float64{{1, 2, 3}, {1, 2}, {1, 2, 3}}}, "closed form has 2 values for 3 groups"},
		{"a model without a row", FitErrors{Models: good.Models, Groups: good.Groups, MAPE: good.MAPE[:2]}, "3 models but 2 rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "fit")
			_, err := PlotFitCompared(base, "recovery", "recovery time (s)", "throughput (records/s)", fitSample(), c.errs)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				if _, serr := os.Stat(base + ".png"); serr == nil {
					t.Error("figure written despite the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(base + ".png")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := PlotFit(filepath.Join(t.TempDir(), "plain"), "recovery", "recovery time (s)", "throughput (records/s)", fitSample())
			if err != nil {
				t.Fatal(err)
			}
			pf, _ := os.Open(plain[0])
			defer pf.Close()
			pimg, _ := png.Decode(pf)
			if w, pw := img.Bounds().Dx(), pimg.Bounds().Dx(); math.Abs(float64(2*w-3*pw)) > 2 { // ±1 px of rounding
				t.Errorf("width %d px with the errors panel, %d px without; want 3:2", w, pw)
			}
			svg, _ := os.ReadFile(base + ".svg")
			for _, s := range append(append([]string{good.Title}, good.Models...), good.Groups...) {
				if !strings.Contains(string(svg), s) {
					t.Errorf("svg lacks %q", s)
				}
			}
		})
	}
}

// TestFitNeverCallsSimulatedPointsMeasured: the observed points are named
// by FitObserved in every text of the figure; without it they are
// "observed", so a simulated point is never labelled "measured" unless
// the caller says it was measured.
func TestFitNeverCallsSimulatedPointsMeasured(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []FitOption
		want string
	}{
		{"default", nil, DefaultFitObserved},
		{"profiled", []FitOption{FitObserved("profiled (twin)")}, "profiled (twin)"},
		{"empty name keeps the default", []FitOption{FitObserved("")}, DefaultFitObserved},
		{"measured", []FitOption{FitObserved("measured")}, "measured"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "fit")
			d := inspect(t, func() ([]string, error) {
				return PlotFit(base, "fit", "recovery time (s)", "throughput (records/s)", fitSample(), c.opts...)
			})
			var all []string
			for _, tx := range d.texts {
				all = append(all, tx.s)
			}
			joined := strings.Join(all, " | ")
			if c.want != "measured" && strings.Contains(joined, "measured") {
				t.Errorf("texts say \"measured\": %s", joined)
			}
			for _, s := range []string{c.want + " recovery time (s)", "predicted vs " + c.want + ";"} {
				if !strings.Contains(joined, s) {
					t.Errorf("no text %q in %s", s, joined)
				}
			}
		})
	}
}

// strokeRecorder is a vg.Canvas that keeps the end points of every
// stroked path and counts the fills.
type strokeRecorder struct {
	textRecorder
	strokes [][2]vg.Point
	fills   int
}

func (r *strokeRecorder) Stroke(p vg.Path) {
	r.strokes = append(r.strokes, [2]vg.Point{p[0].Pos, p[len(p)-1].Pos})
}
func (r *strokeRecorder) Fill(vg.Path) { r.fills++ }

// TestFitBandIsTwoLines: the ±10 % band is drawn as its two edges, not a
// fill that hides the points. On a 100 x 100 pt panel spanning 0–100 on
// both axes, y = 0.9 x runs from (0, 0) to (100, 90), and y = 1.1 x from
// (0, 0) to where it leaves the top, (100/1.1, 100) = (90.9, 100).
func TestFitBandIsTwoLines(t *testing.T) {
	p := plot.New()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 100, 0, 100
	rec := &strokeRecorder{textRecorder: *newTextRecorder()}
	c := draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: 100, Y: 100}}}
	fitBand{a1: 0.9, a2: 1.1}.Plot(c, p)
	if rec.fills != 0 {
		t.Errorf("%d fills, want none", rec.fills)
	}
	want := [][2]vg.Point{{{X: 0, Y: 0}, {X: 100, Y: 90}}, {{X: 0, Y: 0}, {X: 100 / 1.1, Y: 100}}}
	if len(rec.strokes) != len(want) {
		t.Fatalf("strokes %v, want %v", rec.strokes, want)
	}
	for i, w := range want {
		for k := range 2 {
			g := rec.strokes[i][k]
			if math.Abs(float64(g.X-w[k].X)) > 1e-6 || math.Abs(float64(g.Y-w[k].Y)) > 1e-6 {
				t.Errorf("stroke %d = %v, want %v", i, rec.strokes[i], w)
			}
		}
	}
	if fitBandStyle.Dashes == nil || fitBandStyle.Width > vg.Points(1) {
		t.Errorf("band style %+v: want thin dashed lines", fitBandStyle)
	}
}
