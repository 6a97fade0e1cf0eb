package measure

import (
	"math"

	"github.com/streamtwin/streamtwin/results"
)

// ColdStart is one restart of a job read from a run: its downtime and the
// warm-up of its capacity after it. RestartsAt is its one definition, for a
// measured run and for the twin's alike.
type ColdStart struct {
	// AtS is the last sample with throughput before the job stopped.
	AtS float64
	// DowntimeS is from AtS to the first sample with throughput after,
	// with TaskManagers registered.
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
	// ColdStartWindow is the averaging window of RestartsAt (s).
	ColdStartWindow = 10.0
	// ColdStartPeak is how long after a restart RestartsAt looks for the
	// peak throughput (s).
	ColdStartPeak = 300.0
)

// ColdStarts measures the cold starts of samples in time order: the
// restarts (RestartsAt) where every TaskManager deregistered (Workers fell
// to 0, as when the Kubernetes operator's savepoint upgrade replaces the
// pods) and new ones came.
func ColdStarts(samples []results.Sample) []ColdStart {
	var at []float64
	for i := 1; i < len(samples); i++ {
		if samples[i].Workers == 0 && samples[i-1].Workers != 0 {
			at = append(at, samples[i].TimeS)
		}
	}
	return RestartsAt(samples, at)
}

// RestartsAt measures the restart that follows each stop requested at the
// times at (s, ascending) in samples in time order (Workers the registered
// TaskManagers, Throughput NaN where it was not measured): the job stopped
// at the first sample from the request on without throughput, and restarted
// at the first sample after that with throughput and TaskManagers. A stop
// within the previous restart's downtime is the same restart; one whose
// throughput never comes back, or whose peak window would reach past the
// samples, is left out.
func RestartsAt(samples []results.Sample, at []float64) []ColdStart {
	var out []ColdStart
	i := 0
	for _, t := range at {
		for i < len(samples) && samples[i].TimeS < t {
			i++
		}
		for i < len(samples) && samples[i].Throughput > 0 && samples[i].Workers != 0 {
			i++ // still reading: the stop comes later (a savepoint first)
		}
		last := i - 1 // the last sample with throughput before the stop
		for last >= 0 && !(samples[last].Throughput > 0) {
			last--
		}
		if i == len(samples) || last < 0 {
			continue
		}
		j := i
		for j < len(samples) && (samples[j].Workers == 0 || !(samples[j].Throughput > 0)) {
			j++
		}
		if j == len(samples) || samples[j].TimeS+ColdStartPeak+ColdStartWindow > samples[len(samples)-1].TimeS {
			break
		}
		out = append(out, warmUp(samples, last, j))
		i = j
	}
	return out
}

// warmUp measures the restart from the last sample with throughput, last,
// to the first after the stop, j.
func warmUp(samples []results.Sample, last, j int) ColdStart {
	c := ColdStart{AtS: samples[last].TimeS, DowntimeS: samples[j].TimeS - samples[last].TimeS}
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
	return c
}
