package validate

import (
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/sim"
)

// KindAutoscaler is the protocol kind of a dataset of long autoscaled runs:
// the job's capacity is calibrated on a static run of the same schedule,
// then the twin runs the autoscaler and predicts the measured runs'
// TaskManager-seconds, rescales and time at each TaskManager count.
const KindAutoscaler = "autoscaler"

// AutoscalerProtocol is an autoscaler dataset's part of the protocol.
type AutoscalerProtocol struct {
	// Calibrate: the scenario variant of the static run and its measured
	// series (StaticRun), and optionally other runs for the upgrade.
	Calibrate struct {
		StaticRun `yaml:",inline"`
		// Upgrades are other runs of the same job on the same cluster
		// whose restarts on new TaskManagers (measure.ColdStarts) give the
		// upgrade's downtime and warm-up: each a registered-TaskManager
		// and a throughput series (timestamp,value). Optional; the
		// scenario's cluster.submit and upgrade_warmup otherwise.
		Upgrades []UpgradeRun `yaml:"upgrades"`
	} `yaml:"calibrate"`
	// Predict: the scenario variant of the autoscaled runs, and each
	// measured run's registered-TaskManager series (timestamp,value).
	Predict struct {
		Variant string   `yaml:"variant"`
		Runs    []string `yaml:"runs"`
		// Lag are the same runs' consumer lag series, in their order
		// (Kafka's records-lag-max averaged over the source subtasks: a
		// lag per partition, measure.LagStats). Optional.
		Lag []string `yaml:"lag"`
	} `yaml:"predict"`
	// Hold is how long a TaskManager count must hold to count as settled
	// (measure.WorkersOf; default 120 s).
	Hold sim.Duration `yaml:"hold"`
}

// UpgradeRun is a measured run's pair of series for ColdStarts.
type UpgradeRun struct {
	TaskManagers string `yaml:"task_managers"`
	Throughput   string `yaml:"throughput"`
}

// UpgradeCalibration is what the upgrade runs gave: the medians over their
// cold starts, and the twin's upgrade downtime they set cluster.submit to
// match (the median of its reconfigurations' downtimes).
type UpgradeCalibration struct {
	ColdStarts   int     `json:"cold_starts"`
	DowntimeS    float64 `json:"downtime_s"`
	StartShare   float64 `json:"start_share"`
	RampS        float64 `json:"ramp_s"`
	SubmitS      float64 `json:"submit_s"`
	TwinDowntime float64 `json:"twin_downtime_s"`
}

// RunStats are one run's workers, measured or predicted.
type RunStats struct {
	Name     string            `json:"name"`
	TMSecs   float64           `json:"taskmanager_seconds"`
	Rescales int               `json:"rescales"`
	TimeAt   map[int]float64   `json:"time_at_count"`
	Lag      *measure.LagStats `json:"lag_per_partition,omitempty"`
}

// AutoscalerResult is an autoscaler dataset's validation: the calibrated
// cost, the twin's run and the measured ones.
type AutoscalerResult struct {
	// CPU is the job's CPU calibrated on the static run.
	CPU CPUCalibration `json:"cpu"`
	// Upgrades is the upgrade calibration, when the protocol has one.
	Upgrades *UpgradeCalibration `json:"upgrades,omitempty"`
	Twin     RunStats            `json:"twin"`
	Measured []RunStats          `json:"measured"`
	// errors of the twin against the measured runs' mean: relative
	// TaskManager-seconds and rescales, and the total-variation distance of
	// the time-at-count distributions (against their mean distribution)
	TMSecsError   float64 `json:"taskmanager_seconds_error"`
	RescalesError float64 `json:"rescales_error"`
	TVDistance    float64 `json:"time_at_count_tv_distance"`
	// LagError is the relative error of the twin's lag per partition
	// (mean and 95th percentile) against the measured runs' mean, when
	// the protocol has their lag.
	LagError *measure.LagStats `json:"lag_error,omitempty"`
}

// runAutoscaler calibrates the job's CPU on the static run
// (calibrateCPU), runs the autoscaled variant with it, and measures both
// sides with measure.WorkersOf.
func runAutoscaler(p *Protocol, o Options) (*AutoscalerResult, error) {
	a := p.Autoscaler
	data, err := os.ReadFile(p.Path(p.Scenario))
	if err != nil {
		return nil, &InputError{err}
	}
	load := func(variant string) (scenario.Scenario, error) {
		sc, err := scenario.ParseRun(p.Path(p.Scenario), data, variant, nil)
		if err != nil {
			return sc, &InputError{err}
		}
		return sc, nil
	}
	static, err := load(a.Calibrate.Variant)
	if err != nil {
		return nil, err
	}
	scaled, err := load(a.Predict.Variant)
	if err != nil {
		return nil, err
	}
	r := &AutoscalerResult{}
	if r.CPU, err = calibrateCPU(&static, p, a.Calibrate.StaticRun); err != nil {
		return nil, err
	}
	o.log("%s: %s", p.Name, r.CPU)
	hold := float64(cmp.Or(a.Hold, 120))
	scaled.Job.CostScale, scaled.Job.Cluster.IdleCPU = static.Job.CostScale, static.Job.Cluster.IdleCPU
	var samples []results.Sample
	if len(a.Calibrate.Upgrades) > 0 {
		if r.Upgrades, samples, err = calibrateUpgrades(p, &scaled); err != nil {
			return nil, err
		}
		u := r.Upgrades
		o.log("%s: %d cold starts: downtime %.0f s, warm-up %.0f s from %.2f; cluster.submit %.1f s (twin's upgrade downtime %.0f s)",
			p.Name, u.ColdStarts, u.DowntimeS, u.RampS, u.StartShare, u.SubmitS, u.TwinDowntime)
	}
	if samples == nil {
		if _, samples, _, err = runTwin(scaled); err != nil {
			return nil, err
		}
	}
	w := measure.WorkersOf(samples, hold)
	r.Twin = RunStats{Name: "twin", TMSecs: w.Seconds, Rescales: w.Rescales, TimeAt: w.TimeAt}
	if len(a.Predict.Lag) > 0 {
		lags := make([]float64, len(samples))
		for i, s := range samples {
			lags[i] = measure.PartitionLag(s, scaled.Kafka.Partitions)
		}
		l := measure.LagStatsOf(lags)
		r.Twin.Lag = &l
	}
	mean := map[int]float64{}
	var tm, resc float64
	for _, path := range a.Predict.Runs {
		series, err := readSeries(p.Path(path))
		if err != nil {
			return nil, &InputError{err}
		}
		var ss []results.Sample
		for _, s := range series {
			ss = append(ss, results.Sample{TimeS: s.t - series[0].t, Workers: int32(math.Round(s.value))})
		}
		w := measure.WorkersOf(ss, hold)
		r.Measured = append(r.Measured, RunStats{Name: path, TMSecs: w.Seconds, Rescales: w.Rescales, TimeAt: w.TimeAt})
		n := float64(len(a.Predict.Runs))
		tm, resc = tm+w.Seconds/n, resc+float64(w.Rescales)/n
		for k, v := range w.TimeAt {
			mean[k] += v / n
		}
	}
	if len(a.Predict.Lag) > 0 {
		var mean measure.LagStats
		for i, path := range a.Predict.Lag {
			series, err := readSeries(p.Path(path))
			if err != nil {
				return nil, &InputError{err}
			}
			lags := make([]float64, len(series))
			for k, s := range series {
				lags[k] = s.value
			}
			l := measure.LagStatsOf(lags)
			r.Measured[i].Lag = &l
			mean.Mean += l.Mean / float64(len(a.Predict.Lag))
			mean.P95 += l.P95 / float64(len(a.Predict.Lag))
		}
		r.LagError = &measure.LagStats{Mean: r.Twin.Lag.Mean/mean.Mean - 1, P95: r.Twin.Lag.P95/mean.P95 - 1}
	}
	r.TMSecsError = (r.Twin.TMSecs - tm) / tm
	r.RescalesError = (float64(r.Twin.Rescales) - resc) / resc
	r.TVDistance = measure.TotalVariation(r.Twin.TimeAt, mean)
	return r, nil
}

// calibrateUpgrades measures the cold starts of the protocol's upgrade
// runs and sets sc's upgrade warm-up to their medians and its
// cluster.submit so that the twin's median upgrade downtime is theirs,
// both read by measure.RestartsAt (the twin's at its reconfiguration
// requests). It returns the samples of the twin's run with the final
// values.
func calibrateUpgrades(p *Protocol, sc *scenario.Scenario) (*UpgradeCalibration, []results.Sample, error) {
	var cs []measure.ColdStart
	for _, u := range p.Autoscaler.Calibrate.Upgrades {
		tms, err := readSeries(p.Path(u.TaskManagers))
		if err != nil {
			return nil, nil, &InputError{err}
		}
		thr, err := readSeries(p.Path(u.Throughput))
		if err != nil {
			return nil, nil, &InputError{err}
		}
		cs = append(cs, measure.ColdStarts(merge(column{tms, setWorkers, true}, column{thr, setThroughput, false}))...)
	}
	if len(cs) == 0 {
		return nil, nil, &InputError{fmt.Errorf("%s: no cold start (every TaskManager gone, then back) in the upgrade runs", p.position("autoscaler.calibrate.upgrades"))}
	}
	med := func(cs []measure.ColdStart, f func(measure.ColdStart) float64) float64 {
		xs := make([]float64, len(cs))
		for i, c := range cs {
			xs[i] = f(c)
		}
		return median(xs)
	}
	downtime := func(c measure.ColdStart) float64 { return c.DowntimeS }
	u := &UpgradeCalibration{ColdStarts: len(cs), DowntimeS: med(cs, downtime),
		StartShare: med(cs, func(c measure.ColdStart) float64 { return c.StartShare }), RampS: med(cs, func(c measure.ColdStart) float64 { return c.RampS })}
	sc.Job.Cluster.UpgradeWarmup, sc.Job.Cluster.UpgradeWarmupStart = sim.Duration(u.RampS), u.StartShare
	var samples []results.Sample
	down := func() (float64, error) {
		_, ss, events, err := runTwin(*sc)
		if err != nil {
			return 0, err
		}
		samples = ss
		var at []float64
		for _, e := range events {
			if e.Kind == results.KindReconfigured && e.DurationS != nil {
				at = append(at, e.TimeS-*e.DurationS)
			}
		}
		rs := measure.RestartsAt(ss, at)
		if len(rs) == 0 {
			return 0, fmt.Errorf("%s: the twin's autoscaled run never rescaled: no upgrade downtime to match", p.Name)
		}
		return med(rs, downtime), nil
	}
	d, err := down()
	if err != nil {
		return nil, nil, err
	}
	// the downtime is additive in submit, but a longer one changes which
	// rescales the run makes, and so the median: a few corrections
	for range 4 {
		if math.Abs(d-u.DowntimeS) < 0.5 {
			break
		}
		sc.Job.Cluster.Submit = sim.Duration(math.Max(0, float64(sc.Job.Cluster.Submit)+u.DowntimeS-d))
		if d, err = down(); err != nil {
			return nil, nil, err
		}
	}
	u.SubmitS, u.TwinDowntime = float64(sc.Job.Cluster.Submit), d
	return u, samples, nil
}

func median(xs []float64) float64 { return statistics.Quantile(slices.Clone(xs), 0.5) }

// runTwin runs sc in memory and keeps its samples and events.
func runTwin(sc scenario.Scenario) (results.Summary, []results.Sample, []results.Event, error) {
	sched, err := sc.Resolve()
	if err != nil {
		return results.Summary{}, nil, nil, err
	}
	var keep sampleKeeper
	sum, err := run.Stream(context.Background(), twin.Backend{}, sc, sched, &keep)
	return sum, keep.samples, keep.events, err
}

type sampleKeeper struct {
	samples []results.Sample
	events  []results.Event
}

func (k *sampleKeeper) WriteSample(s results.Sample) error {
	k.samples = append(k.samples, s)
	return nil
}

func (k *sampleKeeper) WriteEvent(e results.Event) error {
	k.events = append(k.events, e)
	return nil
}

type point struct{ t, value float64 }

// readSeries reads a measured series of rows timestamp,value (unix
// seconds; .csv or .csv.gz): duplicate timestamps dropped (the first
// kept), sorted by time (an export of several segments runs backwards
// between them), NaN values dropped. Times stay unix seconds, so that
// series of one run line up (merge counts from the earliest).
func readSeries(path string) ([]point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	var pts []point
	seen := map[float64]bool{}
	err = ingest.ReadCSVTable(filepath.Base(path), r, []string{"timestamp", "value"}, []string{"timestamp", "value"}, func(line int, cells map[string]string) error {
		t, err1 := strconv.ParseFloat(cells["timestamp"], 64)
		v, err2 := strconv.ParseFloat(cells["value"], 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("want numbers, got %q,%q", cells["timestamp"], cells["value"])
		}
		if !seen[t] && !math.IsNaN(v) {
			seen[t] = true
			pts = append(pts, point{t, v})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	slices.SortFunc(pts, func(a, b point) int { return int(math.Copysign(1, a.t-b.t)) })
	return pts, nil
}
