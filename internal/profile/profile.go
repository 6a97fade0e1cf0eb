package profile

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/sim"
)

// Config are the constants of phases 1–3 (docs/reference/khaos.md §3–6); zero values take
// the reference's.
type Config struct {
	Steady khaos.SteadyConfig
	// Copies of the job replay the input, with CIs evenly spaced from MinCI
	// to MaxCI (numOfConfigs 8, 10 000 … 120 000 ms).
	Copies       int
	MinCI, MaxCI float64 // s
	// BeforeCheckpoint is how long before its next checkpoint each copy is
	// killed (chkTolerance 3 s).
	BeforeCheckpoint float64
	// Window is the pre-failure averaging window (300 s).
	Window float64
	// MinRecovery drops shorter recoveries from the recovery models (55 s).
	MinRecovery float64
	// Points, if set, skips phase 1 and uses these failure seconds.
	Points []int
	// Input, if set, is the recorded day phase 1 reads instead of the
	// scenario's schedule (records/s per second).
	Input   []float64
	Workers int
}

// withDefaults returns c with every zero field but Steady (SteadyState's
// own), Points and Input at the reference's value; a negative Workers counts
// as zero.
func (c Config) withDefaults() Config {
	c.Copies = cmp.Or(c.Copies, 8)
	c.MinCI = cmp.Or(c.MinCI, 10)
	c.MaxCI = cmp.Or(c.MaxCI, 120)
	c.BeforeCheckpoint = cmp.Or(c.BeforeCheckpoint, 3)
	c.Window = cmp.Or(c.Window, 300)
	c.MinRecovery = cmp.Or(c.MinRecovery, 55)
	c.Workers = cmp.Or(max(c.Workers, 0), runtime.GOMAXPROCS(0))
	return c
}

// Result is a finished profiling.
type Result struct {
	Points  []khaos.FailurePoint  `json:"failure_points"`
	CIs     []float64             `json:"checkpoint_intervals_s"`
	Samples []khaos.Sample        `json:"-"`
	Models  khaos.Models          `json:"models"`
	CV      khaos.CrossValidation `json:"cross_validation"`
	// Missed counts failures whose recovery never ended in the copy's run
	// (left out of the models).
	Missed int     `json:"missed"`
	WallS  float64 `json:"wall_time_s"`
	// ScenarioHash identifies the job and input profiled (Hash; set by Into).
	ScenarioHash string `json:"scenario_hash,omitempty"`
}

// CopyIntervals are the copies' CIs: step = round((max − min)/(k − 1)) in
// milliseconds, as Khaos spaces them (10 000, 25 714, …, 119 998 ms).
func CopyIntervals(k int, minS, maxS float64) []float64 {
	if k == 1 {
		return []float64{minS}
	}
	step := math.Round((maxS - minS) * 1000 / float64(k-1))
	out := make([]float64, k)
	for i := range out {
		out[i] = (minS*1000 + float64(i)*step) / 1000
	}
	return out
}

// Run profiles sc: phase 1 picks the failure points from the input,
// phase 2 replays it on the copies in parallel and kills each at every
// point, phase 3 fits the models.
func Run(sc scenario.Scenario, cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	start := time.Now()
	sched, err := sc.Resolve()
	if err != nil {
		return nil, err
	}
	r := &Result{CIs: CopyIntervals(cfg.Copies, cfg.MinCI, cfg.MaxCI)}
	if cfg.Points != nil {
		for _, s := range cfg.Points {
			r.Points = append(r.Points, khaos.FailurePoint{Second: s, Rate: sched.Rates.RateAt(float64(s))})
		}
	} else {
		input := cfg.Input
		if input == nil {
			input = sched.Rates.Rates
		}
		if r.Points, err = khaos.SteadyState(input, cfg.Steady, sim.Seeds{Root: sc.Seed}.Stream("khaos.steady-state")); err != nil {
			return nil, fmt.Errorf("phase 1 (steady state): %w", err)
		}
	}
	perCopy := make([][]khaos.Sample, len(r.CIs))
	missed := make([]int, len(r.CIs))
	errs := make([]error, len(r.CIs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(cfg.Workers, len(r.CIs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				perCopy[i], missed[i], errs[i] = chaos(sc, sched, r.CIs[i], r.Points, cfg)
			}
		}()
	}
	for i := range r.CIs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("phase 2, copy with CI %gs: %w", r.CIs[i], err)
		}
		r.Samples = append(r.Samples, perCopy[i]...)
		r.Missed += missed[i]
	}
	if r.Models, err = khaos.FitModels(r.Samples, cfg.MinRecovery, cfg.BeforeCheckpoint); err != nil {
		return nil, fmt.Errorf("phase 3 (models): %w", err)
	}
	if r.CV, err = khaos.CrossValidate(r.Samples, cfg.MinRecovery, cfg.BeforeCheckpoint); err != nil {
		return nil, fmt.Errorf("phase 3 (cross-validation): %w", err)
	}
	r.WallS = time.Since(start).Seconds()
	return r, nil
}

// chaos is one job copy of phase 2: the scenario's input and job at CI ci,
// a static policy, and a kill of the sink's TaskManager BeforeCheckpoint
// before the next checkpoint after every failure point.
func chaos(sc scenario.Scenario, sched *scenario.Schedule, ci float64, points []khaos.FailurePoint, cfg Config) ([]khaos.Sample, int, error) {
	sc.Job.Checkpoint.Interval = sim.Duration(ci)
	sc.Policy = scenario.PolicySpec{Name: "static"}
	sc.Variant = fmt.Sprintf("profile-ci%g", ci)
	sink := operatorOf(sc)
	s := &scenario.Schedule{Rates: sched.Rates}
	for i, p := range points {
		s.Faults = append(s.Faults, scenario.ScheduledFault{At: sim.Duration(p.Second), BeforeCheckpoint: sim.Duration(cfg.BeforeCheckpoint),
			TaskManager: -1, Operator: sink, Pick: -1, Source: fmt.Sprintf("khaos failure point %d", i)})
	}
	rec := &recorder{}
	if _, err := run.Stream(context.Background(), twin.Backend{}, sc, s, rec); err != nil {
		return nil, 0, err
	}
	var out []khaos.Sample
	missed := 0
	for _, at := range rec.faults {
		r, ok := rec.recoveryOf(at)
		if !ok {
			missed++
			continue
		}
		thr, lat := rec.before(at, cfg.Window)
		out = append(out, khaos.Sample{CheckpointIntervalS: ci, FaultAtS: at, Throughput: thr, LatencyMs: lat, RecoveryS: r})
	}
	return out, missed, nil
}

func operatorOf(sc scenario.Scenario) string { return sc.Job.Operators[len(sc.Job.Operators)-1].Name }

// recorder keeps what phase 2 measures of a copy's run.
type recorder struct {
	t, thr, lat []float64
	faults      []float64
	recovered   []results.Event
}

func (r *recorder) WriteSample(s results.Sample) error {
	r.t, r.thr, r.lat = append(r.t, s.TimeS), append(r.thr, s.Throughput), append(r.lat, s.LatencyMarkerP99Ms)
	return nil
}

func (r *recorder) WriteEvent(e results.Event) error {
	switch e.Kind {
	case results.KindFault:
		r.faults = append(r.faults, e.TimeS)
	case results.KindRecovered:
		r.recovered = append(r.recovered, e)
	}
	return nil
}

// recoveryOf finds the recovery that started at the fault at.
func (r *recorder) recoveryOf(at float64) (float64, bool) {
	for _, e := range r.recovered {
		if e.DurationS != nil && math.Abs(e.TimeS-*e.DurationS-at) < 1e-6 {
			return *e.DurationS, true
		}
	}
	return 0, false
}

// before is the mean throughput and mean latency-marker p99 over the window
// before at (Khaos stores avgThr and avgLat just before the kill).
func (r *recorder) before(at, window float64) (thr, lat float64) {
	i := sort.SearchFloat64s(r.t, at+1e-9)
	var n, nl int
	for j := i - 1; j >= 0 && r.t[j] > at-window; j-- {
		thr += r.thr[j]
		n++
		if !math.IsNaN(r.lat[j]) {
			lat += r.lat[j]
			nl++
		}
	}
	if nl == 0 {
		lat = math.NaN()
	} else {
		lat /= float64(nl)
	}
	return thr / math.Max(1, float64(n)), lat
}

// Files of a profile folder.
const (
	PointsFile    = "failure_points.csv"
	ProfilingFile = "profiling.parquet"
	ModelsFile    = "models.json"
)

type row struct {
	CheckpointIntervalS float64 `parquet:"checkpoint_interval_s"`
	FaultAtS            float64 `parquet:"fault_at_s"`
	Throughput          float64 `parquet:"throughput"`
	LatencyMs           float64 `parquet:"latency_ms"`
	RecoveryS           float64 `parquet:"recovery_s"`
}

// Write puts the profile into dir: the failure points (CSV), one row per
// profiled failure (Parquet), the models and their checks (JSON: the file
// `policy: {name: khaos, profile: …}` reads) and the model figures.
func (r *Result) Write(dir string) ([]string, error) {
	pts := "second,level,rate,avg_300\n"
	for _, p := range r.Points {
		pts += fmt.Sprintf("%d,%g,%g,%g\n", p.Second, p.Level, p.Rate, p.Avg)
	}
	rows := make([]row, len(r.Samples))
	for i, s := range r.Samples {
		rows[i] = row(s)
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files := []string{filepath.Join(dir, PointsFile), filepath.Join(dir, ProfilingFile), filepath.Join(dir, ModelsFile)}
	if err := results.WriteFileAtomic(files[0], []byte(pts)); err != nil {
		return nil, err
	}
	if err := results.WriteParquetFile(files[1], rows, "latency_ms"); err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(files[2], append(js, '\n')); err != nil {
		return nil, err
	}
	figs, err := r.plot(dir)
	return append(files, figs...), err
}

// ProfiledLabel names the profile's failure points in its figures: they
// come from the twin's chaos experiments, so never "measured".
const ProfiledLabel = "profiled (twin)"

func (r *Result) plot(dir string) ([]string, error) {
	var rec, lat []figures.FitPoint
	for _, s := range r.Samples {
		g := fmt.Sprintf("CI %g s", math.Round(s.CheckpointIntervalS*10)/10)
		if s.RecoveryS > r.Models.MinRecoveryS {
			rec = append(rec, figures.FitPoint{Group: g, X: s.Throughput, Measured: s.RecoveryS, Predicted: r.Models.Recovery.Predict(s.Throughput, s.CheckpointIntervalS)})
		}
		if !math.IsNaN(s.LatencyMs) {
			lat = append(lat, figures.FitPoint{Group: g, X: s.Throughput, Measured: s.LatencyMs, Predicted: r.Models.Latency.Predict(s.Throughput, s.CheckpointIntervalS)})
		}
	}
	// The profiled failures are the twin's own chaos experiments, not
	// measurements: the figures say so.
	profiled := figures.FitObserved(ProfiledLabel)
	out, err := figures.PlotFit(filepath.Join(dir, "recovery_model"), "Khaos recovery model (OLS) vs profiled failures (twin)", "recovery time (s)", "throughput (records/s)", rec, profiled)
	if err != nil {
		return out, err
	}
	more, err := figures.PlotFit(filepath.Join(dir, "latency_model"), "Khaos latency model (OLS) vs profiled failures (twin)", "latency p99 (ms)", "throughput (records/s)", lat, profiled)
	return append(out, more...), err
}
