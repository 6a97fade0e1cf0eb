package twin

import (
	"fmt"
	"math"
	"testing"
)

// TestInvariantsUnderChaos drives the model through overlapping faults,
// reconfigurations and savepoints (faults during restores, during
// stop-with-savepoint, back to back) and checks what must hold whatever the
// timing: log-end offsets never run backwards, lag and throughput are never
// negative, CPU and backpressure stay fractions, a latency exists whenever
// records reach the sink (and p99 ≥ p50), recoveries are reported, and the
// job is never left FAILED by the default restart strategy.
func TestInvariantsUnderChaos(t *testing.T) {
	for seed := 1; seed <= 12; seed++ {
		src := fmt.Sprintf(`
seed: %d
duration: 3h
workload: {shape: sine, min: 20000/s, peak: 160000/s, period: 40m}
job:
  parallelism: 4
  checkpoint: {interval: 20s}
  cluster: {taskmanagers: 5}
faults:
  - random: {mtbf: 7m}
  - {at: 30m, before_checkpoint: 2s, operator: sink}
actions:
  - {at: 20m, checkpoint_interval: 45s}
  - {at: 50m, parallelism: 6}
  - {at: 70m, savepoint: true}
  - {at: 90m, parallelism: 3}
  - {at: 2h, checkpoint_interval: 10s}
`, seed)
		m, sum := runYAML(t, src)
		var prevEnd float64
		for _, s := range m.samples {
			if s.Lag < 0 || s.Throughput < 0 || s.EndOffset+1e-6 < prevEnd {
				t.Fatalf("seed %d t=%v: lag %v throughput %v end %v (prev %v)", seed, s.TimeS, s.Lag, s.Throughput, s.EndOffset, prevEnd)
			}
			prevEnd = s.EndOffset
			if s.CPUBusyMax > 1+1e-9 || s.CPUBusyMean > s.CPUBusyMax+1e-9 || s.Backpressure < 0 || s.Backpressure > 1+1e-9 {
				t.Fatalf("seed %d t=%v: cpu %v/%v backpressure %v", seed, s.TimeS, s.CPUBusyMean, s.CPUBusyMax, s.Backpressure)
			}
			if s.OutputRate > 0 && (math.IsNaN(s.LatencyP50Ms) || s.LatencyP99Ms+1e-9 < s.LatencyP50Ms) {
				t.Fatalf("seed %d t=%v: latency p50 %v p99 %v with output", seed, s.TimeS, s.LatencyP50Ms, s.LatencyP99Ms)
			}
		}
		if sum.Faults == 0 || sum.Reconfigurations == 0 || sum.Recoveries == 0 {
			t.Errorf("seed %d: %d faults, %d reconfigurations, %d recoveries", seed, sum.Faults, sum.Reconfigurations, sum.Recoveries)
		}
		if last := m.samples[len(m.samples)-1]; last.JobState == "FAILED" {
			t.Errorf("seed %d: job FAILED under the default restart strategy", seed)
		}
		if math.IsNaN(sum.LatencyMeanMs) || sum.RecordsProcessed < sum.RecordsIn-sum.FinalLag-1 {
			t.Errorf("seed %d: summary %+v", seed, sum)
		}
	}
}
