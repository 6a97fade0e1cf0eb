package forecast

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKPSSByHand: y = 1, 2, 3, 4: residuals −1.5, −0.5, 0.5, 1.5, partial
// sums −1.5, −2, −1.5, 0 (Σ S² = 8.5); l = ⌊3·2/13⌋ = 0 lags, so s² =
// Σe²/n = 1.25 and η = 8.5 / (16 · 1.25) = 0.425.
func TestKPSSByHand(t *testing.T) {
	if got := KPSS([]float64{1, 2, 3, 4}); math.Abs(got-0.425) > 1e-12 {
		t.Errorf("KPSS = %g, want 0.425", got)
	}
}

func TestADFCriticalInterpolates(t *testing.T) {
	for n, want := range map[int]float64{10: -3.60, 75: -3.475, 100: -3.45, 1000000: -3.41} {
		if got := adfCritical(n); math.Abs(got-want) > 1e-12 {
			t.Errorf("adfCritical(%d) = %g, want %g", n, got, want)
		}
	}
}

// series: white noise, an AR(1) with φ = 0.7, and a random walk with
// drift, 300 points each from fixed seeds.
func series() (noise, ar1, walk []float64) {
	r := rand.New(rand.NewPCG(7, 11))
	x, w := 0.0, 100.0
	for range 300 {
		e := r.NormFloat64()
		noise = append(noise, e)
		x = 0.7*x + e
		ar1 = append(ar1, x)
		w += 0.5 + e
		walk = append(walk, w)
	}
	return
}

// TestUnitRootTests: white noise and the AR(1) are stationary by both
// tests; the random walk is not, and once differenced it is.
func TestUnitRootTests(t *testing.T) {
	noise, ar1, walk := series()
	for _, c := range []struct {
		name string
		y    []float64
		d    int
	}{{"white noise", noise, 0}, {"AR(1) 0.7", ar1, 0}, {"random walk", walk, 1}} {
		tau, ok := ADF(c.y)
		if !ok {
			t.Fatalf("%s: ADF failed", c.name)
		}
		t.Logf("%s: KPSS %.3f, ADF τ %.2f", c.name, KPSS(c.y), tau)
		if got := NDiffs(c.y, 6); got != c.d {
			t.Errorf("%s: NDiffs = %d, want %d", c.name, got, c.d)
		}
	}
}

// TestAutoARIMA: the AR(1) gets d = 0 and an AR term near 0.7 (or an
// equivalent ARMA with a lower AIC), and forecasts decay towards 0; the
// random walk gets d = 1.
func TestAutoARIMA(t *testing.T) {
	_, ar1, walk := series()
	m, err := AutoARIMA(ar1, 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("AR(1) series: ARIMA(%d,%d,%d) AR %v MA %v AIC %.1f", m.P, m.D, m.Q, m.AR, m.MA, m.AIC())
	if m.D != 0 || m.P < 1 {
		t.Errorf("AR(1) series: ARIMA(%d,%d,%d), want d = 0 and p ≥ 1", m.P, m.D, m.Q)
	}
	if m.P == 1 && m.Q == 0 && math.Abs(m.AR[0]-0.7) > 0.1 {
		t.Errorf("AR(1) series: φ = %.3f, want 0.7 ± 0.1", m.AR[0])
	}
	if f := m.Forecast(50); math.Abs(f[49]) > 0.5 {
		t.Errorf("AR(1) forecast 50 steps out: %g, want near 0", f[49])
	}
	w, err := AutoARIMA(walk, 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	if w.D != 1 {
		t.Errorf("random walk: d = %d, want 1", w.D)
	}
}
