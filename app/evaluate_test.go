package app

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results/ingest"
)

func TestEvaluateCommand(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "ci-variants")
	if _, stderr, code, _ := runCLI(t, "run", "../scenarios/ci-variants.yaml", "--out", runs); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	measured := filepath.Join(t.TempDir(), "measured.csv")
	if err := os.WriteFile(measured, []byte("throughput,checkpoint_interval_s,recovery_s\n60000,30,150\n70000,30,170\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code, _ := runCLI(t, "evaluate", runs, "--measured", measured)
	if code != 0 {
		t.Fatalf("evaluate: exit %d: %s", code, stderr)
	}
	variants := []string{"ci10", "ci30", "ci60", "ci120"}
	for _, f := range []string{"evaluation.md", "failures.csv", "variants.csv",
		"evaluation-recovery.png", "evaluation-recovery.svg", "evaluation-recovery.pdf",
		"evaluation-latency.png", "evaluation-latency.svg", "evaluation-latency.pdf",
		"evaluation-panels.png", "evaluation-panels.svg", "evaluation-panels.pdf"} {
		p := filepath.Join(runs, f)
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
		if !strings.Contains(stdout, p+"\n") {
			t.Errorf("stdout does not list %s:\n%s", p, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(runs, "evaluation.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The scenario's order (natural, since run folders do not record it).
	if !strings.Contains(string(md), "| # | at | "+strings.Join(variants, " | ")+" |") {
		t.Errorf("evaluation.md has no per-failure table with the variants in order:\n%s", md)
	}
	for _, want := range []string{"## Latency series (2 h)", "## Measured vs simulated", "| 30 | ci30 | 2 | 160.0 | 160.0 | 0 |", "# rec > 240 s"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("evaluation.md lacks %q:\n%s", want, md)
		}
	}
	for _, v := range variants {
		if !strings.Contains(stdout, "\n"+v+" ") {
			t.Errorf("the summary table on stdout lacks %s:\n%s", v, stdout)
		}
	}

	// --out and given bounds.
	out := filepath.Join(t.TempDir(), "eval")
	if _, stderr, code, _ := runCLI(t, "evaluate", runs, "--out", out, "--recovery-bound", "40s", "--latency-bound", "2s"); code != 0 {
		t.Fatalf("evaluate --out: exit %d: %s", code, stderr)
	}
	md, err = os.ReadFile(filepath.Join(out, "evaluation.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"R = 40 s (given)", "L = 2000 ms (given)", "# rec > 40 s", "% of intervals > 2000 ms"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("evaluation.md with given bounds lacks %q", want)
		}
	}
}

func TestEvaluateCommandErrors(t *testing.T) {
	empty := t.TempDir()
	runs := filepath.Join(t.TempDir(), "runs")
	if _, stderr, code, _ := runCLI(t, "run", "../scenarios/ci-variants.yaml", "--out", runs, "--variant", "ci10"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("throughput,checkpoint_interval_s,recovery_s\n60000,30,150\n70000,x,170\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"evaluate", empty}, "no run folders (summary.json); run the scenario first: streamtwin run SCENARIO --out " + empty},
		{[]string{"evaluate", filepath.Join(empty, "missing")}, "no such folder"},
		{[]string{"evaluate"}, "evaluate needs one folder of runs"},
		{[]string{"evaluate", runs, "--measured", bad}, bad + ":3: checkpoint_interval_s: \"x\" is not a number"},
		{[]string{"evaluate", runs, "--measured", filepath.Join(empty, "none.csv")}, "none.csv"},
		{[]string{"evaluate", runs, "--recovery-bound", "240"}, `--recovery-bound "240": duration "240" has no unit`},
		{[]string{"evaluate", runs, "--latency-bound", "0s"}, `--latency-bound "0s": want a positive duration`},
		{[]string{"evaluate", runs, "--width", "wide"}, `--width "wide": want single, double or inches from 2 to 20`},
		{[]string{"evaluate", runs, "--width", "1"}, `--width "1": want single, double or inches from 2 to 20`},
	} {
		_, stderr, code, _ := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestEvaluateWidth: evaluate --width single writes every figure 3.5 in
// wide (at the figures' 150 dpi), the others as before.
func TestEvaluateWidth(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	if _, stderr, code, _ := runCLI(t, "run", "../scenarios/ci-variants.yaml", "--out", runs, "--variant", "ci10"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "eval")
	if _, stderr, code, _ := runCLI(t, "evaluate", runs, "--width", "single", "--out", out); code != 0 {
		t.Fatalf("evaluate --width single: exit %d: %s", code, stderr)
	}
	for _, fig := range []string{"evaluation-recovery", "evaluation-latency", "evaluation-panels", "evaluation-faults"} {
		f, err := os.Open(filepath.Join(out, fig+".png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Width != 525 { // 3.5 in at 150 dpi
			t.Errorf("%s.png is %d px wide, want 525 (3.5 in)", fig, cfg.Width)
		}
	}
}

// TestEvaluateMeasuredTable: evaluate --measured reads the table through
// ingest.ReadMeasured, the reader of calibrate: Parquet is accepted, and a
// repeated row, a zero recovery and an unknown extension are refused.
func TestEvaluateMeasuredTable(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	if _, stderr, code, _ := runCLI(t, "run", "../scenarios/ci-variants.yaml", "--out", runs, "--variant", "ci10"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	pq := filepath.Join(dir, "measured.parquet")
	nan := math.NaN()
	if err := ingest.WriteMeasured(pq, []ingest.MeasuredFailure{
		{Throughput: 60000, CheckpointIntervalS: 10, RecoveryS: 150, LatencyMs: nan, FaultAtS: nan},
		{Throughput: 70000, CheckpointIntervalS: 10, RecoveryS: 170, LatencyMs: nan, FaultAtS: nan},
	}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "eval")
	if _, stderr, code, _ := runCLI(t, "evaluate", runs, "--measured", pq, "--out", out); code != 0 {
		t.Fatalf("evaluate --measured %s: exit %d: %s", pq, code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "evaluation.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| 10 | ci10 | 2 | 160.0 | 160.0 | 0 |") {
		t.Errorf("evaluation.md lacks the measured row of the Parquet table:\n%s", md)
	}

	const h = "throughput,checkpoint_interval_s,recovery_s\n"
	for _, tc := range []struct{ name, table, want string }{
		{"dup.csv", h + "60000,10,150\n70000,10,170\n60000,10,150\n", "dup.csv:4: the row repeats line 2 in every column"},
		{"zero.csv", h + "60000,10,0\n", "zero.csv:2: recovery_s: must be in (0, 604800] seconds (a week), got 0"},
		{"m.txt", h + "60000,10,150\n", `m.txt: unknown table format ".txt" (use .csv or .parquet)`},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.table), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code, _ := runCLI(t, "evaluate", runs, "--measured", path, "--out", out)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", tc.name, code, stderr, tc.want)
		}
	}
}

// TestEvaluateScaling: a sweep over two variants and two seeds of the
// Daedalus WordCount scenario, cut to 40 min, evaluated as an autoscaling
// comparison. Static-12 is the baseline (usage 1) and holds 12 workers
// for 2,400 s: 8.0 worker-hours in every seed, so an interval of zero
// width.
func TestEvaluateScaling(t *testing.T) {
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep.yaml")
	scen, _ := filepath.Abs("../scenarios/daedalus/wordcount.yaml")
	os.WriteFile(sweep, []byte("scenario: "+scen+"\nreplications: 2\nparameters:\n  variant: [hpa-80, static-12]\n  duration: [40m]\n"), 0o644)
	out := filepath.Join(dir, "out")
	if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", out); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	stdout, stderr, code, _ := runCLI(t, "evaluate", out)
	if code != 0 {
		t.Fatalf("evaluate: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| static-12 | 1.000 [1.000, 1.000] | 8.000 [8.000, 8.000] | 0 [0, 0] |", "| hpa-80 | 0.", "over 2 seeds"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "scaling.csv"))
	if err != nil || strings.Count(string(b), "\n") != 1+2*8 {
		t.Errorf("scaling.csv: %v\n%s", err, b)
	}
	for _, f := range []string{"scaling-summary.png", "scaling-latency.pdf", "scaling-timeline.svg", "scaling-runs.csv", "scaling.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// a sweep over no variants is no autoscaling comparison: bad input
	os.WriteFile(sweep, []byte("scenario: "+scen+"\nparameters:\n  duration: [10m]\n"), 0o644)
	plain := filepath.Join(dir, "plain")
	if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", plain); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	if _, stderr, code, _ := runCLI(t, "evaluate", plain); code != 2 || !strings.Contains(stderr, "is no variant of a scenario") {
		t.Errorf("evaluate on a sweep without variants: exit %d, %s", code, stderr)
	}
}
