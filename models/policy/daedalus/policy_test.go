package daedalus

import (
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// window is 61 s ending at end of a job at parallelism 2 under workload
// records/s: each TaskManager's CPU sweeps 0.2 → 0.8 while its source
// emits 20,000 × CPU records/s, so each saturates at 20k/s and the job at
// 40k/s (both alike: no skew).
func window(end time.Duration, workload float64, uptime time.Duration) policy.Observation {
	o := policy.Observation{Job: policy.JobStatus{State: "RUNNING", Parallelism: 2, Uptime: uptime}}
	for i := 0; i < 61; i++ {
		cpu := 0.2 + 0.6*float64(i)/60
		o.Window = append(o.Window, results.Sample{TimeS: end.Seconds() - float64(60-i), InputRate: workload, JobState: "RUNNING"})
		o.Detail = append(o.Detail, measure.Detail{TaskManagers: []measure.TaskManagerSample{
			{Index: 0, CPUBusy: cpu, SourceThroughput: 20000 * cpu}, {Index: 1, CPUBusy: cpu, SourceThroughput: 20000 * cpu}}})
	}
	return o
}

func linearPolicy(t *testing.T) *Policy {
	cfg := Default()
	cfg.Forecast = "linear"
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStepScalesOutByHand: at 47k/s the two TaskManagers' 40k/s fall
// short. q = 3 (60k/s, extrapolated) recovers: a backlog of the last 10 s
// (470k) plus 30 s of up-downtime arrivals (1.41M) drains at 13k/s after
// 144.6 s, by k = 30 + 144 = 174, so RT = 174 + 30 = 204 s ≤ 600 s, and
// 60k/s covers the flat forecast: 2 → 3. At 30k/s it keeps 2.
func TestStepScalesOutByHand(t *testing.T) {
	p := linearPolicy(t)
	if a := p.Step(400*time.Second, window(400*time.Second, 50000, time.Hour)); a != nil {
		t.Fatalf("acted during the 500 s warm-up: %v", a)
	}
	if a := p.Step(20*time.Minute, window(20*time.Minute, 30000, time.Hour)); a != nil {
		t.Fatalf("rescaled at 30k/s with 40k/s of capacity: %v", a)
	}
	if c := p.caps.Get(2); c < 40000-1e-6 || c > 40000+1e-6 {
		t.Fatalf("capacity at 2: %g, want 40000", c)
	}
	a := p.Step(21*time.Minute, window(21*time.Minute, 47000, time.Hour))
	if len(a) != 1 || a[0].Parallelism != 3 {
		t.Fatalf("got %v, want 2 → 3", a)
	}
	if p.watch == nil || p.watch.predicted != 204 || !p.watch.up {
		t.Errorf("watching %+v, want a scale-up predicted to recover in 204 s", p.watch)
	}
}

// TestMetricBlackout: samples of the first 120 s after a (re)start do not
// reach the capacity model, so a job restarted 100 s ago has no capacity
// and Daedalus does nothing; 61 s later half the window counts.
func TestMetricBlackout(t *testing.T) {
	p := linearPolicy(t)
	if a := p.Step(20*time.Minute, window(20*time.Minute, 50000, 100*time.Second)); a != nil || p.caps.Get(2) != 0 {
		t.Fatalf("acted (%v) or booked capacity %g from blacked-out samples", a, p.caps.Get(2))
	}
	p.Step(20*time.Minute+61*time.Second, window(20*time.Minute+61*time.Second, 30000, 161*time.Second))
	if n := p.models[0].n; n != 41 { // samples older than 120 s of uptime: t−40 … t
		t.Errorf("the regression took %g samples, want 41", n)
	}
}

// TestObservedRecoveryAdaptsDowntime: a scale-up predicted to recover in
// 260 s whose lag is back 300 s later raises the up-downtime estimate by
// 1 s; one back after 40 s lowers it.
func TestObservedRecoveryAdaptsDowntime(t *testing.T) {
	for _, c := range []struct {
		backAt float64
		want   int
	}{{300, UpDowntimeS + 1}, {40, UpDowntimeS - 1}} {
		p := linearPolicy(t)
		p.watch = &watch{at: 1000, lag: 0, predicted: 260, up: true}
		var w []results.Sample
		for s := 1001.0; s <= 1400; s++ {
			lag := 1e6
			if s >= 1000+c.backAt {
				lag = 0
			}
			w = append(w, results.Sample{TimeS: s, Lag: lag, InputRate: 50000, JobState: "RUNNING"})
		}
		p.observeRecovery(w)
		if up, _ := p.Downtimes(); up != c.want || p.watch != nil {
			t.Errorf("back after %g s: up-downtime %d (watch %v), want %d", c.backAt, up, p.watch, c.want)
		}
	}
}
