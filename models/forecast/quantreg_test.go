package forecast

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// TestQuantRegNoiseFreeAR1: y[t+1] = 2 + 0.8·y[t] exactly. Every level's
// fit has zero loss only at intercept 2, slope 0.8, so every fitted model is
// that line and every quantile of every step is the AR forecast
// 2 + 0.8·(previous), from 5: 6, 6.8, 7.44, 7.952.
func TestQuantRegNoiseFreeAR1(t *testing.T) {
	y := []float64{20}
	for len(y) < 80 {
		y = append(y, 2+0.8*y[len(y)-1])
	}
	q, err := NewQuantReg(y, 1, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range q.Coef {
		if math.Abs(c[0]-2) > 1e-9 || math.Abs(c[1]-0.8) > 1e-9 {
			t.Errorf("level %v: coefficients %v, want [2 0.8]", q.Levels[i], c)
		}
	}
	got, err := q.Quantiles([]float64{9, 5}, 4, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{6, 6.8, 7.44, 7.952}
	for i := range got {
		for k, w := range want {
			if math.Abs(got[i][k]-w) > 1e-9 {
				t.Errorf("level %v step %d: got %v, want %v", DefaultLevels[i], k+1, got[i][k], w)
			}
		}
	}
}

// uniformAR draws y[t+1] = c + φ·y[t] + u, u ~ U(0, 1): the τ-quantile of
// y[t+1] given y[t] is c + τ + φ·y[t].
func uniformAR(rng *rand.Rand, n int, c, phi float64) []float64 {
	y := make([]float64, n)
	for i := 1; i < n; i++ {
		y[i] = c + phi*y[i-1] + rng.Float64()
	}
	return y[:n:n]
}

// TestQuantRegUniformNoise: with c = −0.5, φ = 0.5 the conditional
// quantiles are (τ − 0.5) + 0.5·y[t], so the fitted intercepts of the 0.1,
// 0.5 and 0.9 models are −0.4, 0 and 0.4 by hand, the slopes 0.5. With
// 20,000 points the estimates' standard errors, √(τ(1−τ)/N)/density, are
// 0.0021 (0.1, 0.9) and 0.0035 (0.5) for the intercepts (y has mean 0) and
// 0.006–0.011 for the slopes (over 30 seeds: rms 0.0020–0.0045 and
// 0.007–0.011, worst 0.013 and 0.032); the bounds are ≥ 4 of them.
func TestQuantRegUniformNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	q, err := NewQuantReg(uniformAR(rng, 20000, -0.5, 0.5), 1, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{-0.4, 0, 0.4} {
		c := q.Coef[i]
		if math.Abs(c[0]-want) > 0.02 || math.Abs(c[1]-0.5) > 0.05 {
			t.Errorf("level %v: intercept %v slope %v, want %v and 0.5", q.Levels[i], c[0], c[1], want)
		}
	}
}

func pinballLoss(X, y, beta []float64, p int, tau float64) float64 {
	s := 0.0
	for i := range y {
		r := y[i]
		for j := range p {
			r -= X[i*p+j] * beta[j]
		}
		if r >= 0 {
			s += tau * r
		} else {
			s += (tau - 1) * r
		}
	}
	return s
}

// TestPinballFitMatchesSimplex: on small uniform-noise AR(2) designs the
// simplex on the loss's vertices reaches the optimum of the linear program
// min τ·1ᵀu⁺ + (1−τ)·1ᵀu⁻ s.t. Xβ⁺ − Xβ⁻ + u⁺ − u⁻ = y, all ≥ 0, solved by
// gonum's lp.Simplex: the same loss and (the optimum being unique with
// continuous noise) the same coefficients.
func TestPinballFitMatchesSimplex(t *testing.T) {
	const p, N = 3, 60
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 99))
		series := uniformAR(rng, N+2, 0.2, 0.6)
		X := make([]float64, N*p)
		y := make([]float64, N)
		for r := range N {
			y[r] = series[r+2]
			X[r*p], X[r*p+1], X[r*p+2] = 1, series[r+1], series[r]
		}
		cols := 2*p + 2*N
		A := mat.NewDense(N, cols, nil)
		for r := range N {
			for j := range p {
				A.Set(r, j, X[r*p+j])
				A.Set(r, p+j, -X[r*p+j])
			}
			A.Set(r, 2*p+r, 1)
			A.Set(r, 2*p+N+r, -1)
		}
		for _, tau := range []float64{0.1, 0.5, 0.9} {
			c := make([]float64, cols)
			for r := range N {
				c[2*p+r], c[2*p+N+r] = tau, 1-tau
			}
			optF, optX, err := lp.Simplex(c, A, y, 1e-10, nil)
			if err != nil {
				t.Fatalf("seed %d τ %v: lp.Simplex: %v", seed, tau, err)
			}
			beta, err := pinballFit(X, y, p, tau)
			if err != nil {
				t.Fatalf("seed %d τ %v: %v", seed, tau, err)
			}
			if f := pinballLoss(X, y, beta, p, tau); math.Abs(f-optF) > 1e-9 {
				t.Errorf("seed %d τ %v: loss %.12g, LP optimum %.12g", seed, tau, f, optF)
			}
			for j := range p {
				if lpb := optX[j] - optX[p+j]; math.Abs(beta[j]-lpb) > 1e-7 {
					t.Errorf("seed %d τ %v: β_%d = %v, LP %v", seed, tau, j, beta[j], lpb)
				}
			}
		}
	}
}

// handQuantReg is a location-shift AR(1): median 0.5·y, the 0.1 and 0.9
// models one below and above it.
func handQuantReg(w Widening) *QuantReg {
	return &QuantReg{Lags: 1, Levels: []float64{0.1, 0.5, 0.9},
		Coef: [][]float64{{-1, 0.5}, {0, 0.5}, {1, 0.5}}, Widen: w}
}

// TestQuantRegMultiStepByHand: from 8 the median path is 4, 2, 1 and the
// one-step spread ±1. WidenPsi multiplies it by √(1), √(1 + 0.5²),
// √(1 + 0.5² + 0.25²); WidenSqrtK by 1, √2, √3.
func TestQuantRegMultiStepByHand(t *testing.T) {
	path := []float64{4, 2, 1}
	for _, c := range []struct {
		w Widening
		f []float64
	}{
		{WidenPsi, []float64{1, math.Sqrt(1.25), math.Sqrt(1.3125)}},
		{WidenSqrtK, []float64{1, math.Sqrt(2), math.Sqrt(3)}},
	} {
		got, err := handQuantReg(c.w).Quantiles([]float64{8}, 3, DefaultLevels)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]float64{make([]float64, 3), path, make([]float64, 3)}
		for k := range 3 {
			want[0][k], want[2][k] = path[k]-c.f[k], path[k]+c.f[k]
		}
		checkRows(t, got, want, 1e-12)
	}
	// AR(2) median 0.5·y[t] + 0.3·y[t−1]: ψ = 1, 0.5, 0.5² + 0.3 = 0.55.
	q := &QuantReg{Lags: 2, Levels: []float64{0.5, 0.9}, Coef: [][]float64{{0, 0.5, 0.3}, {2, 0.5, 0.3}}}
	got, err := q.Quantiles([]float64{0, 0}, 3, []float64{0.9})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, got, [][]float64{{2, 2 * math.Sqrt(1.25), 2 * math.Sqrt(1.25+0.3025)}}, 1e-12)
}

// TestQuantRegRearrangesCrossing: models that cross at the lags they are
// given are sorted per step. From 8, the 0.1, 0.5, 0.9 models give 8, 4, 6;
// sorted 4, 6, 8, so the path takes 6 and the quantiles are 4, 6, 8. From 6
// they give 6, 3, 4.5, sorted 3, 4.5, 6: the median 4.5 and, widened by
// √1.25 (ψ_1 = 0.5 of the median model), 4.5 ∓ 1.5·√1.25.
func TestQuantRegRearrangesCrossing(t *testing.T) {
	q := &QuantReg{Lags: 1, Levels: []float64{0.1, 0.5, 0.9}, Coef: [][]float64{{0, 1}, {0, 0.5}, {0, 0.75}}}
	got, err := q.Quantiles([]float64{8}, 2, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	f := math.Sqrt(1.25)
	checkRows(t, got, [][]float64{{4, 4.5 - 1.5*f}, {6, 4.5}, {8, 4.5 + 1.5*f}}, 1e-12)
}

func TestQuantRegErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	train := uniformAR(rng, 200, 0, 0.5)
	if _, err := NewQuantReg(train, 0, DefaultLevels); err == nil {
		t.Error("0 lags: no error")
	}
	if _, err := NewQuantReg(make([]float64, 100), 2, DefaultLevels); err == nil {
		t.Error("constant series: no error")
	}
	if _, err := NewQuantReg(train[:6], 2, DefaultLevels); err == nil {
		t.Error("6 points for 2 lags: no error")
	}
	q, err := NewQuantReg(train, 2, []float64{0.1, 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Levels) != 3 || q.Levels[1] != 0.5 {
		t.Errorf("fitted levels %v, want the median added: [0.1 0.5 0.9]", q.Levels)
	}
	if _, err := q.Quantiles(train, 5, []float64{0.25}); err == nil {
		t.Error("unfitted level 0.25: no error")
	}
	if _, err := q.Quantiles(train, 5, []float64{0.5}); err != nil {
		t.Errorf("the median alone: %v", err)
	}
	bad := &QuantReg{Lags: 1, Levels: []float64{0.1, 0.9}, Coef: [][]float64{{0, 1}, {0, 1}}}
	if _, err := bad.Quantiles(train, 5, []float64{0.1}); err == nil {
		t.Error("no median model: no error")
	}
}
