package results

import "math"

// ColdStart is one restart of a job on new TaskManagers read from a run:
// every TaskManager deregistered (the count fell to 0, as when the
// Kubernetes operator's savepoint upgrade replaces the pods) and new ones
// came. ColdStarts is its one definition.
type ColdStart struct {
	// AtS is the last sample with throughput before the count fell to 0.
	AtS float64
	// DowntimeS is from AtS to the first sample with throughput after.
	DowntimeS float64
	// StartShare is the throughput's first ColdStartWindow mean after the
	// restart over its peak: the highest such mean within ColdStartPeak.
	// While the job reads its backlog its throughput is its capacity, so
	// the two trace the capacity's warm-up.
	StartShare float64
	// RampS is the length of the linear ramp from StartShare to full
	// (cluster.warmup's shape) that reaches 90 % where the throughput's
	// window mean first reaches 90 % of its peak (the window's middle,
	// from the restart).
	RampS float64
}

const (
	// ColdStartWindow is the averaging window of ColdStarts (s).
	ColdStartWindow = 10.0
	// ColdStartPeak is how long after a restart ColdStarts looks for the
	// peak throughput (s).
	ColdStartPeak = 300.0
)

// ColdStarts measures the cold starts of samples in time order: Workers is
// the registered TaskManagers, Throughput NaN where it was not measured. A
// restart whose peak window would reach past the samples is left out, as
// is one whose throughput never comes back.
func ColdStarts(samples []Sample) []ColdStart {
	var out []ColdStart
	lastThr := -1 // the last sample with throughput > 0
	for i := 0; i < len(samples); i++ {
		s := samples[i]
		if s.Throughput > 0 {
			lastThr = i
		}
		if s.Workers != 0 || i == 0 || samples[i-1].Workers == 0 || lastThr < 0 {
			continue
		}
		// every TaskManager gone: the restart is the first sample with
		// throughput once they are back
		j := i
		for j < len(samples) && (samples[j].Workers == 0 || !(samples[j].Throughput > 0)) {
			j++
		}
		if j == len(samples) || samples[j].TimeS+ColdStartPeak+ColdStartWindow > samples[len(samples)-1].TimeS {
			break
		}
		c := ColdStart{AtS: samples[lastThr].TimeS, DowntimeS: samples[j].TimeS - samples[lastThr].TimeS}
		restart := samples[j].TimeS
		mean := func(from float64) float64 { // the window mean from a time on
			sum, n := 0.0, 0
			for k := j; k < len(samples) && samples[k].TimeS < from+ColdStartWindow; k++ {
				if samples[k].TimeS >= from && !math.IsNaN(samples[k].Throughput) {
					sum, n = sum+samples[k].Throughput, n+1
				}
			}
			if n == 0 {
				return math.NaN()
			}
			return sum / float64(n)
		}
		peak := 0.0
		for d := 0.0; d <= ColdStartPeak; d++ {
			if m := mean(restart + d); m > peak {
				peak = m
			}
		}
		c.StartShare = mean(restart) / peak
		for d := 0.0; d <= ColdStartPeak; d++ {
			if mean(restart+d) >= 0.9*peak {
				t90 := d + ColdStartWindow/2
				c.RampS = t90 * (1 - c.StartShare) / math.Max(0.9-c.StartShare, 1e-9)
				if c.StartShare >= 0.9 {
					c.RampS = 0 // warm: at 90 % from the start
				}
				break
			}
		}
		out = append(out, c)
		i, lastThr = j, j
	}
	return out
}
