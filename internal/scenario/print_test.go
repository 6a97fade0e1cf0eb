package scenario_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
)

type discard struct{}

func (discard) WriteSample(results.Sample) error { return nil }
func (discard) WriteEvent(results.Event) error   { return nil }

// TestMarshalResolved: scenario print shows the TaskManagers and cores a
// run uses, not the 0 that stands for them, where that is one number for
// the whole run; loaded again, the printed scenario runs the same.
func TestMarshalResolved(t *testing.T) {
	const job = `name: p
duration: 20m
workload: {shape: constant, rate: 30000/s}
job:
  parallelism: 3
  cluster: {slots: 2}
faults:
  - {at: 5m, taskmanager: 0}
`
	cases := []struct {
		name, extra string
		want        []string // lines of the printed cluster
	}{
		{"static", "", []string{"    taskmanagers: 2\n", "    cores: 2.0\n"}},
		{"young", "policy: {name: young, mtbf: 1h}\n", []string{"    taskmanagers: 2\n", "    cores: 2.0\n"}},
		// a scale-down frees TaskManagers only when their number is derived
		{"rescaled", "actions:\n  - {at: 8m, parallelism: 6}\n  - {at: 14m, parallelism: 1}\n",
			[]string{"    taskmanagers: 0 # as many as the parallelism needs: 2 at parallelism 3; they follow the rescales\n", "    cores: 2.0\n"}},
		{"an autoscaler", "policy: {name: hpa}\n", []string{"    taskmanagers: 0 # as many as the parallelism needs", "    cores: 2.0\n"}},
		{"stated", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := job + c.extra
			if c.name == "stated" {
				src = strings.Replace(src, "{slots: 2}", "{slots: 2, taskmanagers: 3, cores: 1.5}", 1)
				c.want = []string{"    taskmanagers: 3\n", "    cores: 1.5\n"}
			}
			f, err := scenario.Parse("p.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			printed, err := f.Base.MarshalResolved()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(printed), w) {
					t.Errorf("printed scenario lacks %q:\n%s", w, printed)
				}
			}
			again, err := scenario.Parse("p.yaml", printed)
			if err != nil {
				t.Fatalf("the printed scenario does not load: %v\n%s", err, printed)
			}
			if twice, _ := again.Base.MarshalResolved(); string(twice) != string(printed) {
				t.Errorf("printed again it differs:\n%s\nwas\n%s", twice, printed)
			}
			if a, b := summary(t, f.Base), summary(t, again.Base); a != b {
				t.Errorf("the printed scenario runs differently:\n%s\nthe file:\n%s", b, a)
			}
			if c.name == "rescaled" { // why the 0 stays: a number is another run
				fixed, err := scenario.Parse("p.yaml", []byte(strings.Replace(src, "{slots: 2}", "{slots: 2, taskmanagers: 2}", 1)))
				if err != nil {
					t.Fatal(err)
				}
				if summary(t, fixed.Base) == summary(t, f.Base) {
					t.Error("taskmanagers: 2 runs as 0 does; then the print could show 2")
				}
			}
		})
	}
}

func summary(t *testing.T, sc scenario.Scenario) string {
	t.Helper()
	sched, err := sc.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	sum, err := run.Stream(context.Background(), twin.Backend{}, sc, sched, discard{})
	if err != nil {
		t.Fatal(err)
	}
	sum.WallTimeS = 0
	b, _ := json.Marshal(sum)
	return string(b)
}
