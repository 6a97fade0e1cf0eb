package control

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

// Backend is what the Controller needs of a job, in four roles: a clock,
// a view of the job, the actions it carries out and a recorder. Times are
// run seconds since the start. The Controller calls a backend from one
// goroutine at a time (the simulator's event loop, or the live driver's
// timer loop), and every callback it schedules runs there too.
type Backend interface {
	Clock
	Job
	Actions
	Recorder
}

// Clock is the run's time: the simulator's event queue or the live
// driver's timer loop.
type Clock interface {
	Now() sim.Duration
	// At runs fn once at run time t; Every at start, start+period, ….
	At(t sim.Duration, fn func())
	Every(start, period sim.Duration, fn func())
	// Start begins the job's own activity (the simulator's clocks); the
	// Controller calls it after scheduling faults and actions, before the
	// policy's ticks, so events at equal times keep one order.
	Start()
}

// Job is the controller's view of the job.
type Job interface {
	Status() policy.JobStatus
	// NextCheckpointDue is when the next checkpoint trigger is expected; ok
	// is false while none is scheduled.
	NextCheckpointDue() (at sim.Duration, ok bool)
	// OnCheckpointTrigger registers fn to run after each checkpoint trigger
	// (aligned faults wait for one when their moment has passed).
	OnCheckpointTrigger(fn func())
	// TaskManagers is how many TaskManagers a seeded pick chooses from;
	// TaskManagerOf the one hosting subtask 0 of an operator.
	TaskManagers() int
	TaskManagerOf(operator string) (int, error)
	// Detail is the per-TaskManager and per-operator metrics of the latest
	// sample; only called for a policy.DetailUser, on a backend whose
	// Capabilities.Detail is true.
	Detail() measure.Detail
}

// Actions are what the policy and the schedule ask the job to do.
type Actions interface {
	// Inject starts fault f (its Kind; for the kinds that hit a
	// TaskManager, on tm, 0-based; else tm is −1) and records the fault
	// event. A fault with a Duration undoes itself after it, also when the
	// run ends first.
	Inject(f scenario.ScheduledFault, tm int, reason string) error
	// Reconfigure moves the job to checkpoint interval ci and
	// parallelism par by stop-with-savepoint and resubmission (or the
	// adaptive scheduler's rescale, job.rescale.mode checkpoint). vertices,
	// when not nil, gives job vertices (by operator name) their own
	// parallelism, the others run at par; the job's parallelism is then its
	// largest vertex's. An error is a refusal: nothing was changed.
	Reconfigure(ci sim.Duration, par int, vertices map[string]int, reason string) error
	TriggerSavepoint(reason string) error
}

// Recorder takes the run's events: Record writes one; Fail ends the run
// with err.
type Recorder interface {
	Record(results.Event)
	Fail(err error)
}

// DefaultWindow is how many recent samples a policy sees (10 min at 1 s)
// unless it is a policy.WindowUser.
const DefaultWindow = 600

// ForcedReason is the reason of the scenario's forced actions.
const ForcedReason = "forced by actions in the scenario"

// Controller drives one run: it is the only caller of policy.Step.
type Controller struct {
	b     Backend
	pol   policy.Policy
	sched *scenario.Schedule
	// window holds the recent samples; it grows to twice windowLen and then
	// slides back, so the policy gets a contiguous slice without a copy per
	// Step.
	window    []results.Sample
	detail    []measure.Detail // parallel to window, for a policy.DetailUser
	useDetail bool
	windowLen int
	aligned   []scenario.ScheduledFault // armed, waiting for a checkpoint to align to
	fallible  policy.Fallible           // pol, when its Step can fail; resolved once
}

// New builds the controller of one run of sched with pol on b.
func New(b Backend, pol policy.Policy, sched *scenario.Schedule) *Controller {
	n := DefaultWindow
	if w, ok := pol.(policy.WindowUser); ok {
		n = max(1, w.WindowSamples())
	}
	c := &Controller{b: b, pol: pol, sched: sched, windowLen: n, window: make([]results.Sample, 0, 2*n)}
	if d, ok := pol.(policy.DetailUser); ok && d.UsesDetail() {
		c.useDetail, c.detail = true, make([]measure.Detail, 0, 2*n)
	}
	c.fallible, _ = pol.(policy.Fallible)
	return c
}

// WindowLength is how many samples the policy sees.
func (c *Controller) WindowLength() int { return c.windowLen }

// Start begins a policy.Session with info (its error refuses the run:
// nothing is scheduled), then schedules the faults, the forced actions and
// the policy's ticks, and starts the backend.
func (c *Controller) Start(info policy.RunInfo) error {
	if s, ok := c.pol.(policy.Session); ok {
		info.Job = c.b.Status()
		if err := s.Begin(info); err != nil {
			return fmt.Errorf("policy %s: %w", c.pol.Name(), err)
		}
	}
	c.scheduleFaults()
	c.scheduleActions()
	c.b.Start()
	period := sim.FromStd(c.pol.Interval())
	c.b.Every(period, period, c.step)
	return nil
}

// End ends a policy.Session after the run's last step; err is why the run
// failed, nil at its normal end.
func (c *Controller) End(err error) {
	s, ok := c.pol.(policy.Session)
	if !ok {
		return
	}
	reason := "end of run"
	if err != nil {
		reason = "run failed: " + err.Error()
	}
	s.End(reason)
}

// Info is the policy.RunInfo of sc on a backend with caps; backend is
// "sim" or "live".
func Info(sc scenario.Scenario, caps Capabilities, backend string) policy.RunInfo {
	info := policy.RunInfo{Scenario: sc.Name, Variant: sc.Variant, Seed: sc.Seed,
		Duration: sc.Duration.Std(), MetricInterval: sc.MetricInterval.Std(), Backend: backend,
		BackendName: caps.Backend, Detail: caps.Detail, MaxParallelism: caps.MaxParallelism,
		RescaleFromCheckpoint: caps.RescaleFromCheckpoint}
	for _, k := range policy.ActionKinds {
		if caps.Actions[k] || k == policy.Note {
			info.Actions = append(info.Actions, k)
		}
	}
	return info
}

// Observe adds one sample to the policy's window; the backend calls it for
// every sample, in time order.
func (c *Controller) Observe(s results.Sample) {
	if len(c.window) == 2*c.windowLen {
		c.window = c.window[:copy(c.window, c.window[c.windowLen:])]
		if c.useDetail {
			c.detail = c.detail[:copy(c.detail, c.detail[c.windowLen:])]
		}
	}
	c.window = append(c.window, s)
	if c.useDetail {
		c.detail = append(c.detail, c.b.Detail())
	}
}

// Observation is what the policy sees now. Window is only valid until the
// next Observe.
func (c *Controller) Observation() policy.Observation {
	from := max(0, len(c.window)-c.windowLen)
	o := policy.Observation{Window: c.window[from:], Job: c.b.Status()}
	if c.useDetail {
		o.Detail = c.detail[from:]
	}
	return o
}

func (c *Controller) step() {
	now := c.b.Now().Std()
	if c.fallible == nil {
		for _, a := range c.pol.Step(now, c.Observation()) {
			c.Apply(a)
		}
		return
	}
	actions, err := c.fallible.StepErr(now, c.Observation())
	var hold *policy.HoldError
	switch {
	case errors.As(err, &hold):
		c.b.Record(results.Event{TimeS: c.b.Now().Seconds(), Kind: results.KindPolicyError, Reason: hold.Error()})
	case err != nil:
		c.b.Fail(fmt.Errorf("policy %s: %w", c.pol.Name(), err))
		return
	}
	for _, a := range actions {
		c.Apply(a)
	}
}

// Apply carries out one action and records the decision, with the
// backend's refusal appended to the reason.
func (c *Controller) Apply(a policy.Action) {
	v := 0.0
	var err error
	switch a.Kind {
	case policy.SetCheckpointInterval:
		v = a.Interval.Seconds()
		st := c.b.Status()
		err = c.b.Reconfigure(sim.FromStd(a.Interval), st.Parallelism, st.Vertices, a.Reason) // the vertices keep theirs
	case policy.Rescale:
		v = float64(a.Parallelism)
		err = c.b.Reconfigure(sim.FromStd(c.b.Status().CheckpointInterval), a.Parallelism, nil, a.Reason)
	case policy.RescaleVertices:
		if len(a.Vertices) == 0 {
			err = fmt.Errorf("rescale_vertices names no vertex")
			break
		}
		st := c.b.Status()
		others := cmp.Or(a.Parallelism, st.Parallelism)
		v = float64(others)
		for _, p := range a.Vertices {
			v = math.Max(v, float64(p)) // the job's parallelism: its largest vertex's
		}
		err = c.b.Reconfigure(sim.FromStd(st.CheckpointInterval), others, a.Vertices, a.Reason)
	case policy.TriggerSavepoint:
		err = c.b.TriggerSavepoint(a.Reason)
	case policy.Note:
	default:
		err = fmt.Errorf("unknown action %q", a.Kind)
	}
	reason := string(a.Kind) + ": " + a.Reason
	if err != nil {
		reason += " (rejected: " + err.Error() + ")"
	}
	c.b.Record(results.Event{TimeS: c.b.Now().Seconds(), Kind: results.KindPolicyDecision, Value: &v, Reason: reason})
}

// ForcedAction is the policy action of one scenario action.
func ForcedAction(a scenario.Action) (policy.Action, bool) {
	switch {
	case a.CheckpointInterval != nil:
		return policy.Action{Kind: policy.SetCheckpointInterval, Interval: time.Duration(float64(*a.CheckpointInterval) * float64(time.Second)), Reason: ForcedReason}, true
	case a.Parallelism != nil:
		return policy.Action{Kind: policy.Rescale, Parallelism: *a.Parallelism, Reason: ForcedReason}, true
	case a.Vertices != nil:
		return policy.Action{Kind: policy.RescaleVertices, Vertices: a.Vertices, Reason: ForcedReason}, true
	case a.Savepoint:
		return policy.Action{Kind: policy.TriggerSavepoint, Reason: ForcedReason}, true
	}
	return policy.Action{}, false
}

func (c *Controller) scheduleActions() {
	for _, a := range c.sched.Actions {
		if pa, ok := ForcedAction(a); ok {
			c.b.At(a.At, func() { c.Apply(pa) })
		}
	}
}

func (c *Controller) scheduleFaults() {
	for _, f := range c.sched.Faults {
		c.b.At(f.At, func() {
			if math.IsNaN(f.BeforeCheckpoint.Seconds()) {
				c.inject(f, f.Source)
				return
			}
			c.aligned = append(c.aligned, f)
			c.alignPending()
		})
	}
	c.b.OnCheckpointTrigger(c.alignPending)
}

// alignPending schedules every armed aligned fault BeforeCheckpoint ahead of
// the next trigger, if that moment is still to come; otherwise it waits for
// the next trigger (this hook runs again then).
func (c *Controller) alignPending() {
	if len(c.aligned) == 0 {
		return
	}
	due, ok := c.b.NextCheckpointDue()
	if !ok {
		return
	}
	now := c.b.Now()
	kept := c.aligned[:0]
	for _, f := range c.aligned {
		at := due - f.BeforeCheckpoint
		if at < now {
			kept = append(kept, f)
			continue
		}
		c.b.At(at, func() {
			c.inject(f, fmt.Sprintf("%s, %gs before checkpoint due at %s s", f.Source, f.BeforeCheckpoint, textfmt.EventTime(due.Seconds())))
		})
	}
	c.aligned = kept
}

// Target is the TaskManager a fault hits: the one hosting the named
// operator, the seeded pick ⌊Pick·n⌋ of n, or the fixed index (−1 for a
// fault that hits no TaskManager).
func Target(b Backend, f scenario.ScheduledFault) (int, error) {
	switch {
	case f.Operator != "":
		return b.TaskManagerOf(f.Operator)
	case f.Pick >= 0:
		return int(f.Pick * float64(b.TaskManagers())), nil
	case f.Busiest:
		return busiest(b.Detail()), nil
	}
	return f.TaskManager, nil
}

// busiest is the TaskManager with the highest CPU utilisation in d (the
// lowest index among equals; 0 before any reading).
func busiest(d measure.Detail) int {
	tm, most := 0, math.Inf(-1)
	for _, s := range d.TaskManagers {
		if s.CPUBusy > most {
			tm, most = s.Index, s.CPUBusy
		}
	}
	return tm
}

func (c *Controller) inject(f scenario.ScheduledFault, reason string) {
	if f.Kind == "" { // a schedule built by hand
		f.Kind = scenario.FaultTaskManager
	}
	tm, err := Target(c.b, f)
	if err == nil {
		err = c.b.Inject(f, tm, reason)
	}
	if err != nil {
		c.b.Fail(fmt.Errorf("%s: %w", f.Source, err))
	}
}
