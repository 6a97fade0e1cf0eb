package run_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
)

// exampleScenario is a 20-minute run at a constant 20,000 records/s with
// one TaskManager crash 3 s before a checkpoint is due.
const exampleScenario = `
name: example
seed: 7
duration: 20m
workload: {shape: constant, rate: 20000/s}
kafka: {partitions: 4}
job:
  parallelism: 4
  checkpoint: {interval: 30s}
faults:
  - {at: 8m, before_checkpoint: 3s, operator: sink}
qos: {latency: 1s, recovery: 240s}
`

// ToDir is what `streamtwin run` does for each run of a scenario file:
// parse (and validate) the scenario, then simulate it (the twin backend)
// into a run folder, which appears complete or not at all. `streamtwin live
// run` is the same call with the live driver's backend.
func ExampleToDir() {
	f, err := scenario.Parse("example.yaml", []byte(exampleScenario))
	if err != nil {
		log.Fatal(err)
	}
	base, err := os.MkdirTemp("", "streamtwin-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(base)
	for _, sc := range f.Runs() { // one run: the scenario has no variants
		dir := filepath.Join(base, sc.Name)
		sum, err := run.ToDir(context.Background(), twin.Backend{}, sc, dir, run.Output{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d fault, %d recovery in %.0f s\n", sum.Scenario, sum.Faults, sum.Recoveries, sum.RecoveryMedianS)
		fmt.Printf("%d records in, %.0f records/s processed\n", sum.RecordsIn, sum.ThroughputMean)
		again, err := results.ReadSummary(dir)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("summary.json agrees:", again.RecordsIn == sum.RecordsIn)
	}
	// Output:
	// example: 1 fault, 1 recovery in 18 s
	// 24000000 records in, 20450 records/s processed
	// summary.json agrees: true
}

// countingSink keeps no rows, it only counts them.
type countingSink struct{ samples, events int }

func (c *countingSink) WriteSample(results.Sample) error { c.samples++; return nil }
func (c *countingSink) WriteEvent(results.Event) error   { c.events++; return nil }

// Stream runs a scenario without a folder and streams the rows to any Sink,
// here one that only counts them.
func ExampleStream() {
	f, err := scenario.Parse("example.yaml", []byte(exampleScenario))
	if err != nil {
		log.Fatal(err)
	}
	sc := f.Base
	sched, err := sc.Resolve()
	if err != nil {
		log.Fatal(err)
	}
	var sink countingSink
	sum, err := run.Stream(context.Background(), twin.Backend{}, sc, sched, &sink)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d samples, %d checkpoints completed, latency p50 %.0f ms\n", sink.samples, sum.CheckpointsCompleted, sum.LatencyP50Ms)
	// Output:
	// 1200 samples, 39 checkpoints completed, latency p50 101 ms
}
