package measure

import (
	"bytes"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

func fp(x float64) *float64 { return &x }

// TestRescales by hand: a scale-up decided at 40 s restarts at 50 s, runs
// at 53 s and reads its backlog by 57 s; a refused decision and a CI change
// are no rescales; a scale-down at 100 s never recovers.
func TestRescales(t *testing.T) {
	var samples []results.Sample
	for s := 1.0; s <= 120; s++ {
		p := int32(1)
		if s > 50 && s <= 100 {
			p = 2
		}
		samples = append(samples, results.Sample{TimeS: s, Parallelism: p, InputRate: 1000 * s})
	}
	events := []results.Event{
		{TimeS: 20, Kind: results.KindPolicyDecision, Value: fp(30), Reason: "set_checkpoint_interval: forced"},
		{TimeS: 30, Kind: results.KindPolicyDecision, Value: fp(9), Reason: "rescale: hpa (rejected: too many)"},
		{TimeS: 40, Kind: results.KindPolicyDecision, Value: fp(2), Reason: "rescale: forced"},
		{TimeS: 53, Kind: results.KindReconfigured, DurationS: fp(3), Reason: "forced"},
		{TimeS: 57, Kind: results.KindRecovered, DurationS: fp(7), Reason: "reconfiguration: forced"},
		// vertices of their own that keep the largest: no rescale of the job
		{TimeS: 70, Kind: results.KindPolicyDecision, Value: fp(2), Reason: "rescale_vertices: forced"},
		{TimeS: 75, Kind: results.KindReconfigured, DurationS: fp(2), Reason: "forced"},
		{TimeS: 100, Kind: results.KindPolicyDecision, Value: fp(1), Reason: "rescale_vertices: flink-autoscaler"},
		{TimeS: 102, Kind: results.KindReconfigured, DurationS: fp(1.5), Reason: "forced"},
	}
	var b bytes.Buffer
	if err := WriteRescalesCSV(&b, Rescales(samples, events)); err != nil {
		t.Fatal(err)
	}
	want := "at_s,from,to,input_rate,delay_s,downtime_s,recovery_s\n40,1,2,39000,10,3,7\n100,2,1,99000,0.5,1.5,\n"
	if b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
}
