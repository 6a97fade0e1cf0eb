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
	"github.com/streamtwin/streamtwin/results/statistics"
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
// per second of the run) and evaluates them (EvaluateTruth).
func Evaluate(spec Spec, load []float64, seeds sim.Seeds, workers int) (*Evaluation, error) {
	spec = spec.WithDefaults()
	truth := make([][]float64, len(spec.Metrics))
	for i, m := range spec.Metrics {
		truth[i] = m.Generate(load, seeds.Stream("monitor/metric/"+m.Name))
	}
	return EvaluateTruth(spec, truth, seeds, workers)
}

// EvaluateTruth fits the forecasters and scales on the training part of
// truth (per metric of the section, one value per second of the run: the
// twin's, or a live run's from Prometheus) and replays every sampler at
// every parameter value on every metric over the rest, in parallel
// (workers ≤ 0: one per core). The result is the same for any number of
// workers: each replay has its own random stream.
func EvaluateTruth(spec Spec, truth [][]float64, seeds sim.Seeds, workers int) (*Evaluation, error) {
	spec = spec.WithDefaults()
	if len(truth) != len(spec.Metrics) {
		return nil, fmt.Errorf("monitoring: %d series of ground truth for %d metrics", len(truth), len(spec.Metrics))
	}
	n := len(truth[0])
	train := int(spec.Train)
	if train <= 0 || train >= n {
		return nil, fmt.Errorf("monitoring.train %v: must be within the run's %d s", spec.Train, n)
	}
	ev := &Evaluation{Spec: spec, Truth: truth}
	for i := range spec.Metrics {
		if len(truth[i]) != n {
			return nil, fmt.Errorf("monitoring: ground truth of %s has %d s, of %s %d s", spec.Metrics[i].Name, len(truth[i]), spec.Metrics[0].Name, n)
		}
		ev.peaks = append(ev.peaks, statistics.Quantile(slices.Sorted(slices.Values(truth[i][train:])), spec.PeakQuantile))
	}
	type job struct {
		metric, sampler int
		param           float64
		row             results.TradeoffRow
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
			q, err := ss.fit(spec.Metrics[j.metric].Name, ev.TrainPart(j.metric))
			if err != nil {
				return nil, err
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
				j.row, j.err = ev.replay(j.metric, spec.Samplers[j.sampler], j.param, fitted[[2]int{j.metric, j.sampler}], train, seeds)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	// rows in job order, and per sampler and parameter the "all" row first
	for i := 0; i < len(jobs); i += len(spec.Metrics) {
		group := make([]results.TradeoffRow, 0, len(spec.Metrics))
		for _, j := range jobs[i : i+len(spec.Metrics)] {
			if j.err != nil {
				return nil, j.err
			}
			group = append(group, j.row)
		}
		ev.Rows = append(ev.Rows, ev.AllRow(group))
		ev.Rows = append(ev.Rows, group...)
	}
	return ev, nil
}

// replay runs one sampler at one parameter value on one metric's evaluated part.
func (ev *Evaluation) replay(mi int, ss SamplerSpec, param float64, q forecast.Quantiler, train int, seeds sim.Seeds) (results.TradeoffRow, error) {
	s, closer, err := ss.build(ev.Spec.Metrics[mi].Name, param, q, ev.TrainPart(mi), seeds)
	if err != nil {
		return results.TradeoffRow{}, err
	}
	defer closer()
	res := Replay(ev.Truth[mi][train:], s)
	// a forecast that failed made the rule fetch: a cost the sampler did not
	// earn, so the run says so rather than report it
	if fr, ok := s.(*ForecastRule); ok {
		if n, err := fr.QuantilerErrors(); n > 0 {
			return results.TradeoffRow{}, fmt.Errorf("monitoring.samplers: %s on %s at threshold %g: %d forecasts failed; the last: %w", ss.Name, ev.Spec.Metrics[mi].Name, param, n, err)
		}
	}
	return ev.Row(mi, ss.Name, ss.paramName(), param, res), nil
}

// AllRow is the row of metric "all" of one sampler at one parameter value,
// from its rows of every metric of the section, in the section's order:
// bytes summed over the metrics (each metric's share weighted by its bytes
// per scrape), samples share and MAPE averaged, missed peaks summed.
func (ev *Evaluation) AllRow(group []results.TradeoffRow) results.TradeoffRow {
	all := results.TradeoffRow{Sampler: group[0].Sampler, ParamName: group[0].ParamName, Param: group[0].Param, Metric: "all", MAE: math.NaN()}
	var bytes, full, mape, samples float64
	for i, r := range group {
		b := ev.Spec.Metrics[i].Bytes
		bytes += b * r.BytesShare
		full += b
		samples += r.SamplesShare
		mape += r.MAPE
		all.MissedPeaks += r.MissedPeaks
		all.Peaks += r.Peaks
	}
	all.SamplesShare, all.MAPE = samples/float64(len(group)), mape/float64(len(group))
	all.BytesShare = all.SamplesShare
	if full > 0 {
		all.BytesShare = bytes / full
	}
	return all
}

// TrainPart is metric mi's training part: its truth from the warm-up's end
// to the training part's.
func (ev *Evaluation) TrainPart(mi int) []float64 {
	return ev.Truth[mi][int(ev.Spec.Warmup):int(ev.Spec.Train)]
}

// Row scores a run of a sampler on metric mi's evaluated part (a replay's,
// or a live run's Reconstruct) against the truth: samples share, MAE, MAPE,
// peaks missed. BytesShare is the samples share (one metric's scrapes all
// weigh the same).
func (ev *Evaluation) Row(mi int, sampler, paramName string, param float64, res Result) results.TradeoffRow {
	truth := ev.Truth[mi][int(ev.Spec.Train):]
	peak := ev.peaks[mi]
	mae, mape, missed := Errors(truth, res.Recon, peak)
	share := float64(res.Count) / float64(len(truth))
	return results.TradeoffRow{Sampler: sampler, ParamName: paramName, Param: param, Metric: ev.Spec.Metrics[mi].Name,
		SamplesShare: share, BytesShare: share, MAE: mae, MAPE: mape, MissedPeaks: int32(missed), Peaks: int32(peaksAbove(truth, peak))}
}

// LiveSamplers are the section's live sampler (Spec.Live) for each metric,
// built on train (per metric, the training part of its ground truth, from
// the warm-up's end: Evaluation.TrainPart) as
// the replay of that sampler builds them, with the same random streams: on
// the same points they take the same decisions. Close ends an external
// forecaster's processes.
func (s Spec) LiveSamplers(train [][]float64, seeds sim.Seeds) (samplers []Sampler, closeAll func(), err error) {
	s = s.WithDefaults()
	if s.Live == nil {
		return nil, nil, fmt.Errorf("monitoring.live: missing")
	}
	ss, ok := s.sampler(s.Live.Sampler)
	if !ok {
		return nil, nil, fmt.Errorf("monitoring.live.sampler: %q is none of the section's samplers", s.Live.Sampler)
	}
	var closers []func()
	closeAll = func() {
		for _, c := range closers {
			c()
		}
	}
	for i, m := range s.Metrics {
		var q forecast.Quantiler
		if ss.Kind == "forecast" && ss.Forecaster != "external" {
			if q, err = ss.fit(m.Name, train[i]); err != nil {
				closeAll()
				return nil, nil, err
			}
		}
		smp, c, err := ss.build(m.Name, s.Live.Param, q, train[i], seeds)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		samplers, closers = append(samplers, smp), append(closers, c)
	}
	return samplers, closeAll, nil
}

// ParamName is the name of the sampler's parameter (interval_s, gamma,
// threshold), a tradeoff row's param_name.
func (ss SamplerSpec) ParamName() string { return ss.paramName() }

// Sampler is the section's sampler named name (after WithDefaults).
func (s Spec) Sampler(name string) (SamplerSpec, bool) { return s.WithDefaults().sampler(name) }

// build is the sampler at param for the metric whose training part is
// train; q is its fitted forecaster (nil unless a forecast sampler's, and
// for an external one, which build starts: close ends it).
func (ss SamplerSpec) build(metric string, param float64, q forecast.Quantiler, train []float64, seeds sim.Seeds) (Sampler, func(), error) {
	var s Sampler
	var err error
	closer := func() {}
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
				return nil, nil, xerr
			}
			closer = func() { x.Close() }
			q = x
		}
		lo, hi := minMax(train)
		s, err = NewForecastRule(ForecastConfig{Quantiler: q, Scale: Scale{Min: lo, Max: hi}, Threshold: param,
			Predict: ss.Predict, Fetch: ss.Fetch, History: ss.history(), Samples: ss.Samples, Prior: train, FillMedian: ss.Fill == "median",
			Rand: seeds.Stream(fmt.Sprintf("monitor/%s/%s/%g", ss.Name, metric, param))})
	default:
		err = fmt.Errorf("kind %q", ss.Kind)
	}
	if err != nil {
		closer()
		return nil, nil, fmt.Errorf("monitoring.samplers: %s at %s %g: %w", ss.Name, ss.paramName(), param, err)
	}
	return s, closer, nil
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

// fit fits the spec's forecaster to one metric's training part.
func (ss SamplerSpec) fit(metric string, train []float64) (q forecast.Quantiler, err error) {
	switch ss.Forecaster {
	case "seasonal":
		q, err = forecast.NewSeasonal(ss.Period, seasonalWindow, seasonalHalfwidth)
	case "quantreg":
		q, err = forecast.NewQuantReg(train, ss.Lags, forecast.DefaultLevels)
	case "arima":
		q, err = forecast.NewAutoARIMAQuantiler(train, 3, 3)
	default:
		err = fmt.Errorf("forecaster %q", ss.Forecaster)
	}
	if err != nil {
		return nil, fmt.Errorf("monitoring.samplers: %s on %s: %w", ss.Name, metric, err)
	}
	return q, nil
}
