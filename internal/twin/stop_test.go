package twin

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
)

// stopOn is a memSink that asks the run to stop at the first event of kind.
type stopOn struct {
	memSink
	kind string
}

func (s *stopOn) WriteEvent(e results.Event) error {
	s.memSink.WriteEvent(e)
	if e.Kind == s.kind {
		return ErrStopRun
	}
	return nil
}

// TestSinkStopsTheRun: a sink returning ErrStopRun at the recovery ends the
// run there without an error. The hand job (capacity 100,000/s) at 10,000/s
// recovers from the crash at 10 m within a minute, so the 30 m run stops
// about 20 min early: the rows until then are the full run's, and the run
// ends (last sample, run_end, summary duration) at the sample that confirmed
// the recovery, the Hold-th (15th) normal one after the recovery's end.
func TestSinkStopsTheRun(t *testing.T) {
	src := "duration: 30m\nworkload: {shape: constant, rate: 10000/s}\n" + handJob + "faults: [{at: 10m, taskmanager: 0}]\n"
	full, _ := runYAML(t, src)
	f, err := scenario.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Runs()[0]
	sched, err := sc.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	stopped := &stopOn{kind: results.KindRecovered}
	sum, err := simulate(sc, sched, stopped)
	if err != nil {
		t.Fatalf("a stopped run failed: %v", err)
	}
	rec := full.kind(results.KindRecovered)
	if len(rec) != 1 {
		t.Fatalf("the full run has %d recoveries, want 1", len(rec))
	}
	at := rec[0].TimeS
	if at < 600 || at > 700 {
		t.Fatalf("recovered at %g s, want within the minute after the crash at 600 s", at)
	}
	// the recovery ends at a sample's end; 15 normal samples confirm it
	seen := at + 15
	if last := stopped.samples[len(stopped.samples)-1].TimeS; last != seen || at != math.Ceil(at) {
		t.Errorf("last sample at %g s, want %g s, the one that confirmed the recovery at %g s (a whole second)", last, seen, at)
	}
	if n := len(stopped.samples); fmt.Sprint(stopped.samples) != fmt.Sprint(full.samples[:n]) {
		t.Error("the stopped run's samples differ from the full run's first ones")
	}
	events := stopped.events[:len(stopped.events)-1]
	if got, want := jsonOf(t, events), jsonOf(t, full.events[:len(events)]); got != want {
		t.Errorf("the stopped run's events differ from the full run's first ones:\n%s\n%s", got, want)
	}
	end := stopped.events[len(stopped.events)-1]
	if end.Kind != results.KindRunEnd || end.TimeS != seen {
		t.Errorf("last event %s at %g s, want %s at the sample that confirmed the recovery, %g s", end.Kind, end.TimeS, results.KindRunEnd, seen)
	}
	if sum.DurationS != seen || sum.Recoveries != 1 || sum.UnrecoveredFaults != 0 {
		t.Errorf("summary: duration %g s, %d recoveries, %d unrecovered; want %g s, 1, 0",
			sum.DurationS, sum.Recoveries, sum.UnrecoveredFaults, seen)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// failingSink fails its first event write.
type failingSink struct{ memSink }

var errDiskFull = errors.New("disk full")

func (failingSink) WriteEvent(results.Event) error { return errDiskFull }

// TestSinkErrorFailsTheRun: any other sink error still fails the run.
func TestSinkErrorFailsTheRun(t *testing.T) {
	f, err := scenario.Parse("test.yaml", []byte("duration: 5m\nworkload: {shape: constant, rate: 10000/s}\n"+handJob+"faults: [{at: 1m, taskmanager: 0}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Runs()[0]
	sched, err := sc.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := simulate(sc, sched, &failingSink{}); !errors.Is(err, errDiskFull) {
		t.Errorf("run error %v, want the sink's %v", err, errDiskFull)
	}
}
