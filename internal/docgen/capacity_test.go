package docgen

import (
	"math"
	"testing"
)

// TestFitJIT: two runs whose CPU is a warm level plus a JIT on the grid
// (0.42 of the cores, 23 s), one clamped at 1 in its first seconds, are
// fitted back exactly; runs at their warm level fit no JIT; seconds
// without a sample are left out.
func TestFitJIT(t *testing.T) {
	n := int(capacityJITTo)
	var live, warm, flat [][]float64
	for _, level := range []float64{0.2, 0.7} {
		l, w := make([]float64, n), make([]float64, n)
		for k := range l {
			w[k] = level
			l[k] = math.Min(1, level+0.42*23*(math.Exp(-float64(k)/23)-math.Exp(-float64(k+1)/23)))
		}
		l[5] = math.NaN()
		live, warm, flat = append(live, l), append(warm, w), append(flat, w)
	}
	if a, tau := fitJIT(live, warm); math.Abs(a-0.42) > 1e-9 || tau != 23 {
		t.Errorf("fitJIT on a 0.42, 23 s JIT = %g, %g s", a, tau)
	}
	if a, _ := fitJIT(flat, warm); a != 0 {
		t.Errorf("fitJIT at the warm level = %g, want no JIT", a)
	}
}

func TestMeanOver(t *testing.T) {
	xs := []float64{1, 2, math.NaN(), 4, 5}  // seconds 1..5
	if got := meanOver(xs, 1, 4); got != 3 { // seconds 2, 3, 4: 2, NaN, 4
		t.Errorf("meanOver(1, 4] = %g, want 3", got)
	}
}

// TestFitNoise: live windows that are the twin's line plus ±0.2 (their
// residual variance 0.04·n/(n − 2)) about a mean of u fit a noise k with
// k²·u(1 − u) that variance less the twin's (0 here); a twin that varies more
// than live fits none; windows with fewer than 3 values are left out.
func TestFitNoise(t *testing.T) {
	var live, twin [][]float64
	for w := range 3 {
		l, tw := make([]float64, 20), make([]float64, 20)
		for k := range l {
			tw[k] = 0.3 + 0.01*float64(k+w)
			l[k] = tw[k] + 0.2*float64(1-2*(k%2))
		}
		live, twin = append(live, l), append(twin, tw)
	}
	live, twin = append(live, []float64{1, 0}), append(twin, []float64{0, 0})
	ss, dof := trendResidual(live[0])
	var v float64 // Σ u(1 − u) over the three windows, of means 0.395, 0.405 and 0.415
	for _, u := range []float64{0.395, 0.405, 0.415} {
		v += u * (1 - u) / 3
	}
	if want := math.Sqrt(ss / float64(dof) / v); math.Abs(fitNoise(live, twin)-want) > 1e-9 || want < 0.2/math.Sqrt(v) || want > 0.22/math.Sqrt(v) {
		t.Errorf("fitNoise = %g, want %g", fitNoise(live, twin), want)
	}
	if got := fitNoise(twin, live); got != 0 {
		t.Errorf("fitNoise of a twin noisier than live = %g, want 0", got)
	}
	if got := pooledSD([][]float64{twin[0]}); got > 1e-12 {
		t.Errorf("pooledSD of a line = %g, want 0", got)
	}
}
