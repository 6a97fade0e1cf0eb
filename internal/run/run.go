package run

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/streamtwin/streamtwin/internal/control"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// Sink receives the rows of a run in time order (results.RunWriter is
// one).
type Sink interface {
	WriteSample(results.Sample) error
	WriteEvent(results.Event) error
}

// Backend executes runs: the twin or a live cluster.
type Backend interface {
	// Name is the backend's kind in summaries and in policy.RunInfo: "sim"
	// or "live".
	Name() string
	// Capabilities is what the backend carries out. An error says it could
	// not find out all of it (an unreachable cluster); the capabilities it
	// returns with the error still refuse what they can.
	Capabilities(ctx context.Context) (control.Capabilities, error)
	// Execute carries out p, calling p.Control once its job exists, and
	// streams the rows to sink; it returns the run's summary.
	Execute(ctx context.Context, p *Plan, sink Sink) (results.Summary, error)
}

// Plan is one run as a backend receives it: the resolved scenario and
// schedule, the policy built for it and the capabilities it was checked
// against.
type Plan struct {
	Scenario     scenario.Scenario
	Schedule     *scenario.Schedule
	Policy       policy.Policy
	Capabilities control.Capabilities
	backend      string
	ctl          *control.Controller // set by Control once its session began
}

// Control builds the run's controller over b and begins the policy's
// session; the backend calls it once, when its job exists and before its
// clock runs. The lifecycle ends the session when Execute returns.
func (p *Plan) Control(b control.Backend) (*control.Controller, error) {
	ctl := control.New(b, p.Policy, p.Schedule)
	if err := ctl.Start(control.Info(p.Scenario, p.Capabilities, p.backend)); err != nil {
		return nil, err
	}
	p.ctl = ctl
	return ctl, nil
}

// NewPolicy builds sc's policy with its random stream, the one derived
// from the root seed for the policy: the one place a run's policy is made.
func NewPolicy(sc scenario.Scenario) (policy.Policy, error) {
	return policy.New(sc.Policy.Name, sc.Policy.Node, sim.Seeds{Root: sc.Seed}.Stream("policy"))
}

// RefusedError is a run refused before it started: the scenario asks for
// what its policy or its backend cannot do, or the backend could not say
// what it carries out. Problems maps the scenario's field paths (policy,
// faults[0], actions[1].vertices, …) to why; Err is the backend's error
// when Problems is empty.
type RefusedError struct {
	Backend  string
	Problems map[string]string
	Err      error
}

func (e *RefusedError) Unwrap() error { return e.Err }

func (e *RefusedError) Error() string {
	if len(e.Problems) == 0 && e.Err != nil {
		return e.Err.Error()
	}
	parts := make([]string, 0, len(e.Problems))
	for _, f := range slices.Sorted(maps.Keys(e.Problems)) {
		parts = append(parts, f+": "+e.Problems[f])
	}
	return fmt.Sprintf("%s cannot run this scenario: %s", e.Backend, strings.Join(parts, "; "))
}

// Prepare builds sc's policy and checks sc against b's capabilities: the
// Plan a backend executes, or a *RefusedError.
func Prepare(ctx context.Context, b Backend, sc scenario.Scenario, sched *scenario.Schedule) (*Plan, error) {
	pol, err := NewPolicy(sc)
	if err != nil {
		return nil, &RefusedError{Backend: b.Name(), Problems: map[string]string{"policy": err.Error()}}
	}
	return prepare(ctx, b, sc, sched, pol)
}

func prepare(ctx context.Context, b Backend, sc scenario.Scenario, sched *scenario.Schedule, pol policy.Policy) (*Plan, error) {
	caps, capsErr := b.Capabilities(ctx)
	if refused := control.Check(sc, pol, caps); refused != nil {
		return nil, &RefusedError{Backend: caps.Backend, Problems: refused}
	}
	if capsErr != nil {
		return nil, &RefusedError{Backend: caps.Backend, Err: capsErr}
	}
	return &Plan{Scenario: sc, Schedule: sched, Policy: pol, Capabilities: caps, backend: b.Name()}, nil
}

// Stream runs sc on sched on backend b and streams its rows to sink; it
// returns the run's summary. A sink may stop a twin run early
// (twin.ErrStopRun).
func Stream(ctx context.Context, b Backend, sc scenario.Scenario, sched *scenario.Schedule, sink Sink) (results.Summary, error) {
	p, err := Prepare(ctx, b, sc, sched)
	if err != nil {
		return results.Summary{}, err
	}
	return p.execute(ctx, b, sink)
}

// StreamWith is Stream with pol in the place of the scenario's policy: a
// learner outside the process takes the policy's seat (internal/stepper),
// and the run is the one the scenario would make with its decisions.
func StreamWith(ctx context.Context, b Backend, sc scenario.Scenario, sched *scenario.Schedule, pol policy.Policy, sink Sink) (results.Summary, error) {
	p, err := prepare(ctx, b, sc, sched, pol)
	if err != nil {
		return results.Summary{}, err
	}
	return p.execute(ctx, b, sink)
}

// execute has b carry out p and ends the policy's session after it, with
// the run's error (nil at its normal end).
func (p *Plan) execute(ctx context.Context, b Backend, sink Sink) (results.Summary, error) {
	sum, err := b.Execute(ctx, p, sink)
	if p.ctl != nil {
		p.ctl.End(err)
	}
	return sum, err
}
