package twin

import (
	"testing"

	"github.com/streamtwin/streamtwin/internal/scenario"
)

// TestCheckpointIntervalTrends is Khaos's finding at constant load: with one
// crash aligned 3 s before a checkpoint, a longer CI means more to reprocess
// (recovery rises) and less checkpoint overhead (steady latency falls).
func TestCheckpointIntervalTrends(t *testing.T) {
	src := `
name: trend
duration: 1h
workload: {shape: constant, rate: 150000/s}
job: {parallelism: 4}
faults:
  - {at: 30m, before_checkpoint: 3s, operator: sink}
variants:
  - {name: ci10, job: {checkpoint: {interval: 10s}}}
  - {name: ci30, job: {checkpoint: {interval: 30s}}}
  - {name: ci60, job: {checkpoint: {interval: 60s}}}
  - {name: ci90, job: {checkpoint: {interval: 90s}}}
  - {name: ci120, job: {checkpoint: {interval: 120s}}}
`
	f, err := scenario.Parse("trend.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var prevRec, prevLat float64
	for i, sc := range f.Runs() {
		sched, err := sc.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		sum, err := simulate(sc, sched, discard{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Recoveries != 1 {
			t.Fatalf("%s: %d recoveries", sc.Variant, sum.Recoveries)
		}
		rec, lat := sum.RecoveryTimesS[0], sum.LatencySteadyMeanMs
		t.Logf("%-5s recovery %6.1f s  steady latency %6.1f ms", sc.Variant, rec, lat)
		if i > 0 && !(rec > prevRec) {
			t.Errorf("%s: recovery %.1f s does not exceed %.1f s of the shorter CI", sc.Variant, rec, prevRec)
		}
		if i > 0 && !(lat < prevLat) {
			t.Errorf("%s: steady latency %.1f ms does not fall below %.1f ms of the shorter CI", sc.Variant, lat, prevLat)
		}
		prevRec, prevLat = rec, lat
	}
}
