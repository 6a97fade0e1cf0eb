package sim

import (
	"math"

	"github.com/fschuetz04/simgo"
)

// Env is a simulation clock with timers. Time is float64 seconds since the
// start of the run.
type Env struct {
	s *simgo.Simulation
}

// NewEnv returns an empty simulation at time 0.
func NewEnv() *Env { return &Env{s: simgo.NewSimulation()} }

// Now is the current simulated time in seconds.
func (e *Env) Now() float64 { return e.s.Now() }

// Timer is a scheduled callback that can be cancelled before it fires.
type Timer struct {
	ev       *simgo.Event
	at       float64
	period   float64
	canceled bool
}

// At is the time the timer fires next.
func (t *Timer) At() float64 { return t.at }

// Active reports whether the timer will still fire.
func (t *Timer) Active() bool { return t != nil && !t.canceled && t.ev != nil && t.ev.Pending() }

// Cancel stops the timer; cancelling a fired or nil timer is a no-op.
func (t *Timer) Cancel() {
	if t == nil || t.canceled {
		return
	}
	t.canceled = true
	if t.ev != nil && t.ev.Pending() {
		t.ev.Abort()
	}
}

// After runs fn once, delay seconds from now. A negative delay is clamped to
// zero: floating-point sums of event times may land a hair in the past.
func (e *Env) After(delay float64, fn func()) *Timer {
	if delay < 0 || math.IsNaN(delay) {
		delay = 0
	}
	t := &Timer{at: e.Now() + delay}
	t.ev = e.s.Timeout(delay)
	t.ev.AddHandler(func(*simgo.Event) {
		if !t.canceled {
			fn()
		}
	})
	return t
}

// At runs fn once at absolute time at (now, if at is in the past).
func (e *Env) At(at float64, fn func()) *Timer { return e.After(at-e.Now(), fn) }

// Every runs fn at start, start+period, start+2·period, … until the returned
// timer is cancelled. Times are computed as start + k·period, not by
// accumulating, so a long run does not drift.
func (e *Env) Every(start, period float64, fn func()) *Timer {
	t := &Timer{period: period}
	var k float64
	var arm func()
	arm = func() {
		t.at = start + k*period
		t.ev = e.s.Timeout(math.Max(0, t.at-e.Now()))
		t.ev.AddHandler(func(*simgo.Event) {
			if t.canceled {
				return
			}
			k++
			arm() // re-arm first, so fn may cancel the timer
			fn()
		})
	}
	arm()
	return t
}

// RunUntil processes every event scheduled before end and leaves the clock at
// end. Events at exactly end are not processed.
func (e *Env) RunUntil(end float64) { e.s.RunUntil(end) }
