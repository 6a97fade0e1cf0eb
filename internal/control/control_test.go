package control

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/sim"
)

// fake is a backend on a plain timer list: it samples once a second and
// logs every operation the controller asks for.
type fake struct {
	now      float64
	timers   []timer
	seq      int
	hooks    []func()
	ctl      *Controller
	due      float64 // next checkpoint due
	tms      int
	ci       float64
	par      int
	vertices map[string]int
	ops      []string
	events   []results.Event
	refuse   error          // Reconfigure's answer
	detail   measure.Detail // what Detail returns
	failed   error
	started  bool
}

type timer struct {
	at  float64
	seq int
	fn  func()
}

func (f *fake) Now() sim.Duration { return sim.Duration(f.now) }
func (f *fake) At(t sim.Duration, fn func()) {
	f.seq++
	f.timers = append(f.timers, timer{float64(t), f.seq, fn})
}
func (f *fake) Every(start, period sim.Duration, fn func()) {
	var arm func(k sim.Duration)
	arm = func(k sim.Duration) {
		f.At(start+k*period, func() { arm(k + 1); fn() })
	}
	arm(0)
}
func (f *fake) Start() {
	f.started = true
	f.Every(1, 1, func() { f.ctl.Observe(results.Sample{TimeS: f.now, Throughput: f.now}) })
}
func (f *fake) Detail() measure.Detail { return f.detail }

func (f *fake) Status() policy.JobStatus {
	return policy.JobStatus{State: "RUNNING", Parallelism: f.par, Vertices: f.vertices, CheckpointInterval: time.Duration(f.ci * float64(time.Second))}
}
func (f *fake) NextCheckpointDue() (sim.Duration, bool) {
	return sim.Duration(f.due), !math.IsNaN(f.due)
}
func (f *fake) OnCheckpointTrigger(fn func()) { f.hooks = append(f.hooks, fn) }
func (f *fake) TaskManagers() int             { return f.tms }
func (f *fake) TaskManagerOf(op string) (int, error) {
	if op == "sink" {
		return 2, nil
	}
	return 0, fmt.Errorf("no operator named %q", op)
}
func (f *fake) Inject(sf scenario.ScheduledFault, tm int, reason string) error {
	if sf.Kind == scenario.FaultTaskManager {
		f.ops = append(f.ops, fmt.Sprintf("%g kill %d (%s)", f.now, tm, reason))
		return nil
	}
	f.ops = append(f.ops, fmt.Sprintf("%g %s %d for %gs (%s)", f.now, sf.Kind, tm, sf.Duration, reason))
	return nil
}
func (f *fake) Reconfigure(interval sim.Duration, par int, vertices map[string]int, reason string) error {
	ci := interval.Seconds()
	if f.refuse != nil {
		return f.refuse
	}
	if vertices != nil {
		f.ops = append(f.ops, fmt.Sprintf("%g reconfigure ci %g par %d vertices %v", f.now, ci, par, vertices))
	} else {
		f.ops = append(f.ops, fmt.Sprintf("%g reconfigure ci %g par %d", f.now, ci, par))
	}
	f.ci, f.par, f.vertices = ci, par, vertices
	return nil
}
func (f *fake) TriggerSavepoint(reason string) error {
	f.ops = append(f.ops, fmt.Sprintf("%g savepoint", f.now))
	return nil
}
func (f *fake) Record(e results.Event) { f.events = append(f.events, e) }
func (f *fake) Fail(err error) {
	if f.failed == nil {
		f.failed = err
	}
}

// runUntil fires the timers in time order (ties in scheduling order).
func (f *fake) runUntil(end float64) {
	for {
		sort.SliceStable(f.timers, func(i, j int) bool {
			if f.timers[i].at != f.timers[j].at {
				return f.timers[i].at < f.timers[j].at
			}
			return f.timers[i].seq < f.timers[j].seq
		})
		if len(f.timers) == 0 || f.timers[0].at >= end {
			return
		}
		t := f.timers[0]
		f.timers = f.timers[1:]
		f.now = t.at
		t.fn()
	}
}

// scripted is a policy that logs what it sees and answers from a script.
type scripted struct {
	period  time.Duration
	window  int // 0: not a WindowUser
	seen    []string
	answers map[time.Duration][]policy.Action
}

func (p *scripted) Name() string            { return "scripted" }
func (p *scripted) Interval() time.Duration { return p.period }
func (p *scripted) Step(now time.Duration, obs policy.Observation) []policy.Action {
	w := obs.Window
	first, last := math.NaN(), math.NaN()
	if len(w) > 0 {
		first, last = w[0].TimeS, w[len(w)-1].TimeS
	}
	p.seen = append(p.seen, fmt.Sprintf("%v: %d samples %g..%g", now, len(w), first, last))
	return p.answers[now]
}

type windowed struct{ *scripted }

func (p windowed) WindowSamples() int { return p.window }

func run(t *testing.T, f *fake, pol policy.Policy, sched *scenario.Schedule, end float64) {
	t.Helper()
	f.ctl = New(f, pol, sched)
	if err := f.ctl.Start(policy.RunInfo{Backend: "fake"}); err != nil {
		t.Fatal(err)
	}
	if !f.started {
		t.Fatal("the backend was not started")
	}
	f.runUntil(end)
}

func TestWindowLength(t *testing.T) {
	cases := []struct {
		name   string
		window int // 0: the default
		want   []string
	}{
		{"default 600 samples", 0, []string{"10m0s: 599 samples 1..599", "20m0s: 600 samples 600..1199"}},
		{"WindowUser 60", 60, []string{"10m0s: 60 samples 540..599", "20m0s: 60 samples 1140..1199"}},
		{"WindowUser 0 means 1", -1, []string{"10m0s: 1 samples 599..599", "20m0s: 1 samples 1199..1199"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &scripted{period: 10 * time.Minute, window: max(0, c.window)}
			var pol policy.Policy = p
			if c.window != 0 {
				pol = windowed{p}
			}
			f := &fake{due: math.NaN(), ci: 30, par: 2}
			run(t, f, pol, &scenario.Schedule{}, 1201)
			// the tick at 600 s runs before that second's sample (it was
			// scheduled first), so it sees samples up to 599 s
			if strings.Join(p.seen, "; ") != strings.Join(c.want, "; ") {
				t.Errorf("policy saw\n  %v\nwant\n  %v", p.seen, c.want)
			}
		})
	}
}

func d(s float64) *sim.Duration { v := sim.Duration(s); return &v }
func ip(i int) *int             { return &i }

func TestForcedActionsAndDecisions(t *testing.T) {
	sched := &scenario.Schedule{Actions: []scenario.Action{
		{At: 5, Savepoint: true},
		{At: 7, CheckpointInterval: d(10)},
		{At: 9, Parallelism: ip(4)},
		{At: 11, Vertices: map[string]int{"source": 4, "sink": 1}},
	}}
	p := &scripted{period: 20 * time.Second, answers: map[time.Duration][]policy.Action{
		20 * time.Second: {{Kind: policy.SetCheckpointInterval, Interval: 45 * time.Second, Reason: "too slow"},
			{Kind: policy.Note, Reason: "just saying"}},
	}}
	f := &fake{due: math.NaN(), ci: 30, par: 2}
	run(t, f, p, sched, 21)
	// the checkpoint-interval change at 20 s keeps the vertices' own parallelism
	wantOps := []string{"5 savepoint", "7 reconfigure ci 10 par 2", "9 reconfigure ci 10 par 4",
		"11 reconfigure ci 10 par 4 vertices map[sink:1 source:4]", "20 reconfigure ci 45 par 4 vertices map[sink:1 source:4]"}
	if strings.Join(f.ops, "; ") != strings.Join(wantOps, "; ") {
		t.Errorf("ops %v, want %v", f.ops, wantOps)
	}
	want := []struct {
		at     float64
		value  float64
		reason string
	}{
		{5, 0, "trigger_savepoint: forced by actions in the scenario"},
		{7, 10, "set_checkpoint_interval: forced by actions in the scenario"},
		{9, 4, "rescale: forced by actions in the scenario"},
		{11, 4, "rescale_vertices: forced by actions in the scenario"},
		{20, 45, "set_checkpoint_interval: too slow"},
		{20, 0, "note: just saying"},
	}
	if len(f.events) != len(want) {
		t.Fatalf("events %+v, want %d decisions", f.events, len(want))
	}
	for i, w := range want {
		e := f.events[i]
		if e.Kind != results.KindPolicyDecision || e.TimeS != w.at || *e.Value != w.value || e.Reason != w.reason {
			t.Errorf("decision %d: %g %s %g %q, want %g %g %q", i, e.TimeS, e.Kind, *e.Value, e.Reason, w.at, w.value, w.reason)
		}
	}
}

func TestRefusedActionIsRecorded(t *testing.T) {
	f := &fake{due: math.NaN(), ci: 30, par: 2, refuse: errors.New("parallelism 9 needs 9 slots")}
	run(t, f, &scripted{period: time.Hour}, &scenario.Schedule{Actions: []scenario.Action{{At: 3, Parallelism: ip(9)}}}, 4)
	if len(f.events) != 1 || f.events[0].Reason != "rescale: forced by actions in the scenario (rejected: parallelism 9 needs 9 slots)" {
		t.Errorf("events %+v", f.events)
	}
}

func TestFaultTargets(t *testing.T) {
	nan := sim.Duration(math.NaN())
	sched := &scenario.Schedule{Faults: []scenario.ScheduledFault{
		{At: 1, BeforeCheckpoint: nan, TaskManager: 1, Pick: -1, Source: "faults[0]"},
		{At: 2, BeforeCheckpoint: nan, TaskManager: -1, Pick: 0.99, Source: "faults[1] (random)"}, // ⌊0.99·4⌋ = 3
		{At: 3, BeforeCheckpoint: nan, TaskManager: -1, Pick: 0.3, Source: "faults[1] (random)"},  // ⌊0.3·4⌋ = 1
		{At: 4, BeforeCheckpoint: nan, TaskManager: -1, Operator: "sink", Pick: -1, Source: "faults[2]"},
		// aligned: armed at 5, the next checkpoint is due at 12 → fires at 9
		{At: 5, BeforeCheckpoint: 3, TaskManager: 0, Pick: -1, Source: "faults[3]"},
	}}
	f := &fake{due: 12, tms: 4, ci: 30, par: 4}
	run(t, f, &scripted{period: time.Hour}, sched, 20)
	want := []string{"1 kill 1 (faults[0])", "2 kill 3 (faults[1] (random))", "3 kill 1 (faults[1] (random))",
		"4 kill 2 (faults[2])", "9 kill 0 (faults[3], 3s before checkpoint due at 12.000 s)"}
	if strings.Join(f.ops, "; ") != strings.Join(want, "; ") {
		t.Errorf("kills\n  %v\nwant\n  %v", f.ops, want)
	}
}

// An aligned fault whose moment has passed waits for the next trigger.
func TestAlignedFaultWaitsForTheNextTrigger(t *testing.T) {
	sched := &scenario.Schedule{Faults: []scenario.ScheduledFault{{At: 11, BeforeCheckpoint: 3, TaskManager: 0, Pick: -1, Source: "faults[0]"}}}
	f := &fake{due: 12, tms: 2, ci: 10, par: 2}
	run(t, f, &scripted{period: time.Hour}, sched, 12)
	if len(f.ops) != 0 {
		t.Fatalf("fired before the next trigger: %v", f.ops)
	}
	f.due = 22 // the trigger at 12 scheduled the next one
	for _, h := range f.hooks {
		h()
	}
	f.runUntil(30)
	if want := "19 kill 0 (faults[0], 3s before checkpoint due at 22.000 s)"; len(f.ops) != 1 || f.ops[0] != want {
		t.Errorf("kills %v, want [%s]", f.ops, want)
	}
}

func TestUnknownOperatorFailsTheRun(t *testing.T) {
	sched := &scenario.Schedule{Faults: []scenario.ScheduledFault{{At: 1, BeforeCheckpoint: sim.Duration(math.NaN()), Operator: "map", Pick: -1, Source: "faults[0]"}}}
	f := &fake{due: math.NaN(), tms: 2}
	run(t, f, &scripted{period: time.Hour}, sched, 2)
	if f.failed == nil || f.failed.Error() != `faults[0]: no operator named "map"` {
		t.Errorf("failed with %v", f.failed)
	}
}

func TestCheckCapabilities(t *testing.T) {
	sc := scenario.Scenario{}
	sc.Job.Parallelism = 2
	sc.Faults = []scenario.Fault{{At: d(10), TaskManager: ip(3)}}
	sc.Actions = []scenario.Action{{At: 20, Parallelism: ip(8)}, {At: 30, Savepoint: true}}
	pol := &scripted{period: time.Second}
	cases := []struct {
		name string
		caps Capabilities
		want map[string]string
	}{
		{"the simulator takes everything", Everything("the simulator"), nil},
		{"no fault injection", Capabilities{Backend: "an external cluster", NoFaultsWhy: "its TaskManagers are not ours to kill",
			Actions: Everything("").Actions}, map[string]string{
			"faults[0]": "an external cluster cannot inject faults: its TaskManagers are not ours to kill"}},
		{"bounded cluster", Capabilities{Backend: "this live cluster", Faults: true, TaskManagers: 2, MaxParallelism: 4,
			Actions: map[policy.ActionKind]bool{policy.Rescale: true, policy.SetCheckpointInterval: true}}, map[string]string{
			"faults[0].taskmanager":  "3 is beyond this live cluster's TaskManagers (allowed 0..1)",
			"actions[0].parallelism": "8 is beyond this live cluster's 4 slots (allowed 1..4)",
			"actions[1]":             "this live cluster cannot take a savepoint (it can: rescale, set_checkpoint_interval)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Check(sc, pol, c.caps)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
		})
	}
	// rescaling from a checkpoint needs a backend that can
	sc = scenario.Scenario{}
	sc.Job.Parallelism = 2
	sc.Job.Rescale.Mode = flink.RescaleCheckpoint
	savepointOnly := Everything("this live cluster")
	savepointOnly.RescaleFromCheckpoint = false
	for _, c := range []struct {
		name string
		caps Capabilities
		want map[string]string
	}{
		{"the simulator rescales from a checkpoint", Everything("the simulator"), nil},
		{"savepoint-only backend", savepointOnly, map[string]string{
			"job.rescale.mode": "this live cluster cannot rescale from a checkpoint (the adaptive scheduler's way); use mode savepoint, or a local cluster with the adaptive scheduler (streamtwin live up --scheduler adaptive)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Check(sc, pol, c.caps)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
		})
	}
	// vertices of their own: the simulator in either mode, a live cluster
	// only from a checkpoint
	sc = scenario.Scenario{}
	sc.Job.Parallelism = 2
	sc.Job.Rescale.Mode = flink.RescaleSavepoint
	sc.Actions = []scenario.Action{{At: 20, Vertices: map[string]int{"source": 2, "sink": 1}}}
	live := Everything("this live cluster")
	live.VerticesBySavepoint = false
	for _, c := range []struct {
		name string
		caps Capabilities
		want map[string]string
	}{
		{"the simulator resubmits with vertices of their own", Everything("the simulator"), nil},
		{"a live cluster does not", live, map[string]string{
			"actions[0].vertices": "this live cluster gives job vertices their own parallelism only in a rescale from a checkpoint: set job.rescale.mode: checkpoint"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Check(sc, pol, c.caps)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

type detailed struct{ windowed }

func (detailed) UsesDetail() bool { return true }

// A policy that reads per-TaskManager metrics gets one Detail per sample,
// aligned with its window across the window's slide, and is refused by a
// backend that does not measure them.
func TestDetailWindow(t *testing.T) {
	f := &fake{due: math.NaN(), ci: 30, par: 2}
	pol := detailed{windowed{&scripted{period: time.Hour, window: 3}}}
	f.ctl = New(f, pol, &scenario.Schedule{})
	for i := 1; i <= 8; i++ {
		f.detail = measure.Detail{TaskManagers: []measure.TaskManagerSample{{Index: 0, CPUBusy: float64(i) / 10}}}
		f.ctl.Observe(results.Sample{TimeS: float64(i)})
	}
	o := f.ctl.Observation()
	if len(o.Detail) != len(o.Window) || len(o.Window) != 3 {
		t.Fatalf("window %d samples, detail %d; want 3 and 3", len(o.Window), len(o.Detail))
	}
	for i, s := range o.Window {
		if got := o.Detail[i].TaskManagers[0].CPUBusy; got != s.TimeS/10 {
			t.Errorf("sample at %gs carries the detail of CPU %g, want %g", s.TimeS, got, s.TimeS/10)
		}
	}
	if o := New(f, pol.scripted, &scenario.Schedule{}).Observation(); o.Detail != nil {
		t.Errorf("a policy that is no DetailUser got detail %v", o.Detail)
	}
	caps := Everything("this live cluster")
	caps.Detail = false
	want := map[string]string{"policy.name": "policy scripted reads per-TaskManager and per-operator metrics, which this live cluster does not measure"}
	if got := Check(scenario.Scenario{}, pol, caps); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// fallible fails at the ticks of errs (a *policy.HoldError holds on), and
// records its session.
type fallible struct {
	scripted
	errs     map[time.Duration]error
	begun    policy.RunInfo
	ended    string
	beginErr error
}

func (p *fallible) StepErr(now time.Duration, obs policy.Observation) ([]policy.Action, error) {
	a := p.Step(now, obs)
	if err := p.errs[now]; err != nil {
		return nil, err
	}
	return a, nil
}
func (p *fallible) Begin(info policy.RunInfo) error { p.begun = info; return p.beginErr }
func (p *fallible) End(reason string)               { p.ended = reason }

func TestFallibleStepAndSession(t *testing.T) {
	p := &fallible{scripted: scripted{period: 10 * time.Second, answers: map[time.Duration][]policy.Action{
		10 * time.Second: {{Kind: policy.Rescale, Parallelism: 3, Reason: "up"}},
		20 * time.Second: {{Kind: policy.Rescale, Parallelism: 5, Reason: "never applied"}},
	}}, errs: map[time.Duration]error{
		20 * time.Second: &policy.HoldError{Err: errors.New("reply at tick 2: not valid")},
		30 * time.Second: errors.New("process exited at tick 3"),
	}}
	f := &fake{due: math.NaN(), ci: 30, par: 2}
	f.ctl = New(f, p, &scenario.Schedule{})
	if err := f.ctl.Start(policy.RunInfo{Backend: "sim", Scenario: "s"}); err != nil {
		t.Fatal(err)
	}
	if p.begun.Scenario != "s" || p.begun.Job.Parallelism != 2 {
		t.Errorf("Begin saw %+v; want the run and the job's status", p.begun)
	}
	f.runUntil(31)
	f.ctl.End(f.failed)
	var got []string
	for _, e := range f.events {
		got = append(got, fmt.Sprintf("%g %s %s", e.TimeS, e.Kind, e.Reason))
	}
	want := []string{"10 policy_decision rescale: up", "20 policy_error reply at tick 2: not valid (holding the current configuration)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f.failed == nil || f.failed.Error() != "policy scripted: process exited at tick 3" {
		t.Errorf("run failed with %v; want the tick 3 error", f.failed)
	}
	if p.ended != "run failed: policy scripted: process exited at tick 3" {
		t.Errorf("End(%q)", p.ended)
	}
	// A session that cannot begin refuses the run: nothing is scheduled.
	p2 := &fallible{scripted: scripted{period: time.Second}, beginErr: errors.New("needs rescale")}
	f2 := &fake{due: math.NaN(), ci: 30, par: 2}
	f2.ctl = New(f2, p2, &scenario.Schedule{})
	if err := f2.ctl.Start(policy.RunInfo{}); err == nil || err.Error() != "policy scripted: needs rescale" || f2.started || len(f2.timers) > 0 {
		t.Errorf("Start: %v, started %v, %d timers; want a refusal and nothing scheduled", err, f2.started, len(f2.timers))
	}
}

func TestInfo(t *testing.T) {
	sc := scenario.Default()
	sc.Name, sc.Seed = "demo", 42
	caps := Capabilities{Backend: "this live cluster", Actions: map[policy.ActionKind]bool{policy.Rescale: true}, MaxParallelism: 3}
	got := Info(sc, caps, "live")
	if fmt.Sprint(got.Actions) != "[rescale note]" || got.BackendName != "this live cluster" || got.MaxParallelism != 3 || got.Seed != 42 || !got.Can(policy.Note) || got.Can(policy.TriggerSavepoint) {
		t.Errorf("Info = %+v", got)
	}
}
