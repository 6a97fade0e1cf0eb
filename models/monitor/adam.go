package monitor

import (
	"fmt"
	"math"
)

// AdaMConfig parameterises AdaM's adaptive sampling (docs/reference/monitoring.md §7;
// Trihinas et al., IEEE BigData 2015). The published equations are not
// verified; this follows the reference's Python reconstruction (RAINBOW
// AdaM.py / estimators.py) where the two reconstructions differ:
//   - PEWMA weights α_t = 1 − 1/t for the first Learn inputs, then
//     α_t = Alpha·(1 − Beta·P_t); Python's a = 0.45, b = 1, learning 5;
//   - confidence c_i = 1 − |σ̂_i − σ̂_{i−1}|/σ̂_{i−1}, 1 if σ̂_{i−1} = 0
//     (R divides by σ̂_i, which is 0 for a flat metric);
//   - period increment round(λ·(1 + |c − (1−γ)|/c)) (R's ⌈λ·(1 + (c−γ)/c)⌉
//     goes negative for small c, shrinking the period it meant to grow);
//     round is half-to-even, as Python's;
//   - the period stays TMin while the PEWMA learns: its first Learn δs,
//     so the first Learn+2 samples are TMin apart (a δ needs two samples,
//     and the period set by the last learning δ is TMin too).
//
// The guards for σ̂ = 0 (Z = 0, c = 1) are §7's, with a consequence worth
// knowing: on a metric that was exactly flat, the first jump is not a
// surprise — Z = 0 and c = 1 — so the period grows once more and AdaM
// reacts one sample later.
//
// Gamma = 0.9 and Lambda = 1 are R's defaults: the reference gives none for
// the Python version. With them a confident metric (c ≥ 0.1) grows its
// period by 1 s if c < 0.2, else by 2 s.
type AdaMConfig struct {
	TMin, TMax    int     // period bounds, seconds
	Alpha, Beta   float64 // PEWMA weight and its probabilistic damping
	Gamma, Lambda float64 // tolerated imprecision, multiplicity
	Learn         int     // PEWMA inputs (δ) in the learning phase
}

// DefaultAdaM is the configuration described on AdaMConfig with TMin 1 s
// (the scrape interval floor) and the given TMax.
func DefaultAdaM(tmax int) AdaMConfig {
	return AdaMConfig{TMin: 1, TMax: tmax, Alpha: 0.45, Beta: 1, Gamma: 0.9, Lambda: 1, Learn: 5}
}

// AdaM adapts one metric's sampling period to the variability of its
// successive differences: a steady δ_i = |v_i − v_{i−1}| raises the
// confidence in the estimate and lengthens the period up to TMax; a
// surprise sends it back to TMin.
type AdaM struct {
	c AdaMConfig

	seen   int     // scraped points consumed
	n      int     // samples seen
	t      int     // δs fed to the PEWMA
	last   float64 // last sample's value
	lastT  int     // and second
	s1, s2 float64 // PEWMA first and second moments of δ
	sigma  float64 // σ̂ after the last δ
	period int     // T, the gap after the last sample
}

// NewAdaM validates c and returns a sampler for one metric and one run.
func NewAdaM(c AdaMConfig) (*AdaM, error) {
	switch {
	case c.TMin < 1 || c.TMax < c.TMin:
		return nil, fmt.Errorf("monitor: AdaM periods [%d, %d] s, want 1 ≤ TMin ≤ TMax", c.TMin, c.TMax)
	case !(c.Alpha > 0 && c.Alpha < 1):
		return nil, fmt.Errorf("monitor: AdaM alpha %g, want in (0, 1)", c.Alpha)
	case !(c.Beta >= 0 && c.Beta <= 1):
		return nil, fmt.Errorf("monitor: AdaM beta %g, want in [0, 1]", c.Beta)
	case !(c.Gamma > 0 && c.Gamma < 1): // c ≥ 1−γ > 0 keeps the increment finite
		return nil, fmt.Errorf("monitor: AdaM gamma %g, want in (0, 1)", c.Gamma)
	case !(c.Lambda > 0) || math.IsInf(c.Lambda, 1):
		return nil, fmt.Errorf("monitor: AdaM lambda %g, want > 0", c.Lambda)
	case c.Learn < 1: // α_1 = 0 seeds the moments with the first δ
		return nil, fmt.Errorf("monitor: AdaM learning phase %d, want ≥ 1", c.Learn)
	}
	return &AdaM{c: c, period: c.TMin}, nil
}

// Next consumes the points scraped since the last call, then scrapes now if
// the next sample is due (last sample + T) or skips until it is. It answers
// {0, T−1} then {1, 0} rather than a single {1, T−1}: a Step's scrape comes
// first, so {1, T−1} would fix the gap after a sample before seeing it,
// one sample late — AdaM's point is to shorten the very next gap after a
// surprise.
func (a *AdaM) Next(now int, scraped []Point) Step {
	for _, p := range scraped[a.seen:] {
		a.observe(p)
	}
	a.seen = len(scraped)
	if a.n == 0 || now >= a.lastT+a.period {
		return Step{Scrape: 1}
	}
	return Step{Skip: a.lastT + a.period - now}
}

// Period is T, the planned gap after the last sample, in seconds.
func (a *AdaM) Period() int { return a.period }

// observe feeds one sample to the estimator and sets the next period.
func (a *AdaM) observe(p Point) {
	a.n++
	prev := a.last
	a.last, a.lastT = p.V, p.T
	if a.n == 1 {
		return // no δ yet
	}
	d := math.Abs(p.V - prev)
	a.t++
	sigPrev, muPrev := a.sigma, a.s1
	learning := a.t <= a.c.Learn
	w := 1 - 1/float64(a.t) // a running mean while learning
	if !learning {
		z := 0.0 // σ̂ = 0: no scale to judge the surprise by
		if sigPrev > 0 {
			z = (d - muPrev) / sigPrev
		}
		pz := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
		w = a.c.Alpha * (1 - a.c.Beta*pz)
	}
	a.s1 = w*a.s1 + (1-w)*d
	a.s2 = w*a.s2 + (1-w)*d*d
	a.sigma = math.Sqrt(math.Max(0, a.s2-a.s1*a.s1)) // rounding can make it −0.0…
	conf := 1.0
	if sigPrev > 0 {
		conf = 1 - math.Abs(a.sigma-sigPrev)/sigPrev
	}
	switch floor := 1 - a.c.Gamma; {
	case learning || !(conf >= floor): // NaN (an infinite δ) is no confidence
		a.period = a.c.TMin
	default:
		a.period += int(math.RoundToEven(a.c.Lambda * (1 + math.Abs(conf-floor)/conf)))
	}
	a.period = min(max(a.period, a.c.TMin), a.c.TMax)
}
