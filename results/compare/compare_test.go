package compare

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// realSummary is the demo scenario's summary, from its regression reference.
func realSummary(t *testing.T) results.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "reference", "demo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref Reference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	s, ok := ref.Runs["demo"]
	if !ok || s.RecoveryMeanS <= 0 {
		t.Fatalf("reference/demo.json has no demo run with recoveries: %v", ref.Runs)
	}
	return s
}

func writeSummaryFile(t *testing.T, path string, s results.Summary) {
	t.Helper()
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func singleSet(t *testing.T, s results.Summary) *ResultSet {
	t.Helper()
	dir := t.TempDir()
	writeSummaryFile(t, filepath.Join(dir, results.SummaryFile), s)
	set, err := LoadResultSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestToleranceWithin(t *testing.T) {
	x := 63.76455246002638
	cases := []struct {
		name   string
		tol    Tolerance
		a, b   float64
		within bool
	}{
		{"identical", Tolerance{Rel: 0}, x, x, true},
		{"exactly 5% at rel 5% is within", Tolerance{Rel: 0.05}, x, x * 1.05, true},
		{"exactly -5% at rel 5% is within", Tolerance{Rel: 0.05}, x, x * 0.95, true},
		{"5% at rel 4.9%", Tolerance{Rel: 0.049}, x, x * 1.05, false},
		{"6% at rel 5%", Tolerance{Rel: 0.05}, x, x * 1.06, false},
		{"5% at rel 10%", Tolerance{Rel: 0.1}, x, x * 1.05, true},
		{"relative to A, not B", Tolerance{Rel: 0.05}, 100, 95.1, true},
		{"0 against rounding noise (floor)", Tolerance{}, 0, 5.960464478e-08, true},
		{"0 against the floor itself", Tolerance{}, 0, AbsFloor, true},
		{"0 against 1e-5 at abs 0", Tolerance{Rel: 0.05}, 0, 1e-5, false},
		{"0 against 1e-5 at abs 1e-4", Tolerance{Rel: 0.05, Abs: 1e-4}, 0, 1e-5, true},
		{"abs wins over rel", Tolerance{Rel: 0.1, Abs: 5}, 10, 14, true},
		{"rel wins over abs", Tolerance{Rel: 0.1, Abs: 5}, 1000, 1090, true},
		{"beyond both", Tolerance{Rel: 0.1, Abs: 5}, 10, 16, false},
		{"NaN equals NaN", Tolerance{}, math.NaN(), math.NaN(), true},
		{"NaN against a number", Tolerance{Rel: 1}, math.NaN(), 1, false},
		{"Inf against a number", Tolerance{Rel: 1}, math.Inf(1), 1, false},
		{"Inf equals Inf", Tolerance{}, math.Inf(1), math.Inf(1), true},
		{"tight: 1e-9 relative passes", Tolerance{Rel: 1e-9}, x, x * (1 + 5e-10), true},
		{"tight: 1e-8 relative is under the floor", Tolerance{Rel: 1e-9}, x, x * (1 + 1e-8), true},
		{"tight: 1e-7 relative fails", Tolerance{Rel: 1e-9}, x, x * (1 + 1e-7), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.tol.Within(c.a, c.b); got != c.within {
				t.Errorf("%v.Within(%v, %v) = %v, want %v", c.tol, c.a, c.b, got, c.within)
			}
		})
	}
}

func TestParseTolerances(t *testing.T) {
	good := `# tolerances
default: {rel: 0.05, abs: 0}
figures:
  recovery_mean_s: {rel: 0.02}
  latency_p99_ms: {rel: 0.1, abs: 5}
  downtime_s:
    rel: 10%
`
	ts, err := ParseTolerances("tol.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	for fig, want := range map[string]Tolerance{
		"recovery_mean_s": {Rel: 0.02},
		"latency_p99_ms":  {Rel: 0.1, Abs: 5},
		"downtime_s":      {Rel: 0.1},
		"lag_max":         {Rel: 0.05},
	} {
		if got := ts.For(fig); math.Abs(got.Rel-want.Rel) > 1e-15 || got.Abs != want.Abs {
			t.Errorf("%s: %+v, want %+v", fig, got, want)
		}
	}
	// overrides inherit the default's keys, wherever default is written
	ts, err = ParseTolerances("tol.yaml", []byte("figures:\n  faults: {rel: 0}\ndefault:\n  abs: 2\n"))
	if err != nil || ts.For("faults") != (Tolerance{Abs: 2}) || ts.For("lag_max") != (Tolerance{Rel: DefaultRel, Abs: 2}) {
		t.Errorf("inheritance: %+v, %v", ts, err)
	}
	if ts, err := ParseTolerances("empty.yaml", []byte("# nothing\n")); err != nil || ts.For("x") != (Tolerance{Rel: DefaultRel}) {
		t.Errorf("empty file: %+v, %v", ts, err)
	}

	bad := []struct {
		name, src, want string
	}{
		{"unknown top key", "default: {rel: 0.05}\nfigure:\n  faults: {rel: 0}\n", `tol.yaml:2: unknown key "figure"`},
		{"unknown key in default", "default:\n  rel: 0.05\n  absolute: 1\n", `tol.yaml:3: default: unknown key "absolute"`},
		{"unknown key in a figure", "figures:\n  faults: {rel: 0}\n  lag_max: {rel: 0.1, tol: 2}\n", `tol.yaml:3: figures.lag_max: unknown key "tol"`},
		{"unknown figure", "default: {rel: 0.05}\nfigures:\n  recovery_mean: {rel: 0.02}\n", `tol.yaml:3: figures.recovery_mean: unknown figure "recovery_mean"`},
		{"wall time", "figures:\n  wall_time_s: {rel: 1}\n", `tol.yaml:2: figures.wall_time_s: wall_time_s is never compared`},
		{"negative rel", "default:\n  rel: -0.05\n", `tol.yaml:2: default.rel: must be a finite number ≥ 0`},
		{"not a number", "figures:\n  faults:\n    abs: lots\n", `tol.yaml:3: figures.faults.abs: want a number, got lots`},
		{"percent only for rel", "default: {abs: 5%}\n", `tol.yaml:1: default.abs: want a number`},
		{"not a mapping", "default: 0.05\n", `tol.yaml:1: default must be a mapping`},
		{"top is a list", "- rel: 0.05\n", `tol.yaml:1: the tolerance file must be a mapping`},
		{"duplicate key", "figures:\n  faults: {rel: 0, rel: 1}\n", `tol.yaml:2:`},
		{"syntax error", "default: {rel: 0.05\n", `tol.yaml:1:`},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseTolerances("tol.yaml", []byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
			// the one error form of every YAML reader
			if ps, ok := err.(decode.Problems); !ok || len(ps) == 0 || ps[0].File != "tol.yaml" || ps[0].Line < 1 {
				t.Errorf("error %#v is not decode.Problems of tol.yaml at a line", err)
			}
		})
	}
	// every problem is reported, each with its line
	_, err = ParseTolerances("tol.yaml", []byte("defaults: {}\nfigures:\n  nope: {rel: 1}\n  faults: {x: 1}\n"))
	if err == nil || strings.Count(err.Error(), "\n") != 2 || !strings.Contains(err.Error(), "tol.yaml:4:") {
		t.Errorf("want three problems, got %v", err)
	}
}

// TestCompareShift injects shifts into a real summary (the demo's).
func TestCompareShift(t *testing.T) {
	base := realSummary(t)
	cases := []struct {
		name    string
		factor  float64
		rel     float64
		beyond  int
		changed bool
	}{
		{"identical", 1, DefaultRel, 0, false},
		{"6% shift at the default 5%", 1.06, DefaultRel, 1, true},
		{"5% shift at rel 4.9%", 1.05, 0.049, 1, true},
		{"5% shift at the default 5% (boundary is within)", 1.05, DefaultRel, 0, true},
		{"5% shift at rel 10%", 1.05, 0.1, 0, true},
		{"5% shift down at rel 4.9%", 0.95, 0.049, 1, true},
		{"1e-7 shift at rel 1e-9", 1 + 1e-7, 1e-9, 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			shifted := base
			shifted.RecoveryMeanS *= c.factor
			shifted.WallTimeS = base.WallTimeS + 123 // never compared
			cmp, err := Compare(singleSet(t, base), singleSet(t, shifted), Tolerances{Default: Tolerance{Rel: c.rel}})
			if err != nil {
				t.Fatal(err)
			}
			names, _ := results.Summary{}.Figures()
			if cmp.Compared != len(names) || cmp.OneSided != 0 {
				t.Errorf("compared %d figures (%d one-sided), want %d", cmp.Compared, cmp.OneSided, len(names))
			}
			if cmp.Beyond != c.beyond || cmp.Failed(true) != (c.beyond > 0) {
				t.Errorf("%d beyond tolerance, want %d", cmp.Beyond, c.beyond)
			}
			var b strings.Builder
			cmp.WriteTable(&b, false, false)
			out := b.String()
			if strings.Contains(out, "wall_time_s") {
				t.Errorf("wall time compared:\n%s", out)
			}
			if got := strings.Contains(out, "recovery_mean_s"); got != c.changed {
				t.Errorf("table lists recovery_mean_s: %v, want %v:\n%s", got, c.changed, out)
			}
			if c.beyond > 0 && !strings.Contains(out, "BEYOND") {
				t.Errorf("table does not flag the shift:\n%s", out)
			}
			want := cmp.Verdict(false)
			if !strings.HasSuffix(out, want+"\n") || !strings.HasPrefix(want, strings.Join([]string{itoa(len(names)), "figures compared,", itoa(c.beyond), "beyond tolerance"}, " ")) {
				t.Errorf("last line is not the verdict %q:\n%s", want, out)
			}
			var all strings.Builder
			cmp.WriteTable(&all, true, false)
			if got := strings.Count(all.String(), "\n"); got != len(names)+4 { // A:, B:, header, verdict
				t.Errorf("--all printed %d lines, want %d:\n%s", got, len(names)+4, all.String())
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestCompareOneSided: figures or runs on one side only are reported, and
// fail only when strict.
func TestCompareOneSided(t *testing.T) {
	s := realSummary(t)
	dir := t.TempDir()
	full := filepath.Join(dir, "full.json")
	writeSummaryFile(t, full, s)
	// an "older" summary without cpu_busy_mean and with an unknown extra figure
	var obj map[string]any
	b, _ := s.Marshal()
	json.Unmarshal(b, &obj)
	delete(obj, "cpu_busy_mean")
	obj["new_figure_s"] = 3.0
	b, _ = json.Marshal(obj)
	older := filepath.Join(dir, "older.json")
	os.WriteFile(older, b, 0o644)

	a, err := LoadResultSet(full)
	if err != nil {
		t.Fatal(err)
	}
	o, err := LoadResultSet(older)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := Compare(a, o, DefaultTolerances())
	if err != nil {
		t.Fatal(err)
	}
	if cmp.OneSided != 2 || cmp.Beyond != 0 || cmp.Failed(false) || !cmp.Failed(true) {
		t.Errorf("one-sided %d, beyond %d, failed %v/%v strict", cmp.OneSided, cmp.Beyond, cmp.Failed(false), cmp.Failed(true))
	}
	var out strings.Builder
	cmp.WriteTable(&out, false, false)
	for _, want := range []string{"cpu_busy_mean", "only in A", "new_figure_s", "only in B", "2 on one side only"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestLoadResultSet(t *testing.T) {
	s := realSummary(t)
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	writeSummaryFile(t, filepath.Join(run, results.SummaryFile), s)
	variants := filepath.Join(dir, "variants")
	for _, v := range []string{"ci10", "ci30"} {
		vs := s
		vs.Variant = v
		writeSummaryFile(t, filepath.Join(variants, v, results.SummaryFile), vs)
	}
	os.MkdirAll(filepath.Join(variants, ".tmp-123"), 0o755)
	os.MkdirAll(filepath.Join(variants, "notes"), 0o755)
	ref := filepath.Join(dir, "ref.json")
	sums, err := ReadRunSummaries(variants)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteReference(ref, Reference{Scenario: "demo", Runs: sums}); err != nil {
		t.Fatal(err)
	}
	sweep := filepath.Join(dir, "sweep")
	os.MkdirAll(sweep, 0o755)
	if err := resultstest.WriteRunsTable(filepath.Join(sweep, results.RunsFile), sweepRows(s, 3)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "garbage.json"), []byte("{not json"), 0o644)
	os.WriteFile(filepath.Join(dir, "list.json"), []byte("[1, 2]"), 0o644)
	os.WriteFile(filepath.Join(dir, "badformat.json"), []byte(`{"format": "other/2", "runs": {"a": {"x": 1}}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "noruns.json"), []byte(`{"runs": {}}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)

	names, _ := results.Summary{}.Figures()
	good := []struct {
		path, kind string
		keys       []string
	}{
		{run, "run folder", []string{"demo"}},
		{filepath.Join(run, results.SummaryFile), "summary file", []string{"demo"}},
		{variants, "variants folder", []string{"ci10", "ci30"}},
		{ref, "reference", []string{"ci10", "ci30"}},
		{sweep, "sweep", []string{"r000", "r001", "r002"}},
		{filepath.Join(sweep, results.RunsFile), "sweep", []string{"r000", "r001", "r002"}},
	}
	for _, c := range good {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			set, err := LoadResultSet(c.path)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, r := range set.Runs {
				keys = append(keys, r.Key)
				if strings.Join(r.Figures, ",") != strings.Join(names, ",") {
					t.Errorf("%s: figures %v, want %v", r.Key, r.Figures, names)
				}
				if r.Values["recovery_mean_s"] != s.RecoveryMeanS {
					t.Errorf("%s: recovery_mean_s %v, want %v", r.Key, r.Values["recovery_mean_s"], s.RecoveryMeanS)
				}
			}
			if set.Kind != c.kind || strings.Join(keys, ",") != strings.Join(c.keys, ",") {
				t.Errorf("kind %q keys %v, want %q %v", set.Kind, keys, c.kind, c.keys)
			}
		})
	}
	bad := []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "no such file"},
		{filepath.Join(dir, "empty"), "holds no results"},
		{filepath.Join(dir, "garbage.json"), "neither a summary nor a reference"},
		{filepath.Join(dir, "list.json"), "neither a summary nor a reference"},
		{filepath.Join(dir, "badformat.json"), "unknown reference format"},
		{filepath.Join(dir, "noruns.json"), "holds no runs"},
	}
	for _, c := range bad {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			if _, err := LoadResultSet(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

func sweepRows(s results.Summary, n int) []results.RunRecord {
	rows := make([]results.RunRecord, n)
	for i := range rows {
		rs := s
		rs.LatencyP99Ms = s.LatencyP99Ms * float64(1+i)
		rows[i] = results.RunRecord{
			RunID: "r00" + itoa(i), Index: i, Replication: i % 2, Seed: uint64(40 + i),
			Params: []results.ParamValue{
				{Name: "checkpoint_interval", Text: itoa(10*(i+1)) + "s", Number: float64(10 * (i + 1)), IsNumber: true},
				{Name: "policy", Text: "static"},
			},
			Summary: rs,
		}
	}
	return rows
}

// TestCompareSweeps matches sweep rows by run_id, whatever their order.
func TestCompareSweeps(t *testing.T) {
	s := realSummary(t)
	rows := sweepRows(s, 4)
	reversed := func(rs []results.RunRecord) []results.RunRecord {
		out := append([]results.RunRecord(nil), rs...)
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return out
	}
	cases := []struct {
		name         string
		b            func() []results.RunRecord
		beyond       int
		beyondRun    string
		onlyA, onlyB string
		note         string
	}{
		{"identical, other row order", func() []results.RunRecord { return reversed(rows) }, 0, "", "", "", ""},
		{"one row shifted 6%", func() []results.RunRecord {
			b := reversed(rows)
			b[1].Summary.RecoveryMeanS *= 1.06 // r002
			return b
		}, 1, "r002", "", "", ""},
		{"a row missing, a row added", func() []results.RunRecord {
			b := append([]results.RunRecord(nil), rows[1:]...)
			extra := rows[0]
			extra.RunID = "r009"
			return append(b, extra)
		}, 0, "", "r000", "r009", ""},
		{"seed differs", func() []results.RunRecord {
			b := append([]results.RunRecord(nil), rows...)
			b[3].Seed = 99
			return b
		}, 0, "", "", "", "r003: seed differs (A 43, B 99)"},
	}
	dir := t.TempDir()
	pa := filepath.Join(dir, "a", results.RunsFile)
	os.MkdirAll(filepath.Dir(pa), 0o755)
	if err := resultstest.WriteRunsTable(pa, rows); err != nil {
		t.Fatal(err)
	}
	a, err := LoadResultSet(filepath.Dir(pa))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pb := filepath.Join(dir, "b"+itoa(i), results.RunsFile)
			os.MkdirAll(filepath.Dir(pb), 0o755)
			if err := resultstest.WriteRunsTable(pb, c.b()); err != nil {
				t.Fatal(err)
			}
			b, err := LoadResultSet(filepath.Dir(pb))
			if err != nil {
				t.Fatal(err)
			}
			cmp, err := Compare(a, b, DefaultTolerances())
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Beyond != c.beyond {
				t.Errorf("%d beyond tolerance, want %d", cmp.Beyond, c.beyond)
			}
			for _, d := range cmp.Diffs {
				if d.Beyond && (d.Run != c.beyondRun || d.Figure != "recovery_mean_s") {
					t.Errorf("beyond tolerance: %s %s", d.Run, d.Figure)
				}
			}
			if strings.Join(cmp.RunsOnlyA, ",") != c.onlyA || strings.Join(cmp.RunsOnlyB, ",") != c.onlyB {
				t.Errorf("only in A %v, only in B %v; want %q, %q", cmp.RunsOnlyA, cmp.RunsOnlyB, c.onlyA, c.onlyB)
			}
			if got := strings.Join(cmp.Notes, "\n"); got != c.note {
				t.Errorf("notes %q, want %q", got, c.note)
			}
		})
	}
	// nothing in common is an error, not a pass
	other := filepath.Join(dir, "other", results.RunsFile)
	os.MkdirAll(filepath.Dir(other), 0o755)
	renamed := append([]results.RunRecord(nil), rows...)
	for i := range renamed {
		renamed[i].RunID = "x" + itoa(i)
	}
	resultstest.WriteRunsTable(other, renamed)
	b, _ := LoadResultSet(other)
	if _, err := Compare(a, b, DefaultTolerances()); err == nil || !strings.Contains(err.Error(), "nothing to compare") {
		t.Errorf("disjoint sweeps: %v", err)
	}
}

// TestReferenceRoundTrip: a reference holds every variant's summary,
// without wall time, and compares equal to the runs it was made from.
func TestReferenceRoundTrip(t *testing.T) {
	s := realSummary(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	for i, v := range []string{"fast", "slow"} {
		vs := s
		vs.Variant, vs.WallTimeS, vs.LatencyP99Ms = v, 1.5, s.LatencyP99Ms*float64(i+1)
		writeSummaryFile(t, filepath.Join(runs, v, results.SummaryFile), vs)
	}
	sums, err := ReadRunSummaries(runs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ref.json")
	if err := WriteReference(path, Reference{Scenario: s.Scenario, Source: "scenarios/demo.yaml", Runs: sums}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var back Reference
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Format != ReferenceFormat || len(back.Runs) != 2 || back.Runs["fast"].WallTimeS != 0 || back.Runs["slow"].LatencyP99Ms != 2*s.LatencyP99Ms {
		t.Errorf("reference round trip: %+v", back)
	}
	ref, _ := LoadResultSet(path)
	fresh, _ := LoadResultSet(runs)
	cmp, err := Compare(ref, fresh, Tolerances{Default: Tolerance{Rel: 1e-9}})
	if err != nil || cmp.Failed(true) {
		t.Errorf("reference differs from its runs: %v %+v", err, cmp)
	}
	// one variant folder against the whole reference: matched by name
	one, _ := LoadResultSet(filepath.Join(runs, "slow"))
	cmp, err = Compare(ref, one, Tolerances{Default: Tolerance{Rel: 1e-9}})
	if err != nil || cmp.Beyond != 0 || strings.Join(cmp.RunsOnlyA, ",") != "fast" {
		t.Errorf("one variant against the reference: %v %+v", err, cmp)
	}
}

// TestWriteTableNumbers: a change from 0 has no relative size (no ±Inf%),
// the float noise of a record count shows as 0, and no number is in
// exponent notation.
func TestWriteTableNumbers(t *testing.T) {
	a, b := realSummary(t), realSummary(t)
	a.DowntimeS, b.DowntimeS = 0, 5.960464478e-08 // float noise
	a.CheckpointsFailed, b.CheckpointsFailed = 0, 12
	a.LatencyP99Ms, b.LatencyP99Ms = 21357.3, 8514.2
	cmp, err := Compare(singleSet(t, a), singleSet(t, b), DefaultTolerances())
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := cmp.WriteTable(&out, true, false); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	for _, bad := range []string{"Inf", "NaN", "e-0", "e+0", "e-1", "e+1"} {
		if strings.Contains(table, bad) {
			t.Errorf("table holds %q:\n%s", bad, table)
		}
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`downtime_s +0 +0 +0 +0% `),
		regexp.MustCompile(`checkpoints_failed +0 +12 +\+12 +– `),
		regexp.MustCompile(`latency_p99_ms +21,357 +8,514 +-12,843 +-60\.13% `),
	} {
		if !want.MatchString(table) {
			t.Errorf("table has no line matching %s:\n%s", want, table)
		}
	}
}

// TestInformational: a figure marked informational in a tolerance file is
// compared and printed, but never beyond tolerance; the other figures keep
// their tolerances.
func TestInformational(t *testing.T) {
	ts, err := ParseTolerances("tol.yaml", []byte("default: {rel: 0.05}\nfigures:\n  latency_p99_ms: informational\n  cpu_busy_mean: &i informational\n  lag_max: informational\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"latency_p99_ms", "cpu_busy_mean", "lag_max"} {
		if tol := ts.For(f); !tol.Informational || tol.String() != "info" || !tol.Within(1, 1e9) || !tol.Within(1, math.NaN()) {
			t.Errorf("%s: %+v (%s), want informational, within whatever the values", f, tol, tol)
		}
	}
	if tol := ts.For("recovery_mean_s"); tol.Informational || tol.Within(10, 11) {
		t.Errorf("recovery_mean_s: %+v, want the default ±5%%", tol)
	}
	base := realSummary(t)
	shifted := base
	shifted.LatencyP99Ms *= 10
	shifted.CPUBusyMean *= 3
	cmp, err := Compare(singleSet(t, base), singleSet(t, shifted), ts)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Beyond != 0 || cmp.Failed(true) || cmp.Informational != 3 {
		t.Errorf("beyond %d, informational %d; want 0 and 3", cmp.Beyond, cmp.Informational)
	}
	var out strings.Builder
	cmp.WriteTable(&out, false, false)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`latency_p99_ms .* info +info\n`),
		regexp.MustCompile(`cpu_busy_mean .* info +info\n`),
		regexp.MustCompile(`0 beyond tolerance; 3 informational \(reported, never beyond tolerance\)\n$`),
	} {
		if !want.MatchString(out.String()) {
			t.Errorf("table does not match %s:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "lag_max") { // the same on both sides: not listed without --all
		t.Errorf("an unchanged informational figure is listed:\n%s", out.String())
	}
	shifted.RecoveryMeanS *= 1.2
	if cmp, _ = Compare(singleSet(t, base), singleSet(t, shifted), ts); cmp.Beyond != 1 {
		t.Errorf("a claimed figure 20%% off: %d beyond, want 1", cmp.Beyond)
	}

	for _, c := range []struct{ name, src, want string }{
		{"another word", "figures:\n  lag_max: info\n", `tol.yaml:2: figures.lag_max must be a mapping {rel: …, abs: …} or informational`},
		{"not for the default", "default: informational\n", `tol.yaml:1: default must be a mapping {rel: …, abs: …}`},
	} {
		if _, err := ParseTolerances("tol.yaml", []byte(c.src)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestTwinVsLiveTolerances: the committed twin-vs-live file parses and
// decides about every summary figure (a tolerance or informational), so a
// new figure is not compared at the 5 % default by accident.
func TestTwinVsLiveTolerances(t *testing.T) {
	path := filepath.Join("..", "..", TwinVsLiveTolerances)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := ParseTolerances(path, b)
	if err != nil {
		t.Fatal(err)
	}
	figs, _ := results.Summary{}.Figures()
	for _, f := range figs {
		if _, ok := ts.Figures[f]; !ok {
			t.Errorf("%s does not say what the twin claims for %s (a tolerance, or informational)", path, f)
		}
	}
	// every figure has a comment saying why: on its line, or on the lines
	// before it or before the group of figures it belongs to
	figure := regexp.MustCompile(`^  ([a-z0-9_]+):`)
	explained := false
	for i, l := range strings.Split(string(b), "\n") {
		m := figure.FindStringSubmatch(l)
		switch {
		case m != nil:
			if explained = explained || strings.Contains(l, "#"); !explained {
				t.Errorf("%s:%d: %s has no comment saying why", path, i+1, m[1])
			}
		default:
			explained = strings.HasPrefix(strings.TrimSpace(l), "#")
		}
	}
}

// TestTwinVsLive: the backends of the two sides.
func TestTwinVsLive(t *testing.T) {
	set := func(backends ...string) *ResultSet {
		s := &ResultSet{}
		for _, b := range backends {
			s.Runs = append(s.Runs, SetRun{Backend: b})
		}
		return s
	}
	for _, c := range []struct {
		a, b *ResultSet
		want bool
	}{
		{set("sim"), set("live"), true},
		{set("live"), set("sim"), true},
		{set("sim"), set("sim"), false},
		{set("live"), set("live"), false},
		{set(""), set("live"), false},
		{set("sim", "live"), set("live"), true},
	} {
		if got := TwinVsLive(c.a, c.b); got != c.want {
			t.Errorf("TwinVsLive(%v, %v) = %v, want %v", c.a.Runs, c.b.Runs, got, c.want)
		}
	}
	live, err := LoadResultSet(filepath.Join("..", "reference", "live", "live-khaos"))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := LoadResultSet(filepath.Join("..", "reference", "live", "daedalus-sim"))
	if err != nil {
		t.Fatal(err)
	}
	if live.Runs[0].Backend != "live" || sim.Runs[0].Backend != "sim" || !TwinVsLive(sim, live) {
		t.Errorf("backends read from summary.json: %q, %q", sim.Runs[0].Backend, live.Runs[0].Backend)
	}
}

// TestToleranceCell: compare's TOL column.
func TestToleranceCell(t *testing.T) {
	for _, c := range []struct {
		tol    Tolerance
		figure string
		want   string
	}{
		{Tolerance{Rel: 0.05}, "lag_max", "±5%"},
		{Tolerance{Rel: 0.05, Abs: 5}, "latency_p99_ms", "±5% or 5.000"},
		{Tolerance{Rel: 0.05, Abs: 2}, "reconfigurations", "±5% or 2"},
		{Tolerance{Abs: 1000}, "final_lag", "±1,000"},
		{Tolerance{Abs: 1}, "reconfigurations", "±1"},
		{Tolerance{Rel: 0}, "faults", "±0%"},
		{Tolerance{Informational: true, Rel: 0.05}, "latency_p99_ms", "info"},
	} {
		if got := c.tol.Cell(c.figure); got != c.want {
			t.Errorf("%+v for %s: %q, want %q", c.tol, c.figure, got, c.want)
		}
	}
}
