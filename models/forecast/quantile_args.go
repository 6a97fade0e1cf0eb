package forecast

import (
	"fmt"
	"math"
)

// checkQuantileArgs is the argument check every Quantiler shares: h ≥ 1;
// at least one level, strictly increasing in (0, 1); a finite history of at
// least minLen points (name says which model needs them).
func checkQuantileArgs(name string, history []float64, h int, levels []float64, minLen int) error {
	if h < 1 {
		return fmt.Errorf("forecast: %s: horizon %d < 1", name, h)
	}
	if len(levels) == 0 {
		return fmt.Errorf("forecast: %s: no quantile levels", name)
	}
	for i, l := range levels {
		if !(l > 0 && l < 1) {
			return fmt.Errorf("forecast: %s: level %v not in (0, 1)", name, l)
		}
		if i > 0 && !(l > levels[i-1]) {
			return fmt.Errorf("forecast: %s: levels not strictly increasing (%v after %v)", name, l, levels[i-1])
		}
	}
	if len(history) < minLen {
		return fmt.Errorf("forecast: %s needs at least %d points of history, got %d", name, minLen, len(history))
	}
	for i, v := range history {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("forecast: %s: non-finite value %v at index %d of the history", name, v, i)
		}
	}
	return nil
}

// newQuantileRows allocates out[i][k] for nl levels and h steps in one block.
func newQuantileRows(nl, h int) [][]float64 {
	buf := make([]float64, nl*h)
	out := make([][]float64, nl)
	for i := range out {
		out[i] = buf[i*h : (i+1)*h : (i+1)*h]
	}
	return out
}

func meanOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
