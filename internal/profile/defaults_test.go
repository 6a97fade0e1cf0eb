package profile

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/streamtwin/streamtwin/models/policy/khaos"
)

// TestConfigDefaults: a zero field (−0 too) takes the reference's value, a
// negative or NaN one is kept, except Workers, where anything ≤ 0 means
// GOMAXPROCS. Steady is left to SteadyState, Points and Input as given.
func TestConfigDefaults(t *testing.T) {
	nan, procs := math.NaN(), runtime.GOMAXPROCS(0)
	ref := Config{Copies: 8, MinCI: 10, MaxCI: 120, BeforeCheckpoint: 3, Window: 300, MinRecovery: 55, Workers: procs}
	cases := []struct {
		name    string
		in, out Config
	}{
		{"zero", Config{}, ref},
		{"set", Config{Copies: 3, MinCI: 5, MaxCI: 50, BeforeCheckpoint: 1, Window: 60, MinRecovery: 10, Workers: 2,
			Steady: khaos.SteadyConfig{Failures: 4}, Points: []int{7}},
			Config{Copies: 3, MinCI: 5, MaxCI: 50, BeforeCheckpoint: 1, Window: 60, MinRecovery: 10, Workers: 2,
				Steady: khaos.SteadyConfig{Failures: 4}, Points: []int{7}}},
		{"negative Workers is the default", Config{Workers: -3}, ref},
		{"other negatives kept", Config{Copies: -1, MinCI: -10, MaxCI: -120, BeforeCheckpoint: -3, Window: -300, MinRecovery: -55},
			Config{Copies: -1, MinCI: -10, MaxCI: -120, BeforeCheckpoint: -3, Window: -300, MinRecovery: -55, Workers: procs}},
		{"NaN kept", Config{MinCI: nan, MaxCI: nan, BeforeCheckpoint: nan, Window: nan, MinRecovery: nan},
			Config{Copies: 8, MinCI: nan, MaxCI: nan, BeforeCheckpoint: nan, Window: nan, MinRecovery: nan, Workers: procs}},
		{"−0 is zero", Config{MinCI: math.Copysign(0, -1)}, ref},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := fmt.Sprintf("%+v", c.in.withDefaults()), fmt.Sprintf("%+v", c.out); got != want {
				t.Errorf("withDefaults() = %s, want %s", got, want)
			}
		})
	}
}
