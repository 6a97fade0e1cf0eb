package ds2

import (
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// observe is TestParallelisms' dataflow as a minute of measurements at
// p = 2: the source reads 10k/s at busy 0.5 (true rate 20k/s), the window
// 10k/s at busy 0.25 (40k/s, output 5k/s: true output 20k/s), the sink
// 5k/s at busy 0.125 (40k/s), while 50k/s arrive at Kafka.
func observe(end time.Duration, uptime time.Duration) policy.Observation {
	o := policy.Observation{Job: policy.JobStatus{State: "RUNNING", Parallelism: 2, Uptime: uptime}}
	for i := 0; i < 60; i++ {
		o.Window = append(o.Window, results.Sample{TimeS: end.Seconds() - float64(59-i), InputRate: 50000, JobState: "RUNNING"})
		o.Detail = append(o.Detail, measure.Detail{Operators: []measure.OperatorSample{
			{Name: "source", Parallelism: 2, Source: true, InputRate: 10000, OutputRate: 10000, BusyMax: 0.5},
			{Name: "window", Parallelism: 2, InputRate: 10000, OutputRate: 5000, BusyMax: 0.25},
			{Name: "sink", Parallelism: 2, InputRate: 5000, OutputRate: 5000, BusyMax: 0.125},
		}})
	}
	return o
}

// TestStepByHand: DS2 wants [5 3 1] (TestParallelisms): the job goes to 5,
// the source's. Within the warm-up after a restart it does nothing, and
// with activation 2 it waits for a second decision that agrees.
func TestStepByHand(t *testing.T) {
	p, _ := New(Default())
	if a := p.Step(time.Hour, observe(time.Hour, 100*time.Second)); a != nil {
		t.Fatalf("acted on warm-up samples: %v", a)
	}
	a := p.Step(time.Hour, observe(time.Hour, time.Hour))
	if len(a) != 1 || a[0].Parallelism != 5 {
		t.Fatalf("got %v, want 2 → 5", a)
	}
	cfg := Default()
	cfg.Activation = 2
	p, _ = New(cfg)
	first := p.Step(time.Hour, observe(time.Hour, time.Hour))
	second := p.Step(time.Hour+time.Minute, observe(time.Hour+time.Minute, time.Hour))
	if first != nil || len(second) != 1 || second[0].Parallelism != 5 {
		t.Errorf("activation 2: got %v then %v, want nothing then 5", first, second)
	}
}
