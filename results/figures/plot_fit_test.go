package figures

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
