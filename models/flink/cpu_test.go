package flink

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results/measure"
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
			mean, peak := measure.CPUAcross(u)
			if math.Abs(mean-c.mean) > 1e-12 || math.Abs(peak-c.peak) > 1e-12 {
				t.Errorf("cpu_busy_mean, max = %g, %g; want %g, %g", mean, peak, c.mean, c.peak)
			}
		})
	}
}

// TestReservedCores: two TaskManagers of one slot each, every record
// costing 40 µs (a 4-operator chain of 10 µs). With 1 core each the job
// drains 2 × 1/40 µs = 50,000 records/s; with 0.6 of each core reserved
// for the JVM's own work, 2 × 0.4/40 µs = 20,000 records/s, and a
// TaskManager at that capacity reads 0.4 (its tasks) + 0.6 (the reserved
// share, in proportion to their work): 1.
func TestReservedCores(t *testing.T) {
	cfg := DefaultJob()
	cfg.Parallelism, cfg.Chaining, cfg.Operators = 2, true, nil
	for _, name := range []string{"a", "b", "c", "d"} {
		cfg.Operators = append(cfg.Operators, Operator{Name: name, Cost: 10e-6, Selectivity: 1, Partitioning: Forward})
	}
	cfg.Cluster.Slots, cfg.Cluster.Cores = 1, 1
	for _, c := range []struct {
		reserved, capacity float64
	}{{0, 50000}, {0.6, 20000}} {
		cfg.Cluster.ReservedCores = c.reserved
		g, err := BuildGraph(cfg, 2, even)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Capacity(1); math.Abs(got-c.capacity) > 1e-6 {
			t.Errorf("reserved %g: capacity %g records/s, want %g", c.reserved, got, c.capacity)
		}
		j := &Job{cfg: cfg, graph: g, tms: []taskManager{{alive: true, hosts: 0}, {alive: true, hosts: 1}}, sCPUXdt: c.capacity}
		if u := j.cpuUtilisation(1); math.Abs(u[0]-1) > 1e-9 || math.Abs(u[1]-1) > 1e-9 {
			t.Errorf("reserved %g: utilisation at capacity %v, want 1 and 1", c.reserved, u)
		}
	}
	cfg.Cluster.ReservedCores = 1
	if errs := cfg.Validate(); errs["cluster.reserved_cores"] == "" {
		t.Errorf("reserved_cores 1 of 1 core: no error, want one (%v)", errs)
	}
}
