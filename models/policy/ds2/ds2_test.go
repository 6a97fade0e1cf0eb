package ds2

import (
	"fmt"
	"testing"
)

// TestParallelisms by hand. Source: 2 instances, 10k/s each of useful
// time, 50k/s to sustain: ⌈50k/10k⌉ = 5, and at 5 it outputs 20k·5/2 =
// 50k/s. Window: 2 instances at 20k/s each, selectivity 0.5 (true output
// 20k/s): ⌈50k/20k⌉ = 3, outputting 20k·3/2 = 30k/s. Sink: 1 instance at
// 40k/s: ⌈30k/40k⌉ = 1. With factor 0.2: ⌈6⌉, ⌈60k·1.2/20k⌉ = ⌈3.6⌉ = 4
// (the source now outputs 60k/s), and the window 20k·4/2 = 40k/s → ⌈1.2⌉ = 2.
func TestParallelisms(t *testing.T) {
	ops := []Operator{
		{Name: "source", Parallelism: 2, TrueProcessingRate: 20000, TrueOutputRate: 20000, TargetRate: 50000},
		{Name: "window", Inputs: []int{0}, Parallelism: 2, TrueProcessingRate: 40000, TrueOutputRate: 20000},
		{Name: "sink", Inputs: []int{1}, Parallelism: 1, TrueProcessingRate: 40000, TrueOutputRate: 0},
	}
	for f, want := range map[float64]string{0: "[5 3 1]", 0.2: "[6 4 2]"} {
		got, err := Parallelisms(ops, f)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("factor %g: %v (%v), want %s", f, got, err, want)
		}
	}
	bad := append([]Operator(nil), ops...)
	bad[1].Inputs = []int{2}
	if _, err := Parallelisms(bad, 0); err == nil {
		t.Error("an input after its reader should be an error")
	}
}
