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
