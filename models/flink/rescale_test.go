package flink_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
)

// nullSink drops the rows: the summary is what the tests read.
type nullSink struct{}

func (nullSink) WriteSample(results.Sample) error { return nil }
func (nullSink) WriteEvent(results.Event) error   { return nil }

// TestIdleTaskManagersAreReleased: a pool of three one-slot TaskManagers,
// a stateless job at parallelism 3 rescaled to 1 at 100 s, 200 s in all.
// The rescale restarts at once (down_delay 0, no wait for a checkpoint),
// deploys in 1.5 s and restores in restore_base 1 s (no state), so the job
// runs again at 102.5 s and the two idle TaskManagers stop `release`
// later, at R. The twin counts a sample's workers over the second that
// the sample closes, so worker-seconds = 3·⌊R⌋ + 1·(200 − ⌊R⌋): the exact
// 3·R + 1·(200 − R) less the part of a second R falls into, counted at 1.
func TestIdleTaskManagersAreReleased(t *testing.T) {
	const job = `
duration: 200s
workload: {shape: constant, rate: 10000/s}
kafka: {partitions: 3}
job:
  parallelism: %d
  operators:
    - {name: source, cost: 10us}
  checkpoint: {interval: 10s, initial_delay: interval, alignment: 0s, inflight_drain: 0s, sync_base: 0s, async_base: 500ms, cpu_overhead: 0}
  restart: {strategy: fixed-delay, delay: 2s, attempts: 0}
  cluster: {taskmanagers: 3, slots: 1, restart_delay: 10s, deploy: 2s, restore_base: 1s, submit: 2s, warmup: 0s}
  rescale: {mode: %s, up_delay: 4.5s, down_delay: 0s, down_deploy: 1.5s, on_checkpoint: false, release: %s}
`
	for _, tc := range []struct {
		name, mode, release string
		from                int
		actions             string
		want                float64
	}{
		// R = 102.5 s: 3·102 + 98
		{"release at once", "checkpoint", "0s", 3, "actions: [{at: 100s, parallelism: 1}]", 404},
		// R = 103.5 s: 3·103 + 97
		{"release 1 s later", "checkpoint", "1s", 3, "actions: [{at: 100s, parallelism: 1}]", 406},
		// R = 104.5 s: 3·104 + 96 (exactly: 300 + 100 + 4.5·2 = 409)
		{"release 2 s later", "checkpoint", "2s", 3, "actions: [{at: 100s, parallelism: 1}]", 408},
		// the job starts on the one TaskManager it needs
		{"start on what the job needs", "checkpoint", "0s", 1, "", 200},
		// a scale-up starts the two it needs, registered after up_delay, at
		// 104.5 s: 1·104 + 3·96
		{"scale-up starts what it needs", "checkpoint", "0s", 1, "actions: [{at: 100s, parallelism: 3}]", 392},
		// savepoint mode keeps the pool
		{"savepoint mode keeps the pool", "savepoint", "0s", 3, "actions: [{at: 100s, parallelism: 1}]", 600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(job, tc.from, tc.mode, tc.release) + tc.actions + "\n"
			f, err := scenario.Parse("test.yaml", []byte(src))
			if err != nil {
				t.Fatalf("scenario: %v", err)
			}
			sc := f.Runs()[0]
			sched, err := sc.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			sum, err := run.Stream(context.Background(), twin.Backend{}, sc, sched, nullSink{})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sum.WorkerSeconds-tc.want) > 1e-9 {
				t.Errorf("worker-seconds = %g, want %g", sum.WorkerSeconds, tc.want)
			}
		})
	}
}
