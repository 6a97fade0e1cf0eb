package workloads

import (
	"github.com/streamtwin/streamtwin/sim"
	"math"
	"testing"
)

func TestScheduleArrivals(t *testing.T) {
	s := NewSchedule([]float64{10, 0, 30, 20})
	cases := []struct{ t, arrived float64 }{{0, 0}, {0.5, 5}, {1, 10}, {1.7, 10}, {2.5, 25}, {3.5, 50}, {4, 60}, {9, 60}}
	for _, c := range cases {
		if got := s.Arrived(c.t); math.Abs(got-c.arrived) > 1e-12 {
			t.Errorf("Arrived(%v) = %v, want %v", c.t, got, c.arrived)
		}
	}
	for _, c := range []struct{ c, at float64 }{{5, 0.5}, {25, 2.5}, {50, 3.5}, {0, 0}} {
		if got := s.ArrivalTime(c.c); math.Abs(got-c.at) > 1e-12 {
			t.Errorf("ArrivalTime(%v) = %v, want %v", c.c, got, c.at)
		}
	}
	if st := s.Stats(); st.Min != 0 || st.Max != 30 || st.Mean != 15 || st.Total != 60 {
		t.Errorf("stats %+v", st)
	}
}

func TestShapes(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		at   map[int]float64 // second → rate
	}{
		{"constant", Config{Shape: "constant", Rate: 500}, map[int]float64{0: 500, 99: 500}},
		{"step", Config{Shape: "step", Rate: 100, Steps: []Step{{At: 10, Rate: 300}, {At: 50, Rate: 200}}},
			map[int]float64{9: 100, 10: 300, 49: 300, 50: 200}},
		{"ramp", Config{Shape: "ramp", Rate: 0, To: 1000}, map[int]float64{0: 5, 50: 505, 99: 995}},
		{"sine", Config{Shape: "sine", Min: 100, Peak: 300, Period: 100}, map[int]float64{}},
	}
	for _, c := range cases {
		s, err := build(c.cfg, 100)
		if err != nil {
			t.Fatal(err)
		}
		for sec, want := range c.at {
			if got := s.Rates[sec]; math.Abs(got-want) > 1e-9 {
				t.Errorf("%s: rate at %d s = %v, want %v", c.name, sec, got, want)
			}
		}
	}
	sine, _ := build(Config{Shape: "sine", Min: 100, Peak: 300, Period: 100}, 100)
	if st := sine.Stats(); math.Abs(st.Mean-200) > 1e-6 || st.Min < 100 || st.Max > 300 || st.Max < 299 {
		t.Errorf("sine stats %+v", st)
	}
}

// TestDailyCurvePeaks: the IoT day has its morning peak at 07 h, its
// evening peak at 18 h and is near zero at night.
func TestDailyCurvePeaks(t *testing.T) {
	s, err := build(Config{Shape: "daily", Peak: 100000}, 86400)
	if err != nil {
		t.Fatal(err)
	}
	var hourly [24]float64
	for i, r := range s.Rates {
		hourly[i/3600] += r / 3600
	}
	argmax := func(lo, hi int) int {
		best := lo
		for h := lo; h < hi; h++ {
			if hourly[h] > hourly[best] {
				best = h
			}
		}
		return best
	}
	if h := argmax(0, 12); h != 7 {
		t.Errorf("morning peak at %d h, want 7 h (hourly %v)", h, hourly)
	}
	if h := argmax(12, 24); h != 18 {
		t.Errorf("evening peak at %d h, want 18 h", h)
	}
	if st := s.Stats(); math.Abs(st.Max-100000) > 1000 || st.Min > 2000 {
		t.Errorf("daily curve spans %v..%v, want ≈0..100k", st.Min, st.Max)
	}
	// compressed into 2 h, the same shape repeats with a 2 h period
	c, _ := build(Config{Shape: "daily", Peak: 100000, Period: 7200}, 7200)
	if got, want := c.Rates[int(7.5*300)], s.Rates[int(7.5*3600)]; math.Abs(got-want) > 500 {
		t.Errorf("compressed day at 07:30 = %v, want ≈ %v", got, want)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{Shape: "wave"}, "shape"},
		{Config{}, "shape"},
		{Config{Shape: "daily"}, "peak"},
		{Config{Shape: "constant", Rate: -1}, "rate"},
		{Config{Shape: "step", Steps: []Step{{At: 10}, {At: 5}}}, "steps[1].at"},
	} {
		if _, ok := c.cfg.Validate()[c.field]; !ok {
			t.Errorf("%+v: no problem reported for %s", c.cfg, c.field)
		}
	}
}

func build(c Config, d float64) (*Schedule, error) {
	return Build(c, sim.Duration(d), "", sim.Seeds{Root: 1})
}

func seeds(root uint64) sim.Seeds { return sim.Seeds{Root: root} }
