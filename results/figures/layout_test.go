package figures

import (
	"errors"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"gonum.org/v1/plot"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// faultRuns writes three runs whose faults differ: a at 300 s (recovered
// after 40 s) and 900 s (never), b at 300 s only, c at 500 s and 700 s.
func faultRuns(t *testing.T) ([]LabelledRun, [][]float64) {
	t.Helper()
	dir := t.TempDir()
	faults := [][]float64{{300, 900}, {300}, {500, 700}}
	var dirs []string
	for i, name := range []string{"a", "b", "c"} {
		samples, _, sum := resultstest.SyntheticRun(1200)
		sum.Variant = name
		sum.QoS.RecoveryBoundS = 60
		var events []results.Event
		for k, at := range faults[i] {
			events = append(events, results.Event{TimeS: at, Kind: results.KindFault})
			switch {
			case name == "a" && k == 1:
				events = append(events, results.Event{TimeS: 1200, Kind: results.KindUnrecovered, DurationS: resultstest.Ptr(300.0)})
			default:
				events = append(events, results.Event{TimeS: at + 40, Kind: results.KindRecovered, DurationS: resultstest.Ptr(40.0)})
			}
		}
		d := filepath.Join(dir, name)
		resultstest.WriteRun(t, d, samples, events, sum)
		dirs = append(dirs, d)
	}
	runs, err := LabelRuns(dirs, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	return runs, faults
}

// TestPanelsOwnFaults: each row of the small multiples marks exactly its
// own run's faults (the overlay drew every run's faults everywhere).
func TestPanelsOwnFaults(t *testing.T) {
	runs, faults := faultRuns(t)
	g, err := smallMultiples(runs, collectOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	scale, _ := timeUnit(1200)
	for i, want := range faults {
		var got []float64
		for _, x := range g.rowFaults[i] {
			got = append(got, math.Round(x*scale*1e6)/1e6)
		}
		if !slices.Equal(got, want) {
			t.Errorf("row %d (%s) marks faults at %v s, want %v", i, g.rowLabels[i], got, want)
		}
	}
	// Zoomed on the second fault, a row without one marks nothing.
	g, err = smallMultiples(runs, collectOptions([]Option{WithFault(2, 60)}))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.rowFaults[1]) != 0 {
		t.Errorf("row b marks %v in the zoom on fault 2; b has one fault", g.rowFaults[1])
	}
}

// TestRunSetColours: a run keeps its colour in every figure of a run set,
// also in a fault panel that an earlier run has no fault in.
func TestRunSetColours(t *testing.T) {
	runs, _ := faultRuns(t)
	panels, err := smallMultiples(runs, collectOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	zooms, err := faultZooms(runs, collectOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]color.Color{}
	for i, l := range panels.rowLabels {
		want[l] = panels.rowStyles[i].line.Color
	}
	if len(want) != 3 || want["a"] == want["b"] || want["b"] == want["c"] {
		t.Fatalf("run colours %v are not distinct", want)
	}
	for i, l := range zooms.rowLabels {
		if zooms.rowStyles[i].line.Color != want[l] {
			t.Errorf("faults figure key: %s is %v, panels %v", l, zooms.rowStyles[i].line.Color, want[l])
		}
	}
	// Fault 2: a (unrecovered) and c; b has no second fault.
	notes := zooms.panelNotes[1]
	if len(notes) != 2 {
		t.Fatalf("fault 2 notes %v, want a and c", notes)
	}
	for _, n := range notes {
		label := n.text[:1]
		if n.color != want[label] {
			t.Errorf("fault 2: %s written in %v, its colour is %v", label, n.color, want[label])
		}
	}
	if notes[0].text != "a: unrecovered (> 300 s)" {
		t.Errorf("an unrecovered fault reads %q, want %q", notes[0].text, "a: unrecovered (> 300 s)")
	}
}

// TestLogECDFEndLabels: an ECDF on a log axis labels round numbers only
// (issue 37), at least three of them, never the ends of its data range,
// which fall between the decades' ticks.
func TestLogECDFEndLabels(t *testing.T) {
	dir := t.TempDir()
	samples, events, sum := resultstest.SyntheticRun(600)
	for i := range samples {
		samples[i].LatencyP99Ms = 130 + 20*math.Mod(float64(i), 7)
	}
	samples[100].LatencyP99Ms = 47000 // a recovery's tail: log axis
	resultstest.WriteRun(t, dir, samples, events, sum)
	plots, err := latencyPlots([]string{dir}, nil, LatencyCDF, collectOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	p := plots[0]
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Fatalf("x scale %T, want a log axis", p.X.Scale)
	}
	labels := map[float64]string{}
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			labels[tk.Value] = tk.Label
		}
	}
	for _, end := range []float64{130, 47000} {
		if l, ok := labels[end]; ok {
			t.Errorf("the data's end %g is labelled %q (labels %v)", end, l, labels)
		}
	}
	if msg := axisProblems(&p.X); msg != "" {
		t.Errorf("x axis: %s", msg)
	}
}

// TestPlotRunWindow: --from/--to and --fault limit the time axis (and the
// file name, so the full figure stays).
func TestPlotRunWindow(t *testing.T) {
	runs, _ := faultRuns(t)
	dir := runs[0].Dir
	for _, c := range []struct {
		name       string
		opt        Option
		xMin, xMax float64 // axis units
		unit, base string
	}{
		{"whole", nil, 0, 20, "time (min)", "figure"},
		{"from-to", WithWindow(120, 480), 120, 480, "time (s)", "figure-120s-480s"},
		{"open end", WithWindow(600, math.NaN()), 600, 1200, "time (s)", "figure-600s-end"},
		{"fault 1", WithFault(1, 30), 270, 370, "time (s)", "figure-fault1"},
		{"unrecovered fault 2", WithFault(2, 30), 870, 1200, "time (s)", "figure-fault2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var opts []Option
			if c.opt != nil {
				opts = append(opts, c.opt)
			}
			f, err := runFigure(dir, collectOptions(opts))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range f.panels {
				if p.X.Min != c.xMin || p.X.Max != c.xMax {
					t.Errorf("x axis %g..%g, want %g..%g", p.X.Min, p.X.Max, c.xMin, c.xMax)
				}
			}
			if got := f.panels[len(f.panels)-1].X.Label.Text; got != c.unit {
				t.Errorf("x label %q, want %q", got, c.unit)
			}
			if f.base != filepath.Join(dir, c.base) {
				t.Errorf("written to %s, want %s", f.base, filepath.Join(dir, c.base))
			}
		})
	}
	for _, bad := range []Option{WithFault(3, 30), WithWindow(1300, math.NaN()), WithWindow(500, 400)} {
		if _, err := runFigure(dir, collectOptions([]Option{bad})); err == nil || !errors.Is(err, ErrWindow) {
			t.Errorf("a window the run cannot give: %v, want ErrWindow", err)
		}
	}
}

// TestPDFEmbedsFonts: every font a PDF uses is embedded (what pdffonts
// reports as emb=yes): each font descriptor carries a font file.
func TestPDFEmbedsFonts(t *testing.T) {
	runs, _ := faultRuns(t)
	paths, err := PlotRun(runs[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(paths[2])
	if err != nil {
		t.Fatal(err)
	}
	// A descriptor points at its font file object ("/FontFile2 9 0 R");
	// without embedding fpdf writes the null object "0 0 R".
	descriptors := regexp.MustCompile(`/Type /FontDescriptor\b[^>]*`).FindAll(b, -1)
	if len(descriptors) == 0 {
		t.Fatalf("%s: no font descriptors", paths[2])
	}
	fontFile := regexp.MustCompile(`/FontFile[23]? (\d+) 0 R`)
	for _, d := range descriptors {
		m := fontFile.FindSubmatch(d)
		if m == nil || string(m[1]) == "0" {
			t.Errorf("%s: font not embedded: %s", paths[2], d)
			continue
		}
		obj := regexp.MustCompile(`\n` + string(m[1]) + ` 0 obj\n<<[^>]*/Length1 \d+`)
		if !obj.Match(b) {
			t.Errorf("%s: font file object %s 0 holds no font program", paths[2], m[1])
		}
	}
}

// TestWidthSizesText: a single-column figure is 3.5 in wide with 7 pt text.
func TestWidthSizesText(t *testing.T) {
	runs, _ := faultRuns(t)
	f, err := runFigure(runs[0].Dir, collectOptions([]Option{WithWidth(SingleColumn)}))
	if err != nil {
		t.Fatal(err)
	}
	if f.w != SingleColumn {
		t.Errorf("width %v, want %v", f.w, SingleColumn)
	}
	if got := f.panels[0].Y.Tick.Label.Font.Size.Points(); math.Abs(got-7) > 1e-9 {
		t.Errorf("tick labels %g pt, want 7 pt", got)
	}
}

// TestFaultZoomMargin: the margin of the fault zooms applies to every zoom
// (it was read only with WithFault), and a margin of 0 is one.
func TestFaultZoomMargin(t *testing.T) {
	runs, _ := faultRuns(t)
	for _, c := range []struct {
		name   string
		opts   []Option
		panels int
		margin float64
	}{
		{"default", nil, 2, DefaultFaultMarginS},
		{"every zoom", []Option{WithFaultMargin(20)}, 2, 20},
		{"one fault", []Option{WithFault(2, 30)}, 1, 30},
		{"no margin", []Option{WithFaultMargin(0)}, 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := faultZooms(runs, collectOptions(c.opts))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, row := range g.rows {
				for _, p := range row {
					if p == nil {
						continue
					}
					n++
					if p.X.Min != -c.margin {
						t.Errorf("%s: x from %g s, want %g s", p.Title.Text, p.X.Min, -c.margin)
					}
				}
			}
			if n != c.panels {
				t.Errorf("%d panels, want %d", n, c.panels)
			}
		})
	}
}

// TestTitlesNameTheBackend: a twin run's figures and a live run's of one
// scenario carry different titles: the run figure, its fault zoom, the
// panels and the fault zooms of a run set.
func TestTitlesNameTheBackend(t *testing.T) {
	dir := t.TempDir()
	var dirs []string
	for _, backend := range []string{"sim", "live", ""} {
		samples, events, sum := resultstest.SyntheticRun(600)
		sum.Variant, sum.Backend = "", backend
		d := filepath.Join(dir, "run-"+backend)
		resultstest.WriteRun(t, d, samples, events, sum)
		dirs = append(dirs, d)
	}
	for i, want := range []string{"synthetic (twin)", "synthetic (live)", "synthetic"} {
		f, err := runFigure(dirs[i], collectOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.title; got != want { // drawn over the key, not in the top panel
			t.Errorf("run figure of %s: title %q, want %q", dirs[i], got, want)
		}
		f, err = runFigure(dirs[i], collectOptions([]Option{WithFault(1, 30)}))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.title; got != want+" — fault 1" {
			t.Errorf("fault zoom of %s: title %q, want %q", dirs[i], got, want+" — fault 1")
		}
	}
	for _, c := range []struct {
		dirs []string
		want string
	}{
		{dirs[:2], "synthetic (twin vs live)"},
		{[]string{dirs[1], dirs[0]}, "synthetic (live vs twin)"},
		{[]string{dirs[0], dirs[2]}, "synthetic (twin)"},
		{dirs[1:2], "synthetic (live)"},
	} {
		runs, err := LabelRuns(c.dirs, nil)
		if err != nil {
			t.Fatal(err)
		}
		g, err := smallMultiples(runs, collectOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		z, err := faultZooms(runs, collectOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		if g.title != c.want || z.title != c.want {
			t.Errorf("panels %q, faults %q, want %q", g.title, z.title, c.want)
		}
		if g, _ := faultZooms(runs, collectOptions([]Option{WithTitle("mine")})); g.title != "mine" {
			t.Errorf("--title: %q, want it as given", g.title)
		}
	}
}
