package ds2

import (
	"fmt"
	"testing"
)

// TestParallelisms by hand. Source: 2 instances, 10k/s each of useful
// time, 50k/s to sustain: π* = 50k/10k = 5, and at 5 it outputs 20k·5/2 =
// 50k/s. Window: 2 instances at 20k/s each, selectivity 0.5 (true output
// 20k/s): π* = 50k/20k = 2.5 → 3, outputting 20k·2.5/2 = 25k/s (not the
// 30k/s three saturated instances would). Sink: 1 instance at 40k/s:
// ⌈25k/40k⌉ = 1. With factor 0.2: π* = 6, then 1.2·60k/20k = 3.6 → 4
// (the source now outputs 60k/s), and the window 20k·3.6/2 = 36k/s →
// ⌈1.08⌉ = 2. At 1 % of the load every operator needs one instance.
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
	low := append([]Operator(nil), ops...)
	low[0].TargetRate = 500
	if got, _ := Parallelisms(low, 0); fmt.Sprint(got) != "[1 1 1]" {
		t.Errorf("at 500/s: %v, want [1 1 1]", got)
	}
	bad := append([]Operator(nil), ops...)
	bad[1].Inputs = []int{2}
	if _, err := Parallelisms(bad, 0); err == nil {
		t.Error("an input after its reader should be an error")
	}
}
