package app

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// tableNoise is what no printed table may hold: exponent notation
// (2.136e+04, 2.901e-10), infinite or undefined relative changes, NaN.
var tableNoise = regexp.MustCompile(`\d[eE][-+]?\d|Inf%|inf%|NaN`)

func checkNoNoise(t *testing.T, what, out string) {
	t.Helper()
	if m := tableNoise.FindAllString(out, 5); len(m) > 0 {
		t.Errorf("%s prints %q:\n%s", what, m, out)
	}
}

// TestPrintedTablesAreTidy runs summarize, compare, cat and evaluate on real
// outputs and checks their tables: no exponent noise, no ±Inf% or NaN, no
// negative confidence bound (every summary figure is ≥ 0), a compact
// summarize by default.
func TestPrintedTablesAreTidy(t *testing.T) {
	dir, sweep := testSweep(t)
	swept := filepath.Join(dir, "sweep")
	if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", swept, "--workers", "2"); code != 0 {
		t.Fatal(stderr)
	}
	by := "job.checkpoint.interval,workload.rate"
	short, _, code, _ := runCLI(t, "results", "summarize", swept, "--by", by, "--pool", "faults[0].at")
	all, _, code2, _ := runCLI(t, "results", "summarize", swept, "--by", by, "--pool", "faults[0].at", "--all")
	if code != 0 || code2 != 0 {
		t.Fatalf("summarize: exit %d, --all: exit %d", code, code2)
	}
	for name, out := range map[string]string{"summarize": short, "summarize --all": all} {
		checkNoNoise(t, name, out)
		checkCIBounds(t, name, out)
	}
	if n, nAll := strings.Count(short, "\n"), strings.Count(all, "\n"); n > 60 || n*4 > nAll {
		t.Errorf("summarize prints %d lines by default, %d with --all: not compact", n, nAll)
	}

	runs := filepath.Join(dir, "runs")
	for _, seed := range []string{"1", "2"} {
		if _, stderr, code, _ := runCLI(t, "run", "../scenarios/demo.yaml", "--seed", seed, "--out", filepath.Join(runs, seed)); code != 0 {
			t.Fatal(stderr)
		}
	}
	cmp, _, _, _ := runCLI(t, "compare", filepath.Join(runs, "1"), filepath.Join(runs, "2"), "--all", "--faults")
	checkNoNoise(t, "compare", cmp)
	for _, f := range []string{"summary.json", "timeseries.parquet", "events.parquet"} {
		out, stderr, code, _ := runCLI(t, "results", "cat", filepath.Join(runs, "2", f))
		if code != 0 {
			t.Fatalf("cat %s: exit %d: %s", f, code, stderr)
		}
		checkNoNoise(t, "cat "+f, out)
	}

	variants := filepath.Join(dir, "variants")
	if _, stderr, code, _ := runCLI(t, "run", "../scenarios/ci-variants.yaml", "--out", variants); code != 0 {
		t.Fatal(stderr)
	}
	ev, stderr, code, _ := runCLI(t, "evaluate", variants)
	if code != 0 {
		t.Fatalf("evaluate: exit %d: %s", code, stderr)
	}
	checkNoNoise(t, "evaluate", ev)
}

// checkCIBounds finds the ci95_low column of a summarize table (after the
// by columns) and fails on a negative bound.
func checkCIBounds(t *testing.T, what, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	col := -1
	for i, h := range strings.Fields(lines[0]) {
		if h == "ci95_low" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("%s: no ci95_low column:\n%s", what, out)
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != len(strings.Fields(lines[0])) {
			continue // the footer lines
		}
		if x, err := strconv.ParseFloat(strings.ReplaceAll(f[col], ",", ""), 64); err != nil || x < 0 {
			t.Errorf("%s: ci95_low %q in %q", what, f[col], l)
		}
	}
}
