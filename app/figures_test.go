package app

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// figureSweep writes dir/runs.parquet: checkpoint interval x rate, 3
// replications each.
func figureSweep(t *testing.T, dir string) {
	t.Helper()
	var rows []results.RunRecord
	for _, ci := range []float64{5, 10, 30, 60} {
		for _, rate := range []float64{10000, 50000} {
			for rep := range 3 {
				i := len(rows)
				rows = append(rows, results.RunRecord{
					RunID: fmt.Sprintf("run-%03d", i), Index: i, Replication: rep, Seed: uint64(i + 1),
					Params: []results.ParamValue{
						{Name: "job.checkpoint.interval", Text: fmt.Sprint(ci), Number: ci, IsNumber: true},
						{Name: "workload.rate", Text: fmt.Sprint(rate), Number: rate, IsNumber: true},
					},
					Summary: results.Summary{RecoveryMeanS: 5 + ci*rate/50000 + float64(rep), LatencyP99Ms: 200 + 3*ci + float64(10*rep)},
				})
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := resultstest.WriteRunsTable(filepath.Join(dir, results.RunsFile), rows); err != nil {
		t.Fatal(err)
	}
}

// figureRun writes a 10-minute run folder with a fault at 4 min.
func figureRun(t *testing.T, dir string, scale float64) {
	t.Helper()
	w, err := results.CreateRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for i := range 600 {
		ts := float64(i + 1)
		in := 10000 + 2000*math.Sin(ts/30)
		s := results.Sample{TimeS: ts, InputRate: in, Throughput: in * scale, Lag: 0, CheckpointIntervalS: 10 * scale,
			LatencyP50Ms: 30 * scale, LatencyP99Ms: (100 + float64(i%17)*5) * scale, JobState: "RUNNING"}
		if ts > 240 && ts <= 260 {
			s.Throughput, s.Lag, s.LatencyP50Ms, s.LatencyP99Ms = 0, in*(ts-240), math.NaN(), math.NaN()
		}
		if err := w.WriteSample(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteEvent(results.Event{TimeS: 240, Kind: results.KindFault}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(results.Summary{Scenario: "figs", Variant: filepath.Base(dir)}, []byte("name: figs\n")); err != nil {
		t.Fatal(err)
	}
}

func wantFigure(t *testing.T, stdout, base string) {
	t.Helper()
	for _, ext := range []string{".png", ".svg", ".pdf"} {
		p := base + ext
		if !strings.Contains(stdout, p+"\n") {
			t.Errorf("stdout %q does not list %s", stdout, p)
		}
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestPlotFigureCommands(t *testing.T) {
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep")
	figureSweep(t, sweep)
	variants := filepath.Join(dir, "demo")
	for i, v := range []string{"static", "adaptive"} {
		figureRun(t, filepath.Join(variants, v), 1+0.3*float64(i))
	}
	out := filepath.Join(dir, "out")
	cases := []struct {
		name string
		args []string
		base string
	}{
		{"lines, flags after the folder", []string{"plot", "lines", sweep, "--x", "job.checkpoint.interval", "--y", "recovery_mean_s", "--lines", "workload.rate"},
			filepath.Join(sweep, "figure-lines-recovery_mean_s")},
		{"lines of runs.parquet, flags first", []string{"plot", "lines", "--x", "workload.rate", "--y", "latency_p99_ms", "--title", "", filepath.Join(sweep, "runs.parquet")},
			filepath.Join(sweep, "figure-lines-latency_p99_ms")},
		{"heatmap with --out", []string{"plot", "heatmap", sweep, "--x", "job.checkpoint.interval", "--y", "workload.rate", "--z", "latency_p99_ms", "--out", filepath.Join(out, "heat.png")},
			filepath.Join(out, "heat")},
		{"heatmap default out", []string{"plot", "heatmap", sweep, "--x", "job.checkpoint.interval", "--y", "workload.rate", "--z", "recovery_mean_s"},
			filepath.Join(sweep, "figure-heatmap-recovery_mean_s")},
		{"latency overview of variant folders", []string{"plot", "latency", variants},
			filepath.Join(variants, "figure-latency-overview")},
		{"latency cdf, single column", []string{"plot", "latency", variants, "--kind", "cdf", "--width", "single"},
			filepath.Join(variants, "figure-latency-cdf")},
		{"latency box p50 of two runs", []string{"plot", "latency", filepath.Join(variants, "static"), filepath.Join(variants, "adaptive"), "--kind", "box", "--metric", "p50", "--labels", "A,B"},
			filepath.Join(variants, "figure-latency-box-p50")},
		{"panels", []string{"plot", "panels", variants},
			filepath.Join(variants, "figure-panels")},
		{"panels of one run", []string{"plot", "panels", filepath.Join(variants, "static")},
			filepath.Join(variants, "static", "figure-panels")},
		{"panels overlay", []string{"plot", "panels", variants, "--overlay", "--out", filepath.Join(out, "overlay")},
			filepath.Join(out, "overlay")},
		{"panels from/to", []string{"plot", "panels", variants, "--from", "5m", "--to", "10m", "--width", "double"},
			filepath.Join(variants, "figure-panels-300s-600s")},
		{"faults", []string{"plot", "faults", variants},
			filepath.Join(variants, "figure-faults")},
		{"faults, every zoom 20 s wide", []string{"plot", "faults", variants, "--margin", "20s", "--out", filepath.Join(out, "faults-20s")},
			filepath.Join(out, "faults-20s")},
		{"a run's fault zoom", []string{"plot", filepath.Join(variants, "static"), "--fault", "1", "--margin", "30s"},
			filepath.Join(variants, "static", "figure-fault1")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, _ := runCLI(t, c.args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
			}
			wantFigure(t, stdout, c.base)
		})
	}
	// The run figure is still `plot RUN_DIR`.
	stdout, stderr, code, _ := runCLI(t, "plot", variants)
	if code != 0 || !strings.Contains(stdout, filepath.Join(variants, "static", results.FigurePNG)) {
		t.Errorf("plot RUN_DIR: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestPlotFigureBadInput: mistakes exit 2 with a message naming the file
// and, for columns, listing the available ones.
func TestPlotFigureBadInput(t *testing.T) {
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep")
	figureSweep(t, sweep)
	run := filepath.Join(dir, "run")
	figureRun(t, run, 1)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown y", []string{"plot", "lines", sweep, "--x", "job.checkpoint.interval", "--y", "recovery_s"},
			[]string{filepath.Join(sweep, "runs.parquet"), `no column "recovery_s"`, "available: ", "recovery_mean_s", "workload.rate"}},
		{"unknown lines", []string{"plot", "lines", sweep, "--x", "job.checkpoint.interval", "--y", "recovery_mean_s", "--lines", "rate"},
			[]string{`no column "rate"`, "workload.rate"}},
		{"unknown z", []string{"plot", "heatmap", sweep, "--x", "job.checkpoint.interval", "--y", "workload.rate", "--z", "p99"},
			[]string{`no column "p99"`, "latency_p99_ms"}},
		{"missing flags", []string{"plot", "lines", sweep, "--x", "job.checkpoint.interval"}, []string{"needs --y"}},
		{"heatmap x = y", []string{"plot", "heatmap", sweep, "--x", "workload.rate", "--y", "workload.rate", "--z", "lag_max"}, []string{"both"}},
		{"no runs.parquet", []string{"plot", "lines", dir, "--x", "a", "--y", "b"}, []string{filepath.Join(dir, "runs.parquet"), "run a sweep first"}},
		{"no run folder", []string{"plot", "latency", filepath.Join(dir, "nope")}, []string{"nope", "no such folder"}},
		{"not a run", []string{"plot", "panels", sweep}, []string{sweep, "no timeseries.parquet"}},
		{"bad kind", []string{"plot", "latency", run, "--kind", "violin"}, []string{`"violin"`, "overview, cdf, ccdf, letter, box"}},
		{"fault past the last", []string{"plot", run, "--fault", "99"}, []string{"fault 99", "at most"}},
		{"fault with from", []string{"plot", run, "--fault", "1", "--from", "1m"}, []string{"--fault", "without --from"}},
		{"margin without a zoom", []string{"plot", run, "--margin", "20s"}, []string{"--margin", "give --fault N"}},
		{"panels margin without a zoom", []string{"plot", "panels", run, "--margin", "20s"}, []string{"--margin", "give --fault N"}},
		{"faults bad margin", []string{"plot", "faults", run, "--margin", "soon"}, []string{`--margin "soon"`}},
		{"faults negative margin", []string{"plot", "faults", run, "--margin", "-5s"}, []string{`--margin "-5s"`}},
		{"to before from", []string{"plot", "panels", run, "--from", "10m", "--to", "5m"}, []string{"--to 5m is not after --from 10m"}},
		{"bad width", []string{"plot", run, "--width", "huge"}, []string{`--width "huge"`, "single, double"}},
		{"bad metric", []string{"plot", "latency", run, "--metric", "p95"}, []string{`"p95"`}},
		{"labels count", []string{"plot", "panels", run, "--labels", "a,b"}, []string{"2 --labels for 1 run"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code, _ := runCLI(t, c.args...)
			if code != 2 {
				t.Errorf("%v: exit %d, want 2; stderr: %s", c.args, code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

func TestCommonParent(t *testing.T) {
	for _, c := range []struct {
		dirs []string
		want string
	}{
		{[]string{"runs/a/x", "runs/a/y"}, "runs/a"},
		{[]string{"runs/a/x", "runs/b/y"}, "runs"},
		{[]string{"a", "b"}, "."},
		{[]string{"/tmp/r/a", "/tmp/s/b"}, "/tmp"},
		{[]string{"/a", "/b"}, "/"},
	} {
		if got := commonParent(c.dirs); got != c.want {
			t.Errorf("commonParent(%v) = %q, want %q", c.dirs, got, c.want)
		}
	}
}
