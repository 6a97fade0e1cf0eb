package calibrate

import (
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// TestSeriesCIFromTheSeries: without a CI the point takes the one in force
// in the last sample before its fault (the job went from 30 s to 10 s at
// 100 s; the fault is at 200 s); a series without one is an error that
// asks for --ci.
func TestSeriesCIFromTheSeries(t *testing.T) {
	var ss []results.Sample
	for s := 1.0; s <= 400; s++ {
		x := results.Sample{TimeS: s, Throughput: 1000, InputRate: 1000, JobState: "RUNNING", CheckpointIntervalS: 30}
		if s >= 100 {
			x.CheckpointIntervalS = 10
		}
		if s > 200 && s <= 210 {
			x.Throughput, x.Lag = 0, 1000*(s-200)
		}
		ss = append(ss, x)
	}
	p, err := Series{Name: "run", Samples: ss}.Points([]sim.Duration{200})
	if err != nil || len(p) != 1 || p[0].CheckpointIntervalS != 10 {
		t.Fatalf("points %+v, %v: want one at CI 10 s", p, err)
	}
	for i := range ss {
		ss[i].CheckpointIntervalS = 0
	}
	if _, err := (Series{Name: "run", Samples: ss}).Points([]sim.Duration{200}); err == nil || !strings.Contains(err.Error(), "--ci") {
		t.Errorf("no CI anywhere: %v, want an error asking for --ci", err)
	}
}
