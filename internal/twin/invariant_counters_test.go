package twin

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCounterInvariants is a property test over seeded random scenarios
// (rates, CIs, parallelism, restart strategies, random and aligned faults,
// forced reconfigurations): the counters always balance,
// records_processed = records_in − final_lag + records_replayed, so
// processed ≤ in + replayed, and lag never goes negative.
func TestCounterInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 42))
	strategies := []string{"{strategy: fixed-delay, delay: 2s, attempts: 0}", "{strategy: exponential-delay}", "{strategy: none}",
		"{strategy: failure-rate, max_failures: 2, failure_rate_interval: 10m, delay: 5s}"}
	for i := 0; i < 40; i++ {
		rate := 1000 + rng.Float64()*200000
		par := 1 + rng.IntN(8)
		ci := 5 + rng.IntN(120)
		src := fmt.Sprintf(`duration: %dm
workload: {shape: sine, min: %.0f/s, peak: %.0f/s, period: 20m}
kafka: {partitions: %d}
job:
  parallelism: %d
  checkpoint: {interval: %ds}
  restart: %s
faults:
  - random: {mtbf: %dm}
  - {at: 7m, before_checkpoint: 1s}
actions:
  - {at: 11m, checkpoint_interval: %ds}
`, 20+rng.IntN(40), rate/2, rate, 1+rng.IntN(16), par, ci, strategies[rng.IntN(len(strategies))], 2+rng.IntN(20), 5+rng.IntN(60))
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m, s := runYAML(t, src)
			// Each count is rounded to whole records on its own: the
			// identity holds within 2 records.
			balance := s.RecordsIn - s.FinalLag + s.RecordsReplayed
			if d := s.RecordsProcessed - balance; d > 2 || d < -2 {
				t.Errorf("processed %d ≠ in %d − final lag %d + replayed %d = %d\n%s",
					s.RecordsProcessed, s.RecordsIn, s.FinalLag, s.RecordsReplayed, balance, src)
			}
			if s.RecordsProcessed > s.RecordsIn+s.RecordsReplayed+1 {
				t.Errorf("processed %d > in %d + replayed %d", s.RecordsProcessed, s.RecordsIn, s.RecordsReplayed)
			}
			for _, x := range m.samples {
				if x.Lag < -1e-6 {
					t.Fatalf("lag %g at %g s", x.Lag, x.TimeS)
				}
			}
		})
	}
}
