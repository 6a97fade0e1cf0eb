package hostmetrics

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat"

	"github.com/streamtwin/streamtwin/sim"
)

// Relation is one metric's load model.
type Relation struct {
	Name      string       `yaml:"name"`              // column name, e.g. cpu_rate
	Unit      string       `yaml:"unit,omitempty"`    // for tables and figures: %, B/s
	Intercept float64      `yaml:"intercept"`         // the metric at no load
	Slope     float64      `yaml:"slope"`             // per record/s of load
	Lag       sim.Duration `yaml:"lag,omitempty"`     // the metric follows the load this much later
	SD        float64      `yaml:"sd,omitempty"`      // the noise's standard deviation, in the metric's unit
	Max       float64      `yaml:"max,omitempty"`     // clamp (100 for a percentage); 0: none
	Bytes     float64      `yaml:"bytes,omitempty"`   // bytes one scrape of the metric's families transmits
	Fitted    string       `yaml:"fitted,omitempty"`  // where the numbers come from
	R2        float64      `yaml:"r2,omitempty"`      // of the fit, if fitted
	Samples   int          `yaml:"samples,omitempty"` // the fit's sample count

	// Live (streamtwin live run on live up --prometheus): Query is the
	// metric in PromQL, $job standing for the scrape job (node, which a
	// live sampler turns on and off, or node-truth, the 1 s ground truth);
	// Families are the metric families the sampler turns on and off
	// together. The twin uses neither.
	Query    string   `yaml:"query,omitempty"`
	Families []string `yaml:"families,omitempty"`
}

// Defaults are the adaptive-monitoring testbed's relations on its test week
// (msgs/s → node-exporter metrics, best lag ≈ 70 s; monitoring.md §5.5), with
// bytes per scrape as node-exporter exposes the families behind each metric
// (text format, HELP and TYPE lines included) on a 2-CPU host with two
// disks: node_cpu_seconds_total 930 B; MemAvailable and MemTotal 334 B;
// node_disk_read_bytes_total 225 B, node_disk_written_bytes_total 240 B
// (measured, docs/monitoring.md). Their live queries are those of the
// Measured columns: the reference's (§4) at 1 s, irate over the last two
// scrapes (a 10 min range, so that a live sampler's first scrape after a
// skip still has the one before it) instead of rate over 1 min, and
// MemAvailable ÷ MemTotal.
func Defaults() []Relation {
	live := func(r Relation, column string) Relation {
		m := measured(column)
		r.Query, r.Families = m.Query, m.Families
		return r
	}
	return []Relation{
		live(Relation{Name: "cpu_rate", Unit: "%", Intercept: 2.559, Slope: 0.03112, Lag: 70, SD: 0.59, Max: 100, Bytes: 930, Fitted: "monitoring testbed, test week (R² 0.960)"}, "cpu_pct"),
		live(Relation{Name: "memory_rate", Unit: "%", Intercept: 3.256, Slope: 0.01080, Lag: 70, SD: 0.31, Max: 100, Bytes: 334, Fitted: "monitoring testbed, test week (R² 0.911)"}, "mem_pct"),
		live(Relation{Name: "read_bytes_rate", Unit: "B/s", Intercept: 1.052e6, Slope: 1.002e5, Lag: 70, SD: 6.8e5, Bytes: 225, Fitted: "monitoring testbed, test week (R² 0.995)"}, "disk_read_bps"),
		live(Relation{Name: "write_bytes_rate", Unit: "B/s", Intercept: 1.338e6, Slope: 1.203e5, Lag: 70, SD: 8.3e5, Bytes: 240, Fitted: "monitoring testbed, test week (R² 0.995)"}, "disk_write_bps"),
	}
}

// Validate checks one relation; field is its place in the scenario.
func (r Relation) Validate() error {
	switch {
	case r.Name == "":
		return errors.New("name: missing (the metric's column, e.g. cpu_rate)")
	case r.Lag < 0:
		return fmt.Errorf("lag must not be negative, got %v", r.Lag)
	case r.SD < 0:
		return fmt.Errorf("sd must not be negative, got %g", r.SD)
	case r.Max < 0:
		return fmt.Errorf("max must not be negative, got %g", r.Max)
	case r.Bytes < 0:
		return fmt.Errorf("bytes must not be negative, got %g", r.Bytes)
	}
	return nil
}

// Generate is the metric's series at the load's steps (1 s): before the lag
// has passed, the first load value stands in. Noise comes from rng; values
// are clamped to [0, Max] (no negative rate or percentage).
func (r Relation) Generate(load []float64, rng *rand.Rand) []float64 {
	out := make([]float64, len(load))
	lag := int(math.Round(float64(r.Lag)))
	for t := range load {
		x := load[max(0, t-lag)]
		v := r.Intercept + r.Slope*x
		if r.SD > 0 {
			v += r.SD * rng.NormFloat64()
		}
		v = math.Max(0, v)
		if r.Max > 0 {
			v = math.Min(r.Max, v)
		}
		out[t] = v
	}
	return out
}

// Fit is the least-squares relation of metric on load at the lag in
// [0, maxLag] s that explains the most (R²), with the residuals' standard
// deviation. Seconds where either series is NaN are left out.
func Fit(name string, load, metric []float64, maxLag int) (Relation, error) {
	if len(load) != len(metric) {
		return Relation{}, fmt.Errorf("hostmetrics: fit %s: %d load values against %d metric values", name, len(load), len(metric))
	}
	best := Relation{Name: name, R2: math.Inf(-1)}
	for lag := 0; lag <= maxLag && lag < len(load); lag++ {
		var xs, ys []float64
		for t := lag; t < len(load); t++ {
			x, y := load[t-lag], metric[t]
			if !math.IsNaN(x) && !math.IsNaN(y) {
				xs, ys = append(xs, x), append(ys, y)
			}
		}
		if len(xs) < 3 || stat.Variance(xs, nil) == 0 {
			continue
		}
		b, m := stat.LinearRegression(xs, ys, nil, false)
		r2 := stat.RSquared(xs, ys, nil, b, m)
		if r2 > best.R2 {
			var ss float64
			for i := range xs {
				e := ys[i] - b - m*xs[i]
				ss += e * e
			}
			best = Relation{Name: name, Intercept: b, Slope: m, Lag: sim.Duration(lag), SD: math.Sqrt(ss / float64(len(xs)-2)), R2: r2, Samples: len(xs)}
		}
	}
	if math.IsInf(best.R2, -1) {
		return Relation{}, fmt.Errorf("hostmetrics: fit %s: fewer than 3 seconds with a varying load", name)
	}
	return best, nil
}
