package monitor

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/streamtwin/streamtwin/models/forecast"
	"github.com/streamtwin/streamtwin/models/forecast/external"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// Evaluation is a monitoring section's outcome on one run.
type Evaluation struct {
	Spec  Spec        // with its defaults
	Truth [][]float64 // per metric of Spec.Metrics, one value per second of the run
	peaks []float64   // per metric, its peak threshold over the evaluated part
	Rows  []results.TradeoffRow
}

// HostSamples is hostmetrics.parquet: the load and every metric's truth.
func (e *Evaluation) HostSamples(load []float64) []results.HostSample {
	out := make([]results.HostSample, 0, len(load)*(1+len(e.Truth)))
	for t, l := range load {
		out = append(out, results.HostSample{TimeS: float64(t + 1), Metric: "load", Value: l})
		for i, m := range e.Spec.Metrics {
			out = append(out, results.HostSample{TimeS: float64(t + 1), Metric: m.Name, Value: e.Truth[i][t]})
		}
	}
	return out
}

// Evaluate derives the section's metrics from load (records/s, one value
// per second of the run), fits the forecasters and scales on the training
// part, and replays every sampler at every parameter value on every metric
// over the rest, in parallel (workers ≤ 0: one per core). The result is the
// same for any number of workers: each replay has its own random stream.
func Evaluate(spec Spec, load []float64, seeds sim.Seeds, workers int) (*Evaluation, error) {
	spec = spec.WithDefaults()
	train := int(spec.Train)
	if train <= 0 || train >= len(load) {
		return nil, fmt.Errorf("monitoring.train %v: must be within the run's %d s", spec.Train, len(load))
	}
	ev := &Evaluation{Spec: spec, Truth: make([][]float64, len(spec.Metrics))}
	for i, m := range spec.Metrics {
		ev.Truth[i] = m.Generate(load, seeds.Stream("monitor/metric/"+m.Name))
		ev.peaks = append(ev.peaks, results.Quantile(slices.Sorted(slices.Values(ev.Truth[i][train:])), spec.PeakQuantile))
	}
	type job struct {
		metric, sampler int
		param           float64
		row             results.TradeoffRow
		scraped         int
		err             error
	}
	var jobs []*job
	for si, ss := range spec.Samplers {
		for _, p := range ss.params() {
			for mi := range spec.Metrics {
				jobs = append(jobs, &job{metric: mi, sampler: si, param: p})
			}
		}
	}
	// forecasters are fitted once per metric and forecaster on the training
	// part, and shared by the replays of every threshold
	fitted := map[[2]int]forecast.Quantiler{}
	for _, j := range jobs {
		ss := spec.Samplers[j.sampler]
		if ss.Kind != "forecast" || ss.Forecaster == "external" {
			continue
		}
		key := [2]int{j.metric, j.sampler}
		if fitted[key] == nil {
			q, err := ss.quantiler(ev.Truth[j.metric][:train])
			if err != nil {
				return nil, fmt.Errorf("monitoring.samplers: %s on %s: %w", ss.Name, spec.Metrics[j.metric].Name, err)
			}
			fitted[key] = q
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan *job)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				j.err = ev.replay(j.metric, spec.Samplers[j.sampler], j.param, fitted[[2]int{j.metric, j.sampler}], train, seeds, &j.row, &j.scraped)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	// rows in job order, and per sampler and parameter the "all" row: bytes
	// summed over the metrics, MAPE and missed peaks averaged and summed
	for i := 0; i < len(jobs); i += len(spec.Metrics) {
		group := jobs[i : i+len(spec.Metrics)]
		all := results.TradeoffRow{Sampler: group[0].row.Sampler, ParamName: group[0].row.ParamName, Param: group[0].param, Metric: "all", MAE: math.NaN()}
		var bytes, full, mape, samples float64
		for _, j := range group {
			if j.err != nil {
				return nil, j.err
			}
			b := spec.Metrics[j.metric].Bytes
			n := float64(len(load) - train)
			bytes += b * float64(j.scraped)
			full += b * n
			samples += j.row.SamplesShare
			mape += j.row.MAPE
			all.MissedPeaks += j.row.MissedPeaks
			all.Peaks += j.row.Peaks
		}
		all.SamplesShare, all.MAPE = samples/float64(len(group)), mape/float64(len(group))
		all.BytesShare = all.SamplesShare
		if full > 0 {
			all.BytesShare = bytes / full
		}
		ev.Rows = append(ev.Rows, all)
		for _, j := range group {
			ev.Rows = append(ev.Rows, j.row)
		}
	}
	return ev, nil
}

// replay runs one sampler at one parameter value on one metric's evaluated part.
func (ev *Evaluation) replay(mi int, ss SamplerSpec, param float64, q forecast.Quantiler, train int, seeds sim.Seeds, row *results.TradeoffRow, scraped *int) error {
	m := ev.Spec.Metrics[mi]
	truth := ev.Truth[mi][train:]
	*row = results.TradeoffRow{Sampler: ss.Name, ParamName: ss.paramName(), Param: param, Metric: m.Name}
	var s Sampler
	var err error
	switch ss.Kind {
	case "fixed":
		s, err = NewFixed(int(param))
	case "adam":
		c := DefaultAdaM(ss.TMax)
		c.Gamma = param
		s, err = NewAdaM(c)
	case "forecast":
		if ss.Forecaster == "external" {
			x, xerr := external.New(*ss.External)
			if xerr != nil {
				return xerr
			}
			defer x.Close()
			q = x
		}
		lo, hi := minMax(ev.Truth[mi][:train])
		s, err = NewForecastRule(ForecastConfig{Quantiler: q, Scale: Scale{Min: lo, Max: hi}, Threshold: param,
			Predict: ss.Predict, Fetch: ss.Fetch, History: ss.history(), Samples: ss.Samples, Prior: ev.Truth[mi][:train], FillMedian: ss.Fill == "median",
			Rand: seeds.Stream(fmt.Sprintf("monitor/%s/%s/%g", ss.Name, m.Name, param))})
	}
	if err != nil {
		return fmt.Errorf("monitoring.samplers: %s at %s %g: %w", ss.Name, ss.paramName(), param, err)
	}
	res := Replay(truth, s)
	// a forecast that failed made the rule fetch: a cost the sampler did not
	// earn, so the run says so rather than report it
	if fr, ok := s.(*ForecastRule); ok {
		if n, err := fr.QuantilerErrors(); n > 0 {
			return fmt.Errorf("monitoring.samplers: %s on %s at threshold %g: %d forecasts failed; the last: %w", ss.Name, m.Name, param, n, err)
		}
	}
	peak := ev.peaks[mi]
	mae, mape, missed := Errors(truth, res.Recon, peak)
	*scraped = res.Count
	row.SamplesShare = float64(res.Count) / float64(len(truth))
	row.BytesShare = row.SamplesShare
	row.MAE, row.MAPE, row.MissedPeaks, row.Peaks = mae, mape, int32(missed), int32(peaksAbove(truth, peak))
	return nil
}

// peaksAbove counts the maximal runs of seconds above peak.
func peaksAbove(truth []float64, peak float64) int {
	n, above := 0, false
	for _, v := range truth {
		if v > peak && !above {
			n++
		}
		above = v > peak
	}
	return n
}

func minMax(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// params are the parameter values a sampler is replayed at.
func (ss SamplerSpec) params() []float64 {
	switch ss.Kind {
	case "fixed":
		out := make([]float64, len(ss.Intervals))
		for i, v := range ss.Intervals {
			out[i] = float64(v)
		}
		return out
	case "adam":
		return ss.Gammas
	}
	return ss.Thresholds
}

func (ss SamplerSpec) paramName() string {
	switch ss.Kind {
	case "fixed":
		return "interval_s"
	case "adam":
		return "gamma"
	}
	return "threshold"
}

// history is how many values the forecaster sees: a seasonal model two
// seasons and its level window, the others the fetched window.
func (ss SamplerSpec) history() int {
	if ss.Forecaster == "seasonal" {
		return 2*ss.Period + seasonalWindow
	}
	return ss.Fetch
}

// The seasonal model's level window and pooled phases (s).
const seasonalWindow, seasonalHalfwidth = 60, 2

// quantiler fits the spec's forecaster to one metric's training part.
func (ss SamplerSpec) quantiler(train []float64) (forecast.Quantiler, error) {
	switch ss.Forecaster {
	case "seasonal":
		return forecast.NewSeasonal(ss.Period, seasonalWindow, seasonalHalfwidth)
	case "quantreg":
		return forecast.NewQuantReg(train, ss.Lags, forecast.DefaultLevels)
	case "arima":
		return forecast.NewAutoARIMAQuantiler(train, 3, 3)
	}
	return nil, fmt.Errorf("forecaster %q", ss.Forecaster)
}
