package monitor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamtwin/streamtwin/models/forecast/external"
	"github.com/streamtwin/streamtwin/models/hostmetrics"
	"github.com/streamtwin/streamtwin/sim"
)

// Spec is a scenario's monitoring section: which host metrics the twin
// derives from the job's load, which samplers are replayed on them, and
// how long the first part of the run trains the forecasters (the rest is
// evaluated).
type Spec struct {
	// Train is the first part of the run, used to set the metrics' scales
	// and to fit the forecasters; the samplers are evaluated on the rest.
	Train sim.Duration `yaml:"train"`
	// Warmup is the first part of the training part left out of it: a
	// live job's deployment (the jar's upload, the first records) spikes
	// the metrics, and one spike would stretch a min-max scale.
	Warmup sim.Duration `yaml:"warmup,omitempty"`
	// Load drives the metrics: throughput (records/s the job processes, the
	// default) or input_rate.
	Load string `yaml:"load,omitempty"`
	// Metrics are the monitored metrics (default: hostmetrics.Defaults()).
	Metrics []hostmetrics.Relation `yaml:"metrics,omitempty"`
	// PeakQuantile sets each metric's peak threshold: its quantile over the
	// evaluated truth (default 0.95).
	PeakQuantile float64 `yaml:"peak_quantile,omitempty"`
	// Samplers are replayed on every metric, each at every parameter value.
	Samplers []SamplerSpec `yaml:"samplers"`
	// Live is the sampler that turns Prometheus's scraping on and off in a
	// live run (streamtwin live run); every sampler is still replayed on
	// the run's real ground truth. The twin does not use it.
	Live *LiveSampler `yaml:"live,omitempty"`
}

// LiveSampler names one sampler of the section (its name) at one of its
// parameter values.
type LiveSampler struct {
	Sampler string  `yaml:"sampler"`
	Param   float64 `yaml:"param"`
}

// SamplerSpec is one sampler and the parameter values it is replayed at.
type SamplerSpec struct {
	// Kind is fixed, adam or forecast.
	Kind string `yaml:"kind"`
	// Name labels its rows (default: the kind; forecast-<forecaster>).
	Name string `yaml:"name,omitempty"`
	// Intervals are fixed's scrape intervals (s).
	Intervals []int `yaml:"intervals,omitempty"`
	// Gammas are AdaM's tolerated imprecision γ; TMax its longest period (s).
	Gammas []float64 `yaml:"gammas,omitempty"`
	TMax   int       `yaml:"t_max,omitempty"`
	// Thresholds are the forecast rule's std thresholds (min-max scaled).
	Thresholds []float64 `yaml:"thresholds,omitempty"`
	// Forecaster is seasonal (default), quantreg, arima or external.
	Forecaster string `yaml:"forecaster,omitempty"`
	// Predict and Fetch are the rule's window lengths (s): a confident
	// window skips Predict seconds, an uncertain one scrapes Fetch seconds
	// (the deployed 420 and 360 by default). Samples is the draws per step.
	Predict int `yaml:"predict,omitempty"`
	Fetch   int `yaml:"fetch,omitempty"`
	Samples int `yaml:"samples,omitempty"`
	// Fill is what a skipped second is taken to be: draw (one draw of the
	// forecast, the reference's) or median.
	Fill string `yaml:"fill,omitempty"`
	// Period is the seasonal forecaster's season (s; default 1440, the
	// compressed day); Lags the quantile regression's (default 10).
	Period int `yaml:"period,omitempty"`
	Lags   int `yaml:"lags,omitempty"`
	// External is the forecaster process of forecaster: external.
	External *external.Settings `yaml:"external,omitempty"`
}

// Defaults of a Spec.
const (
	DefaultPeakQuantile = 0.95
	DefaultPredict      = 420
	DefaultFetch        = 360
	DefaultSamples      = 100
	DefaultPeriod       = 1440
	DefaultLags         = 10
	DefaultTMax         = 60
)

// WithDefaults fills in what the section leaves out.
func (s Spec) WithDefaults() Spec {
	if s.Load == "" {
		s.Load = "throughput"
	}
	if len(s.Metrics) == 0 {
		s.Metrics = hostmetrics.Defaults()
	}
	if s.PeakQuantile == 0 {
		s.PeakQuantile = DefaultPeakQuantile
	}
	for i := range s.Samplers {
		ss := &s.Samplers[i]
		if ss.Kind == "forecast" {
			ss.Forecaster = orString(ss.Forecaster, "seasonal")
			ss.Predict, ss.Fetch, ss.Samples = orInt(ss.Predict, DefaultPredict), orInt(ss.Fetch, DefaultFetch), orInt(ss.Samples, DefaultSamples)
			ss.Period, ss.Lags = orInt(ss.Period, DefaultPeriod), orInt(ss.Lags, DefaultLags)
			ss.Fill = orString(ss.Fill, "draw")
			if ss.Name == "" {
				ss.Name = "forecast-" + ss.Forecaster
				if ss.Fill == "median" {
					ss.Name += "-median"
				}
			}
		}
		if ss.Kind == "adam" {
			ss.TMax = orInt(ss.TMax, DefaultTMax)
		}
		ss.Name = orString(ss.Name, ss.Kind)
	}
	return s
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func orString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Problems lists what is wrong with the section of a run of duration s, as
// field (below monitoring.) → message; nil when nothing is.
func (s Spec) Problems(duration float64) map[string]string {
	e := map[string]string{}
	if s.Train <= 0 || float64(s.Train) >= duration {
		e["train"] = fmt.Sprintf("must be within the run (0 < train < %gs): the first part fits the forecasters and the scales, the rest is evaluated; got %v", duration, s.Train)
	}
	if s.Warmup < 0 || (s.Warmup > 0 && s.Warmup >= s.Train) {
		e["warmup"] = fmt.Sprintf("must be within the training part (0 ≤ warmup < train %v): it is left out of it; got %v", s.Train, s.Warmup)
	}
	if s.Load != "" && s.Load != "throughput" && s.Load != "input_rate" {
		e["load"] = fmt.Sprintf("must be throughput or input_rate, got %q", s.Load)
	}
	if s.PeakQuantile < 0 || s.PeakQuantile >= 1 {
		e["peak_quantile"] = fmt.Sprintf("must be in (0, 1), got %g", s.PeakQuantile)
	}
	seen := map[string]bool{}
	for i, m := range s.Metrics {
		if err := m.Validate(); err != nil {
			e[fmt.Sprintf("metrics[%d]", i)] = err.Error()
		}
		if seen[m.Name] {
			e[fmt.Sprintf("metrics[%d].name", i)] = fmt.Sprintf("%q twice", m.Name)
		}
		seen[m.Name] = true
	}
	if len(s.Samplers) == 0 {
		e["samplers"] = "missing: e.g. [{kind: fixed, intervals: [1, 5, 15, 60]}, {kind: forecast, thresholds: [0.01, 0.02]}]"
	}
	for i, ss := range s.Samplers {
		at := fmt.Sprintf("samplers[%d]", i)
		switch ss.Kind {
		case "fixed":
			if len(ss.Intervals) == 0 {
				e[at+".intervals"] = "missing: the scrape intervals in s, e.g. [1, 5, 15, 60]"
			}
			for j, v := range ss.Intervals {
				if v < 1 {
					e[fmt.Sprintf("%s.intervals[%d]", at, j)] = fmt.Sprintf("must be at least 1 s, got %d", v)
				}
			}
		case "adam":
			if len(ss.Gammas) == 0 {
				e[at+".gammas"] = "missing: AdaM's tolerated imprecision, e.g. [0.05, 0.1, 0.2]"
			}
			for j, v := range ss.Gammas {
				if !(v > 0 && v < 1) {
					e[fmt.Sprintf("%s.gammas[%d]", at, j)] = fmt.Sprintf("must be in (0, 1), got %g", v)
				}
			}
			if ss.TMax < 0 {
				e[at+".t_max"] = fmt.Sprintf("must be at least 1 s, got %d", ss.TMax)
			}
		case "forecast":
			if len(ss.Thresholds) == 0 {
				e[at+".thresholds"] = "missing: std thresholds in min-max scaled units, e.g. [0.01, 0.02, 0.04]"
			}
			for j, v := range ss.Thresholds {
				if !(v > 0) {
					e[fmt.Sprintf("%s.thresholds[%d]", at, j)] = fmt.Sprintf("must be positive, got %g", v)
				}
			}
			if ss.Fill != "" && ss.Fill != "draw" && ss.Fill != "median" {
				e[at+".fill"] = fmt.Sprintf("must be draw or median, got %q", ss.Fill)
			}
			switch ss.Forecaster {
			case "", "seasonal", "quantreg", "arima":
			case "external":
				if ss.External == nil || len(ss.External.Command) == 0 {
					e[at+".external.command"] = "missing: the forecaster process, e.g. [python3, my_forecaster.py]"
				}
			default:
				e[at+".forecaster"] = fmt.Sprintf("must be seasonal, quantreg, arima or external, got %q", ss.Forecaster)
			}
			for name, v := range map[string]int{"predict": ss.Predict, "fetch": ss.Fetch, "samples": ss.Samples, "period": ss.Period, "lags": ss.Lags} {
				if v < 0 {
					e[at+"."+name] = fmt.Sprintf("must be positive, got %d", v)
				}
			}
		default:
			e[at+".kind"] = fmt.Sprintf("must be fixed, adam or forecast, got %q", ss.Kind)
		}
	}
	if l := s.Live; l != nil {
		if ss, ok := s.WithDefaults().sampler(l.Sampler); !ok {
			e["live.sampler"] = fmt.Sprintf("%q is none of the section's samplers (%s)", l.Sampler, strings.Join(s.WithDefaults().samplerNames(), ", "))
		} else if !slices.Contains(ss.params(), l.Param) {
			e["live.param"] = fmt.Sprintf("%g is none of %s's %ss %v: the live run is compared with its replay", l.Param, ss.Name, ss.paramName(), ss.params())
		}
	}
	if len(e) == 0 {
		return nil
	}
	return e
}

// LiveProblems lists, as Problems does, what a live run needs of the
// section beyond what the twin does: the live sampler, and each metric's
// query and families.
func (s Spec) LiveProblems() map[string]string {
	e := map[string]string{}
	if s.Live == nil {
		e["live"] = "missing: a live run turns Prometheus's scraping on and off with one sampler at one parameter value, e.g. {sampler: adam, param: 0.1}"
	}
	for i, m := range s.WithDefaults().Metrics {
		at := fmt.Sprintf("metrics[%d]", i)
		if !strings.Contains(m.Query, "$job") {
			e[at+".query"] = fmt.Sprintf("%s: a live run needs the metric in PromQL with $job for the scrape job, e.g. sum(irate(node_disk_read_bytes_total{job=\"$job\"}[10m])); got %q", m.Name, m.Query)
		}
		if len(m.Families) == 0 {
			e[at+".families"] = fmt.Sprintf("%s: a live run needs the metric families the sampler turns on and off, e.g. [node_disk_read_bytes_total]", m.Name)
		}
	}
	if len(e) == 0 {
		return nil
	}
	return e
}

// sampler is the sampler of the section named name (after WithDefaults).
func (s Spec) sampler(name string) (SamplerSpec, bool) {
	for _, ss := range s.Samplers {
		if ss.Name == name {
			return ss, true
		}
	}
	return SamplerSpec{}, false
}

func (s Spec) samplerNames() []string {
	var out []string
	for _, ss := range s.Samplers {
		out = append(out, ss.Name)
	}
	return out
}
