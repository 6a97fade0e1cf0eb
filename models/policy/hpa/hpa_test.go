package hpa

import (
	"fmt"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// TestRecommend: ceil(current × utilisation / target), nothing inside the
// tolerance, clamped to the replica bounds.
func TestRecommend(t *testing.T) {
	p, err := New(Default()) // target 0.8, tolerance 0.1, 1–18
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cur  int
		util float64
		want int
	}{
		{4, 0.95, 5},  // ratio 1.1875: ceil(4.75)
		{4, 0.85, 4},  // ratio 1.0625, inside 1 ± 0.1
		{4, 0.72, 4},  // ratio 0.9, at the tolerance's edge
		{4, 0.70, 4},  // ratio 0.875: ceil(3.5) = 4
		{4, 0.40, 2},  // ratio 0.5
		{4, 0.02, 1},  // ceil(0.1) = 1, the minimum
		{12, 5.0, 18}, // ceil(75) capped at the maximum
	} {
		if got := p.Recommend(c.cur, c.util); got != c.want {
			t.Errorf("Recommend(%d, %.2f) = %d, want %d", c.cur, c.util, got, c.want)
		}
	}
}

// run steps p every 15 s from t = 0 on a job whose CPU demand is
// demand(t) TaskManagers' worth, so the utilisation is demand/replicas, and
// returns the scalings as "t:replicas".
func run(t *testing.T, p *Policy, par int, until time.Duration, demand func(time.Duration) float64) []string {
	t.Helper()
	var out []string
	for now := time.Duration(0); now <= until; now += p.Interval() {
		var w []results.Sample
		for s := 0; s < 15; s++ {
			w = append(w, results.Sample{TimeS: now.Seconds() - 14 + float64(s), CPUBusyMean: demand(now) / float64(par)})
		}
		acts := p.Step(now, policy.Observation{Window: w, Job: policy.JobStatus{State: "RUNNING", Parallelism: par}})
		for _, a := range acts {
			if a.Kind != policy.Rescale {
				t.Fatalf("action %v", a)
			}
			par = a.Parallelism
			out = append(out, fmt.Sprintf("%v:%d", now.Seconds(), par))
		}
	}
	return out
}

// steps is a demand that changes at the given times.
func steps(first float64, at ...any) func(time.Duration) float64 {
	return func(now time.Duration) float64 {
		d := first
		for i := 0; i < len(at); i += 2 {
			if now >= time.Duration(at[i].(int))*time.Second {
				d = at[i+1].(float64)
			}
		}
		return d
	}
}

// TestStabilisationWindows: with Daedalus's 300 s windows a scale-down waits
// until no recommendation of the last 300 s asks for more, and then takes
// the largest of them; a scale-up waits until none asks for less.
// Kubernetes' default scale-up window (0 s) scales at the first sync, by at
// most max(2×, +4) per 15 s. Syncs at 0, 15, 30, … s.
func TestStabilisationWindows(t *testing.T) {
	for _, c := range []struct {
		name   string
		upS    float64
		par    int
		demand func(time.Duration) float64
		want   string
	}{
		// 4 replicas at 80 % until 45 s, then 40 %: raw 2 from 60 s; the 4
		// recommended at 45 s leaves the window after 345 s
		{"down waits 300 s", 300, 4, steps(3.2, 60, 1.6), "[345:2]"},
		// 12 at 80 %; 40 % from 60 s (raw 6), 20 % from 120 s (raw 3): at
		// 345 s the window (45, 345] still holds the 6 of 60–105 s, at 405 s
		// only 3s
		{"down takes the window's largest", 300, 12, steps(9.6, 60, 4.8, 120, 2.4), "[345:6 405:3]"},
		// 2 replicas, 95 % from 60 s: raw ceil(2.375) = 3; the 2 of 45 s
		// holds the scale-up until 345 s, and 3 replicas run at 63 %
		{"up waits 300 s", 300, 2, steps(1.6, 60, 1.9), "[345:3]"},
		{"up at once with Kubernetes' 0 s", 0, 2, steps(1.6, 60, 1.9), "[60:3]"},
		// 2 replicas at 500 %: raw 13, limited to max(4, 6) = 6; then 167 %:
		// raw 13, limited to max(12, 10) = 12, at 83 % inside the tolerance
		{"rate limit", 0, 2, steps(10.0), "[0:6 15:12]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Default()
			cfg.ScaleUpStabilization = sim.Duration(c.upS)
			p, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(run(t, p, c.par, 450*time.Second, c.demand)); got != c.want {
				t.Errorf("scalings %s, want %s", got, c.want)
			}
		})
	}
}

// TestRequest: half a TaskManager's cores requested, 60 % busy reads as
// 120 % of the request: 4 replicas at target 0.8 → ceil(4 · 1.5) = 6.
func TestRequest(t *testing.T) {
	cfg := Default()
	cfg.Request, cfg.ScaleUpStabilization = 0.5, 0
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := []results.Sample{{TimeS: 1, CPUBusyMean: 0.6}}
	a := p.Step(0, policy.Observation{Window: w, Job: policy.JobStatus{State: "RUNNING", Parallelism: 4}})
	if len(a) != 1 || a[0].Parallelism != 6 {
		t.Errorf("actions %v, want a rescale to 6", a)
	}
}

// TestStepWaitsForARunningJob: no utilisation reading, no scaling.
func TestStepWaitsForARunningJob(t *testing.T) {
	p, _ := New(Default())
	w := []results.Sample{{TimeS: 1, CPUBusyMean: 1}}
	if a := p.Step(0, policy.Observation{Window: w, Job: policy.JobStatus{State: "RESTARTING", Parallelism: 2}}); a != nil {
		t.Errorf("restarting job: %v", a)
	}
	if a := p.Step(0, policy.Observation{Job: policy.JobStatus{State: "RUNNING", Parallelism: 2}}); a != nil {
		t.Errorf("empty window: %v", a)
	}
}

// TestNeverExceedsMax: an hour of demand far above what the largest
// deployment can serve (40 TaskManagers' worth; each reads at most 100 %
// busy, i.e. 1/request of its request) scales up to max_replicas and never
// beyond, and a demand that vanishes brings it down to min_replicas and
// never below.
func TestNeverExceedsMax(t *testing.T) {
	for _, c := range []struct {
		name     string
		min, max int
		request  float64
		demand   float64 // TaskManagers' worth of CPU
		want     int     // the replicas at the end
	}{
		{"Daedalus bounds", 1, 18, 1, 40, 18},
		{"request half the cores", 1, 18, 0.5, 40, 18},
		{"narrow bounds", 2, 6, 1, 40, 6},
		{"idle", 2, 6, 1, 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Default()
			cfg.MinReplicas, cfg.MaxReplicas, cfg.Request = c.min, c.max, c.request
			p, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			par := 4
			for now := time.Duration(0); now <= time.Hour; now += p.Interval() {
				busy := min(1, c.demand/float64(par))
				w := []results.Sample{{TimeS: now.Seconds(), CPUBusyMean: busy}}
				for _, a := range p.Step(now, policy.Observation{Window: w, Job: policy.JobStatus{State: "RUNNING", Parallelism: par}}) {
					par = a.Parallelism
					if par > c.max || par < c.min {
						t.Fatalf("at %v: %d replicas, outside %d–%d", now, par, c.min, c.max)
					}
				}
			}
			if par != c.want {
				t.Errorf("%d replicas after an hour, want %d", par, c.want)
			}
		})
	}
}
