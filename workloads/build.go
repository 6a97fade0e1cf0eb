package workloads

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/streamtwin/streamtwin/sim"
)

// Build renders the workload into a per-second schedule of the given
// length. baseDir resolves relative trace files; seeds feed the noise.
func Build(c Config, duration sim.Duration, baseDir string, seeds sim.Seeds) (*Schedule, error) {
	n := int(math.Ceil(float64(duration)))
	if n <= 0 {
		return nil, fmt.Errorf("run duration must be positive, got %v", duration)
	}
	rates, err := c.render(n, baseDir, seeds, "workload")
	if err != nil {
		return nil, err
	}
	return NewSchedule(rates), nil
}

// render produces n per-second rates. stream names the noise stream so that
// every segment gets its own.
func (c Config) render(n int, baseDir string, seeds sim.Seeds, stream string) ([]float64, error) {
	var rates []float64
	switch {
	case len(c.Segments) > 0:
		rates = make([]float64, 0, n)
		for i, seg := range c.Segments {
			m := int(math.Ceil(float64(seg.Duration)))
			part, err := seg.Config.render(m, baseDir, seeds, fmt.Sprintf("%s.segments[%d]", stream, i))
			if err != nil {
				return nil, err
			}
			rates = append(rates, part...)
		}
		// the last segment holds its final rate if the run is longer
		for len(rates) < n {
			rates = append(rates, rates[len(rates)-1])
		}
		rates = rates[:n]
	case c.Name != "" || c.Shape == "trace":
		series, defaults, err := c.series(baseDir)
		if err != nil {
			return nil, err
		}
		// compress, repeat to fill the run, add noise, then scale: so a
		// peak of 28000/s is the highest rate, noise included
		// (a run shorter than one cycle still scales by the whole cycle)
		cfg := defaults.overlay(c)
		series = compress(series, float64(cfg.Period))
		rates = make([]float64, max(n, len(series)))
		for i := range rates {
			rates[i] = series[i%len(series)]
		}
		addNoise(rates, cfg.Noise, seeds, stream)
		scale(rates, cfg.Scaling == "minmax", float64(cfg.Min), float64(cfg.Peak))
		return rates[:n], nil
	default:
		f, err := c.rateFunc(float64(n))
		if err != nil {
			return nil, err
		}
		rates = make([]float64, n)
		for i := range rates {
			rates[i] = math.Max(0, f(float64(i)+0.5))
		}
	}
	addNoise(rates, c.Noise, seeds, stream)
	return rates, nil
}

// addNoise multiplies every rate by 1 + noise·N(0,1) (clamped at 0), from
// the stream's own random stream.
func addNoise(rates []float64, noise *float64, seeds sim.Seeds, stream string) {
	if noise == nil || *noise <= 0 {
		return
	}
	rng := seeds.Stream(stream + ".noise")
	for i, r := range rates {
		rates[i] = math.Max(0, r*(1+*noise*rng.NormFloat64()))
	}
}

// series returns the base per-second series of a trace or built-in, and
// the built-in's default settings. The series may be shared: never modify it.
func (c Config) series(baseDir string) ([]float64, Config, error) {
	if c.Name != "" {
		b, ok := builtin(c.Name)
		if !ok {
			return nil, Config{}, fmt.Errorf("unknown workload %q; choose one of %v", c.Name, Names())
		}
		s, err := b.series()
		return s, b.defaults, err
	}
	path := c.File
	if !filepath.IsAbs(path) && baseDir != "" {
		path = filepath.Join(baseDir, path)
	}
	tr, err := ReadTrace(path)
	if err != nil {
		return nil, Config{}, err
	}
	return tr.PerSecond(c.Interpolate), Config{}, nil
}

// overlay returns d with every field c sets.
func (d Config) overlay(c Config) Config {
	if c.Peak > 0 {
		d.Peak = c.Peak
	}
	if c.Min > 0 {
		d.Min = c.Min
	}
	if c.Period > 0 {
		d.Period = c.Period
	}
	if c.Noise != nil {
		d.Noise = c.Noise
	}
	if c.Scaling != "" {
		d.Scaling = c.Scaling
	}
	return d
}

// compress plays the whole series in period seconds, each new second the
// mean of the original seconds it covers (rates are kept, not totals).
func compress(series []float64, period float64) []float64 {
	m := int(math.Round(period))
	if m <= 0 || m == len(series) {
		return series
	}
	out := make([]float64, m)
	k := float64(len(series)) / float64(m)
	for j := range out {
		a, b := float64(j)*k, float64(j+1)*k
		var sum float64
		for x := a; x < b-1e-9; {
			i := int(math.Floor(x))
			next := math.Min(b, float64(i+1))
			sum += series[min(i, len(series)-1)] * (next - x)
			x = next
		}
		out[j] = sum / k
	}
	return out
}

// scale rescales in place: min–max into [lo, hi] (as Daedalus scaled its
// traces), or so that the maximum is hi.
func scale(series []float64, minmax bool, lo, hi float64) {
	if hi <= 0 {
		return
	}
	mn, mx := math.Inf(1), math.Inf(-1)
	for _, v := range series {
		mn, mx = math.Min(mn, v), math.Max(mx, v)
	}
	for i, v := range series {
		switch {
		case minmax && mx > mn:
			series[i] = lo + (v-mn)/(mx-mn)*(hi-lo)
		case mx > 0:
			series[i] = v * hi / mx
		}
	}
}
