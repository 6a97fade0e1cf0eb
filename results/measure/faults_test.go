package measure_test

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

func TestFaultRecoveries(t *testing.T) {
	ptr := resultstest.Ptr[float64]
	events := []results.Event{
		{TimeS: 100, Kind: results.KindFault},
		{TimeS: 150, Kind: results.KindReconfigured, DurationS: ptr(5)},
		{TimeS: 160, Kind: results.KindRecovered, DurationS: ptr(10), Reason: "reconfiguration: rescale"}, // began at 150: no fault's
		{TimeS: 130, Kind: results.KindRecovered, DurationS: ptr(30)},
		{TimeS: 400, Kind: results.KindFault},
		{TimeS: 600, Kind: results.KindUnrecovered, DurationS: ptr(200)},
		{TimeS: 500, Kind: results.KindFault}, // no closing event at all
	}
	got := measure.FaultRecoveries(events)
	want := []measure.FaultRecovery{
		{AtS: 100, RecoveryS: 30, UnrecoveredS: math.NaN()},
		{AtS: 400, RecoveryS: math.NaN(), UnrecoveredS: 200},
		{AtS: 500, RecoveryS: math.NaN(), UnrecoveredS: math.NaN()},
	}
	if !resultstest.Same(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if !got[0].Recovered() || got[1].Recovered() {
		t.Errorf("Recovered: %v %v, want true false", got[0].Recovered(), got[1].Recovered())
	}
}
