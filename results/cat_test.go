package results_test

import (
	"bytes"
	"encoding/csv"
	"flag"
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
	"github.com/streamtwin/streamtwin/results/resultstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// otherRow is a schema Cat has never heard of: Cat must work from the file's
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
			if err := results.Cat(&buf, filepath.Join(dir, tc.file), results.CatOptions{CSV: tc.asCSV, All: true}); err != nil {
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
				t.Errorf("Cat %s differs from %s:\n got:\n%s\nwant:\n%s", tc.file, golden, buf.String(), want)
			}
		})
	}
}

// TestCatStreamsPastWidthWindow checks that rows after the first
// tableWidthRows are still printed, one line each.
func TestCatStreamsPastWidthWindow(t *testing.T) {
	samples, _, _ := resultstest.SyntheticRun(results.TableWidthRows + 500)
	path := filepath.Join(t.TempDir(), "s.parquet")
	writeParquet(t, path, samples)
	for _, asCSV := range []bool{false, true} {
		var buf bytes.Buffer
		if err := results.Cat(&buf, path, results.CatOptions{CSV: asCSV, All: true}); err != nil {
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
		err := results.Cat(&bytes.Buffer{}, path, results.CatOptions{CSV: true})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Cat(%s): want an error naming the file, got %v", path, err)
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
		if err := results.Cat(&buf, filepath.Join(dir, tc.file), results.CatOptions{CSV: true}); err != nil {
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

// catText runs Cat and fails the test on an error.
func catText(t *testing.T, path string, opt results.CatOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := results.Cat(&buf, path, opt); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestCatRowLimits: the table stops after DefaultCatRows with a note,
// --head and --tail pick rows (Parquet seeks, CSV streams through a ring),
// --all and CSV print everything.
func TestCatRowLimits(t *testing.T) {
	n := results.DefaultCatRows + 30
	samples, _, _ := resultstest.SyntheticRun(n)
	dir := t.TempDir()
	pq := filepath.Join(dir, "s.parquet")
	writeParquet(t, pq, samples)
	csvPath := filepath.Join(dir, "s.csv")
	os.WriteFile(csvPath, []byte(catText(t, pq, results.CatOptions{CSV: true})), 0o644)
	for _, path := range []string{pq, csvPath} {
		lines := func(opt results.CatOptions) []string {
			return strings.Split(strings.TrimSuffix(catText(t, path, opt), "\n"), "\n")
		}
		def := lines(results.CatOptions{})
		if len(def) != results.DefaultCatRows+2 || def[len(def)-1] != "… 30 more rows (use --head N, --tail N or --all)" {
			t.Errorf("%s: default table: %d lines, last %q", path, len(def), def[len(def)-1])
		}
		if got := lines(results.CatOptions{All: true}); len(got) != n+1 {
			t.Errorf("%s: --all: %d lines, want %d", path, len(got), n+1)
		}
		if got := lines(results.CatOptions{CSV: true}); len(got) != n+1 {
			t.Errorf("%s: --csv: %d lines, want %d", path, len(got), n+1)
		}
		head := lines(results.CatOptions{CSV: true, Head: 3})
		if len(head) != 4 || !strings.HasPrefix(head[1], "1,") || !strings.HasPrefix(head[3], "3,") {
			t.Errorf("%s: --head 3: %q", path, head)
		}
		tail := lines(results.CatOptions{CSV: true, Tail: 2})
		if len(tail) != 3 || !strings.HasPrefix(tail[1], strconv.Itoa(n-1)+",") || !strings.HasPrefix(tail[2], strconv.Itoa(n)+",") {
			t.Errorf("%s: --tail 2: %q", path, tail)
		}
		if got := lines(results.CatOptions{Tail: 2 * n}); len(got) != n+1 {
			t.Errorf("%s: --tail beyond the rows: %d lines, want %d", path, len(got), n+1)
		}
	}
	if err := results.Cat(io.Discard, pq, results.CatOptions{Head: 1, Tail: 1}); err == nil {
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
	table := catText(t, path, results.CatOptions{All: true})
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^key +value$`),
		regexp.MustCompile(`(?m)^scenario +synthetic$`),
		regexp.MustCompile(`(?m)^records_in +367,308,140$`),
		regexp.MustCompile(`(?m)^final_lag +0$`),
		regexp.MustCompile(`(?m)^latency_p99_ms +21,357$`),
		regexp.MustCompile(`(?m)^recovery_times_s\[1\] +61\.25$`),
		regexp.MustCompile(`(?m)^qos\.recovery_violations +0$`),
	} {
		if !want.MatchString(table) {
			t.Errorf("summary.json table has no line matching %s:\n%s", want, table)
		}
	}
	if strings.Contains(table, "e-") || strings.Contains(table, "e+") {
		t.Errorf("exponent notation in the table:\n%s", table)
	}
	exact := catText(t, path, results.CatOptions{CSV: true})
	if !strings.Contains(exact, "records_in,367308139.53\n") || !strings.Contains(exact, "final_lag,5.960464478e-8\n") {
		t.Errorf("CSV of summary.json is not exact:\n%s", exact)
	}
	bin := filepath.Join(t.TempDir(), "x.bin")
	os.WriteFile(bin, []byte{0, 1, 2, 0xff}, 0o644)
	if err := results.Cat(io.Discard, bin, results.CatOptions{}); err == nil || !strings.Contains(err.Error(), "Parquet, JSON or CSV") {
		t.Errorf("binary file: %v", err)
	}
}
