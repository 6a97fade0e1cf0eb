package measure

import (
	"math"
	"testing"
)

func TestCPUUtilisation(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name                  string
		cpuS, dt, cores, want float64
	}{
		{"0.2 CPU-s in 1 s on 0.25 cores", 0.2, 1, 0.25, 0.8},
		{"a saturated 0.25-core limit", 0.25, 1, 0.25, 1},
		{"2 s interval, 2 cores, 1 CPU-s", 1, 2, 2, 0.25},
		{"no limit: 1.5 cores used of 1 allotted", 1.5, 1, 1, 1.5},
		{"idle", 0, 1, 0.25, 0},
		{"empty interval", 0.1, 0, 0.25, nan},
		{"no allotment", 0.1, 1, 0, nan},
		{"counter restarted", -0.3, 1, 1, nan},
		{"unknown CPU time", nan, 1, 1, nan},
	} {
		got := CPUUtilisation(c.cpuS, c.dt, c.cores)
		if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-c.want) > 1e-12) {
			t.Errorf("%s: CPUUtilisation(%g, %g, %g) = %g, want %g", c.name, c.cpuS, c.dt, c.cores, got, c.want)
		}
	}
}

func TestCPUAcross(t *testing.T) {
	for _, c := range []struct {
		name       string
		utils      []float64
		mean, peak float64
	}{
		{"two TaskManagers", []float64{0.8, 0.4}, 0.6, 0.8},
		{"one without a reading yet", []float64{0.9, math.NaN(), 0.3}, 0.6, 0.9},
		{"none running", nil, 0, 0},
		{"only NaN", []float64{math.NaN()}, 0, 0},
	} {
		m, p := CPUAcross(c.utils)
		if math.Abs(m-c.mean) > 1e-12 || math.Abs(p-c.peak) > 1e-12 {
			t.Errorf("%s: CPUAcross = %g, %g; want %g, %g", c.name, m, p, c.mean, c.peak)
		}
	}
}

func TestTimeFraction(t *testing.T) {
	for _, c := range []struct{ busy, dt, want float64 }{
		{0.25, 1, 0.25},
		{0.5, 2, 0.25},
		{1.004, 1, 1}, // two readings a few ms apart
		{-0.001, 1, 0},
		{0.3, 0, 0},
		{math.NaN(), 1, 0},
	} {
		if got := TimeFraction(c.busy, c.dt); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("TimeFraction(%g, %g) = %g, want %g", c.busy, c.dt, got, c.want)
		}
	}
}

func TestRateAndLag(t *testing.T) {
	for _, c := range []struct{ before, after, dt, want float64 }{
		{1000, 3000, 2, 1000},
		{5000, 400, 1, 400}, // the counter restarted with the job
		{10, 20, 0, 0},
	} {
		if got := Rate(c.before, c.after, c.dt); got != c.want {
			t.Errorf("Rate(%g, %g, %g) = %g, want %g", c.before, c.after, c.dt, got, c.want)
		}
	}
	if got := Lag(1200, 1000); got != 200 {
		t.Errorf("Lag(1200, 1000) = %g, want 200", got)
	}
	if got := Lag(1000, 1001); got != 0 {
		t.Errorf("Lag(1000, 1001) = %g, want 0", got)
	}
}
