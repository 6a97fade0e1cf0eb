package results

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// RecoveryOptions tune DetectRecovery; zero values take the defaults.
type RecoveryOptions struct {
	Baseline float64 // s of samples before the fault that define pre-fault behaviour (default 300, Khaos's averaging window)
	Hold     int     // consecutive normal samples that end the anomaly (default 15, Khaos's TOLERANCE; recovery ends at the first of them)
	LagSlack float64 // a sample is normal when lag ≤ baseline lag quantile-95 × (1+LagSlack) + floor (default LagSlack 0.1)
	// LagFloor is the floor in records (default 1000), raised to ThrSlack ×
	// reference × sample interval: the backlog a stall short enough to keep
	// the throughput in its band leaves at a sample's end. A checkpoint's
	// synchronous phase is such a stall; whether the lag sampled at the
	// interval end catches it depends on the trigger phase, which a restart
	// shifts, so the baseline may not show it.
	LagFloor float64
	// ThrSlack: and throughput ≥ (1−ThrSlack) × reference and ≤ (1+ThrSlack)
	// × reference (default 0.1). Throughput both too low (down) and too high
	// (catching up) is anomalous, like Khaos's detector. The reference is the
	// sample's InputRate when positive (a caught-up job consumes what
	// arrives), else the baseline mean throughput.
	ThrSlack float64
	// ResumedS, when > 0, is the time the job ran again (a reconfigured job
	// resubmitted from its savepoint): samples before it are anomalous and
	// the recovery ends no earlier. A stop-with-savepoint keeps processing
	// until the savepoint completes, so without it the first seconds after
	// the decision look normal and would end the anomaly at once.
	ResumedS float64
	// Latency is the column (one of LatencyKinds) averaged into
	// PreLatencyMs. "": the latency markers when the series has them (what
	// Khaos recorded), else the event-time p99, else the mean.
	Latency string
}

// Recovery is what DetectRecovery found for one fault.
type Recovery struct {
	// RecoveryS is the start of the closing run of normal samples − the fault
	// time; NaN if not recovered before the series ends. A sample covers the
	// interval that ends at its TimeS, so the run starts at the end of the
	// sample before it: with 1-s samples the recovery end is resolved to the
	// first whole second after the backlog is gone.
	FaultAtS, RecoveryS         float64
	PreThroughput, PreLatencyMs float64 // means over the baseline window (the latency column RecoveryOptions.Latency picks; NaN if none)
	PreLag                      float64 // records: 95 % quantile of the lag over the baseline window, the reference of the lag test
}

// minBaselineSamples is the fewest usable samples that define pre-fault
// behaviour; fewer make the quantile and the mean noise.
const minBaselineSamples = 10

func (o RecoveryOptions) withDefaults() (RecoveryOptions, error) {
	switch {
	case o.Baseline < 0, math.IsNaN(o.Baseline):
		return o, fmt.Errorf("RecoveryOptions.Baseline must be a positive number of seconds, got %v", o.Baseline)
	case o.Hold < 0:
		return o, fmt.Errorf("RecoveryOptions.Hold must be a positive number of samples, got %d", o.Hold)
	case o.LagSlack < 0, math.IsNaN(o.LagSlack):
		return o, fmt.Errorf("RecoveryOptions.LagSlack must be ≥ 0, got %v", o.LagSlack)
	case o.LagFloor < 0, math.IsNaN(o.LagFloor):
		return o, fmt.Errorf("RecoveryOptions.LagFloor must be ≥ 0 records, got %v", o.LagFloor)
	case o.ResumedS < 0, math.IsNaN(o.ResumedS):
		return o, fmt.Errorf("RecoveryOptions.ResumedS must be a time ≥ 0 s, got %v", o.ResumedS)
	case o.ThrSlack < 0, o.ThrSlack >= 1, math.IsNaN(o.ThrSlack):
		return o, fmt.Errorf("RecoveryOptions.ThrSlack must be in [0, 1), got %v", o.ThrSlack)
	case o.Latency != "" && !slices.Contains(LatencyKinds, o.Latency):
		return o, fmt.Errorf("RecoveryOptions.Latency must be one of %s, got %q", strings.Join(LatencyKinds, ", "), o.Latency)
	}
	o.Baseline = cmp.Or(o.Baseline, 300)
	o.LagSlack = cmp.Or(o.LagSlack, 0.1)
	o.LagFloor = cmp.Or(o.LagFloor, 1000)
	o.ThrSlack = cmp.Or(o.ThrSlack, 0.1)
	o.Hold = cmp.Or(o.Hold, 15)
	return o, nil
}

// DetectRecovery measures the recovery from the fault at faultAtS the way
// the simulator ends one (lag back at its pre-fault level, models/flink), made
// robust to noise as Khaos's detector is: scanning from the first sample
// after the fault, the anomaly ends with opt.Hold consecutive normal samples
// (shorter normal runs are part of it); NaN throughput or lag is anomalous.
// samples must be sorted by TimeS.
func DetectRecovery(samples []Sample, faultAtS float64, opt RecoveryOptions) (Recovery, error) {
	rec := Recovery{FaultAtS: faultAtS, RecoveryS: math.NaN()}
	o, err := opt.withDefaults()
	if err == nil {
		err = checkSeries(samples, faultAtS)
	}
	if err != nil {
		return rec, fmt.Errorf("results: recovery from the fault at %gs: %w", faultAtS, err)
	}
	first := sort.Search(len(samples), func(i int) bool { return samples[i].TimeS > faultAtS })
	intervalS, err := rec.baseline(samples[:first], faultAtS, o.Baseline, o.Latency)
	if err != nil {
		return rec, fmt.Errorf("results: recovery from the fault at %gs: %w", faultAtS, err)
	}
	normal := func(s Sample) bool {
		ref := rec.PreThroughput
		if s.InputRate > 0 {
			ref = s.InputRate
		}
		lagMax := rec.PreLag*(1+o.LagSlack) + math.Max(o.LagFloor, o.ThrSlack*ref*intervalS)
		// NaN fails every comparison, so missing values are anomalous.
		return s.Lag <= lagMax && s.Throughput >= (1-o.ThrSlack)*ref && s.Throughput <= (1+o.ThrSlack)*ref
	}
	run := 0
	for i := first; i < len(samples); i++ {
		if samples[i].TimeS < o.ResumedS || !normal(samples[i]) {
			run = 0
			continue
		}
		if run++; run == o.Hold {
			// first ≥ minBaselineSamples, so start−1 exists.
			start := i - o.Hold + 1
			rec.RecoveryS = math.Max(0, math.Max(samples[start-1].TimeS, o.ResumedS)-faultAtS)
			break
		}
	}
	return rec, nil
}

func checkSeries(samples []Sample, faultAtS float64) error {
	if len(samples) == 0 {
		return errors.New("no samples")
	}
	for i, s := range samples {
		if math.IsNaN(s.TimeS) || math.IsInf(s.TimeS, 0) {
			return fmt.Errorf("sample %d has time_s %v; times must be finite", i, s.TimeS)
		}
		if i > 0 && s.TimeS <= samples[i-1].TimeS {
			return fmt.Errorf("samples are not sorted by time_s: sample %d (t=%gs) follows t=%gs; sort them and drop duplicates", i, s.TimeS, samples[i-1].TimeS)
		}
	}
	if lo, hi := samples[0].TimeS, samples[len(samples)-1].TimeS; math.IsNaN(faultAtS) || faultAtS < lo || faultAtS >= hi {
		return fmt.Errorf("the fault lies outside the series (samples from %gs to %gs, and one must follow the fault)", lo, hi)
	}
	return nil
}

// baseline fills the Pre* fields from the samples of the window
// (faultAtS−window, faultAtS] that have both throughput and lag, and returns
// their mean spacing.
func (rec *Recovery) baseline(before []Sample, faultAtS, window float64, latency string) (intervalS float64, err error) {
	var thr, lags, times []float64
	lat := map[string][]float64{}
	for _, s := range before {
		if s.TimeS <= faultAtS-window || math.IsNaN(s.Throughput) || math.IsNaN(s.Lag) {
			continue
		}
		thr = append(thr, s.Throughput)
		lags = append(lags, s.Lag)
		times = append(times, s.TimeS)
		for _, k := range LatencyKinds {
			lat[k] = AppendFinite(lat[k], s.Latency(k))
		}
	}
	if len(thr) < minBaselineSamples {
		return 0, fmt.Errorf("only %d samples with throughput and lag in the %gs before the fault, need at least %d (start the series earlier or shorten RecoveryOptions.Baseline)",
			len(thr), window, minBaselineSamples)
	}
	rec.PreThroughput = FiniteMean(thr)
	rec.PreLag = Quantile(lags, 0.95)
	if latency == "" {
		// what Khaos's avgLat is: latency markers, else the event-time p99
		latency = "mean"
		for _, k := range []string{"marker", "p99"} {
			if len(lat[k]) > 0 {
				latency = k
				break
			}
		}
	}
	rec.PreLatencyMs = FiniteMean(lat[latency])
	return (times[len(times)-1] - times[0]) / float64(len(times)-1), nil
}

// WriteParquetFile writes rows as one parquet file, atomically, with the
// writer options of the run files (fixed created_by, zstd). nanColumns may
// hold NaN, so they get no min/max statistics (DuckDB would trust them to
// mean "no NaN here", see writerOptions).
func WriteParquetFile[T any](path string, rows []T, nanColumns ...string) error {
	data, err := ParquetBytes(rows, nanColumns...)
	if err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return WriteFileAtomic(path, data)
}

// ParquetBytes is WriteParquetFile's content, for a file that goes into a
// run folder with the run (twin.Output.Files).
func ParquetBytes[T any](rows []T, nanColumns ...string) ([]byte, error) {
	opts := writerOptions()
	for _, c := range nanColumns {
		opts = append(opts, parquet.SkipPageBounds(c), parquet.SkipPageStatistics(c))
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	_, err := w.Write(rows)
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadMeasuredSeries reads a measured run as Samples: a timeseries.parquet of
// ours (any backend), or a CSV with header time_s,throughput,lag[,latency_ms][,input_rate]
// (comma separated; errors name file:line:column).
//
// CSV cells may be empty or NaN (a missing metric, anomalous for
// DetectRecovery) except time_s, which must increase. latency_ms becomes
// LatencyMarkerP99Ms and LatencyP99Ms (Khaos's latency is the p99
// latency-marker latency at the sink); columns the CSV lacks, and the other
// latencies, are NaN.
func ReadMeasuredSeries(path string) ([]Sample, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return ReadSamples(path)
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

func parseSeriesCSV(name string, r io.Reader) ([]Sample, error) {
	var out []Sample
	err := ReadCSVTable(name, r, seriesColumns, seriesColumns[:3], func(_ int, cells map[string]string) error {
		nan := math.NaN()
		s := Sample{InputRate: nan, LatencyMeanMs: nan, LatencyP50Ms: nan, LatencyP99Ms: nan}
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
