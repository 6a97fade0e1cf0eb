package forecast

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// hourOfRates returns 3600 per-second rates following shape(s), s = seconds
// into the hour, with 1 % multiplicative noise like a Prometheus rate.
func hourOfRates(seed uint64, shape func(s float64) float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 9))
	r := make([]float64, 3600)
	for i := range r {
		r[i] = shape(float64(i)) * (1 + 0.01*rng.NormFloat64())
	}
	return r
}

func TestDropGate(t *testing.T) {
	const base = 10000.0 // records/s
	cases := []struct {
		name  string
		shape func(s float64) float64
		want  bool
	}{
		{"flat", func(float64) float64 { return base }, false},
		{"rising 30%/h", func(s float64) float64 { return base * (1 + 0.3*s/3600) }, false},
		// 30 %/h of the start is 2.5 % of it per 5 min, 3.6 % of the last
		// value: below the 10 % threshold, so the rule does not fire.
		{"falling 30%/h", func(s float64) float64 { return base * (1 - 0.3*s/3600) }, false},
		// 80 %/h: 5 min lose 6.7 % of the start = 33 % of the last value.
		{"falling 80%/h", func(s float64) float64 { return base * (1 - 0.8*s/3600) }, true},
		// Flat for 45 min, then −2 %/min of the start: the forecast must
		// pick up the recent slope (d = 2), 10 % of start over 5 min = 14 % of last.
		{"recent drop", func(s float64) float64 { return base * (1 - 0.02*math.Max(0, s-2700)/60) }, true},
		{"recent rise", func(s float64) float64 { return base * (1 + 0.02*math.Max(0, s-2700)/60) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rates := hourOfRates(1, c.shape)
			got, fc, err := DropGate{}.Urgent(rates)
			if err != nil {
				t.Fatal(err)
			}
			if len(fc) != 5 {
				t.Fatalf("forecast has %d steps, want ceil(300/60) = 5", len(fc))
			}
			last := 0.0
			for _, v := range rates[3540:] {
				last += v / 60
			}
			t.Logf("last mean %.0f, forecast %.0f, change %.1f %%", last, fc, 100*(fc[4]-last)/last)
			if got != c.want {
				t.Errorf("urgent = %v, want %v", got, c.want)
			}
		})
	}
}

func TestDropGateUsesLastHourOnly(t *testing.T) {
	// Two hours: a collapse in the first hour must not matter, only the
	// flat last hour does.
	old := hourOfRates(2, func(s float64) float64 { return 10000 * (1 - 0.9*s/3600) })
	recent := hourOfRates(3, func(float64) float64 { return 10000 })
	urgent, _, err := DropGate{}.Urgent(append(old, recent...))
	if err != nil || urgent {
		t.Fatalf("urgent = %v, err = %v; want false, nil", urgent, err)
	}
}

func TestDropGateErrors(t *testing.T) {
	cases := []struct {
		name  string
		gate  DropGate
		rates []float64
		want  string
	}{
		{"too short", DropGate{}, make([]float64, 1200), "gate needs 3600 per-second rate samples (1h0m0s of history), got 1200"},
		{"NaN", DropGate{}, append(make([]float64, 3599), math.NaN()), "non-finite value NaN at index 59"},
		{"bucket not whole seconds", DropGate{Bucket: 1500e6}, make([]float64, 3600), "not a whole number of seconds"},
		{"history not a bucket multiple", DropGate{History: 3630e9}, make([]float64, 3630), "not a positive multiple"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := c.gate.Urgent(c.rates)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want containing %q", err, c.want)
			}
		})
	}
}
