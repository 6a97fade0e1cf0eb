package loadci_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/examples/go-policy/loadci"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
)

// window is n samples at the given input rates, repeated to fill n.
func window(n int, rates ...float64) []results.Sample {
	w := make([]results.Sample, n)
	for i := range w {
		w[i] = results.Sample{TimeS: float64(i + 1), InputRate: rates[i%len(rates)]}
	}
	return w
}

func TestDecisions(t *testing.T) {
	p, err := loadci.New(loadci.Default)
	if err != nil {
		t.Fatal(err)
	}
	running := func(ci time.Duration) policy.JobStatus {
		return policy.JobStatus{State: "RUNNING", CheckpointInterval: ci}
	}
	for _, tc := range []struct {
		name   string
		window []results.Sample
		job    policy.JobStatus
		want   string // "" for no action
	}{
		// mean of 90k and 120k over the last 60 of 100 samples = 105k ≥ 100k
		{"high load", window(100, 90000, 120000), running(30 * time.Second),
			"set_checkpoint_interval 10s: load-ci: mean input 105000/s over the last 60 s, checkpoint interval 10s"},
		// 30 samples only: (20k + 50k)/2 = 35k ≤ 40k
		{"low load, short window", window(30, 20000, 50000), running(30 * time.Second),
			"set_checkpoint_interval 1m0s: load-ci: mean input 35000/s over the last 30 s, checkpoint interval 60s"},
		{"in between", window(60, 70000), running(30 * time.Second), ""},
		{"already short", window(60, 150000), running(10 * time.Second), ""},
		{"down", window(60, 150000), policy.JobStatus{State: "RESTARTING", CheckpointInterval: 30 * time.Second}, ""},
		{"no samples", nil, running(30 * time.Second), ""},
		// exactly at the thresholds
		{"at high", window(60, 100000), running(30 * time.Second),
			"set_checkpoint_interval 10s: load-ci: mean input 100000/s over the last 60 s, checkpoint interval 10s"},
		{"at low", window(60, 40000), running(30 * time.Second),
			"set_checkpoint_interval 1m0s: load-ci: mean input 40000/s over the last 60 s, checkpoint interval 60s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			for _, a := range p.Step(0, policy.Observation{Window: tc.window, Job: tc.job}) {
				got = fmt.Sprintf("%s %v: %s", a.Kind, a.Interval, a.Reason)
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	bad := loadci.Default
	bad.LowRate = 200000
	if _, err := loadci.New(bad); err == nil {
		t.Error("low_rate above high_rate accepted")
	}
}
