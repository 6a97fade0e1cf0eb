package results_test

import (
	"bytes"
	"encoding/csv"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
			if err := results.Cat(&buf, filepath.Join(dir, tc.file), tc.asCSV); err != nil {
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
		if err := results.Cat(&buf, path, asCSV); err != nil {
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
		err := results.Cat(&bytes.Buffer{}, path, true)
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
		if err := results.Cat(&buf, filepath.Join(dir, tc.file), true); err != nil {
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
