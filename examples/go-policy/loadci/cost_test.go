package loadci_test

import (
	"github.com/streamtwin/streamtwin/internal/jsonproc"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/examples/go-policy/loadci"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/models/policy/external"
	"github.com/streamtwin/streamtwin/results"
)

// TestStepCost is make bench's cost of one policy tick, at the median of
// 5000 ticks of the load-ci rule on a 600-sample window that gains 10
// samples a tick: in process (Go) and over the protocol (the Python
// example, a JSON line each way through pipes). Goals: 50 µs and 1 ms.
func TestStepCost(t *testing.T) {
	if os.Getenv("STREAMTWIN_BENCH") == "" {
		t.Skip("a benchmark: make bench (STREAMTWIN_BENCH=1)")
	}
	goRule, err := loadci.New(loadci.Default)
	if err != nil {
		t.Fatal(err)
	}
	py, err := external.New(external.Settings{Settings: jsonproc.Settings{Command: []string{"python3", "../../../examples/python/load_ci_policy.py"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := py.Begin(policy.RunInfo{Backend: "sim", BackendName: "the simulator", Actions: policy.ActionKinds}); err != nil {
		t.Fatal(err)
	}
	defer py.End("end of benchmark")
	for _, c := range []struct {
		name string
		step func(time.Duration, policy.Observation) ([]policy.Action, error)
		goal time.Duration
	}{
		{"in process (Go)", func(now time.Duration, o policy.Observation) ([]policy.Action, error) {
			return goRule.Step(now, o), nil
		}, 50 * time.Microsecond},
		{"over the protocol (Python)", py.StepErr, time.Millisecond},
	} {
		const ticks = 5000
		all := make([]results.Sample, 600+10*ticks)
		for i := range all {
			all[i] = results.Sample{TimeS: float64(i + 1), InputRate: 50000 + float64(i%7000)*10, JobState: "RUNNING", LatencyP99Ms: 120}
		}
		cost := make([]time.Duration, ticks)
		for k := range ticks {
			end := 600 + 10*k
			obs := policy.Observation{Window: all[end-600 : end], Job: policy.JobStatus{State: "RUNNING", CheckpointInterval: 30 * time.Second}}
			start := time.Now()
			if _, err := c.step(time.Duration(end)*time.Second, obs); err != nil {
				t.Fatal(err)
			}
			cost[k] = time.Since(start)
		}
		slices.Sort(cost)
		median, p99 := cost[ticks/2], cost[ticks*99/100]
		t.Logf("policy step %s: median %v, p99 %v per tick (goal: median < %v)", c.name, median, p99, c.goal)
		if median > c.goal {
			t.Errorf("%s: median %v per tick, above the goal of %v", c.name, median, c.goal)
		}
	}
}
