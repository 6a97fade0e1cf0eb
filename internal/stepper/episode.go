package stepper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// Name is the learner's name as a policy, in events and errors.
const Name = "learner"

// errAbandoned ends a run the learner left (a reset, or the end of input).
var errAbandoned = errors.New("the learner abandoned the run")

// Observation is what the learner gets at each tick, and once more when
// the run has ended (End).
type Observation struct {
	Now time.Duration
	// Rows are the samples since the previous observation, up to the last
	// complete metric interval: those an external policy gets at this tick.
	Rows []results.Sample
	Job  policy.JobStatus
	// QoS and WorkerSeconds are the run's costs so far, as summary.json
	// counts them (measure.Summarizer).
	QoS           results.QoSSummary
	WorkerSeconds float64
	// End: the run is over (Rows are its last ones, Job its final state);
	// Summary is the run's summary.
	End     bool
	Summary results.Summary
}

// Episode is one run of a scenario with the learner in the policy's seat.
type Episode struct {
	seat   *seat
	costs  *measure.Summarizer
	done   chan outcome
	over   bool
	lastSt policy.JobStatus
}

type outcome struct {
	sum results.Summary
	err error
}

// Start begins a run of sc (its seed is the run's root seed) with the
// learner stepping every interval, and returns it with its first
// observation.
func Start(sc scenario.Scenario, interval time.Duration) (*Episode, Observation, error) {
	if interval < time.Millisecond {
		return nil, Observation{}, fmt.Errorf("the step interval must be at least 1ms, got %v", interval)
	}
	sched, err := sc.Resolve()
	if err != nil {
		return nil, Observation{}, err
	}
	samples := int(float64(sc.Duration)/float64(sc.MetricInterval)) + 1
	e := &Episode{
		seat: &seat{interval: interval, window: int(math.Ceil(interval.Seconds()/sc.MetricInterval.Std().Seconds())) + 1,
			ticks: make(chan Observation), replies: make(chan reply), lastSent: math.Inf(-1)},
		costs: measure.NewSummarizer(sc.Name, sc.Variant, "sim", sc.Seed, 1000*float64(sc.QoS.Latency), float64(sc.QoS.Recovery), samples),
		done:  make(chan outcome, 1),
	}
	e.seat.tail.costs = e.costs
	go func() {
		sum, err := run.StreamWith(context.Background(), twin.Backend{}, sc, sched, e.seat, &e.seat.tail)
		e.done <- outcome{sum, err}
	}()
	obs, err := e.next()
	if err != nil {
		return nil, Observation{}, err
	}
	return e, obs, nil
}

// Step carries out the learner's actions (none: hold) at the current tick
// and runs to the next one, or to the end of the run.
func (e *Episode) Step(actions []policy.Action) (Observation, error) {
	if e.over {
		return Observation{}, errors.New("the run has ended: reset before stepping again")
	}
	e.seat.replies <- reply{actions: actions}
	return e.next()
}

// Close abandons a run that has not ended and waits until its goroutine is
// gone.
func (e *Episode) Close() {
	if e.over {
		return
	}
	e.over = true
	e.seat.replies <- reply{abandon: true}
	<-e.done
}

// next waits for the next tick, or the end of the run.
func (e *Episode) next() (Observation, error) {
	select {
	case obs := <-e.seat.ticks:
		e.lastSt = obs.Job
		return obs, nil
	case o := <-e.done:
		e.over = true
		if o.err != nil {
			return Observation{}, o.err
		}
		qos, ws := e.costs.Violations()
		job := e.lastSt
		job.State = o.sum.FinalState
		return Observation{Now: time.Duration(o.sum.DurationS * float64(time.Second)), Rows: e.seat.tail.after(e.seat.lastSent),
			Job: job, QoS: qos, WorkerSeconds: ws, End: true, Summary: o.sum}, nil
	}
}

// tail counts the run's rows as summary.json does, and keeps those the
// learner has not seen for the observation at the end of the run (the
// rows after the last tick reach no Step). It writes nothing.
type tail struct {
	costs *measure.Summarizer
	rows  []results.Sample
}

func (t *tail) WriteSample(s results.Sample) error {
	t.costs.Sample(s)
	t.rows = append(t.rows, s)
	return nil
}

func (t *tail) WriteEvent(e results.Event) error { t.costs.Event(e); return nil }

// after drops the rows up to time_s ≤ sent (the learner has them) and
// returns the others.
func (t *tail) after(sent float64) []results.Sample {
	t.rows = t.rows[:copy(t.rows, t.rows[policy.FirstUnseen(t.rows, sent):])]
	return t.rows
}
