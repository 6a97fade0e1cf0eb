package autoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
)

// load is one steady window of the job at parallelism p: the source reads
// srcIn/s at busy srcBusy while arrivals come at arrival/s; the keyed window
// gets winIn/s at busy winBusy. 12 partitions, 128 key groups.
func load(end time.Duration, p int, arrival, srcIn, srcBusy, winIn, winBusy float64) policy.Observation {
	var o policy.Observation
	n := 900 // the metric window
	for i := 0; i < n; i++ {
		o.Window = append(o.Window, results.Sample{TimeS: end.Seconds() - float64(n-1-i), InputRate: arrival,
			Throughput: srcIn, JobState: "RUNNING"})
		o.Detail = append(o.Detail, results.Detail{Operators: []results.OperatorSample{
			{Name: "source", Parallelism: p, Source: true, InputRate: srcIn, OutputRate: srcIn, BusyMax: srcBusy, MaxParallelism: 128, Partitions: 12},
			{Name: "window", Parallelism: p, InputRate: winIn, OutputRate: winIn / 100, BusyMax: winBusy, Keyed: true, MaxParallelism: 128},
		}})
	}
	o.Job = policy.JobStatus{State: "RUNNING", Parallelism: p, Uptime: 2 * time.Hour}
	return o
}

// TestScaleUpByHand: at p = 4 the source reads 40k/s fully busy (TPR 40k)
// while 50k/s arrive: below the scale-up bound 50k/1.0 = 50k. Target
// capacity round(50k·300/1800 + 50k/0.7) = 79,762/s, factor 1.994, ⌈7.98⌉
// = 8, which does not divide 12 partitions: 12. The window (20k/s at busy
// 0.5: TPR 40k against a target of 50k·20/40 = 25k, bounds 25k and
// 25k·300/1800 + 25k/0.4 = 66,667) is in bounds and keeps 4: the job takes
// 12. Nothing happens before the stabilisation interval and a full metric
// window have passed since the job started.
func TestScaleUpByHand(t *testing.T) {
	p, _ := New(DefaultSettings())
	o := load(3*time.Hour, 4, 50000, 40000, 1, 20000, 0.5)
	o.Job.Uptime = 19 * time.Minute // 5 min stabilising + 14 of the 15 min window
	if a := p.Step(3*time.Hour, o); a != nil {
		t.Fatalf("acted before its metric window was full: %v", a)
	}
	o.Job.Uptime = 20 * time.Minute
	a := p.Step(3*time.Hour, o)
	if len(a) != 1 || a[0].Kind != policy.Rescale || a[0].Parallelism != 12 {
		t.Fatalf("got %v, want a rescale to 12", a)
	}
	v, _ := p.Evaluate(o.Window, o.Detail, 0)
	if v[0].TargetDataRate != 50000 || v[0].TrueProcessingRate != 40000 || v[1].TargetDataRate != 25000 || v[1].TrueProcessingRate != 40000 {
		t.Errorf("rates %+v", v)
	}
}

// TestDelayedScaleDownTakesTheMaximum, alignment off: at p = 12 the source
// reads 10k/s at busy 0.1 (TPR 100k, above the scale-down bound
// 10k·300/1800 + 10k/0.4 = 26,667): target round(1,667 + 14,286) = 15,952,
// factor 0.16 clamped to 0.4, ⌈4.8⌉ = 5; the window (5k/s at busy 0.05)
// likewise 5. Half an hour later 30k/s arrive (source busy 0.3, bound
// 5,000 + 75,000 = 80,000 < 100k): target round(5,000 + 42,857) = 47,857,
// factor 0.479, ⌈5.74⌉ = 6; the window (15k/s at 0.15) 5. Then the load
// drops again. The scale-down waits the hour from its first recommendation
// and applies the largest one seen: 6. With alignment, 5 would be 6 (a
// divisor of the 12 partitions) for the source and 8 (of the 128 key
// groups) for the window.
func TestDelayedScaleDownTakesTheMaximum(t *testing.T) {
	off := DefaultSettings()
	off.Alignment = "off"
	p, _ := New(off)
	var got []string
	for _, k := range []struct {
		at           time.Duration
		in, win      float64
		busy, winBsy float64
	}{
		{5 * time.Hour, 10000, 5000, 0.1, 0.05},
		{5*time.Hour + 30*time.Minute, 30000, 15000, 0.3, 0.15},
		{5*time.Hour + 59*time.Minute, 10000, 5000, 0.1, 0.05},
		{6 * time.Hour, 10000, 5000, 0.1, 0.05},
	} {
		a := p.Step(k.at, load(k.at, 12, k.in, k.in, k.busy, k.win, k.winBsy))
		s := "-"
		if len(a) == 1 && a[0].Kind == policy.Rescale {
			s = fmt.Sprint(a[0].Parallelism)
		}
		got = append(got, s)
	}
	if fmt.Sprint(got) != "[- - - 6]" {
		t.Errorf("got %v, want nothing for an hour, then 6", got)
	}
	aligned, _ := New(DefaultSettings())
	if a := aligned.Step(5*time.Hour, load(5*time.Hour, 12, 10000, 10000, 0.1, 5000, 0.05)); a != nil {
		t.Errorf("a scale-down acted at once: %v", a)
	}
	if a := aligned.Step(6*time.Hour, load(6*time.Hour, 12, 10000, 10000, 0.1, 5000, 0.05)); len(a) != 1 || a[0].Parallelism != 8 {
		t.Errorf("aligned: got %v, want 8", a)
	}
	// a reading in bounds drops the waiting scale-down
	p, _ = New(off)
	p.Step(5*time.Hour, load(5*time.Hour, 12, 10000, 10000, 0.1, 5000, 0.05))
	p.Step(5*time.Hour+time.Minute, load(5*time.Hour+time.Minute, 12, 100000, 100000, 0.9, 50000, 0.45))
	if a := p.Step(6*time.Hour+time.Minute, load(6*time.Hour+time.Minute, 12, 10000, 10000, 0.1, 5000, 0.05)); a != nil {
		t.Errorf("a scale-down fired %v after an in-bounds reading cleared it", a)
	}
}
