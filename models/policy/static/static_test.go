package static

import (
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/sim"
)

func TestStaticDecisions(t *testing.T) {
	cases := []struct {
		name     string
		interval float64 // s; 0 keeps the submitted CI
		job      policy.JobStatus
		want     time.Duration // 0: no action
	}{
		{"job already at the interval", 30, policy.JobStatus{State: "RUNNING", CheckpointInterval: 30 * time.Second}, 0},
		{"job at another interval", 60, policy.JobStatus{State: "RUNNING", CheckpointInterval: 30 * time.Second}, 60 * time.Second},
		{"job down: wait", 60, policy.JobStatus{State: "RESTARTING", CheckpointInterval: 30 * time.Second}, 0},
		{"no interval configured", 0, policy.JobStatus{State: "RUNNING", CheckpointInterval: 30 * time.Second}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(Config{Interval: sim.Duration(c.interval)})
			if err != nil {
				t.Fatal(err)
			}
			acts := p.Step(0, policy.Observation{Job: c.job})
			switch {
			case c.want == 0 && len(acts) != 0:
				t.Errorf("acted: %+v", acts)
			case c.want != 0 && (len(acts) != 1 || acts[0].Kind != policy.SetCheckpointInterval || acts[0].Interval != c.want || acts[0].Reason == ""):
				t.Errorf("actions %+v, want one SetCheckpointInterval(%v) with a reason", acts, c.want)
			}
		})
	}
	if _, err := New(Config{Interval: -1}); err == nil {
		t.Error("negative interval accepted")
	}
}
