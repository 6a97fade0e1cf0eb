package autoscaler

import (
	"math"
	"time"
)

// Config holds the job.autoscaler.* keys the scaling decision reads.
type Config struct {
	TargetUtilization   float64       // utilization.target (0.7)
	UtilizationBoundary float64       // target.utilization.boundary (0.3): max/min = target ± it
	ScaleDownMaxFactor  float64       // scale-down.max-factor (0.6)
	ScaleUpMaxFactor    float64       // scale-up.max-factor (100000)
	VertexMinParallel   int           // vertex.min-parallelism (1)
	VertexMaxParallel   int           // vertex.max-parallelism (200)
	CatchUpDuration     time.Duration // catch-up.duration (30 min; 0 disables backlog-based scaling)
	RestartTime         time.Duration // restart.time (5 min)
	BacklogLagThreshold time.Duration // backlog-processing.lag-threshold (5 min)
	ScaleDownInterval   time.Duration // scale-down.interval (1 h)
}

// Defaults are the operator's (main, 1.12).
func Defaults() Config {
	return Config{TargetUtilization: 0.7, UtilizationBoundary: 0.3, ScaleDownMaxFactor: 0.6, ScaleUpMaxFactor: 100000,
		VertexMinParallel: 1, VertexMaxParallel: 200, CatchUpDuration: 30 * time.Minute, RestartTime: 5 * time.Minute,
		BacklogLagThreshold: 5 * time.Minute, ScaleDownInterval: time.Hour}
}

// Rates is what the evaluation knows of one vertex, in records/s (lag in
// records).
type Rates struct {
	TrueProcessingRate float64 // input rate / busy fraction (MAX over subtasks)
	TargetDataRate     float64 // sources: input rate + the lag's growth rate; others: Σ upstream targets × edge ratio
	Lag                float64 // sources: pending records now
	InputRate          float64 // sources: records/s read
}

// TargetCapacity is AutoScalerUtils.getTargetProcessingCapacity:
// round(catch-up rate + [target rate × restart time / catch-up duration] +
// target rate / utilisation), with the catch-up rate lag / catch-up
// duration; a utilisation of 0 (clamped to [0, 1]) means +∞.
func (c Config) TargetCapacity(r Rates, utilisation float64, withRestart bool) float64 {
	catchUp, restart := 0.0, 0.0
	if s := c.CatchUpDuration.Seconds(); s > 0 {
		catchUp = r.Lag / s
		if withRestart {
			restart = r.TargetDataRate * c.RestartTime.Seconds() / s
		}
	}
	u := math.Min(math.Max(utilisation, 0), 1)
	if u == 0 {
		return math.Inf(1)
	}
	return math.Round(catchUp + restart + r.TargetDataRate/u)
}

// Bounds are the scale-up and scale-down thresholds of a vertex: below the
// first its true processing rate is too low, above the second too high.
// While the job works through a backlog (lag/input > the lag threshold)
// the bounds widen to utilisation 1 and 0: no scale-down.
func (c Config) Bounds(r Rates) (up, down float64) {
	hi, lo := c.TargetUtilization+c.UtilizationBoundary, c.TargetUtilization-c.UtilizationBoundary
	if r.InputRate > 0 && r.Lag/r.InputRate > c.BacklogLagThreshold.Seconds() {
		hi, lo = 1, 0
	}
	return c.TargetCapacity(r, hi, false), c.TargetCapacity(r, lo, true)
}

// OutOfBounds: the vertex needs rescaling (a job rescales only when at least
// one vertex does).
func (c Config) OutOfBounds(r Rates) bool {
	up, down := c.Bounds(r)
	return r.TrueProcessingRate < up || r.TrueProcessingRate > down
}

// Parallelism is JobVertexScaler.computeScaleTargetParallelism before
// alignment: ceil(scale factor × current) with the factor target/TPR
// clamped to [1 − scale-down.max-factor, 1 + scale-up.max-factor], and the
// result to [min(current, vertex.min), min(maxParallelism, max(current,
// vertex.max))].
func (c Config) Parallelism(r Rates, current, maxParallelism int) int {
	target := c.TargetCapacity(r, c.TargetUtilization, true)
	f := target / r.TrueProcessingRate
	f = math.Min(math.Max(f, 1-c.ScaleDownMaxFactor), 1+c.ScaleUpMaxFactor)
	p := int(math.Ceil(f * float64(current)))
	lo, hi := min(current, c.VertexMinParallel), min(maxParallelism, max(current, c.VertexMaxParallel))
	return min(max(p, lo), hi)
}

// Align is the operator's key-group and partition alignment (1.11–1.12,
// EVENLY_SPREAD): n is the source's partition count, or the max
// parallelism (key groups) for a keyed vertex. It takes the first p ≥
// newP up to min(n, upper) that divides n; failing that, the smallest p
// below newP that gives no more items per subtask than newP does, rounded
// to a divisor (the operator then reports SCALING_LIMITED), never below
// lower. limited says which.
func Align(newP, n, lower, upper int) (p int, limited bool) {
	if n <= 0 {
		return newP, false
	}
	for p := newP; p <= min(n, upper); p++ {
		if n%p == 0 {
			return p, false
		}
	}
	p = newP
	for ; p > 0; p-- {
		if n/p > n/newP {
			if n%p != 0 {
				p++
			}
			break
		}
	}
	return max(p, lower), true
}

// AlignKeyGroups is the operator's alignment before 1.11
// (JobVertexScaler.scale, every vertex): the first p ≥ newP that divides
// the vertex's key groups n, searched up to n/2 and upper; failing that,
// newP itself.
func AlignKeyGroups(newP, n, upper int) int {
	for p := newP; p <= n/2 && p <= upper; p++ {
		if n%p == 0 {
			return p
		}
	}
	return newP
}

// Change is what the scale-down interval makes of one vertex's
// recommendation (the operator's ParallelismChange).
type Change int

const (
	// NoChange: the recommendation is the current parallelism; a waiting
	// scale-down is dropped.
	NoChange Change = iota
	// Optional: a scale-down still inside its interval; applied only along
	// with a required change of another vertex.
	Optional
	// Required: a scale-up, or a scale-down whose interval is over (at the
	// largest parallelism recommended within the last interval).
	Required
)

// ScaleDowns is one vertex's delayed scale-down (scale-down.interval,
// ≥ 1.10; JobVertexScaler.applyScaleDownInterval and DelayedScaleDown):
// the first recommendation below the current parallelism starts the wait
// and every later one is booked; once the interval has passed since the
// first, the scale-down is required at the largest parallelism recommended
// within the last interval (FLINK-36535: a scale-down never undoes what the
// last hour needed). A recommendation of the current parallelism or above
// drops it. Whether a required change is applied is the caller's: the
// operator rescales only when a required vertex is out of its utilisation
// bounds, so a waiting scale-down survives readings within the bounds.
type ScaleDowns struct {
	first time.Duration
	recs  []bookedRec // newest last, within the last interval
}

type bookedRec struct {
	at time.Duration
	p  int
}

// Decide books the recommendation rec for a vertex running at current and
// returns the parallelism it asks for and how firmly.
func (s *ScaleDowns) Decide(now time.Duration, current, rec int, interval time.Duration) (int, Change) {
	switch {
	case rec == current:
		s.Clear()
		return current, NoChange
	case rec > current:
		s.Clear()
		return rec, Required
	case interval <= 0: // the interval is off: scale down at once
		return rec, Required
	}
	if len(s.recs) == 0 {
		s.first = now
	}
	s.recs = append(s.recs, bookedRec{now, rec})
	from := now - interval
	i := 0
	for i < len(s.recs)-1 && s.recs[i].at < from {
		i++
	}
	s.recs = s.recs[i:]
	if s.first > from {
		return rec, Optional // never scale down within the interval
	}
	highest := rec
	for _, r := range s.recs {
		highest = max(highest, r.p)
	}
	return highest, Required
}

// Clear drops a waiting scale-down (a scale-up, a keep, or a rescale done).
func (s *ScaleDowns) Clear() { s.recs = s.recs[:0] }

// Waiting says whether a scale-down waits, and since when.
func (s *ScaleDowns) Waiting() (since time.Duration, ok bool) { return s.first, len(s.recs) > 0 }
