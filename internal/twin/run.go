package twin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/streamtwin/streamtwin/internal/control"
	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/sim"
)

// ErrStopRun, returned by a sink's WriteSample or WriteEvent, says the sink
// has all it needs: the twin stops the simulation at the simulated time of
// that write (a recovery event, dated when lag was back, is written by the
// sample that sees it, up to a second later), finishes the job there (the
// rest of that instant's rows and the run-end events still reach the sink)
// and returns the summary of the shortened run without an error. The rows
// up to then are those of the full run: a sink that needs only the start of
// a run (a calibration point, up to its recovery) saves the rest.
var ErrStopRun = errors.New("twin: the sink has all it needs; stop the run")

// Backend is the simulator as a run.Backend: run.ToDir(ctx, twin.Backend{},
// …) simulates a scenario into a run folder, run.Stream into a sink.
type Backend struct{}

// Name: "sim".
func (Backend) Name() string { return "sim" }

// Capabilities: the simulator carries out every action and fault.
func (Backend) Capabilities(context.Context) (control.Capabilities, error) {
	return control.Everything("the simulator"), nil
}

// Execute simulates p and streams its rows to sink. It returns the run's
// summary (wall time included).
func (Backend) Execute(_ context.Context, p *run.Plan, sink run.Sink) (results.Summary, error) {
	start := time.Now()
	sc := p.Scenario
	env := sim.NewEnv()
	defer env.Close()
	r := &recorder{env: env, sink: sink, sum: measure.NewSummarizer(sc.Name, sc.Variant, "sim", sc.Seed,
		1000*float64(sc.QoS.Latency), float64(sc.QoS.Recovery), int(float64(sc.Duration)/float64(sc.MetricInterval))+1)}
	stream, err := measure.NewRecoveryStream(measure.RecoveryOptions{}, measure.Summarized{Summary: r.sum, Out: sink})
	if err != nil {
		return results.Summary{}, err
	}
	r.stream = stream
	job, err := flink.NewJob(env, sc.Job, sc.Kafka, p.Schedule.Rates, sim.Seeds{Root: sc.Seed}, r,
		flink.Options{MetricInterval: float64(sc.MetricInterval), Duration: float64(sc.Duration)})
	if err != nil {
		return results.Summary{}, err
	}
	if r.ctl, err = p.Control(&backend{env: env, job: job, rec: r}); err != nil {
		return results.Summary{}, err
	}
	env.RunUntil(float64(sc.Duration) + 1e-9)
	job.Finish()
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

// recorder tees model output to the policy window and, through the
// recovery stream, to the summary and the sink. Recovery is measured as
// for a live run: measure.RecoveryStream applies the detector to the
// samples on their way to the sink (recovered and unrecovered events, the
// samples' recovering flag); the model's own end of a recovery is written
// as its diagnostic, a model_recovered event.
type recorder struct {
	env    *sim.Env
	sink   run.Sink
	sum    *measure.Summarizer
	ctl    *control.Controller
	stream *measure.RecoveryStream
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

func (b *backend) Now() sim.Duration            { return sim.Duration(b.env.Now()) }
func (b *backend) At(t sim.Duration, fn func()) { b.env.At(t.Seconds(), fn) }
func (b *backend) Every(start, period sim.Duration, fn func()) {
	b.env.Every(start.Seconds(), period.Seconds(), fn)
}
func (b *backend) Start() { b.job.Start() }
func (b *backend) NextCheckpointDue() (sim.Duration, bool) {
	due, ok := b.job.NextCheckpointDue()
	return sim.Duration(due), ok
}
func (b *backend) OnCheckpointTrigger(fn func())        { b.job.OnCheckpointTrigger(fn) }
func (b *backend) TaskManagers() int                    { return b.job.TaskManagers() }
func (b *backend) TaskManagerOf(op string) (int, error) { return b.job.TaskManagerOf(op) }
func (b *backend) Record(e results.Event)               { b.rec.Event(e) }

// Inject starts fault f in the model (models/flink: Crash, Freeze,
// Throttle, BrokerDown, CrashJobManager, StorageDown, NetworkDelay).
func (b *backend) Inject(f scenario.ScheduledFault, tm int, reason string) error {
	switch f.Kind {
	case scenario.FaultTaskManager:
		return b.job.Crash(tm, reason)
	case scenario.FaultFreeze:
		return b.job.Freeze(tm, f.Duration.Seconds(), reason)
	case scenario.FaultCPUThrottle:
		return b.job.Throttle(tm, f.Share, f.Duration.Seconds(), reason)
	case scenario.FaultKafkaBroker:
		b.job.BrokerDown(f.Duration.Seconds(), reason)
	case scenario.FaultJobManager:
		b.job.CrashJobManager(reason)
	case scenario.FaultCheckpointStorage:
		b.job.StorageDown(f.Duration.Seconds(), reason)
	case scenario.FaultNetworkDelay:
		return b.job.NetworkDelay(tm, f.Duration.Seconds(), f.Delay.Seconds(), reason)
	default:
		return fmt.Errorf("unknown fault kind %q", f.Kind)
	}
	return nil
}

func (b *backend) Reconfigure(ci sim.Duration, par int, vertices map[string]int, reason string) error {
	return b.job.Reconfigure(ci.Seconds(), par, vertices, reason)
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

func (b *backend) Detail() measure.Detail { return b.job.Detail() }

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
