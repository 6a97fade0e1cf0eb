package sim

import (
	"strings"
	"testing"
)

func TestParseUnits(t *testing.T) {
	durations := []struct {
		in   string
		want float64
		err  string
	}{
		{"30s", 30, ""}, {"2h", 7200, ""}, {"1h30m", 5400, ""}, {"500ms", 0.5, ""},
		{"1d", 86400, ""}, {"1d12h", 129600, ""}, {"10us", 1e-5, ""}, {"-5s", -5, ""},
		{"30", 0, "no unit"}, {"soon", 0, "invalid duration"}, {"", 0, "empty"},
	}
	for _, c := range durations {
		got, err := ParseDuration(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseDuration(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || float64(got) != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, float64(got), err, c.want)
		}
	}
	rates := []struct {
		in   string
		want float64
		err  string
	}{
		{"25000/s", 25000, ""}, {"25k/s", 25000, ""}, {"1.5M/s", 1.5e6, ""},
		{"25000", 0, "no unit"}, {"fast", 0, "invalid rate"}, {"3x/s", 0, "invalid rate"},
	}
	for _, c := range rates {
		got, err := ParseRate(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseRate(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || float64(got) != c.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", c.in, float64(got), err, c.want)
		}
	}
	sizes := []struct {
		in   string
		want float64
	}{{"0", 0}, {"100B", 100}, {"32KiB", 32768}, {"64MiB", 64 << 20}, {"2GiB", 2 << 30}, {"10MB", 1e7}}
	for _, c := range sizes {
		if got, err := ParseBytes(c.in); err != nil || float64(got) != c.want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", c.in, float64(got), err, c.want)
		}
	}
	if _, err := ParseBytes("100"); err == nil {
		t.Error("ParseBytes(100) accepted a size without unit")
	}
	if got, err := ParseBandwidth("100MiB/s"); err != nil || float64(got) != 100<<20 {
		t.Errorf("ParseBandwidth = %v, %v", got, err)
	}
}

func TestDurationStringRoundTrips(t *testing.T) {
	for _, s := range []string{"30s", "2h", "1h30m", "500ms", "10µs", "1m", "2h0m5s"} {
		d, err := ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseDuration(d.String())
		if err != nil || back != d {
			t.Errorf("%s → %s → %v", s, d.String(), back)
		}
	}
	if got := Duration(7200).String(); got != "2h" {
		t.Errorf("2h prints as %s", got)
	}
}
