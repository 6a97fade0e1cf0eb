package twin

import (
	"fmt"
	"github.com/goccy/go-yaml"
	"math"
	"time"

	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/models/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// Sink receives the rows of a run (results.RunWriter is one).
type Sink interface {
	WriteSample(results.Sample) error
	WriteEvent(results.Event) error
}

// RunToDir simulates sc into the run folder dir, atomically: the folder
// appears complete or not at all. durable also fsyncs it (off for sweep
// runs, which a resume re-runs if they are unreadable).
func RunToDir(sc scenario.Scenario, dir string, durable bool) (results.Summary, error) {
	sched, err := sc.Resolve()
	if err != nil {
		return results.Summary{}, err
	}
	resolved, err := yaml.Marshal(sc)
	if err != nil {
		return results.Summary{}, err
	}
	w, err := results.CreateRun(dir)
	if err != nil {
		return results.Summary{}, err
	}
	defer w.Abort()
	if !durable {
		w.SkipSync()
	}
	sum, err := Run(sc, sched, w)
	if err != nil {
		return results.Summary{}, err
	}
	return sum, w.Commit(sum, resolved)
}

// WindowLength is how many recent samples a policy sees by default (10 min
// at 1 s); a policy that needs more implements policy.WindowUser.
const WindowLength = 600

// Run simulates sc on schedule and streams its rows to sink. It returns the
// run's summary (wall time included).
func Run(sc scenario.Scenario, schedule *scenario.Schedule, sink Sink) (results.Summary, error) {
	start := time.Now()
	env := sim.NewEnv()
	defer env.Close()
	seeds := sim.Seeds{Root: sc.Seed}
	r := &recorder{sink: sink, sum: results.NewSummarizer(sc.Name, sc.Variant, "sim", sc.Seed,
		1000*float64(sc.QoS.Latency), float64(sc.QoS.Recovery), int(float64(sc.Duration)/float64(sc.MetricInterval))+1)}
	job, err := flink.NewJob(env, sc.Job, sc.Kafka, schedule.Rates, seeds, r,
		flink.Options{MetricInterval: float64(sc.MetricInterval), Duration: float64(sc.Duration)})
	if err != nil {
		return results.Summary{}, err
	}
	pol, err := policy.New(sc.Policy.Name, sc.Policy.Node, seeds.Stream("policy"))
	if err != nil {
		return results.Summary{}, err
	}
	r.windowLen = WindowLength
	if w, ok := pol.(policy.WindowUser); ok {
		r.windowLen = max(1, w.WindowSamples())
	}
	r.window = make([]results.Sample, 0, 2*r.windowLen)
	c := &controller{env: env, job: job, rec: r}
	c.scheduleFaults(schedule.Faults)
	c.scheduleActions(schedule.Actions)
	job.Start()
	period := pol.Interval().Seconds()
	env.Every(period, period, func() {
		now := time.Duration(env.Now() * float64(time.Second))
		for _, a := range pol.Step(now, c.observe()) {
			c.apply(a)
		}
	})
	env.RunUntil(float64(sc.Duration) + 1e-9)
	if r.err != nil {
		return results.Summary{}, r.err
	}
	return r.sum.Summary(float64(sc.Duration), time.Since(start).Seconds()), nil
}

// recorder tees model output to the sink, the summary and the policy window.
type recorder struct {
	sink Sink
	sum  *results.Summarizer
	// window holds the recent samples; it grows to twice WindowLength and
	// then slides back, so the policy gets a contiguous slice without a copy
	// per Step.
	window    []results.Sample
	windowLen int
	err       error
}

func (r *recorder) Sample(s results.Sample) {
	r.sum.Sample(s)
	if len(r.window) == 2*r.windowLen {
		r.window = r.window[:copy(r.window, r.window[r.windowLen:])]
	}
	r.window = append(r.window, s)
	if err := r.sink.WriteSample(s); err != nil && r.err == nil {
		r.err = err
	}
}

func (r *recorder) Event(e results.Event) {
	r.sum.Event(e)
	if err := r.sink.WriteEvent(e); err != nil && r.err == nil {
		r.err = err
	}
}

// recent returns up to windowLen samples, oldest first. The slice is only
// valid during the Step it is passed to.
func (r *recorder) recent() []results.Sample {
	return r.window[max(0, len(r.window)-r.windowLen):]
}

type controller struct {
	env     *sim.Env
	job     *flink.Job
	rec     *recorder
	aligned []scenario.ScheduledFault // armed, waiting for a checkpoint to align to
}

func dur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func (c *controller) observe() policy.Observation {
	st := c.job.Status()
	js := policy.JobStatus{State: st.State, Parallelism: st.Parallelism, CheckpointInterval: dur(st.CheckpointInterval),
		Restarts: st.Restarts, Faults: st.Faults}
	if st.State == flink.StateRunning {
		js.Uptime = dur(c.env.Now() - st.RunningSince)
	}
	if lc := st.LastCheckpoint; lc != nil {
		js.LastCheckpoint = &policy.Checkpoint{ID: lc.ID, CompletedAt: dur(lc.CompletedAt), Duration: dur(lc.Duration), SizeBytes: lc.Size}
	}
	return policy.Observation{Window: c.rec.recent(), Job: js}
}

// apply carries out one action and records the decision.
func (c *controller) apply(a policy.Action) {
	st := c.job.Status()
	v := 0.0
	var err error
	switch a.Kind {
	case policy.SetCheckpointInterval:
		v = a.Interval.Seconds()
		err = c.job.Reconfigure(v, st.Parallelism, a.Reason)
	case policy.Rescale:
		v = float64(a.Parallelism)
		err = c.job.Reconfigure(st.CheckpointInterval, a.Parallelism, a.Reason)
	case policy.TriggerSavepoint:
		c.job.TriggerSavepoint(a.Reason)
	case policy.Note:
	default:
		err = fmt.Errorf("unknown action %q", a.Kind)
	}
	reason := string(a.Kind) + ": " + a.Reason
	if err != nil {
		reason += " (rejected: " + err.Error() + ")"
	}
	c.rec.Event(results.Event{TimeS: c.env.Now(), Kind: results.KindPolicyDecision, Value: &v, Reason: reason})
}

func (c *controller) scheduleActions(actions []scenario.Action) {
	for _, a := range actions {
		a := a
		c.env.At(float64(a.At), func() {
			st := c.job.Status()
			switch {
			case a.CheckpointInterval != nil:
				c.apply(policy.Action{Kind: policy.SetCheckpointInterval, Interval: dur(float64(*a.CheckpointInterval)), Reason: "forced by actions in the scenario"})
			case a.Parallelism != nil:
				c.apply(policy.Action{Kind: policy.Rescale, Parallelism: *a.Parallelism, Reason: "forced by actions in the scenario"})
			case a.Savepoint:
				_ = st
				c.apply(policy.Action{Kind: policy.TriggerSavepoint, Reason: "forced by actions in the scenario"})
			}
		})
	}
}

func (c *controller) scheduleFaults(faults []scenario.ScheduledFault) {
	for _, f := range faults {
		f := f
		c.env.At(f.At, func() {
			if math.IsNaN(f.BeforeCheckpoint) {
				c.crash(f, f.Source)
				return
			}
			c.aligned = append(c.aligned, f)
			c.alignPending()
		})
	}
	c.job.OnCheckpointTrigger(c.alignPending)
}

// alignPending schedules every armed aligned fault BeforeCheckpoint ahead of
// the next trigger, if that moment is still to come; otherwise it waits for
// the next trigger (this hook runs again then).
func (c *controller) alignPending() {
	due, ok := c.job.NextCheckpointDue()
	if !ok {
		return
	}
	now := c.env.Now()
	kept := c.aligned[:0]
	for _, f := range c.aligned {
		at := due - f.BeforeCheckpoint
		if at < now {
			kept = append(kept, f)
			continue
		}
		f := f
		c.env.At(at, func() {
			c.crash(f, fmt.Sprintf("%s, %gs before checkpoint due at %.3fs", f.Source, f.BeforeCheckpoint, due))
		})
	}
	c.aligned = kept
}

func (c *controller) crash(f scenario.ScheduledFault, reason string) {
	tm := f.TaskManager
	switch {
	case f.Operator != "":
		var err error
		if tm, err = c.job.TaskManagerOf(f.Operator); err != nil {
			c.rec.err = err
			return
		}
	case f.Pick >= 0:
		tm = int(f.Pick * float64(c.job.TaskManagers()))
	}
	if err := c.job.Crash(tm, reason); err != nil && c.rec.err == nil {
		c.rec.err = fmt.Errorf("%s: %w", f.Source, err)
	}
}
