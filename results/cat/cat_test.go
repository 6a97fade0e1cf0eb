package cat_test

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/cat"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// otherRow is a schema Print has never heard of: Print must work from the file's
// own schema, with booleans, int64, a repeated column and an optional string.
type otherRow struct {
	Name  string   `parquet:"name"`
	OK    bool     `parquet:"ok"`
	N     int64    `parquet:"n"`
	Ratio float32  `parquet:"ratio"`
	Tags  []string `parquet:"tags,list"`
	Note  *string  `parquet:"note,optional"`
}

func writeParquet[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	if err := results.WriteParquetFile(path, rows); err != nil {
		t.Fatal(err)
	}
}

// fixtureRow has the column shapes of timeseries/events (NaN doubles,
// optionals, dict strings, int32, bool) in a struct of its own, so the golden
// files do not change each time schema.go gains a column.
type fixtureRow struct {
	TimeS  float64  `parquet:"time_s"`
	Kind   string   `parquet:"kind,dict"`
	TM     *int32   `parquet:"taskmanager,optional"`
	Value  *float64 `parquet:"value,optional"`
	Lat    float64  `parquet:"latency_ms"`
	Third  float64  `parquet:"third"`
	Flag   bool     `parquet:"flag"`
	Reason string   `parquet:"reason"`
}

func TestCat(t *testing.T) {
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "fixture.parquet"), []fixtureRow{
		{TimeS: 1, Kind: results.KindFault, TM: resultstest.Ptr[int32](2), Lat: 120, Third: 1.0 / 3, Reason: "chaos: kill -9"},
		{TimeS: 2.5, Kind: results.KindRunning, Value: resultstest.Ptr(2.1e5), Lat: math.NaN(), Third: 1e-7, Flag: true},
		{TimeS: 1234567.125, Kind: results.KindReconfigured, Value: resultstest.Ptr(30.0), Lat: math.Inf(1), Third: -0.0625, Reason: "two\nlines"},
	})
	writeParquet(t, filepath.Join(dir, "other.parquet"), []otherRow{
		{Name: "a, with comma", OK: true, N: -5, Ratio: 0.25, Tags: []string{"x", "y"}, Note: resultstest.Ptr("hi")},
		{Name: "b", N: 1 << 40, Ratio: float32(math.Inf(1))},
	})
	cases := []struct {
		file   string
		asCSV  bool
		golden string
	}{
		{"fixture.parquet", true, "cat_fixture.csv"},
		{"fixture.parquet", false, "cat_fixture.txt"},
		{"other.parquet", true, "cat_other.csv"},
		{"other.parquet", false, "cat_other.txt"},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := cat.Print(&buf, filepath.Join(dir, tc.file), cat.Options{CSV: tc.asCSV, All: true}); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if buf.String() != string(want) {
				t.Errorf("Print %s differs from %s:\n got:\n%s\nwant:\n%s", tc.file, golden, buf.String(), want)
			}
		})
	}
}

// TestCatStreamsPastWidthWindow checks that rows after the first
// tableWidthRows are still printed, one line each.
func TestCatStreamsPastWidthWindow(t *testing.T) {
	samples, _, _ := resultstest.SyntheticRun(cat.TableWidthRows + 500)
	path := filepath.Join(t.TempDir(), "s.parquet")
	writeParquet(t, path, samples)
	for _, asCSV := range []bool{false, true} {
		var buf bytes.Buffer
		if err := cat.Print(&buf, path, cat.Options{CSV: asCSV, All: true}); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(buf.String(), "\n"); n != len(samples)+1 {
			t.Errorf("asCSV=%v: %d lines, want %d", asCSV, n, len(samples)+1)
		}
	}
}

func TestCatErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	bogus := filepath.Join(dir, "bogus.parquet")
	os.WriteFile(bogus, []byte("PAR1 nope"), 0o644)
	for _, path := range []string{bogus, filepath.Join(dir, "missing.parquet")} {
		err := cat.Print(&bytes.Buffer{}, path, cat.Options{CSV: true})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Print(%s): want an error naming the file, got %v", path, err)
		}
	}
}

// TestCatRunFiles prints a real run's files as CSV and reads them back: one
// column per struct tag, NaN spelled NaN, nulls empty.
func TestCatRunFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	samples, events, sum := resultstest.SyntheticRun(600)
	resultstest.WriteRun(t, dir, samples, events, sum)
	cases := []struct {
		file string
		typ  reflect.Type
		rows int
	}{
		{results.TimeseriesFile, reflect.TypeFor[results.Sample](), len(samples)},
		{results.EventsFile, reflect.TypeFor[results.Event](), len(events)},
	}
	for _, tc := range cases {
		var buf bytes.Buffer
		if err := cat.Print(&buf, filepath.Join(dir, tc.file), cat.Options{CSV: true}); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var want []string
		for f := range tc.typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
			want = append(want, name)
		}
		if !resultstest.Same(recs[0], want) || len(recs) != tc.rows+1 {
			t.Errorf("%s: header %v and %d rows, want %v and %d", tc.file, recs[0], len(recs)-1, want, tc.rows)
		}
		all := strings.Join(slices.Concat(recs...), ",")
		if tc.file == results.TimeseriesFile && !strings.Contains(all, "NaN") {
			t.Errorf("%s: NaN latencies not printed as NaN", tc.file)
		}
	}
}

// catText runs Print and fails the test on an error.
func catText(t *testing.T, path string, opt cat.Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := cat.Print(&buf, path, opt); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestCatRowLimits: the table stops after DefaultRows with a note,
// --head and --tail pick rows (Parquet seeks, CSV streams through a ring),
// --all and CSV print everything.
func TestCatRowLimits(t *testing.T) {
	n := cat.DefaultRows + 30
	samples, _, _ := resultstest.SyntheticRun(n)
	dir := t.TempDir()
	pq := filepath.Join(dir, "s.parquet")
	writeParquet(t, pq, samples)
	csvPath := filepath.Join(dir, "s.csv")
	os.WriteFile(csvPath, []byte(catText(t, pq, cat.Options{CSV: true})), 0o644)
	for _, path := range []string{pq, csvPath} {
		lines := func(opt cat.Options) []string {
			return strings.Split(strings.TrimSuffix(catText(t, path, opt), "\n"), "\n")
		}
		def := lines(cat.Options{})
		if len(def) != cat.DefaultRows+2 || def[len(def)-1] != "… 30 more rows (use --head N, --tail N or --all)" {
			t.Errorf("%s: default table: %d lines, last %q", path, len(def), def[len(def)-1])
		}
		if got := lines(cat.Options{All: true}); len(got) != n+1 {
			t.Errorf("%s: --all: %d lines, want %d", path, len(got), n+1)
		}
		if got := lines(cat.Options{CSV: true}); len(got) != n+1 {
			t.Errorf("%s: --csv: %d lines, want %d", path, len(got), n+1)
		}
		head := lines(cat.Options{CSV: true, Head: 3})
		if len(head) != 4 || !strings.HasPrefix(head[1], "1,") || !strings.HasPrefix(head[3], "3,") {
			t.Errorf("%s: --head 3: %q", path, head)
		}
		tail := lines(cat.Options{CSV: true, Tail: 2})
		if len(tail) != 3 || !strings.HasPrefix(tail[1], strconv.Itoa(n-1)+",") || !strings.HasPrefix(tail[2], strconv.Itoa(n)+",") {
			t.Errorf("%s: --tail 2: %q", path, tail)
		}
		if got := lines(cat.Options{Tail: 2 * n}); len(got) != n+1 {
			t.Errorf("%s: --tail beyond the rows: %d lines, want %d", path, len(got), n+1)
		}
	}
	if err := cat.Print(io.Discard, pq, cat.Options{Head: 1, Tail: 1}); err == nil {
		t.Error("head and tail together: no error")
	}
}

// TestCatJSON: summary.json prints as a key, value table (counts whole, no
// exponent noise) and as exact CSV; a file that is none of Parquet, JSON or
// CSV is refused saying what cat reads.
func TestCatJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	samples, events, sum := resultstest.SyntheticRun(60)
	sum.RecordsIn, sum.FinalLag, sum.LatencyP99Ms = 367308140, 0, 21357.3
	sum.RecoveryTimesS = []float64{55, 61.25}
	resultstest.WriteRun(t, dir, samples, events, sum)
	path := filepath.Join(dir, results.SummaryFile)
	// As written before counts were whole: fractions and float noise.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.NewReplacer(`"records_in": 367308140,`, `"records_in": 367308139.53,`, `"final_lag": 0,`, `"final_lag": 5.960464478e-8,`).Replace(string(b))
	if old == string(b) {
		t.Fatalf("summary.json has not the expected counts:\n%s", b)
	}
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	table := catText(t, path, cat.Options{All: true})
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^key +value$`),
		regexp.MustCompile(`(?m)^scenario +synthetic$`),
		regexp.MustCompile(`(?m)^records_in +367,308,140$`),
		regexp.MustCompile(`(?m)^final_lag +0$`),
		regexp.MustCompile(`(?m)^latency_p99_ms +21,357$`),
		regexp.MustCompile(`(?m)^recovery_times_s\[1\] +61\.250$`), // a time in s: to the ms
		regexp.MustCompile(`(?m)^qos\.recovery_violations +0$`),
	} {
		if !want.MatchString(table) {
			t.Errorf("summary.json table has no line matching %s:\n%s", want, table)
		}
	}
	if strings.Contains(table, "e-") || strings.Contains(table, "e+") {
		t.Errorf("exponent notation in the table:\n%s", table)
	}
	exact := catText(t, path, cat.Options{CSV: true})
	if !strings.Contains(exact, "records_in,367308139.53\n") || !strings.Contains(exact, "final_lag,5.960464478e-8\n") {
		t.Errorf("CSV of summary.json is not exact:\n%s", exact)
	}
	bin := filepath.Join(t.TempDir(), "x.csv")
	os.WriteFile(bin, []byte{0, 1, 2, 0xff}, 0o644)
	if err := cat.Print(io.Discard, bin, cat.Options{}); err == nil || !strings.Contains(err.Error(), "Parquet, JSON or CSV") {
		t.Errorf("binary file: %v", err)
	}
}

// TestCatEvaluationCounts: the count columns of evaluate's CSVs print as
// whole numbers (12 failures, not 12.00), the others by the table rule.
func TestCatEvaluationCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "variants.csv")
	os.WriteFile(path, []byte("variant,failures,recovered,recovery_violations,reconfigurations,latency_windows_over,latency_windows,latency_mean_ms\n"+
		"khaos,12,11,3,1,5,1440,574.16\n"), 0o644)
	out := catText(t, path, cat.Options{})
	if f := strings.Fields(strings.Split(out, "\n")[1]); !slices.Equal(f, []string{"khaos", "12", "11", "3", "1", "5", "1,440", "574.2"}) {
		t.Errorf("variants.csv:\n%s", out)
	}
}

// TestCatRefusesOtherFiles: a file that is not Parquet, JSON or CSV by its
// extension is refused naming the kinds read, whatever it holds (a YAML
// file would read as a one-column CSV); a YAML file points at scenario
// print.
func TestCatRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, want string }{
		{"scenario.yaml", "scenario print"},
		{"sweep.YML", "scenario print"},
		{"notes.txt", "not a .txt file"},
		{"README", "not a file without an extension"},
	} {
		path := filepath.Join(dir, tc.name)
		os.WriteFile(path, []byte("name: demo\nduration: 2h\n"), 0o644)
		err := cat.Print(io.Discard, path, cat.Options{})
		if !errors.Is(err, cat.ErrNotResultFile) || !strings.Contains(err.Error(), "Parquet (.parquet), JSON (.json) and CSV (.csv)") {
			t.Errorf("%s: %v, want ErrNotResultFile naming the kinds read", tc.name, err)
		} else if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	upper := filepath.Join(dir, "RUNS.CSV")
	os.WriteFile(upper, []byte("a,b\n1,2\n"), 0o644)
	if err := cat.Print(io.Discard, upper, cat.Options{}); err != nil {
		t.Errorf("RUNS.CSV: %v", err)
	}
}

// runEvents is an events file as a run writes it: a checkpoint every 30 s
// from the start (so the first DefaultRows rows are all checkpoints),
// a fault at 2,101.38 s that recovers, one at 5,280 s that is still
// recovering at the end, and one on a TaskManager already down.
func runEvents() []results.Event {
	ptr := resultstest.Ptr[float64]
	var events []results.Event
	for i := 1; i <= 240; i++ {
		events = append(events, results.Event{TimeS: 30*float64(i) + 0.0125, Kind: results.KindCheckpointCompleted,
			CheckpointID: resultstest.Ptr(int64(i)), DurationS: ptr(0.75), SizeBytes: ptr(1e6)})
	}
	events = append(events,
		results.Event{TimeS: 2101.38, Kind: results.KindFault, TaskManager: resultstest.Ptr[int32](0), Reason: "faults[0]"},
		results.Event{TimeS: 2102.38, Kind: results.KindDetected, Reason: "TaskManager 0 lost"},
		results.Event{TimeS: 2103.5, Kind: results.KindRestart, DurationS: ptr(1.12)},
		results.Event{TimeS: 2114.7, Kind: results.KindRunning, DurationS: ptr(13.32), Value: ptr(3e6)},
		results.Event{TimeS: 2147.065, Kind: results.KindRecovered, DurationS: ptr(45.685), Reason: "TaskManager 0 lost"},
		results.Event{TimeS: 5280, Kind: results.KindFault, TaskManager: resultstest.Ptr[int32](2), Reason: "faults[1]"},
		results.Event{TimeS: 5281, Kind: results.KindDetected, Reason: "TaskManager 2 lost"},
		results.Event{TimeS: 5293.32, Kind: results.KindRunning, DurationS: ptr(13.32), Value: ptr(4e6)},
		results.Event{TimeS: 6000, Kind: results.KindFault, TaskManager: resultstest.Ptr[int32](2), Reason: "faults[2] (TaskManager already down)"},
		results.Event{TimeS: 7200, Kind: results.KindUnrecovered, DurationS: ptr(1920), Reason: "TaskManager 2 lost"},
		results.Event{TimeS: 7200, Kind: results.KindRunEnd, DurationS: ptr(0), Reason: "RUNNING"},
	)
	slices.SortStableFunc(events, func(a, b results.Event) int { return cmp.Compare(a.TimeS, b.TimeS) })
	return events
}

func writeRunEvents(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), results.EventsFile)
	writeParquet(t, path, runEvents())
	return path
}

// TestCatKinds: --kind keeps the rows of those kinds, in time order, with
// head, tail and the default limit counting only them; an unknown kind is
// refused naming the kinds, and a file without a kind column says so.
func TestCatKinds(t *testing.T) {
	path := writeRunEvents(t)
	kindsOf := func(out string) []string {
		var ks []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			ks = append(ks, strings.Fields(l)[1])
		}
		return ks
	}
	faults := cat.Options{Kinds: []string{results.KindFault, results.KindRecovered, results.KindUnrecovered}}
	got := catText(t, path, faults)
	if want := []string{"fault", "recovered", "fault", "fault", "unrecovered"}; !slices.Equal(kindsOf(got), want) {
		t.Errorf("--kind fault,recovered,unrecovered: kinds %v, want %v:\n%s", kindsOf(got), want, got)
	}
	faults.Tail = 2
	if got := kindsOf(catText(t, path, faults)); !slices.Equal(got, []string{"fault", "unrecovered"}) {
		t.Errorf("--kind … --tail 2: %v", got)
	}
	csvOut := catText(t, path, cat.Options{CSV: true, Kinds: []string{results.KindRunning}})
	if n := strings.Count(csvOut, "\n"); n != 3 || !strings.Contains(csvOut, "\n2114.7,running,") {
		t.Errorf("--csv --kind running: %d lines:\n%s", n, csvOut)
	}
	// the limit counts kept rows: 240 checkpoints, 50 shown, 190 more
	cps := catText(t, path, cat.Options{Kinds: []string{results.KindCheckpointCompleted}})
	if !strings.Contains(cps, "… 190 more rows: 190 checkpoint_completed") {
		t.Errorf("--kind checkpoint_completed: no note of 190 more:\n%s", cps)
	}

	err := cat.Print(io.Discard, path, cat.Options{Kinds: []string{"recovery"}})
	if err == nil || !strings.Contains(err.Error(), `unknown event kind "recovery"`) || !strings.Contains(err.Error(), "recovered") {
		t.Errorf("unknown kind: %v", err)
	}
	samples, _, _ := resultstest.SyntheticRun(60)
	ts := filepath.Join(t.TempDir(), results.TimeseriesFile)
	writeParquet(t, ts, samples)
	for _, opt := range []cat.Options{{Kinds: []string{results.KindFault}}, {Summary: true}} {
		if err := cat.Print(io.Discard, ts, opt); !errors.Is(err, cat.ErrNoKindColumn) {
			t.Errorf("%+v on a timeseries: %v, want ErrNoKindColumn", opt, err)
		}
	}
}

// TestCatEventsNote: the default table of events.parquet stops among the
// checkpoints; its note counts the rows left by kind, faults first, and
// points at --kind and --summary.
func TestCatEventsNote(t *testing.T) {
	out := catText(t, writeRunEvents(t), cat.Options{})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	note := lines[len(lines)-1]
	for _, want := range []string{"… 201 more rows: 3 fault, 2 failure_detected, 1 restart, 2 running, 1 recovered, 1 unrecovered, 190 checkpoint_completed, 1 run_end",
		"--kind", "--summary"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
}

// TestCatTimesToTheMillisecond: in the table, times in s keep the
// millisecond, in every kind of file; other numbers keep 4 digits, and a
// rate per s is no time.
func TestCatTimesToTheMillisecond(t *testing.T) {
	path := writeRunEvents(t)
	out := catText(t, path, cat.Options{Kinds: []string{results.KindFault, results.KindRecovered}})
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^2,101\.380  fault `),
		regexp.MustCompile(`(?m)^2,147\.065  recovered .* 45\.685  `),
	} {
		if !want.MatchString(out) {
			t.Errorf("events table has no line matching %s:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "rescales.csv")
	os.WriteFile(csvPath, []byte("at_s,input_rate,capacity_before_records_per_s,downtime_s\n2101.38,12345.678,9876.54321,0.0004\n"), 0o644)
	out = catText(t, csvPath, cat.Options{})
	if want := regexp.MustCompile(`(?m)^2,101\.380 +12,346 +9,877 +0\.000$`); !want.MatchString(out) {
		t.Errorf("CSV table has no line matching %s:\n%s", want, out)
	}
	run := filepath.Join(dir, "run")
	samples, events, sum := resultstest.SyntheticRun(60)
	sum.RecoveryMeanS = 2101.38
	resultstest.WriteRun(t, run, samples, events, sum)
	out = catText(t, filepath.Join(run, results.SummaryFile), cat.Options{All: true})
	if want := regexp.MustCompile(`(?m)^recovery_mean_s +2,101\.380$`); !want.MatchString(out) {
		t.Errorf("summary.json table has no line matching %s:\n%s", want, out)
	}
}

// TestCatSummary: one line per fault, its detection, return to running and
// recovery; a fault still recovering at the end says unrecovered with the
// lower bound, never a recovery of 0 s; a fault with no recovery event of
// its own says neither. CSV has the exact times, empty for none.
func TestCatSummary(t *testing.T) {
	path := writeRunEvents(t)
	out := catText(t, path, cat.Options{Summary: true})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 {
		t.Fatalf("summary: %d lines, want header, 3 faults and 2 closing lines:\n%s", len(lines), out)
	}
	for i, want := range []*regexp.Regexp{
		regexp.MustCompile(`^fault +at_s +taskmanager +detected_s +running_s +recovered_s +recovery_s +reason$`),
		regexp.MustCompile(`^ +1 +2,101\.380 +0 +2,102\.380 \(\+1\.000\) +2,114\.700 \(\+13\.320\) +2,147\.065 +45\.685 +faults\[0\]$`),
		regexp.MustCompile(`^ +2 +5,280\.000 +2 +5,281\.000 \(\+1\.000\) +5,293\.320 \(\+13\.320\) +– +unrecovered \(>1,920\.000\) +faults\[1\]$`),
		regexp.MustCompile(`^ +3 +6,000\.000 +2 +– +– +– +– +faults\[2\] \(TaskManager already down\)$`),
		regexp.MustCompile(`^3 faults: 1 recovered, 1 unrecovered, 1 with neither`),
		regexp.MustCompile(`^unrecovered \(>T\): `),
	} {
		if !want.MatchString(lines[i]) {
			t.Errorf("line %d %q does not match %s", i, lines[i], want)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(catText(t, path, cat.Options{Summary: true, CSV: true}))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"fault", "at_s", "taskmanager", "detected_s", "running_s", "recovered_s", "recovery_s", "unrecovered_s", "reason"},
		{"1", "2101.38", "0", "2102.38", "2114.7", "2147.065", "45.685", "", "faults[0]"},
		{"2", "5280", "2", "5281", "5293.32", "", "", "1920", "faults[1]"},
		{"3", "6000", "2", "", "", "", "", "", "faults[2] (TaskManager already down)"},
	}
	// 2101.38 + 45.685 is not exactly 2147.065 in floating point
	if len(recs) == 4 {
		if x, _ := strconv.ParseFloat(recs[1][5], 64); math.Abs(x-2147.065) < 1e-9 {
			recs[1][5] = "2147.065"
		}
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("summary CSV:\n got %q\nwant %q", recs, want)
	}
	if err := cat.Print(io.Discard, path, cat.Options{Summary: true, Kinds: []string{results.KindFault}}); err == nil {
		t.Error("--summary with --kind: no error")
	}
	empty := filepath.Join(t.TempDir(), results.EventsFile)
	writeParquet(t, empty, []results.Event{{TimeS: 7200, Kind: results.KindRunEnd, Reason: "RUNNING"}})
	if got := catText(t, empty, cat.Options{Summary: true}); got != "no faults\n" {
		t.Errorf("no faults: %q", got)
	}
}

// TestEventKindsListsEveryKind: EventKinds (what --kind accepts) holds
// every Kind constant of schema.go, so a new kind cannot be refused.
func TestEventKindsListsEveryKind(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "schema.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			for i, n := range spec.(*ast.ValueSpec).Names {
				if lit, ok := spec.(*ast.ValueSpec).Values[i].(*ast.BasicLit); ok && strings.HasPrefix(n.Name, "Kind") {
					v, _ := strconv.Unquote(lit.Value)
					consts = append(consts, v)
				}
			}
		}
	}
	if len(consts) < 10 {
		t.Fatalf("found only %d Kind constants in schema.go: %v", len(consts), consts)
	}
	slices.Sort(consts)
	listed := slices.Sorted(slices.Values(cat.EventKinds))
	if !slices.Equal(consts, listed) {
		t.Errorf("EventKinds %v, schema.go's kinds %v", listed, consts)
	}
}
