package sim

import (
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestTimers(t *testing.T) {
	env := NewEnv()
	var fired []float64
	env.After(5, func() { fired = append(fired, env.Now()) })
	cancelled := env.After(3, func() { t.Error("cancelled timer fired") })
	cancelled.Cancel()
	var ticks []float64
	var periodic *Timer
	periodic = env.Every(2, 2, func() {
		ticks = append(ticks, env.Now())
		if len(ticks) == 4 {
			periodic.Cancel()
		}
	})
	env.At(1, func() {
		if !periodic.Active() {
			t.Error("periodic timer not active at t=1")
		}
	})
	env.RunUntil(100)
	if len(fired) != 1 || fired[0] != 5 {
		t.Errorf("one-shot fired at %v, want [5]", fired)
	}
	want := []float64{2, 4, 6, 8}
	if len(ticks) != len(want) {
		t.Fatalf("periodic ticks %v, want %v", ticks, want)
	}
	for i := range want {
		if ticks[i] != want[i] {
			t.Errorf("tick %d at %v, want %v", i, ticks[i], want[i])
		}
	}
	if env.Now() != 100 {
		t.Errorf("clock at %v after RunUntil(100)", env.Now())
	}
}

func TestEveryDoesNotDrift(t *testing.T) {
	env := NewEnv()
	var last float64
	n := 0
	env.Every(0.1, 0.1, func() { last = env.Now(); n++ })
	env.RunUntil(10000.05)
	// accumulating 0.1 a hundred thousand times would be off by ~1e-8
	start, period := 0.1, 0.1 // variables: constant folding would compute exactly
	if want := start + 99999*period; n != 100000 || last != want {
		t.Errorf("after %d ticks the clock reads %.12f, want exactly %.12f", n, last, want)
	}
}

func TestSeedStreams(t *testing.T) {
	a, b := Seeds{Root: 1}.Stream("faults"), Seeds{Root: 1}.Stream("faults")
	for i := 0; i < 100; i++ {
		if a.Float64() != b.Float64() {
			t.Fatal("same root and name gave different sequences")
		}
	}
	x, y, z := Seeds{Root: 1}.Stream("faults"), Seeds{Root: 1}.Stream("restart"), Seeds{Root: 2}.Stream("faults")
	xv, yv, zv := x.Uint64(), y.Uint64(), z.Uint64()
	if xv == yv || xv == zv {
		t.Error("different names or roots gave the same first number")
	}
}

// TestClockBatchesBetweenEvents: a clock runs its ticks inline between
// other timers, each tick seeing its own Now, in the same order as
// separate events would, and timers created inside a tick stop the batch.
func TestClockBatchesBetweenEvents(t *testing.T) {
	env := NewEnv()
	var log []string
	env.At(3.5, func() { log = append(log, "event@3.5") })
	env.Clock(1, 1, func() {
		now := env.Now()
		log = append(log, "tick@"+ftoa(now))
		if now == 5 {
			env.After(0.25, func() { log = append(log, "after@"+ftoa(env.Now())) })
		}
	})
	env.RunUntil(7.5)
	want := "tick@1 tick@2 tick@3 event@3.5 tick@4 tick@5 after@5.25 tick@6 tick@7"
	if got := joinStrings(log); got != want {
		t.Errorf("order:\n got %s\nwant %s", got, want)
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func joinStrings(s []string) string { return strings.Join(s, " ") }

// TestCloseReleasesTheModel: timers still armed when a run ends run no
// more after Close, and what their callbacks hold becomes garbage (simgo's
// finalizers would otherwise keep the pending events' cycle alive).
func TestCloseReleasesTheModel(t *testing.T) {
	var collected atomic.Bool
	func() {
		env := NewEnv()
		model := make([]byte, 1<<20)
		runtime.SetFinalizer(&model[0], func(*byte) { collected.Store(true) })
		env.After(1000, func() { t.Error("a discarded timer ran"); model[0]++ })
		env.Every(1, 1, func() { model[1]++ })
		env.Clock(0, 1, func() { model[2]++ })
		env.RunUntil(10)
		env.Close()
	}()
	for i := 0; i < 20 && !collected.Load(); i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if !collected.Load() {
		t.Error("the model of a closed Env was never collected")
	}
}

// TestStop: Stop ends the run at the time of the handler that called it,
// inside a clock batch too: the handler completes, nothing later runs (not
// a timer due at the same time, nor the clock's next tick), and Now stays
// at the stop time after RunUntil.
func TestStop(t *testing.T) {
	env := NewEnv()
	var log []string
	env.At(3.5, func() { log = append(log, "event@3.5") })
	env.At(20, func() { log = append(log, "event@20") })
	env.Clock(1, 1, func() {
		now := env.Now()
		if now == 5 {
			env.After(0, func() { log = append(log, "after@5") })
			env.Stop()
			env.Stop() // the first time stays
		}
		log = append(log, "tick@"+ftoa(now))
	})
	env.Every(6, 6, func() { log = append(log, "every@"+ftoa(env.Now())) })
	env.RunUntil(100)
	if want := "tick@1 tick@2 tick@3 event@3.5 tick@4 tick@5"; joinStrings(log) != want {
		t.Errorf("order:\n got %s\nwant %s", joinStrings(log), want)
	}
	if !env.Stopped() || env.Now() != 5 {
		t.Errorf("stopped %v at %g, want true at 5", env.Stopped(), env.Now())
	}
}
