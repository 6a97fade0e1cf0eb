package ingest

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
)

// ReadMeasuredSeries reads a measured run as Samples: a timeseries.parquet of
// ours (any backend), or a CSV with header time_s,throughput,lag[,latency_ms][,input_rate]
// (comma separated; errors name file:line:column).
//
// CSV cells may be empty or NaN (a missing metric, anomalous for
// DetectRecovery) except time_s, which must increase. latency_ms becomes
// LatencyMarkerP99Ms and LatencyP99Ms (Khaos's latency is the p99
// latency-marker latency at the sink); columns the CSV lacks, and the other
// latencies, are NaN.
func ReadMeasuredSeries(path string) ([]results.Sample, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return results.ReadSamples(path)
	case ".csv":
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		defer f.Close()
		return parseSeriesCSV(path, f)
	}
	return nil, fmt.Errorf("results: %s: unknown series format %q (use .parquet for a timeseries.parquet or .csv)", path, filepath.Ext(path))
}

// seriesColumns are the CSV columns of a measured series; the first three
// are required.
var seriesColumns = []string{"time_s", "throughput", "lag", "latency_ms", "input_rate"}

func parseSeriesCSV(name string, r io.Reader) ([]results.Sample, error) {
	var out []results.Sample
	err := ReadCSVTable(name, r, seriesColumns, seriesColumns[:3], func(_ int, cells map[string]string) error {
		nan := math.NaN()
		s := results.Sample{InputRate: nan, LatencyMeanMs: nan, LatencyP50Ms: nan, LatencyP99Ms: nan}
		for _, c := range seriesColumns {
			cell, ok := cells[c]
			if !ok {
				continue
			}
			v, err := seriesCell(c, cell)
			if err != nil {
				return err
			}
			switch c {
			case "time_s":
				s.TimeS = v
			case "throughput":
				s.Throughput = v
			case "lag":
				s.Lag = v
			case "latency_ms":
				s.LatencyP99Ms = v
			case "input_rate":
				s.InputRate = v
			}
		}
		if n := len(out); n > 0 && s.TimeS <= out[n-1].TimeS {
			return fmt.Errorf("time_s: %g does not follow %g; times must increase", s.TimeS, out[n-1].TimeS)
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// seriesCell parses one number: empty or NaN is a missing value (not for
// time_s); anything else must be finite and, but for time_s, ≥ 0.
func seriesCell(col, cell string) (float64, error) {
	if cell == "" && col != "time_s" {
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(cell, 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: %q is not a number", col, cell)
	case math.IsNaN(v) && col != "time_s":
		return v, nil
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%s: must be a finite number, got %v", col, cell)
	case v < 0 && col != "time_s":
		return 0, fmt.Errorf("%s: must be ≥ 0, got %v", col, v)
	}
	return v, nil
}
