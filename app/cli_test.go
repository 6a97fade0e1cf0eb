package app

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

var update = flag.Bool("update", false, "rewrite golden files")

const goodScenario = `name: tiny
duration: 2m
workload:
  shape: constant
  rate: 20000/s
job:
  parallelism: 2
  checkpoint:
    interval: 10s
faults:
  - {at: 30s, before_checkpoint: 3s}
`

// TestBadInput: every kind of bad scenario exits 2, names file:line and the
// field, and leaves no output folder behind.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name, replace, with string
		line                int
		field, msg          string
	}{
		{"unknown key", "  parallelism: 2\n", "  parallelism: 2\n  paralelism: 3\n", 8, "job.paralelism", `unknown field "paralelism"`},
		{"negative duration", "duration: 2m", "duration: -2m", 2, "duration", "must be positive"},
		{"parallelism above max", "  parallelism: 2\n", "  parallelism: 200\n", 7, "job.parallelism", "above max_parallelism 128"},
		{"CI of 0", "    interval: 10s", "    interval: 0s", 9, "job.checkpoint.interval", "must be positive"},
		{"missing workload", "workload:\n  shape: constant\n  rate: 20000/s\n", "", 1, "workload", "missing"},
		{"non-numeric rate", "rate: 20000/s", "rate: fast", 5, "workload.rate", `invalid rate "fast"`},
		{"rate without unit", "rate: 20000/s", "rate: 20000", 5, "workload.rate", "no unit"},
		{"bad duration unit", "duration: 2m", "duration: 2 minutes", 2, "duration", "invalid duration"},
		{"fault after the end", "at: 30s", "at: 3m", 11, "faults[0].at", "not before the end"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := strings.Replace(goodScenario, c.replace, c.with, 1)
			if src == goodScenario {
				t.Fatal("test case did not change the scenario")
			}
			file := filepath.Join(dir, "bad.yaml")
			os.WriteFile(file, []byte(src), 0o644)
			out := filepath.Join(dir, "out")
			for _, args := range [][]string{{"run", file, "--out", out}, {"scenario", "validate", file}} {
				_, stderr, code, _ := runCLI(t, args...)
				if code != 2 {
					t.Errorf("%v: exit %d, want 2; stderr: %s", args, code, stderr)
				}
				want := file + ":" + strconv.Itoa(c.line) + ": "
				if c.field != "" {
					want += c.field + ": "
				}
				if !strings.Contains(stderr, want) || !strings.Contains(stderr, c.msg) {
					t.Errorf("%v: stderr %q lacks %q … %q", args, stderr, want, c.msg)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("bad input left files behind: %v", entries)
			}
		})
	}
}

// TestDeterminism: the same scenario and seed give byte-identical files,
// every one a run writes: parquet, JSON, YAML and the figure's PNG, SVG and
// PDF.
func TestDeterminism(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte(goodScenario+"  - random: {mtbf: 40s}\n"), 0o644)
	var runs [2]string
	for i := range runs {
		runs[i] = filepath.Join(dir, "run"+strconv.Itoa(i))
		if _, stderr, code, _ := runCLI(t, "run", file, "--out", runs[i], "--seed", "7", "--plot"); code != 0 {
			t.Fatalf("run failed: %s", stderr)
		}
	}
	entries, err := os.ReadDir(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		a, _ := os.ReadFile(filepath.Join(runs[0], e.Name()))
		b, err := os.ReadFile(filepath.Join(runs[1], e.Name()))
		if err != nil || len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of the same seed (sha256 %x vs %x)", e.Name(), sha256.Sum256(a), sha256.Sum256(b))
		}
	}
	if want := ".streamtwin.json events.parquet figure.pdf figure.png figure.svg scenario.yaml summary.json timeseries.parquet"; strings.Join(names, " ") != want {
		t.Errorf("run folder holds %v, want %s", names, want)
	}
	// another seed moves the random faults
	other := filepath.Join(dir, "other")
	runCLI(t, "run", file, "--out", other, "--seed", "8")
	x, _ := os.ReadFile(filepath.Join(other, "events.parquet"))
	y, _ := os.ReadFile(filepath.Join(runs[0], "events.parquet"))
	if bytes.Equal(x, y) {
		t.Error("seed 8 gave the same events as seed 7")
	}
}

// TestScenarioPrintGolden pins the fully resolved demo scenario: a changed
// default shows up here. Refresh with go test ./app -update.
func TestScenarioPrintGolden(t *testing.T) {
	stdout, stderr, code, _ := runCLI(t, "scenario", "print", "../scenarios/demo.yaml")
	if code != 0 {
		t.Fatal(stderr)
	}
	golden := filepath.Join("testdata", "demo.resolved.yaml")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(stdout), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Errorf("scenario print differs from %s (run with -update if intended):\n%s", golden, stdout)
	}
	// the resolved scenario loads again and resolves to itself
	dir := t.TempDir()
	f := filepath.Join(dir, "resolved.yaml")
	os.WriteFile(f, []byte(stdout), 0o644)
	again, stderr, code, _ := runCLI(t, "scenario", "print", f)
	if code != 0 || again != stdout {
		t.Errorf("resolved scenario does not round-trip (exit %d): %s", code, stderr)
	}
}

// TestRunVariantsAndCat: a scenario with variants writes one folder per
// variant; results cat prints them.
func TestRunVariantsAndCat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "v.yaml")
	os.WriteFile(file, []byte(goodScenario+"variants:\n  - {name: ci5, job: {checkpoint: {interval: 5s}}}\n  - {name: ci20, job: {checkpoint: {interval: 20s}}}\n"), 0o644)
	out := filepath.Join(dir, "out")
	stdout, stderr, code, _ := runCLI(t, "run", file, "--out", out)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, v := range []string{"ci5", "ci20"} {
		for _, name := range []string{"timeseries.parquet", "events.parquet", "summary.json", "scenario.yaml"} {
			if _, err := os.Stat(filepath.Join(out, v, name)); err != nil {
				t.Errorf("%s/%s missing", v, name)
			}
		}
		if !strings.Contains(stdout, "tiny/"+v) {
			t.Errorf("stdout does not report variant %s: %s", v, stdout)
		}
	}
	csv, _, code, _ := runCLI(t, "results", "cat", "--csv", filepath.Join(out, "ci5", "timeseries.parquet"))
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if code != 0 || len(lines) != 121 || !strings.HasPrefix(lines[0], "time_s,input_rate,throughput") {
		t.Errorf("results cat --csv: exit %d, %d lines, header %q", code, len(lines), lines[0])
	}
	if !strings.Contains(csv, ",5,") {
		t.Error("variant ci5 does not run with a 5 s checkpoint interval")
	}
	ev, _, _, _ := runCLI(t, "results", "cat", filepath.Join(out, "ci20", "events.parquet"))
	if !strings.Contains(ev, "fault") || !strings.Contains(ev, "recovered") {
		t.Errorf("events table lacks the fault and its recovery:\n%s", ev)
	}
	if _, stderr, code, _ := runCLI(t, "plot", out); code != 0 {
		t.Errorf("plot of a variants folder failed: %s", stderr)
	}
	for _, v := range []string{"ci5", "ci20"} {
		if _, err := os.Stat(filepath.Join(out, v, "figure.png")); err != nil {
			t.Errorf("%s/figure.png missing", v)
		}
	}
}

// TestRunReproducesFromItsFolder: a run folder's scenario.yaml (fully
// resolved: template, variant, defaults) replays the very same run.
func TestRunReproducesFromItsFolder(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first")
	if _, stderr, code, _ := runCLI(t, "run", "../scenarios/ci-variants.yaml", "--variant", "ci30", "--out", first); code != 0 {
		t.Fatal(stderr)
	}
	again := filepath.Join(dir, "again")
	if _, stderr, code, _ := runCLI(t, "run", filepath.Join(first, "ci30", "scenario.yaml"), "--out", again); code != 0 {
		t.Fatal(stderr)
	}
	for _, name := range []string{"timeseries.parquet", "events.parquet", "scenario.yaml"} {
		a, _ := os.ReadFile(filepath.Join(first, "ci30", name))
		b, _ := os.ReadFile(filepath.Join(again, "ci30", name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs when replayed from the run folder", name)
		}
	}
}

// TestOutputFolderIsTheUsers: `run` never deletes a file it did not write,
// refuses a folder another run is writing, and a resumed sweep reruns a run
// whose files went missing (issue 17's defects, through the CLI).
func TestOutputFolderIsTheUsers(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte(goodScenario), 0o644)
	out := filepath.Join(dir, "thesis")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "thesis.tex"), []byte("chapter 1"), 0o644)

	_, stderr, code, _ := runCLI(t, "run", file, "--out", out)
	if code != 2 || !strings.Contains(stderr, "thesis.tex, which streamtwin did not write") || !strings.Contains(stderr, "--force") {
		t.Errorf("run into a user's folder: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, results.SummaryFile)); err == nil {
		t.Error("the refused run wrote its summary")
	}
	if _, stderr, code, _ := runCLI(t, "run", file, "--out", out, "--force"); code != 0 {
		t.Fatalf("--force: exit %d, %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(out, "thesis.tex")); err != nil || string(b) != "chapter 1" {
		t.Errorf("thesis.tex after --force: %q, %v", b, err)
	}
	if _, err := results.ReadSummary(out); err != nil {
		t.Errorf("--force wrote no run: %v", err)
	}

	// a second writer of the same folder fails at once
	busy := filepath.Join(dir, "busy")
	w, err := results.CreateRun(busy, false)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code, _ = runCLI(t, "run", file, "--out", busy)
	w.Abort()
	if code != 2 || !strings.Contains(stderr, "another streamtwin process is writing it") {
		t.Errorf("second writer: exit %d, %s", code, stderr)
	}

	// resume reruns the run whose timeseries.parquet was deleted
	sweep := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweep, []byte("scenario: s.yaml\nreplications: 1\nparameters:\n  job.checkpoint.interval: [10s, 20s, 30s]\n"), 0o644)
	sout := filepath.Join(dir, "sweep-out")
	if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", sout); code != 0 {
		t.Fatalf("sweep: %s", stderr)
	}
	if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", sout); code != 2 || !strings.Contains(stderr, "already holds a sweep; add --resume") {
		t.Errorf("sweep into a used folder: exit %d, %s; want 2", code, stderr)
	}
	// a run into the sweep folder is refused as what it is: streamtwin's
	if _, stderr, code, _ := runCLI(t, "run", file, "--out", sout); code != 2 || !strings.Contains(stderr, "it is a sweep folder streamtwin wrote (runs/, runs.parquet, sweep.yaml), not a run folder") || strings.Contains(stderr, "did not write") {
		t.Errorf("run into a sweep folder: exit %d, %s; want 2, naming it a sweep folder", code, stderr)
	}
	before := must(os.ReadFile(filepath.Join(sout, results.RunsFile)))
	os.Remove(filepath.Join(sout, "runs", "r000001", results.TimeseriesFile))
	stdout, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", sout, "--resume")
	if code != 0 || !strings.Contains(stdout+stderr, "1 run now, 2 already complete") {
		t.Errorf("resume: exit %d, %s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(sout, "runs", "r000001", results.TimeseriesFile)); err != nil {
		t.Errorf("the rerun left no timeseries.parquet: %v", err)
	}
	if after := must(os.ReadFile(filepath.Join(sout, results.RunsFile))); !bytes.Equal(before, after) {
		t.Error("runs.parquet changed across the resume")
	}
}

// TestExitCodes: every command exits 0 when it did its job, 1 when a run
// failed or a comparison is beyond tolerance, 2 on bad input or a refused
// folder (README: Commands).
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "s.yaml")
	os.WriteFile(good, []byte(goodScenario), 0o644)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for i, out := range []string{a, b} {
		if _, stderr, code, _ := runCLI(t, "run", good, "--out", out, "--seed", strconv.Itoa(i+1)); code != 0 {
			t.Fatalf("run: %s", stderr)
		}
	}
	notDir := filepath.Join(dir, "file.txt")
	os.WriteFile(notDir, []byte("x"), 0o644)
	missing := filepath.Join(dir, "missing")
	cases := []struct {
		want int
		args []string
	}{
		{0, []string{"run", good, "--out", filepath.Join(dir, "c")}},
		{1, []string{"run", good, "--out", filepath.Join(notDir, "run")}}, // the run cannot be written
		{2, []string{"run", missing + ".yaml"}},
		{2, []string{"run", good, "--out", notDir}},
		{2, []string{"run", good, "--max-memory", "1KiB"}},
		{2, []string{"sweep", missing + ".yaml"}},
		{0, []string{"scenario", "validate", good}},
		{2, []string{"scenario", "validate", missing + ".yaml"}},
		{0, []string{"results", "cat", filepath.Join(a, "events.parquet")}},
		{2, []string{"results", "cat", missing}},
		{2, []string{"results", "summarize", missing, "--by", "x"}},
		{2, []string{"results", "merge"}},
		{0, []string{"compare", a, a}},
		{1, []string{"compare", a, b}},
		{2, []string{"compare", a, missing}},
		{2, []string{"plot", missing}},
		{2, []string{"workload", "show", "nope"}},
		{2, []string{"evaluate", missing}},
		{2, []string{"calibrate", "--scenario", good, "--measured", missing + ".csv"}},
		{2, []string{"profile", missing + ".yaml"}},
		{2, []string{"gym", missing + ".yaml"}},
		{0, []string{"gym", good}}, // no request: standard input is empty
		{2, []string{"live", "run", missing + ".yaml"}},
		{2, []string{"live", "status", "--dir", missing}},
		{2, []string{"run", good, "--no-such-flag"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args[:min(2, len(c.args))], " "), func(t *testing.T) {
			if _, stderr, code, _ := runCLI(t, c.args...); code != c.want {
				t.Errorf("%v: exit %d, want %d; %s", c.args, code, c.want, stderr)
			}
		})
	}
}
