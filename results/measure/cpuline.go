package measure

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/streamtwin/streamtwin/results"
)

// CPULine is how a job's CPU grows with its load: a TaskManager's CPU
// utilisation = Idle + PerRecord · its share of the throughput (records/s),
// fitted by least squares over a run's windows. Its slope is the job's CPU
// per record, its intercept what the TaskManagers use with no record (the
// JVM's own threads): a mean CPU alone cannot tell the two apart, and a job
// whose CPU is mostly idle would be taken for an expensive one.
type CPULine struct {
	Idle      float64 // cores per TaskManager at no load
	PerRecord float64 // core-seconds per record (s)
	Windows   int     // the windows fitted
}

// CPULineWindow is the averaging window of CPULineOf (s).
const CPULineWindow = 60.0

// CPULineOf fits the CPU line of samples in time order: CPUBusyMean the
// TaskManagers' mean utilisation, Throughput the job's records/s and
// Workers its TaskManagers (NaN where a metric was not measured). The
// samples are cut into CPULineWindow windows by time; a window counts
// when at least 80 % of its seconds have both metrics, its TaskManagers did
// not change, and its mean CPU is below 0.9 (a saturated TaskManager's CPU
// no longer grows with the load).
func CPULineOf(samples []results.Sample) (CPULine, error) {
	var xs, ys []float64
	for i := 0; i < len(samples); {
		start := math.Floor(samples[i].TimeS/CPULineWindow) * CPULineWindow
		var cpu, thr float64
		n, workers, same := 0, samples[i].Workers, true
		j := i
		for ; j < len(samples) && samples[j].TimeS < start+CPULineWindow; j++ {
			s := samples[j]
			if s.Workers != workers {
				same = false
			}
			if math.IsNaN(s.CPUBusyMean) || math.IsNaN(s.Throughput) || s.Workers <= 0 {
				continue
			}
			cpu, thr, n = cpu+s.CPUBusyMean, thr+s.Throughput/float64(s.Workers), n+1
		}
		i = j
		if !same || float64(n) < 0.8*CPULineWindow || cpu/float64(n) >= 0.9 {
			continue
		}
		xs, ys = append(xs, thr/float64(n)), append(ys, cpu/float64(n))
	}
	if len(xs) < 2 || stat.Variance(xs, nil) == 0 {
		return CPULine{}, errors.New("the CPU line needs at least two windows at different loads below saturation")
	}
	a, b := stat.LinearRegression(xs, ys, nil, false)
	return CPULine{Idle: a, PerRecord: b, Windows: len(xs)}, nil
}
