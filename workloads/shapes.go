package workloads

import (
	"fmt"
	"math"

	"github.com/streamtwin/streamtwin/sim"
)

// Config describes the input rate of a run.
type Config struct {
	// Shape is constant, step, ramp, sine or daily.
	Shape string `yaml:"shape"`
	// Rate is the constant level (constant), the level before the first step
	// (step) or the start of a ramp.
	Rate sim.Rate `yaml:"rate,omitempty"`
	// To is the rate a ramp reaches at its end.
	To sim.Rate `yaml:"to,omitempty"`
	// Peak is the highest rate of a sine or daily curve.
	Peak sim.Rate `yaml:"peak,omitempty"`
	// Min is the trough of a sine or the night-time floor of a daily curve.
	Min sim.Rate `yaml:"min,omitempty"`
	// Period is a sine's period, or the length one day is compressed into for
	// the daily curve (24h: real time; 2h: a day in two hours).
	Period sim.Duration `yaml:"period,omitempty"`
	// Steps switch the rate at the given times (step shape).
	Steps []Step `yaml:"steps,omitempty"`
	// RampStart and RampEnd bound a ramp (default: the whole run).
	RampStart sim.Duration `yaml:"ramp_start,omitempty"`
	RampEnd   sim.Duration `yaml:"ramp_end,omitempty"`
}

// Step is a rate change at a point in time.
type Step struct {
	At   sim.Duration `yaml:"at"`
	Rate sim.Rate     `yaml:"rate"`
}

// Shapes lists the built-in shapes.
var Shapes = []string{"constant", "step", "ramp", "sine", "daily"}

// DailyCurve is the share of the daily peak by hour of day (0–23 h) of the
// IoT-vehicles traffic curve (reference/workloads.md §2.5, from the Daedalus
// tm_6h_100K_max trace): peaks at 07 h and 18 h, near zero at night.
var DailyCurve = [24]float64{0.6, 1.9, 2.1, 0.8, 3.1, 8.5, 31.4, 66.0, 45.0, 18.1, 15.6, 17.0,
	22.3, 23.6, 20.6, 30.9, 58.1, 78.6, 94.6, 86.3, 62.2, 18.3, 9.9, 5.0}

// Validate reports problems keyed by field name.
func (c Config) Validate() map[string]string {
	e := map[string]string{}
	neg := func(field string, r sim.Rate) {
		if r < 0 || math.IsNaN(float64(r)) {
			e[field] = fmt.Sprintf("must not be negative, got %v", r)
		}
	}
	neg("rate", c.Rate)
	neg("to", c.To)
	neg("peak", c.Peak)
	neg("min", c.Min)
	switch c.Shape {
	case "constant", "step", "ramp":
	case "sine", "daily":
		if c.Peak <= 0 {
			e["peak"] = fmt.Sprintf("a %s workload needs a positive peak, e.g. peak: 30000/s", c.Shape)
		} else if c.Min > c.Peak {
			e["min"] = fmt.Sprintf("min %v is above peak %v", c.Min, c.Peak)
		}
		if c.Period < 0 {
			e["period"] = fmt.Sprintf("must be positive, got %v", c.Period)
		}
	case "":
		e["shape"] = fmt.Sprintf("missing; choose one of %v", Shapes)
	default:
		e["shape"] = fmt.Sprintf("unknown shape %q; choose one of %v", c.Shape, Shapes)
	}
	for i, s := range c.Steps {
		if s.At < 0 {
			e[fmt.Sprintf("steps[%d].at", i)] = fmt.Sprintf("must not be negative, got %v", s.At)
		}
		if s.Rate < 0 {
			e[fmt.Sprintf("steps[%d].rate", i)] = fmt.Sprintf("must not be negative, got %v", s.Rate)
		}
		if i > 0 && s.At < c.Steps[i-1].At {
			e[fmt.Sprintf("steps[%d].at", i)] = "steps must be in time order"
		}
	}
	if c.RampStart < 0 || c.RampEnd < 0 {
		e["ramp_start"] = "ramp bounds must not be negative"
	}
	return e
}

// Build renders the shape into a per-second schedule of the given length.
// The rate of second i is the shape's value at its midpoint i+0.5.
func Build(c Config, duration sim.Duration) (*Schedule, error) {
	n := int(math.Ceil(float64(duration)))
	if n <= 0 {
		return nil, fmt.Errorf("run duration must be positive, got %v", duration)
	}
	rates := make([]float64, n)
	f, err := c.rateFunc(float64(n))
	if err != nil {
		return nil, err
	}
	for i := range rates {
		rates[i] = math.Max(0, f(float64(i)+0.5))
	}
	return NewSchedule(rates), nil
}

func (c Config) rateFunc(n float64) (func(t float64) float64, error) {
	switch c.Shape {
	case "constant":
		r := float64(c.Rate)
		return func(float64) float64 { return r }, nil
	case "step":
		return func(t float64) float64 {
			r := float64(c.Rate)
			for _, s := range c.Steps {
				if t >= float64(s.At) {
					r = float64(s.Rate)
				}
			}
			return r
		}, nil
	case "ramp":
		a, b := float64(c.RampStart), float64(c.RampEnd)
		if b <= a {
			a, b = 0, n
		}
		return func(t float64) float64 {
			x := math.Min(1, math.Max(0, (t-a)/(b-a)))
			return float64(c.Rate) + x*float64(c.To-c.Rate)
		}, nil
	case "sine":
		p := float64(c.Period)
		if p <= 0 {
			p = 86400
		}
		mid, amp := float64(c.Peak+c.Min)/2, float64(c.Peak-c.Min)/2
		return func(t float64) float64 { return mid - amp*math.Cos(2*math.Pi*t/p) }, nil
	case "daily":
		p := float64(c.Period)
		if p <= 0 {
			p = 86400
		}
		lo, hi := float64(c.Min), float64(c.Peak)
		peak := 0.0
		for _, v := range DailyCurve {
			peak = math.Max(peak, v)
		}
		return func(t float64) float64 {
			return lo + (hi-lo)*dailyShare(24*math.Mod(t, p)/p)/peak
		}, nil
	}
	return nil, fmt.Errorf("unknown workload shape %q; choose one of %v", c.Shape, Shapes)
}

// dailyShare interpolates DailyCurve linearly between hour midpoints,
// wrapping around midnight.
func dailyShare(hour float64) float64 {
	x := hour - 0.5
	i := int(math.Floor(x))
	frac := x - float64(i)
	a, b := DailyCurve[(i+24)%24], DailyCurve[(i+25)%24]
	return a + frac*(b-a)
}
