package khaos

import (
	"fmt"
	"math"
	"testing"
)

// TestSteadyConfigDefaults: only a zero field (−0 too) takes the
// reference's value; a negative or NaN one is kept for SteadyState to
// refuse or use as given.
func TestSteadyConfigDefaults(t *testing.T) {
	nan := math.NaN()
	ref := SteadyConfig{Failures: 12, Window: 300, MinInterval: 1800, Tolerance: 0.5, Attempts: 100000}
	cases := []struct {
		name    string
		in, out SteadyConfig
	}{
		{"zero", SteadyConfig{}, ref},
		{"set", SteadyConfig{Failures: 4, Window: 60, MinInterval: 600, Tolerance: 0.25, Attempts: 10},
			SteadyConfig{Failures: 4, Window: 60, MinInterval: 600, Tolerance: 0.25, Attempts: 10}},
		{"negative kept", SteadyConfig{Failures: -1, Window: -2, MinInterval: -3, Tolerance: -0.5, Attempts: -4},
			SteadyConfig{Failures: -1, Window: -2, MinInterval: -3, Tolerance: -0.5, Attempts: -4}},
		{"NaN kept", SteadyConfig{Tolerance: nan},
			SteadyConfig{Failures: 12, Window: 300, MinInterval: 1800, Tolerance: nan, Attempts: 100000}},
		{"−0 is zero", SteadyConfig{Tolerance: math.Copysign(0, -1)}, ref},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := fmt.Sprintf("%+v", c.in.withDefaults()), fmt.Sprintf("%+v", c.out); got != want {
				t.Errorf("withDefaults() = %s, want %s", got, want)
			}
		})
	}
}
