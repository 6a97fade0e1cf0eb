package twin

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
)

type discard struct{}

func (discard) WriteSample(results.Sample) error { return nil }
func (discard) WriteEvent(results.Event) error   { return nil }

// BenchmarkDayTraffic is run (a) on the traffic-monitoring template, whose
// event-time latency mixes in the results' staleness every second.
func BenchmarkDayTraffic(b *testing.B) {
	benchRun(b, strings.Replace(benchScenario("30000/s", 4), "job:\n", "job:\n  template: traffic-monitoring\n", 1))
}

// benchScenario is the standard day: 24 h at a constant rate, CI
// 30 s, 12 Khaos-aligned faults two hours apart.
func benchScenario(rate string, parallelism int) string {
	s := fmt.Sprintf(`
name: bench
duration: 24h
workload: {shape: constant, rate: %s}
kafka: {partitions: %d}
job:
  parallelism: %d
  checkpoint: {interval: 30s}
faults:
`, rate, parallelism, parallelism)
	for i := 0; i < 12; i++ {
		s += fmt.Sprintf("  - {at: %dm, before_checkpoint: 3s, operator: sink}\n", 60+120*i)
	}
	return s
}

func benchRun(b *testing.B, src string) {
	f, err := scenario.Parse("bench.yaml", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	sc := f.Runs()[0]
	sched, err := sc.Resolve()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := simulate(sc, sched, discard{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sc.Duration)*float64(b.N)/b.Elapsed().Seconds(), "sim-s/wall-s")
}

// BenchmarkDay30k is run (a): 24 h at 30,000 records/s, parallelism 4.
func BenchmarkDay30k(b *testing.B) { benchRun(b, benchScenario("30000/s", 4)) }

// BenchmarkDay1M is run (b): the same at 1,000,000 records/s, parallelism 64.
func BenchmarkDay1M(b *testing.B) { benchRun(b, benchScenario("1000000/s", 64)) }

// BenchmarkHPA6h is issue 21's HPA run: 6 h of a sine load (5k–150k/s,
// 3 h period) on the YSB job, rescaled by the HPA at 80 % between 1 and
// 18 TaskManagers of one slot (goal: under 0.3 s).
func BenchmarkHPA6h(b *testing.B) {
	benchRun(b, `
name: bench-hpa
duration: 6h
workload: {shape: sine, min: 5000/s, peak: 150000/s, period: 3h}
kafka: {partitions: 12}
job: {template: ysb, parallelism: 4, cluster: {slots: 1}}
policy: {name: hpa, target: 0.8}
`)
}

// BenchmarkDaedalus6h is issue 21's Daedalus run: its 6 h traffic-monitoring
// scenario (the noisiest of the three workloads, so the most ARIMA
// retrains), goal under 2 s.
func BenchmarkDaedalus6h(b *testing.B) {
	src, err := os.ReadFile("../../scenarios/daedalus/traffic.yaml")
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, string(src)) // its first variant is daedalus
}
