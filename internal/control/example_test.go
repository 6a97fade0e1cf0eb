package control

import (
	"fmt"
	"log"
	"math"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/policy"
)

// The controller drives a run on any Backend: here the tests' fake, a
// timer list that samples once a second and logs what it is asked to do.
// The controller schedules the scenario's faults and forced actions on the
// backend's clock and steps the policy every policy period; a backend only
// carries out (the twin and the live driver are the real ones). At 90 s the
// forced action comes first, then the static policy's step sees the job at
// 10 s instead of its 30 s and asks for 30 s back.
func Example() {
	f, err := scenario.Parse("example.yaml", []byte(`
name: example
duration: 2m
workload: {shape: constant, rate: 1000/s}
job: {parallelism: 2, checkpoint: {interval: 30s}}
faults:
  - {at: 20s, taskmanager: 1}
  - {at: 50s, kind: cpu_throttle, taskmanager: 0, share: 0.5, duration: 30s}
actions:
  - {at: 90s, checkpoint_interval: 10s}
policy: {name: static, interval: 30s}
`))
	if err != nil {
		log.Fatal(err)
	}
	sc := f.Runs()[0]
	sched, err := sc.Resolve()
	if err != nil {
		log.Fatal(err)
	}
	pol, err := policy.New(sc.Policy.Name, sc.Policy.Node, nil)
	if err != nil {
		log.Fatal(err)
	}
	b := &fake{due: math.NaN(), tms: 2, ci: 30, par: 2}
	b.ctl = New(b, pol, sched)
	if err := b.ctl.Start(Info(sc, Everything("a fake backend"), "sim")); err != nil {
		log.Fatal(err)
	}
	b.runUntil(float64(sc.Duration))
	b.ctl.End(nil)
	for _, op := range b.ops {
		fmt.Println(op)
	}
	for _, e := range b.events {
		fmt.Printf("event at %g s: %s (%s)\n", e.TimeS, e.Kind, e.Reason)
	}
	// Output:
	// 20 kill 1 (faults[0])
	// 50 cpu_throttle 0 for 30s (faults[1])
	// 90 reconfigure ci 10 par 2
	// 90 reconfigure ci 30 par 2
	// event at 90 s: policy_decision (set_checkpoint_interval: forced by actions in the scenario)
	// event at 90 s: policy_decision (set_checkpoint_interval: static policy: checkpoint interval 30s, job runs with 10s)
}
