package compare

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// TestFaultOutcomes: a fault at 10 s recovering in 20 s, with a lag that
// peaks at 5,000 and a latency that peaks at 900 ms inside the recovery;
// a reconfiguration recovery is no fault.
func TestFaultOutcomes(t *testing.T) {
	var samples []results.Sample
	for i := 1; i <= 60; i++ {
		s := results.Sample{TimeS: float64(i), LatencyP99Ms: 100, JobState: "RUNNING"}
		if i > 10 && i <= 30 {
			s.Lag = 250 * float64(min(i-10, 30-i)) // peaks at 20 s: 2,500
			s.LatencyP99Ms = 100 + 40*float64(i-10)
		}
		if i == 20 {
			s.Lag = 5000
		}
		samples = append(samples, s)
	}
	events := []results.Event{
		{TimeS: 10, Kind: results.KindFault},
		{TimeS: 30, Kind: results.KindRecovered, DurationS: resultstest.Ptr(20.0)},
		{TimeS: 50, Kind: results.KindRecovered, DurationS: resultstest.Ptr(5.0), Reason: "reconfiguration: x"},
	}
	dir := t.TempDir()
	resultstest.WriteRun(t, dir, samples, events, results.Summary{})
	got, err := FaultOutcomes(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d faults, want 1", len(got))
	}
	f := got[0]
	// latency over (10, 31]: 140 … 900 ms at 11 … 30 s, then 100 at 31 s
	mean := (float64(20*(140+900))/2 + 100) / 21
	if f.AtS != 10 || f.RecoveryS != 20 || f.LagPeak != 5000 || f.LatencyP99MaxMs != 900 || math.Abs(f.LatencyP99MeanMs-mean) > 1e-9 {
		t.Errorf("got %+v, want at 10, recovery 20, lag peak 5000, latency max 900, mean %.3f", f, mean)
	}
	var b bytes.Buffer
	if err := WriteFaultTable(&b, got, nil, "sim", "live"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "sim has 1 fault, live 0") {
		t.Errorf("table:\n%s", b.String())
	}
}
