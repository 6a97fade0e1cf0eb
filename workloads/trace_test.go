package workloads

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseTraceErrors(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"non-numeric value", "second|value\n0|10\n1|ten\n", "x.csv:3: rate \"ten\" is not a number"},
		{"negative rate", "second|value\n0|10\n1|-5\n", "x.csv:3: negative rate -5"},
		{"unsorted", "second|value\n0|10\n5|10\n3|10\n", "x.csv:4: unsorted timestamp \"3\""},
		{"duplicate", "time,value\n0,10\n1,10\n1,10\n", "x.csv:4: duplicate timestamp \"1\""},
		{"empty file", "", "x.csv:1: the trace has no data rows"},
		{"header only", "second|value\n", "x.csv:1: the trace has no data rows"},
		{"wrong separator", "second|value\n0;10\n", "x.csv:2: expected 2 fields separated by '|', got \"0;10\" (wrong separator?)"},
		{"separator switches", "second|value\n0|10\n1,10\n", "x.csv:3: expected 2 fields separated by '|'"},
		{"no separator in header", "second value\n0 1\n", "x.csv:1: header \"second value\" has no separator"},
		{"no header", "0|10\n1|10\n", "x.csv:1: the first line must be a header"},
		{"bad time", "date,messages\nyesterday,5\n", "x.csv:2: time \"yesterday\""},
	}
	for _, c := range cases {
		_, err := ParseTrace("x.csv", strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestTraceFormats(t *testing.T) {
	pipe, err := ParseTrace("p", strings.NewReader("second|adCount\n0|10\n1|20\n2|30\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := pipe.PerSecond("linear"); len(got) != 3 || got[2] != 30 {
		t.Errorf("1-s trace per second: %v", got)
	}
	// 5-min bucket means with dates: interpolated between bucket centres
	csv, err := ParseTrace("c", strings.NewReader("date,messages\n2019-10-06 22:00:00,100\n2019-10-06 22:05:00,200\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := csv.PerSecond("linear")
	if len(got) != 600 || got[0] != 100 || got[599] != 200 || math.Abs(got[300]-(100+100*(300.5-150)/300)) > 1e-9 {
		t.Errorf("interpolated: len %d, [0]=%v [300]=%v [599]=%v", len(got), got[0], got[300], got[599])
	}
	if st := csv.PerSecond("step"); st[299] != 100 || st[300] != 200 {
		t.Errorf("step: %v %v", st[299], st[300])
	}
	// export and read back, CSV and Parquet
	dir := t.TempDir()
	rates := []float64{1, 2.5, 0, 7}
	var b bytes.Buffer
	WriteCSV(&b, rates)
	os.WriteFile(filepath.Join(dir, "r.csv"), b.Bytes(), 0o644)
	pq, _ := ParquetBytes(rates)
	os.WriteFile(filepath.Join(dir, "r.parquet"), pq, 0o644)
	for _, f := range []string{"r.csv", "r.parquet"} {
		tr, err := ReadTrace(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		back := tr.PerSecond("linear")
		for i := range rates {
			if back[i] != rates[i] {
				t.Errorf("%s round trip: %v, want %v", f, back, rates)
				break
			}
		}
	}
}

// TestIoTDay: the TAPAS-Cologne-derived IoT weekday peaks in the morning and
// late afternoon at the reference hours (07 h and 18 h local), and its
// busiest hour carries at least 30× its quietest.
func TestIoTDay(t *testing.T) {
	s, err := build(Config{Name: "iot-day"}, 86400)
	if err != nil {
		t.Fatal(err)
	}
	var hourly [24]float64
	for i, r := range s.Rates {
		hourly[i/3600] += r / 3600
	}
	morning, evening, lo, hi := 0, 12, math.Inf(1), 0.0
	for h, v := range hourly {
		if h < 12 && v > hourly[morning] {
			morning = h
		}
		if h >= 12 && v > hourly[evening] {
			evening = h
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if morning != 7 || evening != 18 {
		t.Errorf("peaks at %d h and %d h, want 7 h and 18 h: %v", morning, evening, hourly)
	}
	if hi/lo < 30 {
		t.Errorf("busiest/quietest hour = %.1f, want ≥ 30", hi/lo)
	}
	if st := s.Stats(); math.Abs(st.Max-28000) > 1e-6 {
		t.Errorf("peak %v, want the Khaos 28,000/s", st.Max)
	}
	// Daedalus' setting: the day in 6 h at 100,000/s
	d, _ := build(Config{Name: "iot-day-daedalus"}, 6*3600)
	if st := d.Stats(); math.Abs(st.Max-100000) > 1e-6 || len(d.Rates) != 21600 {
		t.Errorf("daedalus day: %d s, max %v", len(d.Rates), st.Max)
	}
	// weekdays and weekends stay distinct: the weekend peaks far lower
	w, _ := build(Config{Name: "iot-week"}, 7*86400)
	var wd, we float64
	for i, r := range w.Rates {
		if i < 5*86400 {
			wd = math.Max(wd, r)
		} else {
			we = math.Max(we, r)
		}
	}
	if !(we < 0.5*wd) {
		t.Errorf("weekend peak %v vs weekday %v", we, wd)
	}
	// seeded noise: same seed same rates, other seed other rates
	a, _ := Build(Config{Name: "iot-day"}, 3600, "", seeds(1))
	b, _ := Build(Config{Name: "iot-day"}, 3600, "", seeds(1))
	c, _ := Build(Config{Name: "iot-day"}, 3600, "", seeds(2))
	if a.Rates[100] != b.Rates[100] || a.Rates[100] == c.Rates[100] {
		t.Error("noise is not seeded")
	}
}

func TestYSBDay(t *testing.T) {
	s, err := build(Config{Name: "ysb-day"}, 86401)
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Min != 55252 || st.Max != 91196 || math.Round(st.Mean) != 69064 {
		t.Errorf("YSB day min/mean/max %v / %.2f / %v, want 55,252 / 69,064 / 91,196", st.Min, st.Mean, st.Max)
	}
}

func TestOperations(t *testing.T) {
	// concatenation
	s, err := build(Config{Segments: []Segment{
		{Duration: 10, Config: Config{Shape: "constant", Rate: 5}},
		{Duration: 20, Config: Config{Shape: "ramp", Rate: 0, To: 20}},
	}}, 40)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rates[9] != 5 || s.Rates[10] != 0.5 || s.Rates[29] != 19.5 || s.Rates[39] != 19.5 {
		t.Errorf("segments: %v", s.Rates)
	}
	// compression keeps rates: the YSB day in 6 h has the same mean
	y, _ := build(Config{Name: "ysb-day", Period: 6 * 3600}, 6*3600)
	if st := y.Stats(); math.Abs(st.Mean-69064) > 5 {
		t.Errorf("compressed YSB mean %v", st.Mean)
	}
	// min–max scaling removes the baseline, as in Daedalus' 6 h traces
	m, _ := build(Config{Name: "ysb-day-daedalus"}, 6*3600)
	if st := m.Stats(); st.Min != 0 || math.Abs(st.Max-400000) > 1e-6 {
		t.Errorf("minmax: %v..%v", st.Min, st.Max)
	}
	// bursts
	bu, _ := build(Config{Shape: "burst", Rate: 10, Peak: 100, Every: 60, Length: 5, Start: 30}, 120)
	if bu.Rates[29] != 10 || bu.Rates[30] != 100 || bu.Rates[34] != 100 || bu.Rates[35] != 10 || bu.Rates[90] != 100 {
		t.Errorf("burst rates wrong")
	}
	// a trace repeats to fill a longer run
	r, _ := build(Config{Name: "ysb-day", Period: 100}, 250)
	if r.Rates[10] != r.Rates[110] || r.Rates[10] != r.Rates[210] {
		t.Error("trace does not repeat")
	}
}
