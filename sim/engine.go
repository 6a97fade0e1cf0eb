package sim

import (
	"container/heap"
	"math"
	"runtime"

	"github.com/fschuetz04/simgo"
)

// Env is a simulation clock with timers. Time is float64 seconds since the
// start of the run.
type Env struct {
	s *simgo.Simulation
	// pending holds the fire times of every armed timer except the clocks,
	// so a clock can tell how far it may run ahead without an event.
	pending timeHeap
	// virtual is the time of the clock tick being run inside a batch
	// (NaN outside one); Now reports it.
	virtual float64
	horizon float64 // RunUntil's end: no clock tick runs at or after it
	closed  bool    // Close was called: handlers no longer run
	// stopped: Stop was called at stoppedAt; handlers no longer run and the
	// clock stays there.
	stopped   bool
	stoppedAt float64
}

// NewEnv returns an empty simulation at time 0.
func NewEnv() *Env { return &Env{s: simgo.NewSimulation(), virtual: math.NaN(), horizon: math.Inf(1)} }

// Now is the current simulated time in seconds.
func (e *Env) Now() float64 {
	if e.stopped {
		return e.stoppedAt
	}
	if !math.IsNaN(e.virtual) {
		return e.virtual
	}
	return e.s.Now()
}

// Timer is a scheduled callback that can be cancelled before it fires.
type Timer struct {
	ev       *simgo.Event
	at       float64
	period   float64
	canceled bool
	entry    *timeEntry
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
	if t.entry != nil {
		t.entry.done = true
	}
	if t.ev != nil && t.ev.Pending() {
		t.ev.Abort()
	}
}

// schedule arms a simgo event at absolute time at. Delays are taken from
// simgo's own clock, which lags Now during a clock batch.
//
// simgo gives every event a finalizer that aborts it once unreachable. An
// event of ours is reachable until it has fired or Close drained it, so
// the finalizer never does anything here; but it costs an allocation
// special, a GC root to scan, a finalizer call and a second GC cycle per
// event: a sixth of a calibration point's CPU. Removed.
func (e *Env) schedule(at float64, fn func()) *simgo.Event {
	ev := e.s.Timeout(math.Max(0, at-e.s.Now()))
	runtime.SetFinalizer(ev, nil)
	ev.AddHandler(func(*simgo.Event) {
		if !e.closed && !e.stopped {
			fn()
		}
	})
	return ev
}

// Stop ends the run at the current time, for a caller that has all it
// needs before the horizon: the handler running now completes, no later
// one runs (nor the rest of a clock batch), and Now stays at the stop time
// when RunUntil returns. Stopping twice keeps the first time.
func (e *Env) Stop() {
	if !e.stopped {
		e.stoppedAt, e.stopped = e.Now(), true
	}
}

// Stopped reports whether Stop was called.
func (e *Env) Stopped() bool { return e.stopped }

// Close discards every event still pending without running it; the Env is
// done. (With simgo's finalizers, a pending event, its handler's closure
// and through it the model, and the simulation's queue formed a cycle Go
// never collects; schedule removes them, and Close still empties the queue
// so nothing of a finished run stays armed.)
func (e *Env) Close() {
	e.closed = true
	e.s.Run() // no-op handlers; empties the queue, which breaks the cycle
}

// track records a pending fire time for the clocks to respect.
func (e *Env) track(at float64) *timeEntry {
	en := &timeEntry{at: at}
	heap.Push(&e.pending, en)
	return en
}

// After runs fn once, delay seconds from now. A negative delay is clamped to
// zero: floating-point sums of event times may land a hair in the past.
func (e *Env) After(delay float64, fn func()) *Timer {
	if delay < 0 || math.IsNaN(delay) {
		delay = 0
	}
	t := &Timer{at: e.Now() + delay}
	t.entry = e.track(t.at)
	t.ev = e.schedule(t.at, func() {
		t.entry.done = true
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
		t.entry = e.track(t.at)
		t.ev = e.schedule(t.at, func() {
			t.entry.done = true
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

// Clock is Every for the model's own heartbeat (rate changes, metric
// samples): when it fires it keeps running its ticks inline, each at its
// own Now, for as long as no other timer is due before the next tick. So a
// run costs one simgo event per stretch between other events rather than
// one per tick, and every tick still sees the exact time and the same
// order of events. fn must not cancel the clock.
func (e *Env) Clock(start, period float64, fn func()) {
	var k float64
	var fire func()
	fire = func() {
		for {
			e.virtual = start + k*period
			fn()
			k++
			next := start + k*period
			if e.stopped || next >= e.horizon || next >= e.nextPending() {
				break
			}
		}
		e.virtual = math.NaN()
		e.schedule(start+k*period, fire)
	}
	e.schedule(start, fire)
}

// nextPending is the earliest fire time of a live non-clock timer.
func (e *Env) nextPending() float64 {
	for len(e.pending) > 0 && e.pending[0].done {
		heap.Pop(&e.pending)
	}
	if len(e.pending) == 0 {
		return math.Inf(1)
	}
	return e.pending[0].at
}

// RunUntil processes every event scheduled before end and leaves the clock at
// end (at the stop time if a handler called Stop). Events at exactly end are
// not processed.
func (e *Env) RunUntil(end float64) {
	e.horizon = end
	e.s.RunUntil(end)
}

type timeEntry struct {
	at   float64
	done bool
}

type timeHeap []*timeEntry

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(*timeEntry)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
