package run

import (
	"context"
	"maps"
	"slices"

	"github.com/goccy/go-yaml"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/monitor"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// Output says how ToDir writes a run folder.
type Output struct {
	// Durable fsyncs the files (off for sweep runs, which a resume re-runs
	// when they are unreadable).
	Durable bool
	// Force writes the run's files into a folder holding files streamtwin
	// did not write, beside them (see results.CreateRun).
	Force bool
	// Files are extra files (name → content) the folder gets with the run,
	// atomically (a sweep's params.json).
	Files map[string][]byte
	// Monitoring evaluates a monitoring section after the run, on its load
	// (one value per second): the evaluation and extra files. nil: the
	// twin's, monitor.Evaluate on metrics derived from the load; a live
	// run's evaluates Prometheus's real metrics (live/scrape.Session).
	Monitoring func(load []float64) (*monitor.Evaluation, map[string][]byte, error)
}

// ToDir runs sc on backend b into the run folder dir, the one way a run
// folder is written: it resolves sc, prepares the run (policy, capability
// check; a refusal leaves no folder), creates the folder
// (results.CreateRun), has b stream the rows into it and commits the
// summary and the resolved scenario.yaml, atomically: the folder appears
// complete or not at all.
func ToDir(ctx context.Context, b Backend, sc scenario.Scenario, dir string, out Output) (results.Summary, error) {
	sched, err := sc.Resolve()
	if err != nil {
		return results.Summary{}, err
	}
	resolved, err := yaml.Marshal(sc)
	if err != nil {
		return results.Summary{}, err
	}
	p, err := Prepare(ctx, b, sc, sched)
	if err != nil {
		return results.Summary{}, err
	}
	w, err := results.CreateRun(dir, out.Force)
	if err != nil {
		return results.Summary{}, err
	}
	defer w.Abort()
	if !out.Durable {
		w.SkipSync()
	}
	for _, name := range slices.Sorted(maps.Keys(out.Files)) {
		if err := w.WriteFile(name, out.Files[name]); err != nil {
			return results.Summary{}, err
		}
	}
	var sink Sink = w
	var load *loadTee
	if sc.Monitoring != nil {
		load = &loadTee{Sink: w, input: sc.Monitoring.Load == "input_rate"}
		sink = load
	}
	sum, err := p.execute(ctx, b, sink)
	if err != nil {
		return results.Summary{}, err
	}
	if load != nil {
		if err := writeMonitoring(w, sc, load.rates, out.Monitoring); err != nil {
			return results.Summary{}, err
		}
	}
	return sum, w.Commit(sum, resolved)
}

// loadTee keeps the load that drives a monitoring section's host metrics:
// one value per sample (the section needs the default 1 s interval).
type loadTee struct {
	Sink
	input bool // input_rate, not throughput
	rates []float64
}

func (l *loadTee) WriteSample(s results.Sample) error {
	v := s.Throughput
	if l.input {
		v = s.InputRate
	}
	l.rates = append(l.rates, v)
	return l.Sink.WriteSample(s)
}

// writeMonitoring evaluates the monitoring section on the run's load and
// adds hostmetrics.parquet, tradeoff.csv and tradeoff.parquet (and the
// evaluation's extra files) to the run folder, committed with it.
func writeMonitoring(w *results.RunWriter, sc scenario.Scenario, load []float64, evaluate func([]float64) (*monitor.Evaluation, map[string][]byte, error)) error {
	if evaluate == nil {
		evaluate = func(load []float64) (*monitor.Evaluation, map[string][]byte, error) {
			ev, err := monitor.Evaluate(*sc.Monitoring, load, sim.Seeds{Root: sc.Seed}, 0)
			return ev, nil, err
		}
	}
	ev, extra, err := evaluate(load)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		if err := w.WriteFile(name, extra[name]); err != nil {
			return err
		}
	}
	host, err := results.ParquetBytes(ev.HostSamples(load))
	if err != nil {
		return err
	}
	trade, err := results.ParquetBytes(ev.Rows, "mae", "mape")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{results.HostMetricsFile: host, results.TradeoffParquet: trade, results.TradeoffCSV: results.TradeoffCSVBytes(ev.Rows)} {
		if err := w.WriteFile(name, data); err != nil {
			return err
		}
	}
	return nil
}
