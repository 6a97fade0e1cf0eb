package khaos

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// SteadyConfig are phase 1's constants (docs/reference/khaos.md §3); zero values take the
// reference's.
type SteadyConfig struct {
	Failures    int     `yaml:"failures" json:"failures"`           // numFailures: throughput levels, one failure each (12)
	Window      int     `yaml:"window" json:"window_s"`             // averagingWindow: trailing moving average, s (300)
	MinInterval int     `yaml:"min_interval" json:"min_interval_s"` // minInterval: failures at least this far apart and from both ends, s (1800)
	Tolerance   float64 `yaml:"tolerance" json:"tolerance"`         // stability tolerance (0.5)
	Attempts    int     `yaml:"attempts" json:"attempts"`           // draws before giving up (Khaos: 120 s of retrying) (100000)
}

// withDefaults returns c with every zero field at the reference's value.
func (c SteadyConfig) withDefaults() SteadyConfig {
	c.Failures = cmp.Or(c.Failures, 12)
	c.Window = cmp.Or(c.Window, 300)
	c.MinInterval = cmp.Or(c.MinInterval, 1800)
	c.Tolerance = cmp.Or(c.Tolerance, 0.5)
	c.Attempts = cmp.Or(c.Attempts, 100000)
	return c
}

// FailurePoint is one failure-injection second chosen in phase 1.
type FailurePoint struct {
	Second int     `json:"second"`
	Level  float64 `json:"level"`   // the throughput level it stands for, records/s
	Rate   float64 `json:"rate"`    // the input rate at that second
	Avg    float64 `json:"avg_300"` // its trailing moving average
}

// SteadyState picks the failure points from a recorded day of per-second
// input rates, as Khaos's IOManager does: the trailing moving average, the
// stability filter (|rate − avg| ≤ tolerance band, a band that follows the
// trace length as in the reference code), evenly spaced throughput levels
// between the stable minimum and maximum, and one random candidate per
// level, all pairwise at least MinInterval apart.
func SteadyState(rates []float64, cfg SteadyConfig, rng *rand.Rand) ([]FailurePoint, error) {
	cfg = cfg.withDefaults()
	n := len(rates)
	if cfg.Failures < 2 {
		return nil, fmt.Errorf("failures must be at least 2 (levels between the stable min and max), got %d", cfg.Failures)
	}
	if n < 2*cfg.MinInterval+cfg.Window {
		return nil, fmt.Errorf("the recorded input has %d s; phase 1 needs more than 2 × min_interval (%d s) + window (%d s)", n, cfg.MinInterval, cfg.Window)
	}
	// onePercent = (int)(N/100 + 0.5) with integer N/100, withTolerance =
	// (int)(onePercent·tolerance/2): the reference's band, ≈ N·0.0025.
	onePercent := float64(n / 100)
	band := math.Floor(math.Floor(onePercent+0.5) * cfg.Tolerance / 2)
	avg := make([]float64, n)
	sum := 0.0
	for i, r := range rates {
		sum += r
		if i >= cfg.Window {
			sum -= rates[i-cfg.Window]
		}
		avg[i] = sum / float64(min(i+1, cfg.Window))
	}
	var stable []int
	lo, hi := -1, -1
	for i := cfg.MinInterval; i < n-cfg.MinInterval; i++ {
		if math.Abs(rates[i]-avg[i]) > band {
			continue
		}
		stable = append(stable, i)
		if lo < 0 || avg[i] < avg[lo] {
			lo = i
		}
		if hi < 0 || avg[i] > avg[hi] {
			hi = i
		}
	}
	if len(stable) == 0 {
		return nil, fmt.Errorf("no stable second: the input never stays within ±%g records/s of its %d s average; raise tolerance", band, cfg.Window)
	}
	minRate, maxRate := rates[lo], rates[hi]
	step := math.Floor((maxRate-minRate)/float64(cfg.Failures-1) + 0.5)
	candidates := make([][]int, cfg.Failures)
	levels := make([]float64, cfg.Failures)
	for k := range levels {
		levels[k] = minRate + float64(k)*step
		// candidates need not be stable seconds themselves (as in the reference)
		for i := cfg.MinInterval; i < n-cfg.MinInterval; i++ {
			if math.Abs(avg[i]-levels[k]) <= band {
				candidates[k] = append(candidates[k], i)
			}
		}
		if len(candidates[k]) == 0 {
			return nil, fmt.Errorf("no second averages %.0f ± %g records/s (level %d of %d); lower failures", levels[k], band, k+1, cfg.Failures)
		}
	}
	chosen, ok := place(candidates, cfg.MinInterval, cfg.Attempts, rng)
	if !ok {
		return nil, fmt.Errorf("could not place %d failure points %d s apart (searched %d placements); lower failures or min_interval", cfg.Failures, cfg.MinInterval, cfg.Attempts)
	}
	pts := make([]FailurePoint, cfg.Failures)
	for k, i := range chosen {
		pts[k] = FailurePoint{Second: i, Level: levels[k], Rate: rates[i], Avg: avg[i]}
	}
	sort.Slice(pts, func(a, b int) bool { return pts[a].Second < pts[b].Second })
	return pts, nil
}

// place draws one candidate per level, all pairwise gap apart. Khaos draws
// whole sets until one fits (for up to 120 s); a randomised depth-first
// search finds the same kind of set, seeded, but also when few fit: levels
// with the fewest candidates go first, each tries its candidates in a random
// order, and a level that cannot fit sends the search back. budget bounds
// the placements tried.
func place(candidates [][]int, gap, budget int, rng *rand.Rand) ([]int, bool) {
	order := make([]int, len(candidates))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return len(candidates[order[a]]) < len(candidates[order[b]]) })
	perms := make([][]int, len(candidates))
	for k, c := range candidates {
		perms[k] = rng.Perm(len(c))
	}
	chosen := make([]int, len(candidates))
	var try func(depth int) bool
	try = func(depth int) bool {
		if depth == len(order) {
			return true
		}
		k := order[depth]
		for _, idx := range perms[k] {
			if budget--; budget < 0 {
				return false
			}
			c := candidates[k][idx]
			fits := true
			for _, prev := range order[:depth] {
				if d := chosen[prev] - c; d < gap && d > -gap {
					fits = false
					break
				}
			}
			if fits {
				chosen[k] = c
				if try(depth + 1) {
					return true
				}
			}
		}
		return false
	}
	return chosen, try(0)
}
