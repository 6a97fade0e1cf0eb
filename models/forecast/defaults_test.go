package forecast

import (
	"math"
	"testing"
	"time"
)

// TestDropGateDefaults: only a zero field (−0 too) takes the Khaos default;
// a negative or NaN one is kept.
func TestDropGateDefaults(t *testing.T) {
	ref := DropGate{History: time.Hour, Bucket: time.Minute, Horizon: 5 * time.Minute, Drop: 0.1}
	cases := []struct {
		name    string
		in, out DropGate
	}{
		{"zero", DropGate{}, ref},
		{"set", DropGate{History: 2 * time.Hour, Bucket: 30 * time.Second, Horizon: time.Minute, Drop: 0.2},
			DropGate{History: 2 * time.Hour, Bucket: 30 * time.Second, Horizon: time.Minute, Drop: 0.2}},
		{"negative kept", DropGate{History: -1, Bucket: -2, Horizon: -3, Drop: -0.1},
			DropGate{History: -1, Bucket: -2, Horizon: -3, Drop: -0.1}},
		{"−0 is zero", DropGate{Drop: math.Copysign(0, -1)}, ref},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.in.withDefaults(); got != c.out {
				t.Errorf("withDefaults() = %+v, want %+v", got, c.out)
			}
		})
	}
	if got := (DropGate{Drop: math.NaN()}).withDefaults(); !math.IsNaN(got.Drop) || got.History != time.Hour {
		t.Errorf("NaN Drop: withDefaults() = %+v, want Drop NaN kept and the other defaults", got)
	}
}
