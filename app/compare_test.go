package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/compare"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// shiftedCopy copies the summary of run into dir with some figures
// multiplied (or, with factor 0, removed).
func shiftedCopy(t *testing.T, run, dir string, factors map[string]float64) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(run, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	for k, f := range factors {
		if f == 0 {
			delete(obj, k)
		} else {
			obj[k] = obj[k].(float64) * f
		}
	}
	b, _ = json.MarshalIndent(obj, "", "  ")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareCLI: exit 0 when nothing is beyond tolerance, 1 when something
// is, 2 for bad input; the table and the verdict line.
func TestCompareCLI(t *testing.T) {
	dir := t.TempDir()
	scen := writeFile(t, filepath.Join(dir, "tiny.yaml"), goodScenario)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, out := range []string{a, b} {
		if _, stderr, code, _ := runCLI(t, "run", scen, "--out", out); code != 0 {
			t.Fatalf("run: %s", stderr)
		}
	}
	sum, err := results.ReadSummary(a)
	if err != nil || sum.RecoveryMeanS <= 0 {
		t.Fatalf("the tiny scenario has no recovery to shift: %v %+v", err, sum)
	}
	up5 := shiftedCopy(t, a, filepath.Join(dir, "up5"), map[string]float64{"recovery_mean_s": 1.05})
	up6 := shiftedCopy(t, a, filepath.Join(dir, "up6"), map[string]float64{"recovery_mean_s": 1.06})
	noCPU := shiftedCopy(t, a, filepath.Join(dir, "nocpu"), map[string]float64{"cpu_busy_mean": 0})
	tolLoose := writeFile(t, filepath.Join(dir, "loose.yaml"), "default: {rel: 0.05, abs: 0}\nfigures:\n  recovery_mean_s: {rel: 0.1}\n")
	tolTight := writeFile(t, filepath.Join(dir, "tight.yaml"), "default: {rel: 0.05}\nfigures:\n  recovery_mean_s: {rel: 0.02}\n")
	tolBad := writeFile(t, filepath.Join(dir, "bad.yaml"), "default: {rel: 0.05}\nfigures:\n  recovery_mean_s: {rell: 0.1}\n")
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	garbage := writeFile(t, filepath.Join(dir, "garbage.json"), "{nope")

	nFig := len(mustFigures())
	verdict := func(n, m int) string { return fmt.Sprintf("%d figures compared, %d beyond tolerance", n, m) }
	cases := []struct {
		name      string
		args      []string
		code      int
		stdout    []string // each must appear
		notStdout []string
		stderr    string
	}{
		{"identical runs", []string{a, b}, 0, []string{verdict(nFig, 0)}, []string{"recovery_mean_s", "wall_time_s"}, ""},
		{"identical runs, --all", []string{a, b, "--all"}, 0, []string{"recovery_mean_s", "same", verdict(nFig, 0)}, []string{"wall_time_s"}, ""},
		{"6% shift at the default 5%", []string{a, up6}, 1, []string{"recovery_mean_s", "BEYOND", "+6.000%", verdict(nFig, 1)}, nil, "1 of " + fmt.Sprint(nFig) + " figures beyond tolerance"},
		{"5% shift at --rel 0.049", []string{a, up5, "--rel", "0.049"}, 1, []string{"BEYOND", verdict(nFig, 1)}, nil, ""},
		{"5% shift at the default 5% (boundary is within)", []string{a, up5}, 0, []string{"recovery_mean_s", " ok", verdict(nFig, 0)}, []string{"BEYOND"}, ""},
		{"5% shift at --rel 0.1", []string{"--rel", "0.1", a, up5}, 0, []string{verdict(nFig, 0)}, nil, ""},
		{"6% shift, tolerance file allows 10%", []string{a, up6, "--tolerance", tolLoose}, 0, []string{"±10%", verdict(nFig, 0)}, nil, ""},
		{"5% shift, tolerance file allows 2%", []string{a, up5, "--tolerance", tolTight}, 1, []string{"±2%", verdict(nFig, 1)}, nil, ""},
		{"6% shift, --abs covers it", []string{a, up6, "--abs", "1000"}, 0, []string{verdict(nFig, 0)}, nil, ""},
		{"figure on one side only", []string{a, noCPU}, 0, []string{"cpu_busy_mean", "only in A", verdict(nFig-1, 0)}, nil, ""},
		{"figure on one side only, --strict", []string{a, noCPU, "--strict"}, 1, []string{"only in A", "a failure with --strict"}, nil, "one side only"},
		{"summary.json file against a run folder", []string{filepath.Join(a, "summary.json"), b}, 0, []string{verdict(nFig, 0)}, nil, ""},
		{"6% shift as CSV", []string{a, up6, "--format", "csv"}, 1, []string{"run,figure,a,b,diff,rel,tol_rel,tol_abs,informational,status\n", ",recovery_mean_s,", ",0.05,0,false,BEYOND\n"}, []string{"figures compared", "wall_time_s"}, "1 of " + fmt.Sprint(nFig) + " figures beyond tolerance"},
		{"--format yaml", []string{a, b, "--format", "yaml"}, 2, nil, nil, `--format "yaml": want text or csv`},
		{"--format csv with --faults", []string{a, b, "--format", "csv", "--faults"}, 2, nil, nil, "leave out --faults and --decisions"},

		{"one argument", []string{a}, 2, nil, nil, "compare needs two result sets"},
		{"three arguments", []string{a, b, up5}, 2, nil, nil, "compare needs two result sets"},
		{"missing folder", []string{a, filepath.Join(dir, "nope")}, 2, nil, nil, "no such file or folder"},
		{"empty folder", []string{empty, a}, 2, nil, nil, "holds no results"},
		{"not JSON", []string{a, garbage}, 2, nil, nil, "neither a summary nor a reference"},
		{"negative --rel", []string{a, b, "--rel", "-0.1"}, 2, nil, nil, "--rel must be a finite number ≥ 0"},
		{"non-numeric --rel", []string{a, b, "--rel", "five"}, 2, nil, nil, "invalid value"},
		{"unknown flag", []string{a, b, "--tol", "0.1"}, 2, nil, nil, "streamtwin compare: unknown flag --tol; did you mean --tolerance?"},
		{"--rel with --tolerance", []string{a, b, "--rel", "0.1", "--tolerance", tolLoose}, 2, nil, nil, "either --tolerance or --rel/--abs"},
		{"unknown key in the tolerance file", []string{a, b, "--tolerance", tolBad}, 2, nil, nil, tolBad + `:3: figures.recovery_mean_s: unknown key "rell"`},
		{"missing tolerance file", []string{a, b, "--tolerance", filepath.Join(dir, "none.yaml")}, 2, nil, nil, "none.yaml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, _ := runCLI(t, append([]string{"compare"}, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr: %s", code, c.code, stdout, stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range c.notStdout {
				if strings.Contains(stdout, w) {
					t.Errorf("stdout has %q:\n%s", w, stdout)
				}
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, c.stderr)
			}
			if c.code != 2 && !slices.Contains(c.args, "csv") { // CSV has no verdict line: the exit status says it
				lines := strings.Split(strings.TrimSpace(stdout), "\n")
				if last := lines[len(lines)-1]; !strings.Contains(last, " figures compared, ") || !strings.Contains(last, " beyond tolerance") {
					t.Errorf("last line %q is not the verdict", last)
				}
			}
		})
	}
}

func mustFigures() []string { names, _ := results.Summary{}.Figures(); return names }

// TestCompareSweepsCLI compares two sweeps row by row, matched by run_id.
func TestCompareSweepsCLI(t *testing.T) {
	dir := t.TempDir()
	base := results.Summary{Scenario: "s", DurationS: 3600, RecordsIn: 3.6e8, Faults: 1, Recoveries: 1,
		RecoveryTimesS: []float64{40}, RecoveryMeanS: 40, RecoveryMedianS: 40, RecoveryMaxS: 40, LatencyP99Ms: 900}
	rows := func(shift map[string]float64) []results.RunRecord {
		var out []results.RunRecord
		for i, ci := range []float64{10, 30, 60} {
			for rep := 0; rep < 2; rep++ {
				s := base
				s.RecoveryMeanS = base.RecoveryMeanS + ci/2 + float64(rep)
				id := fmt.Sprintf("ci%02.0f-r%d", ci, rep)
				s.RecoveryMeanS *= max(shift[id], 1)
				out = append(out, results.RunRecord{RunID: id, Index: 2*i + rep, Replication: rep, Seed: uint64(100 + rep),
					Params:  []results.ParamValue{{Name: "checkpoint_interval", Text: fmt.Sprintf("%.0fs", ci), Number: ci, IsNumber: true}},
					Summary: s})
			}
		}
		return out
	}
	write := func(name string, rs []results.RunRecord) string {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		if err := resultstest.WriteRunsTable(filepath.Join(d, results.RunsFile), rs); err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := write("a", rows(nil))
	rev := rows(nil)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	same := write("reordered", rev)
	shifted := write("shifted", rows(map[string]float64{"ci30-r1": 1.06}))
	fewer := write("fewer", rows(nil)[:4])
	nFig := len(mustFigures())
	cases := []struct {
		name      string
		b         string
		args      []string
		code      int
		stdout    []string
		notStdout string
	}{
		{"same rows in another order", same, nil, 0, []string{fmt.Sprintf("%d figures compared, 0 beyond tolerance", 6*nFig)}, "ci10-r0"},
		{"one row shifted 6%", shifted, nil, 1, []string{"ci30-r1", "recovery_mean_s", "BEYOND", fmt.Sprintf("%d figures compared, 1 beyond tolerance", 6*nFig)}, "ci30-r0"},
		{"one row shifted 6%, --rel 0.1", shifted, []string{"--rel", "0.1"}, 0, []string{"ci30-r1", fmt.Sprintf("%d figures compared, 0 beyond tolerance", 6*nFig)}, "BEYOND"},
		{"rows missing", fewer, nil, 0, []string{"ci60-r0", "ci60-r1", "run only in A", "2 on one side only"}, "ci10"},
		{"rows missing, --strict", fewer, []string{"--strict"}, 1, []string{"run only in A"}, "ci30"},
		{"runs.parquet file", filepath.Join(same, results.RunsFile), nil, 0, []string{"0 beyond tolerance"}, "ci10-r0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, _ := runCLI(t, append([]string{"compare", a, c.b}, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s%s", code, c.code, stdout, stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if strings.Contains(stdout, c.notStdout) {
				t.Errorf("stdout has %q:\n%s", c.notStdout, stdout)
			}
		})
	}
}

// TestCompareVariantsAndReference: a scenario with variants against a
// reference file made from it, as a whole and one variant at a time.
func TestCompareVariantsAndReference(t *testing.T) {
	dir := t.TempDir()
	scen := writeFile(t, filepath.Join(dir, "v.yaml"), goodScenario+"variants:\n  - {name: ci5, job: {checkpoint: {interval: 5s}}}\n  - {name: ci20, job: {checkpoint: {interval: 20s}}}\n")
	out := filepath.Join(dir, "out")
	if _, stderr, code, _ := runCLI(t, "run", scen, "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	sums, err := compare.ReadRunSummaries(out)
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "tiny.json")
	if err := compare.WriteReference(ref, compare.Reference{Scenario: "tiny", Source: scen, Runs: sums}); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again")
	runCLI(t, "run", scen, "--out", again)
	nFig := len(mustFigures())
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"reference against a fresh run", []string{ref, again, "--rel", "1e-9", "--strict"}, 0, fmt.Sprintf("%d figures compared, 0 beyond tolerance", 2*nFig)},
		{"one variant against the reference", []string{ref, filepath.Join(again, "ci20"), "--rel", "1e-9"}, 0, "1 on one side only"},
		{"one variant against the reference, --strict", []string{ref, filepath.Join(again, "ci20"), "--strict"}, 1, "run only in A"},
		{"two variants against each other", []string{filepath.Join(again, "ci5"), filepath.Join(again, "ci20")}, 1, "checkpoints_completed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, _ := runCLI(t, append([]string{"compare"}, c.args...)...)
			if code != c.code || !strings.Contains(stdout, c.stdout) {
				t.Errorf("exit %d (want %d), stdout lacks %q:\n%s%s", code, c.code, c.stdout, stdout, stderr)
			}
		})
	}
}

// TestCompareDecisionsCLI: --decisions sets the decision logs of two runs
// side by side and names the first divergence; it is a report, so the exit
// code is the figures' own. It needs two run folders.
func TestCompareDecisionsCLI(t *testing.T) {
	dir := t.TempDir()
	actions := "actions:\n  - {at: 50s, checkpoint_interval: 20s}\n"
	runs := map[string]string{"a": actions + "  - {at: 90s, checkpoint_interval: 5s}\n", "b": actions}
	for name, acts := range runs {
		scen := writeFile(t, filepath.Join(dir, name+".yaml"), goodScenario+acts)
		if _, stderr, code, _ := runCLI(t, "run", scen, "--out", filepath.Join(dir, name)); code != 0 {
			t.Fatalf("run %s: %s", name, stderr)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"one more decision in A", []string{a, b, "--decisions", "--rel", "10"}, 0, []string{
			"policy decisions (A = " + a + ", B = " + b + ")",
			"first divergence: decision 2: A set_checkpoint_interval 5 s at 90.0 s, B none\n",
			"  A reason: forced by actions in the scenario\n",
			"CI timeline A: 10 s from 1.0 s, 20 s from 53.0 s, 5 s from 92.0 s\n",
			"CI timeline B: 10 s from 1.0 s, 20 s from 53.0 s\n"}, ""},
		{"figures beyond tolerance: the exit code is theirs", []string{a, b, "--decisions"}, 1, []string{"first divergence: decision 2:"}, "beyond tolerance"},
		{"the same run", []string{a, a, "--decisions"}, 0, []string{"no divergence: 2 decisions agree in kind and value; largest time difference 0.0 s"}, ""},
		{"a summary file is no run folder", []string{filepath.Join(a, "summary.json"), b, "--decisions"}, 2, nil, "--decisions needs two run folders"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, _ := runCLI(t, append([]string{"compare"}, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr: %s", code, c.code, stdout, stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, c.stderr)
			}
		})
	}
}

// TestTwinVsLiveReference: the twin, run fresh on the scenarios of the
// committed live runs, is as close to them as
// results/reference/live/twin-vs-live.yaml claims (exit 0); a live run
// further off on a claimed figure fails (exit 1), on an informational one
// it does not. Without a tolerance, compare names the file.
func TestTwinVsLiveReference(t *testing.T) {
	tol := filepath.Join("..", compare.TwinVsLiveTolerances)
	dir := t.TempDir()
	for _, c := range []struct{ scenario, live string }{
		{"live-khaos", "live-khaos"},
		{"live-daedalus", "daedalus-live"},
	} {
		twin := filepath.Join(dir, "sim-"+c.scenario)
		if _, stderr, code, _ := runCLI(t, "run", filepath.Join("..", "scenarios", c.scenario+".yaml"), "--out", twin); code != 0 {
			t.Fatalf("run %s: %s", c.scenario, stderr)
		}
		live := filepath.Join("..", "results", "reference", "live", c.live)
		stdout, stderr, code, _ := runCLI(t, "compare", twin, live, "--tolerance", tol)
		if code != 0 || !strings.Contains(stdout, " 0 beyond tolerance; ") || !strings.Contains(stdout, " informational ") || stderr != "" {
			t.Errorf("%s: the twin against the committed live run: exit %d (want 0)\n%s%s", c.scenario, code, stdout, stderr)
		}
		if c.scenario != "live-khaos" {
			continue
		}
		// a claimed figure beyond its tolerance: exit 1
		far := shiftedCopy(t, live, filepath.Join(dir, "far"), map[string]float64{"recovery_mean_s": 0.5})
		stdout, _, code, _ = runCLI(t, "compare", twin, far, "--tolerance", tol)
		if code != 1 || !regexp.MustCompile(`recovery_mean_s .* ±30% +BEYOND`).MatchString(stdout) {
			t.Errorf("live recovery halved: exit %d (want 1)\n%s", code, stdout)
		}
		// an informational one: printed, exit 0
		tail := shiftedCopy(t, live, filepath.Join(dir, "tail"), map[string]float64{"latency_p99_ms": 10})
		stdout, _, code, _ = runCLI(t, "compare", twin, tail, "--tolerance", tol)
		if code != 0 || !regexp.MustCompile(`latency_p99_ms .* info +info`).MatchString(stdout) {
			t.Errorf("live latency p99 10x: exit %d (want 0, informational)\n%s", code, stdout)
		}
		// without the file: the hint, with the twin run first whichever side it is on
		for _, args := range [][]string{{twin, live}, {live, twin}} {
			_, stderr, code, _ := runCLI(t, "compare", args[0], args[1])
			want := "streamtwin compare " + twin + " " + live + " --tolerance " + compare.TwinVsLiveTolerances
			if code != 1 || !strings.Contains(stderr, "hint: a twin run against a live run") || !strings.Contains(stderr, want) {
				t.Errorf("compare %s %s: exit %d, stderr %q; want 1 and a hint with %q", args[0], args[1], code, stderr, want)
			}
		}
		for _, args := range [][]string{{twin, live, "--rel", "0.5"}, {twin, twin}} {
			if _, stderr, _, _ := runCLI(t, append([]string{"compare"}, args...)...); strings.Contains(stderr, "hint:") {
				t.Errorf("compare %v: a hint %q, want none", args, stderr)
			}
		}
	}
}
