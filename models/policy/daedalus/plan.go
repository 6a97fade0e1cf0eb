package daedalus

import (
	"fmt"
	"math"
)

// Constants of the authors' code (reference/autoscaling.md §1.1, §1.5–1.7).
const (
	TargetRecoveryS   = 600 // target_recovery_time
	MaxScaleOut       = 18  // max_scaleout
	NoPlanAfterS      = 180 // no planning this long after a rescale
	KeepWithinS       = 600 // keep p this long after a rescale while it covers load and forecast
	KeepForecastS     = 60  // … the forecast of the next minute
	CheckpointWindowS = 10  // the backlog counts the last 10 s of input (checkpoint_interval)
	UpDowntimeS       = 30  // initial scale-up downtime estimate
	DownDowntimeS     = 15  // initial scale-down downtime estimate
)

// Capacities is the capacity book of capacity.py: the capacity observed at
// each parallelism (the mean of its last value and the new one) and, for
// the others, the current capacity extrapolated linearly.
type Capacities struct {
	observed  [MaxScaleOut + 1]float64
	estimated [MaxScaleOut + 1]float64
}

// Update books the capacity cur measured at parallelism p.
func (c *Capacities) Update(p int, cur float64) {
	if p < 1 || p > MaxScaleOut {
		return
	}
	if c.observed[p] == 0 {
		c.observed[p] = cur
	} else {
		c.observed[p] = (c.observed[p] + cur) / 2
	}
	for q := 1; q <= MaxScaleOut; q++ {
		c.estimated[q] = float64(q) * cur / float64(p)
	}
}

// Get is get_capacity(q): observed if known, else estimated (0 outside
// 1..MaxScaleOut).
func (c *Capacities) Get(q int) float64 {
	if q < 1 || q > MaxScaleOut {
		return 0
	}
	if c.observed[q] != 0 {
		return c.observed[q]
	}
	return c.estimated[q]
}

// Situation is what one planning step knows.
type Situation struct {
	Parallelism   int       // p
	SinceRescaleS float64   // now − last rescale
	Workload      float64   // W: mean input rate over the last 61 s, records/s
	Last10sInput  float64   // records that arrived in the last 10 s
	Lag           float64   // consumer lag now, records
	Forecast      []float64 // F[k]: input rate k s from now, records/s (F[0] = now)
	UpDowntimeS   int       // current scale-up downtime estimate
	DownDowntimeS int       // current scale-down downtime estimate
	Capacity      func(q int) float64
	// MaxScaleOut bounds the choice (max_scaleout; 0: MaxScaleOut).
	MaxScaleOut int
}

// RecoveryTime is recovery_time.py's prediction for a rescale to q: the
// downtime d (scale-down's if q < p, else scale-up's), a backlog B of the
// last 10 s of input (what a checkpoint interval loses), the forecast
// arrivals during the downtime and the lag now; then the first k ≥ d at
// which the surplus Σ_{j=d..k} max(0, C(q) − F[j]) exceeds B. The code
// returns k + d (the downtime counted twice, as written). ok is false when
// the forecast ends first.
func RecoveryTime(s Situation, q int) (rt int, ok bool) {
	d := s.UpDowntimeS
	if q < s.Parallelism {
		d = s.DownDowntimeS
	}
	b := s.Last10sInput + s.Lag
	for k := 0; k < d && k < len(s.Forecast); k++ {
		b += s.Forecast[k]
	}
	c, surplus := s.Capacity(q), 0.0
	for k := d; k < len(s.Forecast); k++ {
		surplus += math.Max(0, c-s.Forecast[k])
		if surplus > b {
			return k + d, true
		}
	}
	return 0, false
}

// Plan is execution_manager.determine_scaleout: the parallelism to run and
// why. It returns p itself when nothing should change.
func Plan(s Situation) (int, string) {
	p, cp := s.Parallelism, s.Capacity(s.Parallelism)
	if s.SinceRescaleS < NoPlanAfterS {
		return p, fmt.Sprintf("no planning within %d s of a rescale", NoPlanAfterS)
	}
	if cp == 0 {
		return p, "no capacity known at the current parallelism"
	}
	if s.SinceRescaleS < KeepWithinS && cp > s.Workload && cp > maxOf(s.Forecast, 0, KeepForecastS) {
		return p, fmt.Sprintf("keep %d: within %d s of a rescale, capacity %.0f/s covers the load and the next minute's forecast", p, KeepWithinS, cp)
	}
	peak := maxOf(s.Forecast, 0, len(s.Forecast))
	top := MaxScaleOut
	if s.MaxScaleOut > 0 {
		top = min(s.MaxScaleOut, MaxScaleOut)
	}
	for q := 1; q <= top; q++ {
		cq := s.Capacity(q)
		if cq <= s.Workload {
			continue
		}
		rt, ok := RecoveryTime(s, q)
		if !ok || rt > TargetRecoveryS {
			continue
		}
		if cq < maxOf(s.Forecast, 0, rt) {
			continue
		}
		if q == p {
			return p, fmt.Sprintf("keep %d: the cheapest parallelism that covers the load and recovers in %d s", p, rt)
		}
		if q < p && cp < s.Lag { // records/s against records, as coded
			continue
		}
		if cq > peak {
			return q, fmt.Sprintf("%d → %d: capacity %.0f/s covers the forecast peak %.0f/s, predicted recovery %d s", p, q, cq, peak, rt)
		}
	}
	if top == p {
		return p, fmt.Sprintf("keep %d: no parallelism covers the forecast within %d s of recovery, and it is max_scaleout", p, TargetRecoveryS)
	}
	return top, fmt.Sprintf("%d → %d: no parallelism covers the forecast within %d s of recovery", p, top, TargetRecoveryS)
}

// maxOf is the largest of xs[from:to] (clamped), 0 for none.
func maxOf(xs []float64, from, to int) float64 {
	m := 0.0
	for i := max(from, 0); i < min(to, len(xs)); i++ {
		m = math.Max(m, xs[i])
	}
	return m
}
