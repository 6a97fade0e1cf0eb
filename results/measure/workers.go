package measure

import (
	"math"
	"slices"

	"github.com/streamtwin/streamtwin/results"
)

// WorkerStats summarise how many TaskManagers a run had: the
// TaskManager-seconds, the share of time at each count, and the rescales.
// WorkersOf is its one definition, used for the twin's runs, live runs and
// measured series alike.
type WorkerStats struct {
	// Seconds is ∫ workers dt: a sample's count holds over the interval
	// since the previous sample (the first from time 0), as the run
	// summary's worker_seconds counts it.
	Seconds float64
	// TimeAt is the share of the time with at least one TaskManager spent
	// at each count (the counts' shares sum to 1).
	TimeAt map[int]float64
	// Rescales counts the changes between consecutive settled counts: a
	// count held for at least the hold time. A dip while a TaskManager is
	// lost and back, or the counts a restart passes through as
	// TaskManagers register one by one, are not rescales; a count of 0 (no
	// TaskManager registered) is never a settled count.
	Rescales int
}

// WorkersOf measures the workers of samples in time order; holdS is how
// long a count must hold to count as settled (e.g. 120 s).
func WorkersOf(samples []results.Sample, holdS float64) WorkerStats {
	w := WorkerStats{TimeAt: map[int]float64{}}
	last, positive := 0.0, 0.0
	settled, runCount, runStart := -1, -1, 0.0
	for i, s := range samples {
		dt := s.TimeS - last
		last = s.TimeS
		n := int(s.Workers)
		w.Seconds += float64(n) * dt
		if n > 0 {
			w.TimeAt[n] += dt
			positive += dt
		}
		if n != runCount {
			runCount, runStart = n, s.TimeS-dt
		}
		// the run holds: it settles at its count
		end := s.TimeS
		if i+1 < len(samples) && int(samples[i+1].Workers) == n {
			continue // judged at the run's end
		}
		if n > 0 && end-runStart >= holdS && n != settled {
			if settled >= 0 {
				w.Rescales++
			}
			settled = n
		}
	}
	for n := range w.TimeAt {
		w.TimeAt[n] /= positive
	}
	return w
}

// TotalVariation is the total-variation distance between two
// distributions over counts: half the sum of the absolute differences, 0
// for equal ones, 1 for disjoint ones.
func TotalVariation(a, b map[int]float64) float64 {
	keys := map[int]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var ks []int
	for k := range keys {
		ks = append(ks, k)
	}
	slices.Sort(ks) // a fixed order: the same sum to the last bit
	d := 0.0
	for _, k := range ks {
		d += math.Abs(a[k] - b[k])
	}
	return d / 2
}
