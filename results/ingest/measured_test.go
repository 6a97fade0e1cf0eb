package ingest

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

var testNaN = math.NaN()

// assertPoints compares points field by field, NaN equal to NaN; Line is
// where a point was read, so it is left out.
func assertPoints(t *testing.T, got, want []MeasuredFailure) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d", len(got), len(want))
	}
	eq := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for i, g := range got {
		w := want[i]
		g.Line, w.Line = 0, 0
		if g.Label != w.Label || !eq(g.Throughput, w.Throughput) || !eq(g.CheckpointIntervalS, w.CheckpointIntervalS) ||
			!eq(g.RecoveryS, w.RecoveryS) || !eq(g.LatencyMs, w.LatencyMs) || !eq(g.FaultAtS, w.FaultAtS) ||
			g.Parallelism != w.Parallelism || g.TaskSlots != w.TaskSlots || g.CPUCores != w.CPUCores || g.MemoryMiB != w.MemoryMiB ||
			g.Fault != w.Fault || g.Censored != w.Censored || g.Experiment != w.Experiment {
			t.Errorf("point %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestMeasuredRoundTrip(t *testing.T) {
	full := []MeasuredFailure{
		{Label: "profile_10000", Throughput: 57116.571653, CheckpointIntervalS: 10, RecoveryS: 122, LatencyMs: 561.625116, FaultAtS: 3445},
		{Label: `with "quotes", and a comma`, Throughput: 0.1 + 0.2, CheckpointIntervalS: 25.714, RecoveryS: 1e-3, LatencyMs: testNaN, FaultAtS: 0},
		{Label: "", Throughput: 91498.737585, CheckpointIntervalS: 120, RecoveryS: 357, LatencyMs: 0, FaultAtS: testNaN},
	}
	// Demeter's profiles: the configuration, the fault and a censored cap
	configured := []MeasuredFailure{
		{Throughput: 34121.4, CheckpointIntervalS: 90, RecoveryS: 159, LatencyMs: testNaN, FaultAtS: testNaN,
			Parallelism: 16, TaskSlots: 2, CPUCores: 1, MemoryMiB: 3072, Fault: "network_delay:60s/30s", Experiment: "1"},
		{Throughput: 9801.97, CheckpointIntervalS: 90, RecoveryS: 360, LatencyMs: testNaN, FaultAtS: testNaN,
			Parallelism: 8, TaskSlots: 4, CPUCores: 1.5, MemoryMiB: 1024, Fault: "network_delay:60s/30s", Censored: true, Experiment: "2"},
		{Throughput: 9000, CheckpointIntervalS: 10, RecoveryS: 100, LatencyMs: testNaN, FaultAtS: testNaN, Experiment: "2"},
	}
	bare := []MeasuredFailure{
		{Throughput: 57000, CheckpointIntervalS: 10, RecoveryS: 122, LatencyMs: testNaN, FaultAtS: testNaN},
		{Throughput: 91000, CheckpointIntervalS: 120, RecoveryS: 357, LatencyMs: testNaN, FaultAtS: testNaN},
	}
	cases := []struct {
		name   string
		pts    []MeasuredFailure
		file   string
		header string // CSV only
	}{
		{"csv, every column", full, "m.csv", "throughput,checkpoint_interval_s,recovery_s,latency_ms,label,fault_at_s"},
		{"csv, NaN and empty columns left out", bare, "m.csv", "throughput,checkpoint_interval_s,recovery_s"},
		{"parquet, every column", full, "m.parquet", ""},
		{"parquet, NaN columns", bare, "m.parquet", ""},
		{"csv, configuration", configured, "m.csv", "throughput,checkpoint_interval_s,recovery_s,parallelism,task_slots,cpu_cores,memory_mib,fault,censored,experiment"},
		{"parquet, configuration", configured, "m.parquet", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			if err := WriteMeasured(path, c.pts); err != nil {
				t.Fatal(err)
			}
			got, err := ReadMeasured(path)
			if err != nil {
				t.Fatal(err)
			}
			assertPoints(t, got, c.pts)
			first := 1 // Parquet: row number
			if c.header != "" {
				first = 2 // CSV: line, after the header
			}
			for i, p := range got {
				if p.Line != first+i {
					t.Errorf("point %d: Line %d, want %d", i, p.Line, first+i)
				}
			}
			if c.header != "" {
				b, _ := os.ReadFile(path)
				if first, _, _ := strings.Cut(string(b), "\n"); first != c.header {
					t.Errorf("header %q, want %q", first, c.header)
				}
			}
		})
	}
}

// TestCSVFormatting: shortest round-tripping numbers, empty NaN cells.
func TestMeasuredCSVFormatting(t *testing.T) {
	got := string(formatMeasuredCSV([]MeasuredFailure{
		{Throughput: 57116.571653, CheckpointIntervalS: 10, RecoveryS: 122, LatencyMs: testNaN, FaultAtS: 1e6},
		{Throughput: 0.30000000000000004, CheckpointIntervalS: 0.5, RecoveryS: 3, LatencyMs: 2, FaultAtS: testNaN},
	}))
	want := "throughput,checkpoint_interval_s,recovery_s,latency_ms,fault_at_s\n57116.571653,10,122,,1e+06\n0.30000000000000004,0.5,3,2,\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestParquetNaNColumnsHaveNoStatistics: DuckDB trusts min/max to mean the
// column holds no NaN (results/io.go), so the NaN-able columns carry none.
func TestParquetNaNColumnsHaveNoStatistics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.parquet")
	if err := WriteMeasured(path, []MeasuredFailure{{Throughput: 1, CheckpointIntervalS: 1, RecoveryS: 1, LatencyMs: 5, FaultAtS: testNaN}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{colLatency, colFaultAt} {
		leaf, _ := pf.Schema().Lookup(name)
		s := pf.Metadata().RowGroups[0].Columns[leaf.ColumnIndex].MetaData.Statistics
		if len(s.Min)+len(s.Max)+len(s.MinValue)+len(s.MaxValue) != 0 {
			t.Errorf("%s has min/max statistics", name)
		}
	}
}

// TestReadParquetAnyTypes: int and float columns of any width and a
// nullable label, as other tools (pandas, DuckDB) write them.
func TestReadMeasuredParquetAnyTypes(t *testing.T) {
	type row struct {
		Label      *string  `parquet:"label,optional"`
		Throughput int64    `parquet:"throughput"`
		CI         int32    `parquet:"checkpoint_interval_s"`
		Recovery   float32  `parquet:"recovery_s"`
		Latency    *float64 `parquet:"latency_ms,optional"`
	}
	lbl, lat := "a", 12.5
	path := filepath.Join(t.TempDir(), "m.parquet")
	if err := parquet.WriteFile(path, []row{{&lbl, 57000, 10, 122.5, &lat}, {nil, 60000, 30, 140, nil}}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMeasured(path)
	if err != nil {
		t.Fatal(err)
	}
	assertPoints(t, got, []MeasuredFailure{
		{Label: "a", Throughput: 57000, CheckpointIntervalS: 10, RecoveryS: 122.5, LatencyMs: 12.5, FaultAtS: testNaN},
		{Label: "", Throughput: 60000, CheckpointIntervalS: 30, RecoveryS: 140, LatencyMs: testNaN, FaultAtS: testNaN},
	})
}

func TestParseMeasuredCSVErrors(t *testing.T) {
	const h = "throughput,checkpoint_interval_s,recovery_s\n"
	cases := []struct{ name, src, want string }{
		{"missing column", "throughput,checkpoint_interval_s\n1,1\n",
			"m.csv:1: missing column recovery_s (the table needs throughput, checkpoint_interval_s, recovery_s; optional latency_ms, label, fault_at_s, parallelism, task_slots, cpu_cores, memory_mib, fault, censored, experiment)"},
		{"unknown column", h[:len(h)-1] + ",latency\n", `m.csv:1: unknown column "latency" (known: throughput, checkpoint_interval_s, recovery_s, latency_ms, label, fault_at_s`},
		{"upper case", "Throughput,checkpoint_interval_s,recovery_s\n", `m.csv:1: unknown column "Throughput"`},
		{"duplicate column", "throughput,checkpoint_interval_s,recovery_s,throughput\n", "m.csv:1: column throughput appears twice"},
		{"data first", "1,2,3\n", `m.csv:1: the first line must be the header, got data "1,2,3"`},
		{"header after comments", "# measured\n# on 2021-08-02\nthroughput,checkpoint_interval_s,lag\n", `m.csv:3: unknown column "lag"`},
		{"not a number", h + "1,1,1\n1,1,1\nabc,1,1\n", `m.csv:4: throughput: "abc" is not a number`},
		{"negative recovery", h + "# c\n\n1,1,1\n1,1,1\n1,1,1\n1,1,-3\n", "m.csv:7: recovery_s: must be in (0, 604800] seconds (a week), got -3"},
		{"zero throughput", h + "0,1,1\n", "m.csv:2: throughput: must be in (0, 1e9] records/s, got 0"},
		{"negative CI", h + "1,-10,1\n", "m.csv:2: checkpoint_interval_s: must be in (0, 86400] seconds (a day), got -10"},
		{"infinite CI", h + "1,inf,1\n", "m.csv:2: checkpoint_interval_s: must be in (0, 86400] seconds (a day), got +Inf"},
		{"NaN recovery", h + "1,1,NaN\n", "m.csv:2: recovery_s: must be in (0, 604800] seconds (a week), got NaN"},
		{"recovery 1e300", h + "1,1,1e300\n", "m.csv:2: recovery_s: must be in (0, 604800] seconds (a week), got 1e+300"},
		{"empty required cell", h + "1,,1\n", "m.csv:2: checkpoint_interval_s: empty cell; the column is required"},
		{"negative latency", "throughput,checkpoint_interval_s,recovery_s,latency_ms\n1,1,1,-5\n", "m.csv:2: latency_ms: must be in [0, 86400000] ms (a day), or empty, got -5"},
		{"negative fault time", "throughput,checkpoint_interval_s,recovery_s,fault_at_s\n1,1,1,-5\n", "m.csv:2: fault_at_s: must be in [0, 31622400] seconds"},
		{"zero parallelism", "throughput,checkpoint_interval_s,recovery_s,parallelism\n1,1,1,0\n", "m.csv:2: parallelism: 0 is no configuration; leave the cell empty for the base scenario's"},
		{"fractional slots", "throughput,checkpoint_interval_s,recovery_s,task_slots\n1,1,1,1.5\n", "m.csv:2: task_slots: must be a whole number in [1, 1024] slots per TaskManager, or empty, got 1.5"},
		{"negative cores", "throughput,checkpoint_interval_s,recovery_s,cpu_cores\n1,1,1,-1\n", "m.csv:2: cpu_cores: must be in (0, 1024] cores per TaskManager, or empty, got -1"},
		{"censored yes", "throughput,checkpoint_interval_s,recovery_s,censored\n1,1,1,yes\n", `m.csv:2: censored: "yes" is not true, false, 1, 0 or empty`},
		{"too few fields", h + "1,1\n", "m.csv:2: 2 fields, but the header has 3 (throughput,checkpoint_interval_s,recovery_s)"},
		{"too many fields", h + "1,1,1,1\n", "m.csv:2: 4 fields, but the header has 3"},
		{"bad quoting", "label," + h + "\"a,1,1,1\n", "m.csv:2:10: extraneous or missing \" in quoted-field"},
		{"no rows", h + "# nothing measured yet\n", "m.csv: no rows"},
		{"empty file", "", "m.csv: no rows: the file is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseMeasuredCSV("m.csv", strings.NewReader(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant one containing %q", err, c.want)
			}
		})
	}
}

// TestParseCSVLenient: spaces around cells, a spreadsheet BOM, blank and
// comment lines, columns in any order, empty optional cells.
func TestParseMeasuredCSVLenient(t *testing.T) {
	src := "\ufefflabel, recovery_s ,throughput,checkpoint_interval_s,latency_ms\n# comment\n\n a b , 122 , 57000,10,\n"
	got, err := ParseMeasuredCSV("m.csv", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	assertPoints(t, got, []MeasuredFailure{{Label: "a b", Throughput: 57000, CheckpointIntervalS: 10, RecoveryS: 122, LatencyMs: testNaN, FaultAtS: testNaN}})
	if got[0].Line != 4 {
		t.Errorf("Line %d, want 4", got[0].Line)
	}
}

func TestReadMeasuredErrors(t *testing.T) {
	dir := t.TempDir()
	type wrongLabel struct {
		Throughput float64 `parquet:"throughput"`
		CI         float64 `parquet:"checkpoint_interval_s"`
		Recovery   float64 `parquet:"recovery_s"`
		Label      int64   `parquet:"label"`
	}
	type textNumber struct {
		Throughput string  `parquet:"throughput"`
		CI         float64 `parquet:"checkpoint_interval_s"`
		Recovery   float64 `parquet:"recovery_s"`
	}
	type typo struct {
		Throughput float64 `parquet:"throughput"`
		CI         float64 `parquet:"checkpoint_interval"`
		Recovery   float64 `parquet:"recovery_s"`
	}
	write := func(name string, rows any) string {
		path := filepath.Join(dir, name)
		var err error
		switch r := rows.(type) {
		case []wrongLabel:
			err = parquet.WriteFile(path, r)
		case []textNumber:
			err = parquet.WriteFile(path, r)
		case []typo:
			err = parquet.WriteFile(path, r)
		case []tableRow:
			err = parquet.WriteFile(path, r)
		}
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct{ name, path, want string }{
		{"extension", filepath.Join(dir, "m.txt"), `m.txt: unknown table format ".txt" (use .csv or .parquet)`},
		{"label not text", write("l.parquet", []wrongLabel{{1, 1, 1, 3}}), "column label is INT64; it must be a string column"},
		{"number as text", write("n.parquet", []textNumber{{"1", 1, 1}}), "column throughput is BYTE_ARRAY; it must be numeric"},
		{"typo", write("t.parquet", []typo{{1, 1, 1}}), `t.parquet: unknown column "checkpoint_interval"`},
		{"bad value", write("v.parquet", []tableRow{{Throughput: 1, CheckpointIntervalS: 1, RecoveryS: 1, LatencyMs: testNaN, FaultAtS: testNaN}, {Throughput: 1, CheckpointIntervalS: 1, RecoveryS: -3, LatencyMs: testNaN, FaultAtS: testNaN}}), "v.parquet: row 2: recovery_s: must be in (0, 604800] seconds (a week), got -3"},
		{"no rows", write("e.parquet", []tableRow{}), "e.parquet: no rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadMeasured(c.path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant one containing %q", err, c.want)
			}
		})
	}
}

func TestWriteMeasuredErrors(t *testing.T) {
	dir := t.TempDir()
	ok := MeasuredFailure{Throughput: 1, CheckpointIntervalS: 1, RecoveryS: 1, LatencyMs: testNaN, FaultAtS: testNaN}
	bad := ok
	bad.CheckpointIntervalS = 0
	cases := []struct {
		name, file string
		pts        []MeasuredFailure
		want       string
	}{
		{"empty", "m.csv", nil, "no points to write"},
		{"invalid point", "m.parquet", []MeasuredFailure{ok, bad}, "point 2: checkpoint_interval_s: must be in (0, 86400] seconds (a day), got 0"},
		{"extension", "m.json", []MeasuredFailure{ok}, `unknown table format ".json" (use .csv or .parquet)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			err := WriteMeasured(path, c.pts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant one containing %q", err, c.want)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s was written", c.file)
			}
		})
	}
}

// A repeated row is refused, naming both lines, in CSV and in Parquet.
func TestMeasuredDuplicates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.csv")
	if err := os.WriteFile(path, []byte("throughput,checkpoint_interval_s,recovery_s,latency_ms\n1000,10,20,\n1000,30,40,5\n1000,10,20,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMeasured(path); err == nil || !strings.Contains(err.Error(), "m.csv:4: the row repeats line 2 in every column") {
		t.Errorf("duplicate row: %v", err)
	}
	pq := filepath.Join(dir, "m.parquet")
	p := MeasuredFailure{Throughput: 1000, CheckpointIntervalS: 10, RecoveryS: 20, LatencyMs: testNaN, FaultAtS: testNaN}
	if err := WriteMeasured(pq, []MeasuredFailure{p, p}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMeasured(pq); err == nil || !strings.Contains(err.Error(), "m.parquet:2: the row repeats line 1 in every column") {
		t.Errorf("duplicate Parquet row: %v", err)
	}
}
