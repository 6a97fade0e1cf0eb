package twin

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/streamtwin/streamtwin/internal/control"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/monitor"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// Sink receives the rows of a run (results.RunWriter is one).
type Sink interface {
	WriteSample(results.Sample) error
	WriteEvent(results.Event) error
}

// ErrStopRun, returned by a Sink's WriteSample or WriteEvent, says the sink
// has all it needs: Run stops the simulation at the simulated time of that
// write (a recovery event, dated when lag was back, is written by the
// sample that sees it, up to a second later), finishes the job there (the
// rest of that instant's rows and the run-end events still reach the sink)
// and returns the summary of the shortened run without an error. The rows
// up to then are those of the full run: a sink that needs only the start of
// a run (a calibration point, up to its recovery) saves the rest.
var ErrStopRun = errors.New("twin: the sink has all it needs; stop the run")

// Output says how RunToDir and RunToDirWith write a run folder.
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
	// run's evaluates Prometheus's real metrics (live/monitor.Session).
	Monitoring func(load []float64) (*monitor.Evaluation, map[string][]byte, error)
}

// Executor carries out a resolved scenario and streams its rows to sink: Run
// for the simulator, a closure over driver.Run for the live backend.
type Executor func(sc scenario.Scenario, schedule *scenario.Schedule, sink Sink) (results.Summary, error)

// RunToDir simulates sc into the run folder dir, atomically: the folder
// appears complete or not at all.
func RunToDir(sc scenario.Scenario, dir string, out Output) (results.Summary, error) {
	return RunToDirWith(Run, sc, dir, out)
}

// RunToDirWith is the one way a run folder is written, whatever executes
// the run: it resolves sc, creates the folder (results.CreateRun), has exec
// stream the rows into it and commits the summary and the resolved
// scenario.yaml, atomically: the folder appears complete or not at all.
func RunToDirWith(exec Executor, sc scenario.Scenario, dir string, out Output) (results.Summary, error) {
	sched, err := sc.Resolve()
	if err != nil {
		return results.Summary{}, err
	}
	resolved, err := yaml.Marshal(sc)
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
	sum, err := exec(sc, sched, sink)
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

// Run simulates sc on schedule and streams its rows to sink. It returns the
// run's summary (wall time included).
func Run(sc scenario.Scenario, schedule *scenario.Schedule, sink Sink) (results.Summary, error) {
	start := time.Now()
	env := sim.NewEnv()
	defer env.Close()
	seeds := sim.Seeds{Root: sc.Seed}
	r := &recorder{env: env, sink: sink, sum: results.NewSummarizer(sc.Name, sc.Variant, "sim", sc.Seed,
		1000*float64(sc.QoS.Latency), float64(sc.QoS.Recovery), int(float64(sc.Duration)/float64(sc.MetricInterval))+1)}
	stream, err := results.NewRecoveryStream(results.RecoveryOptions{}, results.Summarized{Summary: r.sum, Out: sink})
	if err != nil {
		return results.Summary{}, err
	}
	r.stream = stream
	job, err := flink.NewJob(env, sc.Job, sc.Kafka, schedule.Rates, seeds, r,
		flink.Options{MetricInterval: float64(sc.MetricInterval), Duration: float64(sc.Duration)})
	if err != nil {
		return results.Summary{}, err
	}
	pol, err := policy.New(sc.Policy.Name, sc.Policy.Node, seeds.Stream("policy"))
	if err != nil {
		return results.Summary{}, err
	}
	r.ctl = control.New(&backend{env: env, job: job, rec: r}, pol, schedule)
	if err := r.ctl.Start(control.Info(sc, Capabilities(), "sim")); err != nil {
		return results.Summary{}, err
	}
	env.RunUntil(float64(sc.Duration) + 1e-9)
	job.Finish()
	r.ctl.End(r.err)
	if r.err != nil {
		return results.Summary{}, r.err
	}
	end := float64(sc.Duration)
	if env.Stopped() {
		end = env.Now()
	}
	sum := r.sum.Summary(end, time.Since(start).Seconds())
	sum.RecordsReplayed = results.CountOf(job.Replayed())
	return sum, nil
}

// Capabilities: the simulator carries out every action and fault.
func Capabilities() control.Capabilities { return control.Everything("the simulator") }

// recorder tees model output to the policy window and, through the
// recovery stream, to the summary and the sink. Recovery is measured as
// for a live run: results.RecoveryStream applies the detector to the
// samples on their way to the sink (recovered and unrecovered events, the
// samples' recovering flag); the model's own end of a recovery is written
// as its diagnostic, a model_recovered event.
type recorder struct {
	env    *sim.Env
	sink   Sink
	sum    *results.Summarizer
	ctl    *control.Controller
	stream *results.RecoveryStream
	// down holds the rows from the first sample of the job down (stopping,
	// restarting, restoring) until it runs again: a reconfiguration's
	// recovery begins at its stop request, which the model's reconfigured
	// event tells only at its end (as the time since), and the detector
	// must have it before any sample after it.
	down []heldRow
	err  error
}

// heldRow is a sample, an event or the start of a reconfiguration's
// recovery (begin: at atS, resumed at resumedS). Values, not pointers: a
// pointer to the argument would move every sample to the heap.
type heldRow struct {
	what          int // heldSample, heldEvent or heldBegin
	sample        results.Sample
	event         results.Event
	atS, resumedS float64
	reason        string
}

const (
	heldSample = iota
	heldEvent
	heldBegin
)

// Sample: the policy sees it at once (with the model's recovering flag,
// what it knows then); the files get it through the stream.
func (r *recorder) Sample(s results.Sample) {
	r.ctl.Observe(s)
	if s.JobState != flink.StateRunning && s.JobState != flink.StateFailed {
		r.down = append(r.down, heldRow{what: heldSample, sample: s})
		return
	}
	r.flushDown()
	r.sinkSaid(r.stream.Sample(s))
}

func (r *recorder) Event(e results.Event) {
	switch e.Kind {
	case results.KindRecovered:
		e.Kind = results.KindModelRecovered
	case results.KindUnrecovered:
		return // the stream closes what the detector has open at run_end
	case results.KindReconfigured:
		if e.DurationS != nil {
			r.beginReconfiguration(e.TimeS-*e.DurationS, e.TimeS, "reconfiguration: "+e.Reason)
		}
	}
	if len(r.down) > 0 && e.Kind != results.KindRunEnd {
		r.down = append(r.down, heldRow{what: heldEvent, event: e})
		return
	}
	r.flushDown()
	r.sinkSaid(r.stream.Event(e))
}

// beginReconfiguration puts the begin before the first held sample after
// atS: the samples of the job down are all held, so none has passed yet.
func (r *recorder) beginReconfiguration(atS, resumedS float64, reason string) {
	b := heldRow{what: heldBegin, atS: atS, resumedS: resumedS, reason: reason}
	i := slices.IndexFunc(r.down, func(h heldRow) bool { return h.what == heldSample && h.sample.TimeS > atS })
	if i < 0 {
		if len(r.down) == 0 {
			r.sinkSaid(r.stream.Begin(atS, resumedS, reason))
			return
		}
		i = len(r.down)
	}
	r.down = slices.Insert(r.down, i, b)
}

// flushDown passes the held rows on: the job runs (or failed for good), so
// every begin among them is known.
func (r *recorder) flushDown() {
	for _, h := range r.down {
		switch h.what {
		case heldSample:
			r.sinkSaid(r.stream.Sample(h.sample))
		case heldEvent:
			r.sinkSaid(r.stream.Event(h.event))
		default:
			r.sinkSaid(r.stream.Begin(h.atS, h.resumedS, h.reason))
		}
	}
	clear(r.down)
	r.down = r.down[:0]
}

// sinkSaid handles a sink's answer: ErrStopRun stops the simulation, any
// other error fails the run (the first one is kept).
func (r *recorder) sinkSaid(err error) {
	switch {
	case err == nil:
	case errors.Is(err, ErrStopRun):
		r.env.Stop()
	case r.err == nil:
		r.err = err
	}
}

// backend is the simulated job as the controller drives it.
type backend struct {
	env *sim.Env
	job *flink.Job
	rec *recorder
}

func dur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func (b *backend) Now() float64                           { return b.env.Now() }
func (b *backend) At(t float64, fn func())                { b.env.At(t, fn) }
func (b *backend) Every(start, period float64, fn func()) { b.env.Every(start, period, fn) }
func (b *backend) Start()                                 { b.job.Start() }
func (b *backend) NextCheckpointDue() (float64, bool)     { return b.job.NextCheckpointDue() }
func (b *backend) OnCheckpointTrigger(fn func())          { b.job.OnCheckpointTrigger(fn) }
func (b *backend) TaskManagers() int                      { return b.job.TaskManagers() }
func (b *backend) TaskManagerOf(op string) (int, error)   { return b.job.TaskManagerOf(op) }
func (b *backend) Record(e results.Event)                 { b.rec.Event(e) }

// Inject starts fault f in the model (models/flink: Crash, Freeze,
// Throttle, BrokerDown, CrashJobManager, StorageDown, NetworkDelay).
func (b *backend) Inject(f scenario.ScheduledFault, tm int, reason string) error {
	switch f.Kind {
	case scenario.FaultTaskManager:
		return b.job.Crash(tm, reason)
	case scenario.FaultFreeze:
		return b.job.Freeze(tm, f.Duration, reason)
	case scenario.FaultCPUThrottle:
		return b.job.Throttle(tm, f.Share, f.Duration, reason)
	case scenario.FaultKafkaBroker:
		b.job.BrokerDown(f.Duration, reason)
	case scenario.FaultJobManager:
		b.job.CrashJobManager(reason)
	case scenario.FaultCheckpointStorage:
		b.job.StorageDown(f.Duration, reason)
	case scenario.FaultNetworkDelay:
		return b.job.NetworkDelay(tm, f.Duration, f.Delay, reason)
	default:
		return fmt.Errorf("unknown fault kind %q", f.Kind)
	}
	return nil
}

func (b *backend) Reconfigure(ci float64, par int, vertices map[string]int, reason string) error {
	return b.job.Reconfigure(ci, par, vertices, reason)
}

func (b *backend) TriggerSavepoint(reason string) error {
	b.job.TriggerSavepoint(reason)
	return nil
}

// Fail ends the simulation now with err (the first one is kept).
func (b *backend) Fail(err error) {
	if b.rec.err == nil {
		b.rec.err = err
	}
	b.env.Stop()
}

func (b *backend) Detail() results.Detail { return b.job.Detail() }

func (b *backend) Status() policy.JobStatus {
	st := b.job.Status()
	js := policy.JobStatus{State: st.State, Parallelism: st.Parallelism, Vertices: st.Vertices, CheckpointInterval: dur(st.CheckpointInterval),
		Restarts: st.Restarts, Faults: st.Faults}
	if st.State == flink.StateRunning {
		js.Uptime = dur(b.env.Now() - st.RunningSince)
	}
	if lc := st.LastCheckpoint; lc != nil {
		js.LastCheckpoint = &policy.Checkpoint{ID: lc.ID, CompletedAt: dur(lc.CompletedAt), Duration: dur(lc.Duration), SizeBytes: lc.Size}
	}
	return js
}
