package scenario_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/streamtwin/streamtwin/internal/scenario"
)

// A scenario file is decoded strictly, filled with defaults and validated;
// each variant is one run, and Resolve turns a run into its timeline: the
// workload's rates, the faults and the forced actions.
func ExampleParse() {
	f, err := scenario.Parse("example.yaml", []byte(`
name: example
seed: 7
duration: 10m
workload: {shape: constant, rate: 20000/s}
job: {parallelism: 4, checkpoint: {interval: 30s}}
faults:
  - {at: 5m, before_checkpoint: 3s, operator: sink}
actions:
  - {at: 8m, parallelism: 6}
variants:
  - {name: ci10, job: {checkpoint: {interval: 10s}}}
  - {name: ci60, job: {checkpoint: {interval: 60s}}}
`))
	if err != nil {
		log.Fatal(err)
	}
	for _, sc := range f.Runs() {
		sched, err := sc.Resolve()
		if err != nil {
			log.Fatal(err)
		}
		fault := sched.Faults[0]
		fmt.Printf("%s/%s: CI %v, %g records/s at 1 min, %s fault armed at %g s (%g s before a checkpoint, on %s's TaskManager), %d forced action\n",
			sc.Name, sc.Variant, sc.Job.Checkpoint.Interval, sched.Rates.RateAt(60), fault.Kind, fault.At, fault.BeforeCheckpoint, fault.Operator, len(sched.Actions))
	}
	// Output:
	// example/ci10: CI 10s, 20000 records/s at 1 min, taskmanager fault armed at 300 s (3 s before a checkpoint, on sink's TaskManager), 1 forced action
	// example/ci60: CI 1m, 20000 records/s at 1 min, taskmanager fault armed at 300 s (3 s before a checkpoint, on sink's TaskManager), 1 forced action
}

// A scenario that asks for what cannot be is refused with every problem at
// its file, line and field, and the allowed range.
func ExampleParse_problems() {
	_, err := scenario.Parse("bad.yaml", []byte(`
name: bad
duration: 10m
workload: {shape: constant, rate: 20000/s}
job:
  parallelism: 0
  checkpoint: {interval: 30s}
kafka: {partitions: 4}
`))
	var problems scenario.Problems
	if errors.As(err, &problems) {
		for _, p := range problems {
			fmt.Println(p)
		}
	}
	// Output:
	// bad.yaml:6: job.parallelism: must be at least 1, got 0
}
