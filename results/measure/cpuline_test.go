package measure

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// TestCPULineOf by hand: 4 TaskManagers, CPU = 0.1 + 50 µs × records/s
// per TaskManager, the load stepping 4k, 8k, 12k, 16k/s a minute each: per
// TaskManager 1k…4k/s, CPU 0.15, 0.2, 0.25, 0.3. A minute whose
// TaskManagers change, two saturated (CPU 0.95, 0.91) and one with half its
// seconds unmeasured are left out.
func TestCPULineOf(t *testing.T) {
	var ss []results.Sample
	add := func(minute int, workers int32, rate, cpu float64, measured int) {
		for k := range 60 {
			s := results.Sample{TimeS: float64(60*minute + k), Workers: workers, Throughput: rate, CPUBusyMean: cpu}
			if k >= measured {
				s.Throughput = math.NaN()
			}
			ss = append(ss, s)
		}
	}
	for m, rate := range []float64{4000, 8000, 12000, 16000} {
		add(m, 4, rate, 0.1+50e-6*rate/4, 60)
	}
	add(4, 4, 50000, 0.95, 60) // saturated
	add(5, 4, 20000, 0.35, 30) // half unmeasured
	add(6, 4, 20000, 0.91, 60) // above the saturation bound
	ss = append(ss, results.Sample{TimeS: 7 * 60, Workers: 5, Throughput: 1000, CPUBusyMean: 0.8})
	add(7, 4, 1000, 0.8, 60) // its first second had 5 TaskManagers
	ss = append(ss[:len(ss)-60], ss[len(ss)-59:]...)
	l, err := CPULineOf(ss)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(l.Idle-0.1) > 1e-9 || math.Abs(l.PerRecord-50e-6) > 1e-12 || l.Windows != 4 {
		t.Errorf("got %+v, want idle 0.1, 50 µs per record, 4 windows", l)
	}
	if _, err := CPULineOf(ss[:60]); err == nil {
		t.Error("one window fitted a line")
	}
}
