package driver

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// clock is the live backend's event loop: the controller's timers (policy
// ticks, forced actions, faults) and the samples it observes run one at a
// time on the goroutine of run, in time order, so the controller sees the
// same one-thread world as in the simulator. Times are run seconds since
// start.
type clock struct {
	start time.Time
	mu    sync.Mutex
	q     timerQueue
	seq   int
	wake  chan struct{}
}

func newClock(start time.Time) *clock { return &clock{start: start, wake: make(chan struct{}, 1)} }

func (c *clock) Now() float64 { return time.Since(c.start).Seconds() }

// At runs fn at run time t (at once if t has passed). Safe from any
// goroutine.
func (c *clock) At(t float64, fn func()) {
	c.mu.Lock()
	c.seq++
	heap.Push(&c.q, &liveTimer{at: t, seq: c.seq, fn: fn})
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Every runs fn at start + k·period, without drift.
func (c *clock) Every(start, period float64, fn func()) {
	var arm func(k float64)
	arm = func(k float64) {
		c.At(start+k*period, func() { arm(k + 1); fn() })
	}
	arm(0)
}

// post runs fn on the loop as soon as it is free.
func (c *clock) post(fn func()) { c.At(0, fn) }

// run fires the timers until ctx ends.
func (c *clock) run(ctx context.Context) error {
	for {
		c.mu.Lock()
		var wait time.Duration = time.Hour
		var due *liveTimer
		if len(c.q) > 0 {
			if d := time.Duration((c.q[0].at - c.Now()) * float64(time.Second)); d <= 0 {
				due = heap.Pop(&c.q).(*liveTimer)
			} else {
				wait = d
			}
		}
		c.mu.Unlock()
		if due != nil {
			due.fn()
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-c.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

type liveTimer struct {
	at  float64
	seq int
	fn  func()
}

type timerQueue []*liveTimer

func (q timerQueue) Len() int { return len(q) }
func (q timerQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q timerQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *timerQueue) Push(x any)   { *q = append(*q, x.(*liveTimer)) }
func (q *timerQueue) Pop() any {
	old := *q
	t := old[len(old)-1]
	*q = old[:len(old)-1]
	return t
}
