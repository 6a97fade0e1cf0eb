package figures

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// figuresDir is where the figure tests write; set RESULTS_SAMPLE_DIR to
// keep the figures and look at them.
func figuresDir(t *testing.T) string {
	if d := os.Getenv("RESULTS_SAMPLE_DIR"); d != "" {
		d = filepath.Join(d, "figures", strings.ReplaceAll(t.Name(), "/", "-"))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

func numParam(name string, v float64) results.ParamValue {
	return results.ParamValue{Name: name, Text: fmt.Sprint(v), Number: v, IsNumber: true}
}

func textParam(name, v string) results.ParamValue { return results.ParamValue{Name: name, Text: v} }

// figuresSweep writes the runs.parquet of a sweep over checkpoint interval
// (5 values), input rate (3) and policy (2, text), 3 replications each,
// whose figures depend smoothly on the parameters plus a little noise.
func figuresSweep(t *testing.T, dir string) string {
	t.Helper()
	var rows []results.RunRecord
	i := 0
	for _, ci := range []float64{5, 10, 30, 60, 120} {
		for _, rate := range []float64{10000, 25000, 50000} {
			for _, policy := range []string{"static", "adaptive"} {
				for rep := range 3 {
					noise := float64((i*7919)%13)/13 - 0.5
					gain := 1.0
					if policy == "adaptive" {
						gain = 0.6
					}
					s := results.Summary{
						Scenario: "sweep", Variant: policy, Seed: uint64(100 + i),
						RecoveryMeanS:       gain * (8 + 0.45*ci*rate/25000 + 3*noise),
						LatencyP99Ms:        gain * (180 + 4*ci + rate/400 + 25*noise),
						LatencySteadyMeanMs: 40 + rate/2000 + 2*noise,
						ThroughputMean:      rate * (1 - 0.001*ci),
					}
					rows = append(rows, results.RunRecord{
						RunID: fmt.Sprintf("run-%03d", i), Index: i, Replication: rep, Seed: s.Seed,
						Params:  []results.ParamValue{numParam("job.checkpoint.interval", ci), numParam("workload.rate", rate), textParam("policy", policy)},
						Summary: s,
					})
					i++
				}
			}
		}
	}
	path := filepath.Join(dir, results.RunsFile)
	if err := resultstest.WriteRunsTable(path, rows); err != nil {
		t.Fatal(err)
	}
	return path
}

// figuresVariants writes three variant folders under dir/variants: the
// synthetic run with different checkpoint intervals, latency levels and
// fault times.
func figuresVariants(t *testing.T, dir string, n int) []string {
	t.Helper()
	var dirs []string
	for k, name := range []string{"static", "adaptive", "aggressive"} {
		samples, events, sum := resultstest.SyntheticRun(n)
		sum.Variant = name
		for i := range samples {
			s := &samples[i]
			// Deterministic noise, so the distributions have some width.
			_, u := math.Modf(math.Abs(math.Sin(float64(i*(k+3))*12.9898) * 43758.5453))
			s.LatencyP50Ms *= 0.8 + 0.4*u
			s.LatencyP99Ms *= 0.7 + 0.9*u*u
			switch name {
			case "static":
				s.CheckpointIntervalS = 10
			case "aggressive":
				s.CheckpointIntervalS = 5 + 10*float64(i*4/n)
				s.LatencyP50Ms *= 0.7
				s.LatencyP99Ms *= 0.6 + 0.3*math.Sin(float64(i)/40)*math.Sin(float64(i)/40)
				s.Throughput *= 0.97
			}
			if name == "adaptive" {
				s.LatencyP99Ms *= 1.25
				s.Lag *= 1.4
			}
		}
		if k == 2 {
			events[1].TimeS += float64(n) / 10 // a fault at another time
		}
		d := filepath.Join(dir, "variants", name)
		resultstest.WriteRun(t, d, samples, events, sum)
		dirs = append(dirs, d)
	}
	return dirs
}

// checkFigure checks the PNG, SVG and PDF of a figure.
func checkFigure(t *testing.T, paths []string, base string) {
	t.Helper()
	want := []string{base + ".png", base + ".svg", base + ".pdf"}
	if len(paths) != 3 {
		t.Fatalf("paths %v, want %v", paths, want)
	}
	for i, p := range paths {
		if p != want[i] {
			t.Errorf("path %d is %s, want %s", i, p, want[i])
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2000 {
			t.Errorf("%s: only %d bytes", p, len(b))
		}
		switch filepath.Ext(p) {
		case ".png":
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		case ".svg":
			if !bytes.Contains(b, []byte("<svg")) {
				t.Errorf("%s is not an SVG", p)
			}
		case ".pdf":
			if !bytes.HasPrefix(b, []byte("%PDF-")) {
				t.Errorf("%s is not a PDF", p)
			}
		}
	}
	// No temp files left behind by the atomic writes.
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(base), ".*.tmp-*"))
	if len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// TestSweepLinesCI: three replications at one point are drawn as their
// mean with the Student-t half-width, and a lone run gets no bar.
func TestSweepLinesCI(t *testing.T) {
	dir := t.TempDir()
	var rows []results.RunRecord
	for i, v := range []float64{10, 12, 14, 20, 1, 1, 9} {
		ci := 10.0
		switch {
		case i == 3:
			ci = 30
		case i > 3:
			ci = 60 // mean 3.67 ± 11.47: the bar stops at 0
		}
		rows = append(rows, results.RunRecord{RunID: fmt.Sprint(i), Index: i, Replication: i, Params: []results.ParamValue{numParam("job.checkpoint.interval", ci)},
			Summary: results.Summary{RecoveryMeanS: v}})
	}
	path := filepath.Join(dir, results.RunsFile)
	if err := resultstest.WriteRunsTable(path, rows); err != nil {
		t.Fatal(err)
	}
	tab, err := results.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	p, series, err := sweepLinesPlot(tab, path, "job.checkpoint.interval", "recovery_mean_s", "", collectOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 1 || len(series[0].pts) != 3 {
		t.Fatalf("series %+v", series)
	}
	s := series[0]
	if s.pts[0] != (plotter.XY{X: 10, Y: 12}) || math.Abs(s.lo[0]-(12-4.968275)) > 1e-5 || math.Abs(s.hi[0]-(12+4.968275)) > 1e-5 {
		t.Errorf("point 0: %v in [%g, %g], want (10, 12) ± 4.968275", s.pts[0], s.lo[0], s.hi[0])
	}
	if s.pts[1] != (plotter.XY{X: 30, Y: 20}) || !math.IsNaN(s.lo[1]) {
		t.Errorf("point 1: %v in [%g, %g], want (30, 20) without a bar", s.pts[1], s.lo[1], s.hi[1])
	}
	if s.lo[2] != 0 || math.Abs(s.hi[2]-(11.0/3+11.473741)) > 1e-5 {
		t.Errorf("point 2: [%g, %g], want [0, %g]: a non-negative figure's bar stops at 0", s.lo[2], s.hi[2], 11.0/3+11.473741)
	}
	if p.X.Label.Text != "checkpoint interval (s)" || p.Y.Label.Text != "recovery mean (s)" {
		t.Errorf("labels %q, %q", p.X.Label.Text, p.Y.Label.Text)
	}
	if !strings.Contains(p.Title.Text, "1–3 replications") {
		t.Errorf("title %q does not say how many replications", p.Title.Text)
	}
	paths, err := PlotSweepLines(dir, filepath.Join(dir, "ci"), "job.checkpoint.interval", "recovery_mean_s", "")
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, paths, filepath.Join(dir, "ci"))
}

// TestSweepTitlesNamePooled: a point or cell that averages runs of other
// parameters says so in the title, naming them as summarize does
// (statistics.Pooled); grouped by every parameter it holds replications.
func TestSweepTitlesNamePooled(t *testing.T) {
	path := figuresSweep(t, figuresDir(t))
	tab, err := results.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ lines, want string }{
		{"", "18 runs per point, pooled over workload.rate, policy"},
		{"workload.rate", "6 runs per point, pooled over policy"},
		{"policy", "9 runs per point, pooled over workload.rate"},
	} {
		p, _, err := sweepLinesPlot(tab, path, "job.checkpoint.interval", "recovery_mean_s", c.lines, collectOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(p.Title.Text, c.want) {
			t.Errorf("lines %q: title %q, want it to end in %q", c.lines, p.Title.Text, c.want)
		}
	}
}

func TestPlotSweepLines(t *testing.T) {
	dir := figuresDir(t)
	runs := figuresSweep(t, dir)
	cases := []struct {
		name, x, y, lines string
		opts              []Option
	}{
		{"recovery-vs-ci-by-rate", "job.checkpoint.interval", "recovery_mean_s", "workload.rate", nil},
		{"recovery-vs-ci", "job.checkpoint.interval", "recovery_mean_s", "", nil},
		{"latency-vs-rate-by-policy", "workload.rate", "latency_p99_ms", "policy", []Option{WithTitle("")}},
		{"latency-vs-policy-by-ci", "policy", "latency_steady_mean_ms", "job.checkpoint.interval",
			[]Option{WithXLabel("policy"), WithYLabel("steady-state latency (ms)"), WithTitle("custom title")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(dir, "figure-lines-"+c.name)
			paths, err := PlotSweepLines(runs, base, c.x, c.y, c.lines, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			checkFigure(t, paths, base)
		})
	}
}

func TestPlotHeatmap(t *testing.T) {
	dir := figuresDir(t)
	runs := figuresSweep(t, dir)
	for _, c := range []struct{ name, x, y, z string }{
		{"recovery", "job.checkpoint.interval", "workload.rate", "recovery_mean_s"},
		{"latency-policy", "policy", "workload.rate", "latency_p99_ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(dir, "figure-heatmap-"+c.name)
			paths, err := PlotHeatmap(runs, base, c.x, c.y, c.z)
			if err != nil {
				t.Fatal(err)
			}
			checkFigure(t, paths, base)
		})
	}
	// A 14 x 14 grid (no cell labels), with one cell that has no run, and a
	// flat figure (all zeros) still draw.
	var rows []results.RunRecord
	for a := range 14 {
		for b := range 14 {
			if a == 3 && b == 5 {
				continue
			}
			i := len(rows)
			rows = append(rows, results.RunRecord{RunID: fmt.Sprint(i), Index: i,
				Params:  []results.ParamValue{numParam("job.parallelism", float64(a+1)), numParam("workload.peak", float64(1000*(b+1)))},
				Summary: results.Summary{LagMax: results.Count(a * b * 1e4)}})
		}
	}
	big := filepath.Join(dir, "big")
	os.MkdirAll(big, 0o755)
	if err := resultstest.WriteRunsTable(filepath.Join(big, results.RunsFile), rows); err != nil {
		t.Fatal(err)
	}
	for _, z := range []string{"lag_max", "faults"} {
		base := filepath.Join(big, "figure-heatmap-"+z)
		paths, err := PlotHeatmap(big, base, "job.parallelism", "workload.peak", z, WithZLabel("custom z (records)"))
		if err != nil {
			t.Fatalf("%s: %v", z, err)
		}
		checkFigure(t, paths, base)
	}
}

func TestPlotLatencyDistributions(t *testing.T) {
	dir := figuresDir(t)
	dirs := figuresVariants(t, dir, 1800)
	for _, c := range []struct {
		name, kind string
		opts       []Option
	}{
		{"cdf", LatencyCDF, nil},
		{"box", LatencyBox, nil},
		{"overview", LatencyOverview, nil},
		{"ccdf", LatencyCCDF, nil},
		{"letter", LatencyLetter, nil},
		{"cdf-p50", LatencyCDF, []Option{WithLatencyColumn("latency_p50_ms")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(dir, "figure-latency-"+c.name)
			paths, err := PlotLatencyDistributions(dirs, nil, base, c.kind, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			checkFigure(t, paths, base)
		})
	}
	// Latencies over more than two decades switch to a log axis; one
	// variant with many outliers exercises the outlier thinning.
	spiky := filepath.Join(dir, "spiky")
	samples, events, sum := resultstest.SyntheticRun(3600)
	for i := range samples {
		if i%7 == 0 {
			samples[i].LatencyP99Ms = 2e3 + float64(i)*10
		}
	}
	resultstest.WriteRun(t, spiky, samples, events, sum)
	for _, kind := range LatencyKinds {
		base := filepath.Join(dir, "figure-latency-log-"+kind)
		paths, err := PlotLatencyDistributions([]string{dirs[0], spiky}, []string{"baseline", "with spikes"}, base, kind)
		if err != nil {
			t.Fatal(err)
		}
		checkFigure(t, paths, base)
	}
	if _, err := PlotLatencyDistributions(dirs, []string{"a"}, filepath.Join(dir, "x"), LatencyCDF); err == nil || !strings.Contains(err.Error(), "1 labels for 3 run folders") {
		t.Errorf("label count mismatch: %v", err)
	}
	if _, err := PlotLatencyDistributions(dirs, nil, filepath.Join(dir, "x"), "violin"); err == nil || !strings.Contains(err.Error(), `"violin"`) {
		t.Errorf("bad kind: %v", err)
	}
	// A run that never produced output has nothing to draw.
	down := filepath.Join(dir, "down")
	samples, events, sum = resultstest.SyntheticRun(60)
	for i := range samples {
		samples[i].LatencyP99Ms = math.NaN()
	}
	resultstest.WriteRun(t, down, samples, events, sum)
	if _, err := PlotLatencyDistributions([]string{down}, nil, filepath.Join(dir, "x"), LatencyBox); err == nil || !strings.Contains(err.Error(), "no finite latency_p99_ms") {
		t.Errorf("all-NaN run: %v", err)
	}
}

func TestPlotPanels(t *testing.T) {
	dir := figuresDir(t)
	for _, c := range []struct {
		name string
		n    int
	}{{"short", 1800}, {"hours", 8 * 3600}} {
		t.Run(c.name, func(t *testing.T) {
			dirs := figuresVariants(t, filepath.Join(dir, c.name), c.n)
			base := filepath.Join(dir, "figure-panels-"+c.name)
			paths, err := PlotPanels(dirs, nil, base)
			if err != nil {
				t.Fatal(err)
			}
			checkFigure(t, paths, base)
			img, err := png.Decode(bytes.NewReader(must(os.ReadFile(paths[0]))))
			if err != nil {
				t.Fatal(err)
			}
			// A row per run (three) under the key.
			wantH := int(math.Floor((0.7 + 3*1.15) * figDPI)) // vgimg truncates
			if r := img.Bounds(); r.Dx() != 8*figDPI || r.Dy() != wantH {
				t.Errorf("PNG is %dx%d, want %dx%d", r.Dx(), r.Dy(), 8*figDPI, wantH)
			}
			if _, err := PlotPanels(dirs, nil, base+"-overlay", WithOverlay()); err != nil {
				t.Errorf("overlay: %v", err)
			}
		})
	}
	// Many variants wrap the key onto several rows; a folder without
	// events.parquet still plots.
	var dirs, labels []string
	for k := range 9 {
		samples, events, sum := resultstest.SyntheticRun(600)
		for i := range samples {
			samples[i].Throughput *= 1 - 0.02*float64(k)
			samples[i].LatencyP99Ms *= 1 + 0.1*float64(k)
		}
		d := filepath.Join(dir, "many", fmt.Sprintf("v%d", k))
		resultstest.WriteRun(t, d, samples, events, sum)
		dirs, labels = append(dirs, d), append(labels, fmt.Sprintf("variant number %d", k))
	}
	os.Remove(filepath.Join(dirs[8], results.EventsFile))
	base := filepath.Join(dir, "figure-panels-many")
	paths, err := PlotPanels(dirs, labels, base, WithTitle("nine variants"))
	if err != nil {
		t.Fatal(err)
	}
	checkFigure(t, paths, base)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestFigureColumnErrors: a column a figure needs and the file lacks is an
// error naming the file and the column and listing the available ones.
func TestFigureColumnErrors(t *testing.T) {
	dir := t.TempDir()
	runs := figuresSweep(t, dir)
	variants := figuresVariants(t, dir, 120)
	out := filepath.Join(dir, "out")
	cases := []struct {
		name, column, problem string
		file, avail           string
		err                   error
	}{}
	add := func(name, column, problem, file, avail string, err error) {
		cases = append(cases, struct {
			name, column, problem string
			file, avail           string
			err                   error
		}{name, column, problem, file, avail, err})
	}
	_, err := PlotSweepLines(runs, out, "job.checkpoint.intervall", "recovery_mean_s", "")
	add("lines x", "job.checkpoint.intervall", "", runs, "job.checkpoint.interval", err)
	_, err = PlotSweepLines(runs, out, "job.checkpoint.interval", "recovery_time_s", "")
	add("lines y", "recovery_time_s", "", runs, "recovery_mean_s", err)
	_, err = PlotSweepLines(runs, out, "job.checkpoint.interval", "recovery_mean_s", "rate")
	add("lines lines", "rate", "", runs, "workload.rate", err)
	_, err = PlotSweepLines(runs, out, "job.checkpoint.interval", "policy", "")
	add("lines y text", "policy", "is not numeric", runs, "latency_p99_ms", err)
	_, err = PlotHeatmap(dir, out, "job.checkpoint.interval", "workload.rate", "p99")
	add("heatmap z", "p99", "", runs, "latency_p99_ms", err)
	_, err = PlotHeatmap(runs, out, "ci", "workload.rate", "latency_p99_ms")
	add("heatmap x", "ci", "", runs, "policy", err)
	_, err = PlotLatencyDistributions(variants, nil, out, LatencyCDF, WithLatencyColumn("latency_p95_ms"))
	ts := filepath.Join(variants[0], results.TimeseriesFile)
	add("latency column", "latency_p95_ms", "", ts, "latency_p99_ms", err)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ce *results.ColumnError
			if !errors.As(c.err, &ce) {
				t.Fatalf("want a ColumnError, got %v", c.err)
			}
			msg := c.err.Error()
			for _, want := range []string{c.file, fmt.Sprintf("%q", c.column), "available: ", c.avail, c.problem} {
				if !strings.Contains(msg, want) {
					t.Errorf("%q lacks %q", msg, want)
				}
			}
		})
	}
	if _, err := PlotSweepLines(filepath.Join(dir, "nope"), out, "a", "b", ""); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "nope")) {
		t.Errorf("missing runs.parquet: %v", err)
	}
	if _, err := PlotPanels([]string{filepath.Join(dir, "nope")}, nil, out); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "nope")) {
		t.Errorf("missing run: %v", err)
	}
	if entries, _ := filepath.Glob(out + ".*"); len(entries) > 0 {
		t.Errorf("failed figures left files: %v", entries)
	}
}

func TestAxisLabel(t *testing.T) {
	for name, want := range map[string]string{
		"recovery_mean_s":               "recovery mean (s)",
		"latency_p99_ms":                "event-time p99 (ms)",
		"latency_marker_p99_ms":         "latency-marker p99 (ms)",
		"latency_steady_mean_ms":        "steady-state event-time mean (ms)",
		"job.checkpoint.interval":       "checkpoint interval (s)",
		"workload.rate":                 "workload rate (records/s)",
		"workload.peak":                 "workload peak (records/s)",
		"faults[0].at":                  "faults[0] at (s)",
		"job.restart.delay":             "restart delay (s)",
		"policy.restart_time":           "policy restart time (s)",
		"policy.scale_down_interval":    "policy scale down interval (s)",
		"job.parallelism":               "job parallelism",
		"throughput_mean":               "throughput mean (records/s)",
		"lag_max":                       "lag max (records)",
		"qos_latency_violation_seconds": "qos latency violation (s)",
		"faults":                        "faults (count)",
		"policy":                        "policy",
	} {
		if got := AxisLabel(name); got != want {
			t.Errorf("AxisLabel(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCellLabel(t *testing.T) {
	for v, want := range map[float64]string{12.3456: "12.3", 0.012345: "0.0123", 1234.5: "1.23k", 45678: "45.7k", 0: "0", -3.14159: "-3.14", 2e6: "2M"} {
		if got := cellLabel(v); got != want {
			t.Errorf("cellLabel(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestThinOutliers(t *testing.T) {
	vals := make(plotter.Values, 10000)
	var out []int
	for i := range vals {
		vals[i] = 100 + float64(i%1000)
		out = append(out, i)
	}
	kept := thinOutliers(vals, out, false)
	if len(kept) > boxOutliers+2 || len(kept) < boxOutliers/2 {
		t.Errorf("kept %d of %d outliers", len(kept), len(out))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range kept {
		lo, hi = min(lo, vals[i]), max(hi, vals[i])
	}
	if lo != 100 || hi != 1099 {
		t.Errorf("extremes lost: %g..%g", lo, hi)
	}
}

// TestFiguresWeek draws the multi-run figures of two 7-day 1-s runs and
// reports how long they take (make bench).
func TestFiguresWeek(t *testing.T) {
	if os.Getenv("STREAMTWIN_BENCH") == "" {
		t.Skip("set STREAMTWIN_BENCH=1 (make bench)")
	}
	dir := figuresDir(t)
	var dirs []string
	for k := range 2 {
		samples, events, sum := resultstest.SyntheticRun(7 * 86400)
		for i := range samples {
			samples[i].LatencyP99Ms *= 1 + 0.2*float64(k) + 0.1*math.Sin(float64(i))
		}
		d := filepath.Join(dir, fmt.Sprintf("week%d", k))
		resultstest.WriteRun(t, d, samples, events, sum)
		dirs = append(dirs, d)
	}
	for _, f := range []struct {
		name string
		draw func(base string) ([]string, error)
	}{
		{"panels", func(b string) ([]string, error) { return PlotPanels(dirs, nil, b) }},
		{"cdf", func(b string) ([]string, error) { return PlotLatencyDistributions(dirs, nil, b, LatencyCDF) }},
		{"box", func(b string) ([]string, error) { return PlotLatencyDistributions(dirs, nil, b, LatencyBox) }},
		{"overview", func(b string) ([]string, error) { return PlotLatencyDistributions(dirs, nil, b, LatencyOverview) }},
		{"faults", func(b string) ([]string, error) { return PlotFaults(dirs, nil, b) }},
	} {
		start := time.Now()
		base := filepath.Join(dir, "figure-week-"+f.name)
		paths, err := f.draw(base)
		if err != nil {
			t.Fatal(err)
		}
		checkFigure(t, paths, base)
		var size int64
		for _, p := range paths {
			st, _ := os.Stat(p)
			size += st.Size()
		}
		t.Logf("%s of two 7-day runs: %v, %d KiB", f.name, time.Since(start).Round(time.Millisecond), size/1024)
	}
}
