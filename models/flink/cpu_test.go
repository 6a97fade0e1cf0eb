package flink

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// CPU utilisation per TaskManager by hand: a TaskManager with 0.25 cores
// whose tasks cost 10 µs per source record. At 20k records/s for 1 s its
// tasks use 0.2 CPU-seconds: 0.2 / (1 s × 0.25) = 0.8; the JVM's idle
// 0.02 cores add 0.08; the async checkpoint phase's 5 % of its cores adds
// 0.05; at 30k records/s it would need 0.3 CPU-seconds and gets its 0.25:
// 1. A spare TaskManager uses its idle CPU only, a dead one has none (NaN).
func TestCPUUtilisationPerTaskManager(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name         string
		x, idle, ovh float64 // records/s over 1 s, idle cores, overhead share
		host, spare  float64 // want
		mean, peak   float64 // want over host, spare (dead one left out)
	}{
		{"20k/s", 20000, 0, 0, 0.8, 0, 0.4, 0.8},
		{"20k/s + idle", 20000, 0.02, 0, 0.88, 0.08, 0.48, 0.88},
		{"20k/s + checkpoint overhead", 20000, 0, 0.05, 0.85, 0, 0.425, 0.85},
		{"beyond the allotment", 30000, 0.02, 0, 1, 0.08, 0.54, 1},
		{"idle job", 0, 0.02, 0, 0.08, 0.08, 0.08, 0.08},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := &Job{cfg: JobConfig{Cluster: ClusterConfig{Cores: 0.25, Slots: 1, IdleCPU: c.idle}},
				graph:   &Graph{tmCost: []float64{10e-6}, tmCores: []float64{0.25}},
				tms:     []taskManager{{alive: true, hosts: 0}, {alive: true, hosts: -1}, {alive: false, hosts: -1}},
				sCPUXdt: c.x, sOverheadDt: c.ovh}
			u := j.cpuUtilisation(1)
			want := []float64{c.host, c.spare, nan}
			for i := range want {
				if math.IsNaN(want[i]) != math.IsNaN(u[i]) || (!math.IsNaN(u[i]) && math.Abs(u[i]-want[i]) > 1e-12) {
					t.Errorf("TaskManager %d: utilisation %g, want %g", i, u[i], want[i])
				}
			}
			mean, peak := results.CPUAcross(u)
			if math.Abs(mean-c.mean) > 1e-12 || math.Abs(peak-c.peak) > 1e-12 {
				t.Errorf("cpu_busy_mean, max = %g, %g; want %g, %g", mean, peak, c.mean, c.peak)
			}
		})
	}
}
