package ingest

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

func TestReadMeasuredSeries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.csv")
	src := "# Khaos-style series\ntime_s,throughput,lag,input_rate,latency_ms\n1,1000,0,1000,500\n2, 990 ,10,1000,\n3,NaN,,1000,\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMeasuredSeries(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Throughput != 990 || got[1].Lag != 10 || got[0].LatencyP99Ms != 500 || got[0].InputRate != 1000 ||
		!math.IsNaN(got[1].LatencyP99Ms) || !math.IsNaN(got[2].Throughput) || !math.IsNaN(got[2].Lag) || !math.IsNaN(got[0].LatencyMeanMs) {
		t.Errorf("got %+v", got)
	}
	// without optional columns the input rate is unknown (NaN)
	s, err := parseSeriesCSV("m.csv", strings.NewReader("lag,time_s,throughput\n0,1,5\n"))
	if err != nil || s[0].TimeS != 1 || s[0].Throughput != 5 || !math.IsNaN(s[0].InputRate) {
		t.Errorf("got %+v, %v", s, err)
	}

	// a timeseries.parquet round-trips
	pq := filepath.Join(dir, results.TimeseriesFile)
	want := make([]results.Sample, 30)
	for i := range want {
		want[i] = results.Sample{TimeS: float64(i + 1), InputRate: 1000, Throughput: 1000, LatencyMeanMs: 300, LatencyP99Ms: 500, LatencyP50Ms: math.NaN(), LatencyMarkerP99Ms: math.NaN()}
	}
	if err := results.WriteParquetFile(pq, want, "latency_mean_ms", "latency_p50_ms", "latency_p99_ms", "latency_marker_p99_ms"); err != nil {
		t.Fatal(err)
	}
	back, err := ReadMeasuredSeries(pq)
	if err != nil || len(back) != 30 {
		t.Fatalf("parquet: %d samples, %v", len(back), err)
	}
	if b, w := back[29], want[29]; b.TimeS != w.TimeS || b.Throughput != w.Throughput || b.InputRate != w.InputRate || !math.IsNaN(b.LatencyP50Ms) {
		t.Errorf("parquet: got %+v, want %+v", b, w)
	}
}

func TestReadMeasuredSeriesErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"empty", "", "m.csv: no rows: the file is empty; the first line must be the header (the table needs time_s, throughput, lag"},
		{"no rows", "time_s,throughput,lag\n", "m.csv: no rows"},
		{"unknown column", "time_s,throughput,lagg\n", `m.csv:1: unknown column "lagg"`},
		{"missing column", "time_s,throughput\n", "m.csv:1: missing column lag"},
		{"duplicate column", "time_s,lag,throughput,lag\n", "m.csv:1: column lag appears twice"},
		{"not a number", "time_s,throughput,lag\n1,1,1\n2,abc,1\n", `m.csv:3: throughput: "abc" is not a number`},
		{"negative lag", "time_s,throughput,lag\n1,1,-4\n", "m.csv:2: lag: must be ≥ 0, got -4"},
		{"empty time", "time_s,throughput,lag\n,1,1\n", `m.csv:2: time_s: "" is not a number`},
		{"times must increase", "time_s,throughput,lag\n1,1,1\n# gap\n1,1,1\n", "m.csv:4: time_s: 1 does not follow 1"},
		{"field count", "time_s,throughput,lag\n1,1\n", "m.csv:2: 2 fields, but the header has 3"},
		{"bad quote", "time_s,throughput,lag\n1,\"1,1\n", "m.csv:2:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseSeriesCSV("m.csv", strings.NewReader(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	if _, err := ReadMeasuredSeries("m.txt"); err == nil || !strings.Contains(err.Error(), `unknown series format ".txt"`) {
		t.Errorf("extension: %v", err)
	}
}
