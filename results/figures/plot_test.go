package figures

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// TestPlotRun draws synthetic runs with a fault, NaN latencies (job down)
// and a reconfiguration. Set RESULTS_SAMPLE_DIR to keep the run folders, e.g.
// to look at the figures or feed tests/python/check_outputs.py.
func TestPlotRun(t *testing.T) {
	base := os.Getenv("RESULTS_SAMPLE_DIR")
	if base == "" {
		base = t.TempDir()
	}
	cases := []struct {
		name string
		n    int // seconds
		edit func([]results.Sample)
		// noEvents leaves events.parquet empty (no markers, no legend entries)
		noEvents bool
	}{
		{"short", 900, nil, false},
		{"long hours axis", 8 * 3600, nil, false},
		{"wide latency range log axis", 1800, func(s []results.Sample) {
			for i := 600; i < 700; i++ {
				s[i].LatencyP99Ms = 5e4
			}
		}, false},
		{"all latencies NaN", 120, func(s []results.Sample) {
			for i := range s {
				s[i].LatencyP50Ms, s[i].LatencyP99Ms = math.NaN(), math.NaN()
			}
		}, false},
		{"single sample", 1, nil, false},
		{"no events", 600, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			samples, events, sum := resultstest.SyntheticRun(tc.n)
			if tc.edit != nil {
				tc.edit(samples)
			}
			if tc.noEvents {
				events = nil
			}
			dir := filepath.Join(base, strings.ReplaceAll(tc.name, " ", "-"))
			resultstest.WriteRun(t, dir, samples, events, sum)
			paths, err := PlotRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			checkFigure(t, paths, filepath.Join(dir, "figure"))
			pngPath, svgPath := paths[0], paths[1]
			b, err := os.ReadFile(pngPath)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: %v", pngPath, err)
			}
			if r := img.Bounds(); r.Dx() != 8*figDPI || r.Dy() != 9*figDPI {
				t.Errorf("PNG is %dx%d, want %dx%d", r.Dx(), r.Dy(), 8*figDPI, 9*figDPI)
			}
			svg, err := os.ReadFile(svgPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(svg, []byte("<svg")) || len(svg) < 10_000 {
				t.Errorf("%s does not look like a figure (%d bytes)", svgPath, len(svg))
			}
		})
	}
}

func TestPlotRunErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := PlotRun(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("missing run: want an error naming %s, got %v", dir, err)
	}
	empty := filepath.Join(dir, "empty")
	resultstest.WriteRun(t, empty, nil, nil, results.Summary{Scenario: "empty"})
	if _, err := PlotRun(empty); err == nil || !strings.Contains(err.Error(), "no samples") {
		t.Errorf("empty run: got %v", err)
	}
}

func TestSegments(t *testing.T) {
	nan := math.NaN()
	usable := func(v float64) bool { return !math.IsNaN(v) }
	cases := []struct {
		name string
		y    []float64
		want []int // points per segment
	}{
		{"no gaps", []float64{1, 2, 3}, []int{3}},
		{"gap in the middle", []float64{1, nan, nan, 2, 3}, []int{1, 2}},
		{"leading and trailing NaN", []float64{nan, 1, 2, nan}, []int{2}},
		{"all NaN", []float64{nan, nan}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := make([]float64, len(tc.y))
			for i := range x {
				x[i] = float64(i)
			}
			segs := segments(x, tc.y, usable)
			var got []int
			for _, s := range segs {
				got = append(got, len(s))
			}
			if !resultstest.Same(got, tc.want) {
				t.Errorf("segment sizes %v, want %v", got, tc.want)
			}
		})
	}
	// Long series keep each bucket's extremes, so a one-sample spike survives.
	y := make([]float64, 100*maxBuckets)
	x := make([]float64, len(y))
	for i := range y {
		x[i], y[i] = float64(i), 1
	}
	y[12345] = 99
	segs := segments(x, y, usable)
	if len(segs) != 1 || len(segs[0]) > 2*maxBuckets {
		t.Fatalf("got %d segments, %d points", len(segs), len(segs[0]))
	}
	found := false
	for _, p := range segs[0] {
		found = found || p.Y == 99
	}
	if !found {
		t.Error("spike lost by bucketing")
	}
}

func TestSILabel(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 5: "5", 1500: "1.5k", 2e6: "2M", 0.01: "0.01", 12000: "12k", -3000: "-3k"} {
		if got := siLabel(v); got != want {
			t.Errorf("siLabel(%g) = %q, want %q", v, got, want)
		}
	}
}
