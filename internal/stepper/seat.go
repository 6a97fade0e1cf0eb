package stepper

import (
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
)

// seat is the policy whose decisions come from the learner: its Step runs
// on the simulation's goroutine, hands the observation to the Episode and
// waits for the reply.
type seat struct {
	interval time.Duration
	window   int
	ticks    chan Observation
	replies  chan reply
	tail     tail
	lastSent float64          // time_s of the newest row handed out (−Inf before any)
	rows     []results.Sample // reused: the learner's copy of this tick's rows
}

type reply struct {
	actions []policy.Action
	abandon bool
}

func (s *seat) Name() string            { return Name }
func (s *seat) Interval() time.Duration { return s.interval }

// WindowSamples keeps every sample between two ticks.
func (s *seat) WindowSamples() int { return s.window }

func (s *seat) Step(now time.Duration, obs policy.Observation) []policy.Action {
	actions, _ := s.StepErr(now, obs)
	return actions
}

// StepErr hands out the rows since the previous tick (as an external
// policy's observation has them), the job's status and the costs so far,
// and returns the learner's actions; a learner that abandons the run ends
// it.
func (s *seat) StepErr(now time.Duration, obs policy.Observation) ([]policy.Action, error) {
	s.rows = append(s.rows[:0], obs.Window[policy.FirstUnseen(obs.Window, s.lastSent):]...)
	if n := len(obs.Window); n > 0 {
		s.lastSent = obs.Window[n-1].TimeS
	}
	s.tail.after(s.lastSent)
	qos, ws := s.tail.costs.Violations()
	s.ticks <- Observation{Now: now, Rows: s.rows, Job: obs.Job, QoS: qos, WorkerSeconds: ws}
	r := <-s.replies
	if r.abandon {
		return nil, errAbandoned
	}
	return r.actions, nil
}
