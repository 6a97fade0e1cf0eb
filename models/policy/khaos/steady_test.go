package khaos

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
)

// TestSteadyStateOnTheYSBDay runs phase 1 on the recorded YSB day Khaos
// used: 12 levels from the stable minimum to the maximum (Khaos logged
// 56,967 … 91,196 records/s in steps of 3,112), one point each, ≥ 30 min
// apart and ≥ 30 min from both ends.
func TestSteadyStateOnTheYSBDay(t *testing.T) {
	day, err := workloads.Build(workloads.Config{Name: "ysb-day"}, 86400, "", sim.Seeds{Root: 1})
	if err != nil {
		t.Fatal(err)
	}
	rates := day.Rates
	pts, err := SteadyState(rates, SteadyConfig{}, rand.New(rand.NewPCG(60, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 12 {
		t.Fatalf("%d points, want 12", len(pts))
	}
	band := math.Floor(float64(len(rates)/100) * 0.25) // 216 records/s for 86,400 s
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, p := range pts {
		lo, hi = math.Min(lo, p.Level), math.Max(hi, p.Level)
		if p.Second < 1800 || p.Second >= len(rates)-1800 {
			t.Errorf("point %d at %d s: within 30 min of an end", i, p.Second)
		}
		if i > 0 && p.Second-pts[i-1].Second < 1800 {
			t.Errorf("points at %d s and %d s are less than 30 min apart", pts[i-1].Second, p.Second)
		}
		if math.Abs(p.Avg-p.Level) > band {
			t.Errorf("point %d: 300 s mean %.0f, level %.0f: outside the ±%g band", i, p.Avg, p.Level, band)
		}
	}
	// Khaos recorded its day from Kafka (86,365 s); the trace's quietest
	// stable stretch sits 1.4k lower
	step := (hi - lo) / 11
	if math.Abs(lo-56967) > 2000 || math.Abs(hi-91196) > 100 || math.Abs(step-3112) > 200 {
		t.Errorf("levels %.0f … %.0f, step %.0f; Khaos logged 56,967 … 91,196, step 3,112", lo, hi, step)
	}
	for i, p := range pts {
		if k := math.Round((p.Level - lo) / step); math.Abs(p.Level-lo-k*step) > 1 {
			t.Errorf("point %d: level %.0f is not on the grid %.0f + k·%.0f", i, p.Level, lo, step)
		}
	}
	again, _ := SteadyState(rates, SteadyConfig{}, rand.New(rand.NewPCG(60, 0)))
	for i := range pts {
		if pts[i] != again[i] {
			t.Fatal("the same seed chose different points")
		}
	}
}

func TestSteadyStateErrors(t *testing.T) {
	flat := make([]float64, 86400)
	for i := range flat {
		flat[i] = 1000
	}
	cases := []struct {
		name  string
		rates []float64
		cfg   SteadyConfig
		err   string
	}{
		{"too short", flat[:3000], SteadyConfig{}, "phase 1 needs more than"},
		{"one failure", flat, SteadyConfig{Failures: 1}, "at least 2"},
		{"too many to space", rampOf(86400), SteadyConfig{Failures: 60, Attempts: 200}, "could not place 60 failure points"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := SteadyState(c.rates, c.cfg, rand.New(rand.NewPCG(1, 1)))
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v, want %q", err, c.err)
			}
		})
	}
}

// rampOf rises slowly enough to be stable everywhere.
func rampOf(n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = 10000 + 0.5*float64(i)
	}
	return r
}
