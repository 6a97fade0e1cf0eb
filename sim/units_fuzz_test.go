package sim

import (
	"math"
	"strings"
	"testing"
)

// Fuzz targets of the unit parsers (make fuzz; plain go test replays the
// seeds and testdata/fuzz/). Each parse that succeeds must format back to
// text that parses to the same value.

var unitSeeds = []string{
	"30s", "2h", "1h30m", "500ms", "1d", "1d12h", "10us", "-5s", "0", "0s", "1.5d", "0.25d3h",
	"30", "soon", "", " 5m ", "1e3d", "NaNd", "infd", "1e308d", "106752d", "2562047h47m16.854775807s",
	"25000/s", "25k/s", "1.5M/s", "-3/s", "1e21/s", "0x1p4/s", "3x/s", "1e308M/s",
	"512KiB", "100MiB", "2GiB", "10MB", "1TB", "0", "0B", "7B", "1.5KiB", "100MiB/s", "1e308TiB",
}

// sameSeconds allows what String() rounds away: durations are printed to
// the nanosecond, and very long ones as a number of days.
func sameSeconds(a, b float64) bool {
	return math.Abs(a-b) <= 0.5e-9+1e-15*math.Abs(a)
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range unitSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if strings.TrimSpace(s) != "" && !strings.Contains(err.Error(), "duration") {
				t.Errorf("ParseDuration(%q): error %q does not say what it expected", s, err)
			}
			return
		}
		if math.IsNaN(float64(d)) || math.IsInf(float64(d), 0) {
			return // accepted (NaNd, infd); callers range-check them
		}
		text := d.String()
		back, err := ParseDuration(text)
		if err != nil {
			t.Fatalf("ParseDuration(%q) = %v, whose String() %q does not parse: %v", s, float64(d), text, err)
		}
		if !sameSeconds(float64(d), float64(back)) {
			t.Fatalf("ParseDuration(%q) = %v s, String() %q, parsed back %v s", s, float64(d), text, float64(back))
		}
		if again := back.String(); again != text {
			t.Fatalf("String() is not stable: %q → %v s → %q", text, float64(back), again)
		}
		if y, err := d.MarshalYAML(); err != nil || y != text {
			t.Fatalf("MarshalYAML = %v, %v; want %q", y, err, text)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range unitSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			if !strings.Contains(err.Error(), "rate") {
				t.Errorf("ParseRate(%q): error %q does not say what it expected", s, err)
			}
			return
		}
		if !strings.HasSuffix(strings.TrimSpace(s), "/s") {
			t.Fatalf("ParseRate(%q) = %v without the /s unit", s, float64(r))
		}
		if math.IsNaN(float64(r)) || math.IsInf(float64(r), 0) {
			return
		}
		text := r.String()
		back, err := ParseRate(text)
		if err != nil || back != r {
			t.Fatalf("ParseRate(%q) = %v, String() %q parses back to %v, %v", s, float64(r), text, float64(back), err)
		}
	})
}

// FuzzParseBytes covers sizes and bandwidths (a size per second).
func FuzzParseBytes(f *testing.F) {
	for _, s := range unitSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := ParseBytes(s); err == nil && !math.IsNaN(float64(b)) && !math.IsInf(float64(b), 0) {
			text := b.String()
			back, err := ParseBytes(text)
			if err != nil || back != b {
				t.Fatalf("ParseBytes(%q) = %v, String() %q parses back to %v, %v", s, float64(b), text, float64(back), err)
			}
		}
		if bw, err := ParseBandwidth(s); err == nil && !math.IsNaN(float64(bw)) && !math.IsInf(float64(bw), 0) {
			if !strings.HasSuffix(strings.TrimSpace(s), "/s") {
				t.Fatalf("ParseBandwidth(%q) = %v without the /s unit", s, float64(bw))
			}
			text := bw.String()
			back, err := ParseBandwidth(text)
			if err != nil || back != bw {
				t.Fatalf("ParseBandwidth(%q) = %v, String() %q parses back to %v, %v", s, float64(bw), text, float64(back), err)
			}
		}
	})
}
