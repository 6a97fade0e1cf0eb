package forecast

import (
	"math"
	"math/rand/v2"
	"testing"
)

// z90 is Φ⁻¹(0.9) from the normal table (1.2815515655446004), so the
// hand-computed quantiles below do not call the code under test's inverse.
const z90 = 1.2815515655446004

// checkRows compares out[i][k] with want[i][k] within tol.
func checkRows(t *testing.T, got, want [][]float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d levels, want %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("level %d: got %d steps, want %d", i, len(got[i]), len(want[i]))
		}
		for k := range want[i] {
			if math.Abs(got[i][k]-want[i][k]) > tol {
				t.Errorf("level %d step %d: got %.12g, want %.12g", i, k+1, got[i][k], want[i][k])
			}
		}
	}
}

// TestARIMAQuantilerAR1ByHand: AR(1) φ = 0.5, σ² = 4 around a mean of 10;
// the history ends 2 above the mean, so the point forecasts are 10 + 2·φ^k
// = 11, 10.5, 10.25 and the variances σ²(1 + φ² + … + φ^{2(k−1)}) = 4, 5,
// 5.25.
func TestARIMAQuantilerAR1ByHand(t *testing.T) {
	a := &ARIMAQuantiler{AR: []float64{0.5}, Sigma2: 4, Mean: 10}
	got, err := a.Quantiles([]float64{7, 9, 12}, 3, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	mean := []float64{11, 10.5, 10.25}
	sd := []float64{2, math.Sqrt(5), math.Sqrt(5.25)}
	want := make([][]float64, 3)
	for i, z := range []float64{-z90, 0, z90} {
		want[i] = make([]float64, 3)
		for k := range 3 {
			want[i][k] = mean[k] + sd[k]*z
		}
	}
	checkRows(t, got, want, 1e-12)
	if a.Name() != "arima(1,0,0)" {
		t.Errorf("Name() = %q", a.Name())
	}
}

// TestARIMAQuantilerRandomWalk: ARIMA(0,1,0) with σ² = 2 forecasts the last
// value with variance 2k, so the 0.9 − 0.5 spread grows as √k (ten times
// the first step's at step 100).
func TestARIMAQuantilerRandomWalk(t *testing.T) {
	a := &ARIMAQuantiler{D: 1, Sigma2: 2}
	got, err := a.Quantiles([]float64{3, 5, 4}, 100, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 100 {
		sd := math.Sqrt(2 * float64(k+1))
		for i, z := range []float64{-z90, 0, z90} {
			if want := 4 + sd*z; math.Abs(got[i][k]-want) > 1e-12 {
				t.Errorf("level %v step %d: got %v, want %v", DefaultLevels[i], k+1, got[i][k], want)
			}
		}
	}
	if r := (got[2][99] - got[1][99]) / (got[2][0] - got[1][0]); math.Abs(r-10) > 1e-12 {
		t.Errorf("spread ratio step 100 / step 1 = %v, want 10", r)
	}
}

// TestARIMAQuantilerMA1ConditionsOnHistory: MA(1) θ = 0.5, σ² = 1 on the
// history (1, 2): the CSS residuals are e_0 = 1, e_1 = 2 − 0.5·1 = 1.5, so
// step 1 forecasts θ·e_1 = 0.75 with variance 1 and step 2 forecasts 0 with
// variance 1 + θ² = 1.25.
func TestARIMAQuantilerMA1ConditionsOnHistory(t *testing.T) {
	a := &ARIMAQuantiler{MA: []float64{0.5}, Sigma2: 1}
	got, err := a.Quantiles([]float64{1, 2}, 2, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{0.75 - z90, -math.Sqrt(1.25) * z90},
		{0.75, 0},
		{0.75 + z90, math.Sqrt(1.25) * z90},
	}
	checkRows(t, got, want, 1e-12)
}

// TestARIMAQuantilerARI110: ARIMA(1,1,0) φ = 0.5, σ² = 1 on (0, 1, 3): the
// differences (1, 2) forecast 1, 0.5, 0.25, integrated to 4, 4.5, 4.75;
// the integrated ψ* are 1, 1 + φ, 1 + φ + φ² = 1, 1.5, 1.75, so the
// variances are 1, 3.25, 6.3125.
func TestARIMAQuantilerARI110(t *testing.T) {
	a := &ARIMAQuantiler{D: 1, AR: []float64{0.5}, Sigma2: 1}
	got, err := a.Quantiles([]float64{0, 1, 3}, 3, DefaultLevels)
	if err != nil {
		t.Fatal(err)
	}
	mean := []float64{4, 4.5, 4.75}
	sd := []float64{1, math.Sqrt(3.25), math.Sqrt(6.3125)}
	for k := range 3 {
		for i, z := range []float64{-z90, 0, z90} {
			if want := mean[k] + sd[k]*z; math.Abs(got[i][k]-want) > 1e-12 {
				t.Errorf("level %v step %d: got %v, want %v", DefaultLevels[i], k+1, got[i][k], want)
			}
		}
	}
}

// simulateAR1 draws n values of mean + x_t, x_t = φx_{t−1} + σe_t.
func simulateAR1(rng *rand.Rand, n int, mean, phi, sigma float64) []float64 {
	y := make([]float64, n)
	x := 0.0
	for range 200 {
		x = phi*x + sigma*rng.NormFloat64()
	}
	for i := range y {
		x = phi*x + sigma*rng.NormFloat64()
		y[i] = mean + x
	}
	return y
}

// TestNewARIMAQuantilerFitsOnce: fitted on 5,000 points of an AR(1) with
// φ = 0.7, σ = 1 around 25, the quantiler keeps φ, σ² and the mean, and its
// 1- and 10-step 0.1–0.9 intervals on fresh data from the same process
// cover about 80 % of the outcomes.
func TestNewARIMAQuantilerFitsOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	a, err := NewARIMAQuantiler(simulateAR1(rng, 5000, 25, 0.7, 1), 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.AR[0]-0.7) > 0.04 || math.Abs(a.Sigma2-1) > 0.08 || math.Abs(a.Mean-25) > 0.15 {
		t.Fatalf("fit φ %v σ² %v mean %v, want ≈ 0.7, 1, 25", a.AR[0], a.Sigma2, a.Mean)
	}
	test := simulateAR1(rng, 20000, 25, 0.7, 1)
	for _, step := range []int{1, 10} {
		in, n := 0, 0
		for o := 50; o+step <= len(test); o += 7 {
			q, err := a.Quantiles(test[o-50:o], step, DefaultLevels)
			if err != nil {
				t.Fatal(err)
			}
			v := test[o+step-1]
			if v >= q[0][step-1] && v <= q[2][step-1] {
				in++
			}
			n++
		}
		if cov := float64(in) / float64(n); math.Abs(cov-0.8) > 0.03 {
			t.Errorf("%d-step 0.1–0.9 coverage %.3f over %d origins, want ≈ 0.8", step, cov, n)
		}
	}
}

// TestNewAutoARIMAQuantiler: on a random walk AutoARIMA picks d = 1 and the
// constant is dropped; on a stationary AR(1) around 25 it keeps d = 0 and
// the training mean. (The unit-root tests run at 5 %: over 20 seeds, 2 of
// the 40 series get the other d; this seed's do not.)
func TestNewAutoARIMAQuantiler(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	rw := integrate(simulateARMA(rng, 600, nil, nil), 1)
	a, err := NewAutoARIMAQuantiler(shifted(rw, 100), 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if a.D != 1 || a.Mean != 0 {
		t.Errorf("random walk: d %d mean %v, want d 1 and mean 0", a.D, a.Mean)
	}
	ar := simulateAR1(rng, 600, 25, 0.5, 1)
	b, err := NewAutoARIMAQuantiler(ar, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if b.D != 0 || math.Abs(b.Mean-meanOf(ar)) > 1e-12 {
		t.Errorf("AR(1): d %d mean %v, want d 0 and the training mean %v", b.D, b.Mean, meanOf(ar))
	}
	if _, err := NewAutoARIMAQuantiler([]float64{1, math.NaN()}, 2, 2); err == nil {
		t.Error("NaN training data: no error")
	}
}
