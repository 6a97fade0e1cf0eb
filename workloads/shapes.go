package workloads

import (
	"fmt"
	"math"

	"github.com/streamtwin/streamtwin/sim"
)

// Config describes the input rate of a run: a built-in workload (Name) or
// a shape, then optional time compression, scaling, noise; or a
// concatenation of segments.
type Config struct {
	// Name is a built-in workload (streamtwin workload list), e.g. iot-day.
	Name string `yaml:"name,omitempty"`
	// Shape is constant, step, ramp, sine, burst, daily or trace.
	Shape string `yaml:"shape,omitempty"`
	// Rate is the constant level (constant), the level before the first step
	// (step) or the start of a ramp.
	Rate sim.Rate `yaml:"rate,omitempty"`
	// To is the rate a ramp reaches at its end.
	To sim.Rate `yaml:"to,omitempty"`
	// Peak is the highest rate: of a sine, daily curve or burst; for a
	// trace or built-in workload, the series is scaled so its maximum is
	// Peak (with Min as well: min–max scaled into [Min, Peak]).
	Peak sim.Rate `yaml:"peak,omitempty"`
	// Min is the trough of a sine or the night-time floor of a daily curve.
	Min sim.Rate `yaml:"min,omitempty"`
	// Scaling of a trace or built-in to Peak: "peak" (default) multiplies so
	// the maximum is Peak; "minmax" maps the series' range onto [Min, Peak],
	// as Daedalus did (which removes a trace's baseline).
	Scaling string `yaml:"scaling,omitempty"`
	// Period is the length one cycle takes: a sine's period, the length one
	// day is compressed into (daily: 24h is real time, 2h a day in two
	// hours), or the length a whole trace is compressed into (Daedalus
	// played a day in 6h). Cycles repeat to fill the run.
	Period sim.Duration `yaml:"period,omitempty"`
	// Every and Length place bursts of rate Peak over the base Rate: one
	// burst of Length every Every, the first at Start.
	Every  sim.Duration `yaml:"every,omitempty"`
	Length sim.Duration `yaml:"length,omitempty"`
	Start  sim.Duration `yaml:"start,omitempty"`
	// File is a trace (shape: trace): second|value, time,value CSV or
	// Parquet (time_s, rate); relative paths are relative to the scenario.
	File string `yaml:"file,omitempty"`
	// Interpolate turns a trace coarser than 1 s into per-second rates:
	// linear (default, between bucket centres) or step.
	Interpolate string `yaml:"interpolate,omitempty"`
	// Noise multiplies every second by 1 + Noise·N(0,1), seeded.
	// Built-in IoT workloads default to 0.02; noise: 0 turns it off.
	Noise *float64 `yaml:"noise,omitempty"`
	// Segments play workloads one after another, each for its Duration.
	Segments []Segment `yaml:"segments,omitempty"`
	// Steps switch the rate at the given times (step shape).
	Steps []Step `yaml:"steps,omitempty"`
	// RampStart and RampEnd bound a ramp (default: the whole run).
	RampStart sim.Duration `yaml:"ramp_start,omitempty"`
	RampEnd   sim.Duration `yaml:"ramp_end,omitempty"`
}

// Segment is one part of a concatenated workload.
type Segment struct {
	Duration sim.Duration `yaml:"duration"`
	Config   `yaml:",inline"`
}

// Step is a rate change at a point in time.
type Step struct {
	At   sim.Duration `yaml:"at"`
	Rate sim.Rate     `yaml:"rate"`
}

// Shapes lists the built-in shapes.
var Shapes = []string{"constant", "step", "ramp", "sine", "burst", "daily", "trace"}

// DailyCurve is the share of the daily peak by hour of day (0–23 h) of the
// IoT-vehicles traffic curve (docs/reference/workloads.md §2.5, from the Daedalus
// tm_6h_100K_max trace): peaks at 07 h and 18 h, near zero at night.
var DailyCurve = [24]float64{0.6, 1.9, 2.1, 0.8, 3.1, 8.5, 31.4, 66.0, 45.0, 18.1, 15.6, 17.0,
	22.3, 23.6, 20.6, 30.9, 58.1, 78.6, 94.6, 86.3, 62.2, 18.3, 9.9, 5.0}

// MaxRate bounds every rate of a workload, in records/s.
const MaxRate = 1e9

// Validate reports problems keyed by field name.
func (c Config) Validate() map[string]string {
	e := map[string]string{}
	neg := func(field string, r sim.Rate) {
		switch {
		case r < 0 || math.IsNaN(float64(r)):
			e[field] = fmt.Sprintf("must not be negative, got %v", r)
		case float64(r) > MaxRate:
			e[field] = fmt.Sprintf("must be in 0..1e9 records/s (a billion a second is beyond any single Flink job), got %v", r)
		}
	}
	neg("rate", c.Rate)
	neg("to", c.To)
	neg("peak", c.Peak)
	neg("min", c.Min)
	if c.Noise != nil && (*c.Noise < 0 || *c.Noise > 1 || math.IsNaN(*c.Noise)) {
		e["noise"] = fmt.Sprintf("must be in [0, 1] (relative standard deviation), got %g", *c.Noise)
	}
	if c.Period < 0 {
		e["period"] = fmt.Sprintf("must be positive, got %v", c.Period)
	}
	switch {
	case len(c.Segments) > 0:
		if c.Name != "" || c.Shape != "" {
			e["segments"] = "a workload with segments has no name or shape of its own"
		}
		for i, seg := range c.Segments {
			at := fmt.Sprintf("segments[%d].", i)
			if seg.Duration <= 0 {
				e[at+"duration"] = fmt.Sprintf("every segment needs a positive duration, got %v", seg.Duration)
			}
			for k, v := range seg.Config.Validate() {
				e[at+k] = v
			}
		}
		return e
	case c.Scaling != "" && c.Scaling != "peak" && c.Scaling != "minmax":
		e["scaling"] = fmt.Sprintf("must be peak or minmax, got %q", c.Scaling)
	case c.Name != "":
		if c.Shape != "" {
			e["shape"] = "give a built-in workload name or a shape, not both"
		} else if _, ok := builtin(c.Name); !ok {
			e["name"] = fmt.Sprintf("unknown workload %q; choose one of %v", c.Name, Names())
		}
		if c.Min > 0 && c.Peak > 0 && c.Min > c.Peak {
			e["min"] = fmt.Sprintf("min %v is above peak %v", c.Min, c.Peak)
		}
		return e
	}
	switch c.Shape {
	case "constant":
		if c.Rate == 0 && c.Noise == nil {
			e["rate"] = "a constant workload needs a positive rate, e.g. rate: 20000/s (a rate of 0 replays nothing, and every fault would \"recover\" at once)"
		}
	case "step", "ramp":
	case "burst":
		if c.Every <= 0 || c.Length <= 0 || c.Length > c.Every {
			e["length"] = "a burst workload needs 0 < length ≤ every, e.g. every: 10m, length: 30s"
		}
	case "trace":
		if c.File == "" {
			e["file"] = "a trace workload needs a file (second|value, time,value CSV or Parquet)"
		}
		if c.Interpolate != "" && c.Interpolate != "linear" && c.Interpolate != "step" {
			e["interpolate"] = fmt.Sprintf("must be linear or step, got %q", c.Interpolate)
		}
	case "sine", "daily":
		if c.Peak <= 0 {
			e["peak"] = fmt.Sprintf("a %s workload needs a positive peak, e.g. peak: 30000/s", c.Shape)
		} else if c.Min > c.Peak {
			e["min"] = fmt.Sprintf("min %v is above peak %v", c.Min, c.Peak)
		}
	case "":
		e["shape"] = fmt.Sprintf("missing; choose a shape (%v) or a built-in name (%v)", Shapes, Names())
	default:
		e["shape"] = fmt.Sprintf("unknown shape %q; choose one of %v", c.Shape, Shapes)
	}
	for i, s := range c.Steps {
		if s.At < 0 {
			e[fmt.Sprintf("steps[%d].at", i)] = fmt.Sprintf("must not be negative, got %v", s.At)
		}
		neg(fmt.Sprintf("steps[%d].rate", i), s.Rate)
		if i > 0 && s.At < c.Steps[i-1].At {
			e[fmt.Sprintf("steps[%d].at", i)] = "steps must be in time order"
		}
	}
	if c.RampStart < 0 || c.RampEnd < 0 {
		e["ramp_start"] = "ramp bounds must not be negative"
	}
	return e
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
	case "burst":
		return func(t float64) float64 {
			if t >= float64(c.Start) && math.Mod(t-float64(c.Start), float64(c.Every)) < float64(c.Length) {
				return float64(c.Peak)
			}
			return float64(c.Rate)
		}, nil
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
