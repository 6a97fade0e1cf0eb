package app

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// TestFaultsPhrase: a run without faults or recoveries reports none, never
// a recovery mean of 0 s; with unrecovered faults the mean is a lower bound.
func TestFaultsPhrase(t *testing.T) {
	for _, c := range []struct {
		sum  results.Summary
		want string
	}{
		{results.Summary{RecoveryMeanS: math.NaN()}, "no faults"},
		{results.Summary{Faults: 0, RecoveryMeanS: 0}, "no faults"},
		{results.Summary{Faults: 2, Recoveries: 2, RecoveryMeanS: 76.99}, "2 faults, recovery mean 76.99 s"},
		{results.Summary{Faults: 1, Recoveries: 1, RecoveryMeanS: 12}, "1 fault, recovery mean 12.00 s"},
		{results.Summary{Faults: 2, Recoveries: 1, UnrecoveredFaults: 1, RecoveryMeanS: 300}, "2 faults, 1 unrecovered, recovery mean ≥ 300.0 s"},
		{results.Summary{Faults: 1, RecoveryMeanS: math.NaN()}, "1 fault, no recovery detected"},
	} {
		if got := faultsPhrase(c.sum); got != c.want {
			t.Errorf("faultsPhrase(%+v) = %q, want %q", c.sum, got, c.want)
		}
	}
}
