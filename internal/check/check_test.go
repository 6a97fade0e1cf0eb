package check

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results/compare"
)

// tiny is a scenario of a few simulated minutes with a fault, so that the
// checkpoint interval moves recovery time and checkpoints; it has two
// variants.
const tiny = `name: tiny
duration: 10m
workload: {shape: constant, rate: 20000/s}
job: {parallelism: 2, checkpoint: {interval: 10s}}
faults:
  - {at: 4m, before_checkpoint: 3s}
variants:
  - {name: fast, job: {checkpoint: {interval: 10s}}}
  - {name: slow, job: {checkpoint: {interval: 30s}}}
`

// tinySingle has no variants: its one run is keyed by its name.
const tinySingle = `name: single
duration: 10m
workload: {shape: constant, rate: 20000/s}
job: {parallelism: 2, checkpoint: {interval: 10s}}
faults:
  - {at: 4m, before_checkpoint: 3s}
`

// setup writes the two scenarios and a list of them into a temp folder
// and returns the list's path.
func setup(t *testing.T, list string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "scenarios", "tiny.yaml"), tiny)
	write(t, filepath.Join(dir, "scenarios", "single.yaml"), tinySingle)
	path := filepath.Join(dir, "check.yaml")
	write(t, path, list)
	return path
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const twoEntries = `scenarios:
  - {scenario: scenarios/tiny.yaml, reference: refs/tiny.json}
  - {scenario: scenarios/single.yaml, reference: refs/single.json}
`

// TestRunUpdateThenCheck: --update writes the references; checking the
// same policy finds nothing changed; a longer constant interval makes
// recovery worse and checkpoints fewer (better), and the report says so.
func TestRunUpdateThenCheck(t *testing.T) {
	list := setup(t, twoEntries)
	dir := filepath.Dir(list)
	rep, err := Run(Options{List: list, Update: true, Policy: "{name: static, interval: 10s}"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tiny", "single"} {
		set, err := compare.LoadResultSet(filepath.Join(dir, "refs", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if name == "tiny" && len(set.Runs) != 2 || name == "single" && (len(set.Runs) != 1 || set.Runs[0].Key != "single") {
			t.Errorf("%s: runs %v", name, set.Runs)
		}
	}
	if rep.Entries[0].Written != 2 || rep.Entries[1].Written != 1 {
		t.Errorf("written %d, %d runs; want 2, 1", rep.Entries[0].Written, rep.Entries[1].Written)
	}

	cases := []struct {
		name, policy string
		worse        bool
		wantWorse    []string // figures of tiny/fast that must be worse
		wantBetter   []string
	}{
		{"same policy", "{name: static, interval: 10s}", false, nil, nil},
		{"longer interval", "{name: static, interval: 2m}", true, []string{"recovery_mean_s"}, []string{"checkpoint_time_s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var progress bytes.Buffer
			rep, err := Run(Options{List: list, Policy: c.policy, Workers: 2, Progress: &progress})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(rep.Worse()) > 0; got != c.worse {
				t.Errorf("worse %v, want %v: %v", got, c.worse, rep.Worse())
			}
			verdicts := map[string]Verdict{}
			for _, r := range rep.Rows() {
				verdicts[r.Run+" "+r.Figure] = r.Verdict
			}
			if len(verdicts) != 3*len(QoSFigures) {
				t.Errorf("%d rows, want %d (3 runs × %d figures)", len(verdicts), 3*len(QoSFigures), len(QoSFigures))
			}
			for _, f := range c.wantWorse {
				if v := verdicts["tiny/fast "+f]; v != Worse {
					t.Errorf("tiny/fast %s: %q, want worse", f, v)
				}
			}
			for _, f := range c.wantBetter {
				if v := verdicts["tiny/fast "+f]; v != Better {
					t.Errorf("tiny/fast %s: %q, want better", f, v)
				}
			}
			if n := strings.Count(progress.String(), "\n"); n != 2 {
				t.Errorf("progress has %d lines, want one per scenario:\n%s", n, progress.String())
			}
			var out bytes.Buffer
			if err := rep.WriteTable(&out, false); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			last := lines[len(lines)-1]
			if c.worse {
				for _, want := range []string{"worse:", "tiny/fast (", "recovery_mean_s +"} {
					if !strings.Contains(last, want) {
						t.Errorf("last line %q lacks %q", last, want)
					}
				}
				if !strings.Contains(out.String(), "VERDICT") {
					t.Errorf("no table:\n%s", out.String())
				}
			} else if !strings.HasPrefix(last, "nothing worse beyond tolerance") || strings.Contains(out.String(), "VERDICT") {
				t.Errorf("unchanged runs print a table or another last line:\n%s", out.String())
			}
		})
	}
}

// TestRunTolerance: a tolerance file beside the reference wide enough for
// the change turns worse into "=".
func TestRunTolerance(t *testing.T) {
	list := setup(t, "scenarios:\n  - {scenario: scenarios/single.yaml, reference: refs/single.json}\n")
	dir := filepath.Dir(list)
	if _, err := Run(Options{List: list, Update: true}); err != nil {
		t.Fatal(err)
	}
	worse := func() []Row {
		rep, err := Run(Options{List: list, Policy: "{name: static, interval: 2m}"})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Worse()
	}
	if len(worse()) == 0 {
		t.Fatal("a 2 min interval is not worse than 10 s")
	}
	write(t, filepath.Join(dir, "refs", "single"+ToleranceSuffix), "default: {rel: 100, abs: 1e9}\n")
	if w := worse(); len(w) != 0 {
		t.Errorf("within a huge tolerance, still worse: %v", w)
	}
}

// TestRunUpdateKeepsOtherVariants: an entry with variants rewrites those
// runs of its reference and keeps the others.
func TestRunUpdateKeepsOtherVariants(t *testing.T) {
	list := setup(t, "scenarios:\n  - {scenario: scenarios/tiny.yaml, reference: refs/tiny.json}\n")
	dir := filepath.Dir(list)
	ref := filepath.Join(dir, "refs", "tiny.json")
	if _, err := Run(Options{List: list, Update: true}); err != nil {
		t.Fatal(err)
	}
	write(t, list, "scenarios:\n  - {scenario: scenarios/tiny.yaml, reference: refs/tiny.json, variants: [slow]}\n")
	if _, err := Run(Options{List: list, Update: true, Policy: "{name: static, interval: 3m}"}); err != nil {
		t.Fatal(err)
	}
	set, err := compare.LoadResultSet(ref)
	if err != nil {
		t.Fatal(err)
	}
	ci := map[string]float64{}
	for _, r := range set.Runs {
		ci[r.Key] = r.Values["checkpoint_interval_mean_s"]
	}
	if len(ci) != 2 || ci["fast"] != 10 || ci["slow"] < 100 {
		t.Errorf("runs and their mean CI: %v; want fast kept at 10 s, slow rewritten near 180 s", ci)
	}
}

// TestRunBadInput: every problem of the input is an *InputError naming
// what to fix, found before anything runs.
func TestRunBadInput(t *testing.T) {
	cases := []struct {
		name, list, policy string
		want               []string
	}{
		{"unknown key", "scenarios:\n  - {scenario: scenarios/tiny.yaml, refrence: refs/tiny.json}\n", "",
			[]string{"check.yaml:2:", "refrence", `did you mean "reference"`}},
		{"no scenarios", "tolerance: t.yaml\n", "", []string{"check.yaml:1: scenarios: missing"}},
		{"missing scenario file", "scenarios:\n  - {scenario: scenarios/nope.yaml, reference: refs/x.json}\n", "",
			[]string{"check.yaml:2: scenarios[0].scenario:", "nope.yaml not found"}},
		{"missing reference", "scenarios:\n  - {scenario: scenarios/tiny.yaml}\n", "",
			[]string{"check.yaml:2: scenarios[0].reference: missing"}},
		{"reference not written yet", "scenarios:\n  - {scenario: scenarios/tiny.yaml, reference: refs/tiny.json}\n", "",
			[]string{"scenarios[0].reference:", "not found", "--update"}},
		{"unknown variant", "scenarios:\n  - {scenario: scenarios/tiny.yaml, reference: refs/tiny.json, variants: [medium]}\n", "",
			[]string{"scenarios[0].variants:", `no variant "medium"`, "fast, slow"}},
		{"duplicate name", "scenarios:\n  - {scenario: scenarios/tiny.yaml, reference: a/tiny.json}\n  - {scenario: scenarios/tiny.yaml, reference: b/tiny.json}\n", "",
			[]string{"check.yaml:3: scenarios[1].name:", "give one a name"}},
		{"missing tolerance file", "scenarios:\n  - {scenario: scenarios/tiny.yaml, reference: refs/tiny.json, tolerance: tol.yaml}\n", "",
			[]string{"scenarios[0].tolerance:", "tol.yaml not found"}},
		{"policy not a mapping", twoEntries, "static", []string{"--policy:", "mapping", "{name: static, interval: 30s}"}},
		{"policy without name", twoEntries, "{interval: 30s}", []string{"--policy:", "name: missing"}},
		{"unknown policy", twoEntries, "{name: nope}", []string{"--policy:", `unknown policy "nope"`}},
		{"unknown policy key", twoEntries, "{name: static, intervall: 30s}", []string{"--policy:", `did you mean "interval"`}},
		{"bad policy value", twoEntries, "{name: static, interval: -3s}", []string{"--policy:", "must not be negative"}},
		{"policy file missing", twoEntries, "@nope.yaml", []string{"--policy @nope.yaml: no such file"}},
		{"khaos without models", twoEntries, "{name: khaos}", []string{"--policy:", "no models", "profile:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			list := setup(t, c.list)
			_, err := Run(Options{List: list, Policy: c.policy})
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want an *InputError", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(list), "refs")); err == nil {
				t.Error("bad input wrote references")
			}
		})
	}
}

// TestRunReferenceMismatch: a reference of other runs than the scenario's
// is bad input with the hint to refresh it.
func TestRunReferenceMismatch(t *testing.T) {
	list := setup(t, "scenarios:\n  - {scenario: scenarios/single.yaml, reference: refs/tiny.json}\n")
	dir := filepath.Dir(list)
	write(t, filepath.Join(dir, "other.yaml"), "scenarios:\n  - {scenario: scenarios/tiny.yaml, reference: refs/tiny.json}\n")
	if _, err := Run(Options{List: filepath.Join(dir, "other.yaml"), Update: true}); err != nil {
		t.Fatal(err)
	}
	_, err := Run(Options{List: list})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "has runs fast, slow; the scenario runs single") || !strings.Contains(err.Error(), "--update") {
		t.Errorf("error %v, want the runs of both and the --update hint", err)
	}
}

// TestParsePolicy: every way of writing a policy section comes out as one
// line of flow YAML that the scenario package reads back.
func TestParsePolicy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.yaml")
	write(t, file, "# the policy under test\nname: static\ninterval: 30s\n")
	cases := []struct{ spec, want string }{
		{"{name: static, interval: 30s}", "{name: static, interval: 30s}"},
		{"name: static\ninterval: 30s\n", "{name: static, interval: 30s}"},
		{"@" + file, "{name: static, interval: 30s}"},
		{"{name: daly, mtbf: 2h}", "{name: daly, mtbf: 2h}"},
	}
	for _, c := range cases {
		got, err := ParsePolicy(c.spec)
		if err != nil || got != c.want {
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q", c.spec, got, err, c.want)
		}
	}
}

// TestDefaultList: the committed references with their scenarios, by name;
// one whose scenario is gone is skipped.
func TestDefaultList(t *testing.T) {
	l, err := DefaultList("../..")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]Entry{}
	for _, e := range l.Entries {
		names[e.Name] = e
	}
	if e, ok := names["demo"]; !ok || e.Source != "scenarios/demo.yaml" || filepath.ToSlash(e.Scenario) != "../../scenarios/demo.yaml" {
		t.Errorf("demo: %+v", e)
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "scenarios", "single.yaml"), tinySingle)
	write(t, filepath.Join(root, ReferenceDir, "single.json"), `{"format": "streamtwin-reference/1", "source": "scenarios/single.yaml", "runs": {}}`)
	write(t, filepath.Join(root, ReferenceDir, "gone.json"), `{"format": "streamtwin-reference/1", "source": "scenarios/gone.yaml", "runs": {}}`)
	l, err = DefaultList(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 1 || l.Entries[0].Name != "single" || len(l.Skipped) != 1 || filepath.Base(l.Skipped[0]) != "gone.json" {
		t.Errorf("entries %+v, skipped %v", l.Entries, l.Skipped)
	}
	if _, err := DefaultList(t.TempDir()); err == nil || !strings.Contains(err.Error(), "--list") {
		t.Errorf("no references: error %v, want a hint at --list", err)
	}
}

// TestTableRows: which rows the table shows and how a change reads.
func TestTableRows(t *testing.T) {
	rep := &Report{Entries: []EntryReport{{Name: "demo", Runs: []string{"demo"}, Rows: []Row{
		{Run: "demo", Figure: "recovery_mean_s", Ref: 80, Now: 100, InRef: true, InNow: true, Abs: 20, Rel: 0.25, Tol: compare.Tolerance{Rel: 0.05}, Verdict: Worse},
		{Run: "demo", Figure: "unrecovered_faults", Ref: 0, Now: 1, InRef: true, InNow: true, Abs: 1, Rel: math.Inf(1), Tol: compare.Tolerance{Rel: 0.05}, Verdict: Worse},
		{Run: "demo", Figure: "latency_p99_ms", Ref: 1000, Now: 1010, InRef: true, InNow: true, Abs: 10, Rel: 0.01, Tol: compare.Tolerance{Rel: 0.05}, Verdict: Same},
		{Run: "demo", Figure: "worker_seconds", Ref: 7200, Now: 7200, InRef: true, InNow: true, Tol: compare.Tolerance{Rel: 0.05}, Verdict: Same},
	}}}}
	var out bytes.Buffer
	rep.WriteTable(&out, false)
	s := out.String()
	for _, want := range []string{
		"demo  recovery_mean_s", "+20.00", "+25.00%", "worse",
		"unrecovered_faults", "+1",
		"latency_p99_ms", "+1.000%",
		"worse: 1 run of 1 scenario: demo (recovery_mean_s +25.00%, unrecovered_faults +1)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "worker_seconds") {
		t.Errorf("an unchanged figure is in the table without all:\n%s", s)
	}
	out.Reset()
	rep.WriteTable(&out, true)
	if !strings.Contains(out.String(), "worker_seconds") {
		t.Errorf("with all, the table lacks the unchanged figure:\n%s", out.String())
	}
}
