package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/internal/decode"
)

// Duration is a span of simulated time in seconds. In scenario files it is
// written with a unit: 500ms, 30s, 5m, 2h, 1h30m, 1d.
type Duration float64

// ParseDuration reads a duration with an explicit unit. Days (d) are accepted
// on top of Go's units because traces and runs are measured in days.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration; write e.g. 30s or 2h")
	}
	days := 0.0
	if i := strings.IndexByte(s, 'd'); i > 0 {
		v, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q; write e.g. 30s, 2h or 1d", s)
		}
		days, s = v, s[i+1:]
		if s == "" {
			return Duration(days * 86400), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, numErr := strconv.ParseFloat(s, 64); numErr == nil {
			return 0, fmt.Errorf("duration %q has no unit; write e.g. %ss", s, s)
		}
		return 0, fmt.Errorf("invalid duration %q; write e.g. 30s, 2h or 1d", s)
	}
	return Duration(days*86400 + d.Seconds()), nil
}

// Seconds is the duration as float64 seconds.
func (d Duration) Seconds() float64 { return float64(d) }

// Std is d as a time.Duration, what a policy's Interval and Step speak.
func (d Duration) Std() time.Duration { return time.Duration(float64(d) * float64(time.Second)) }

// FromStd is d in run seconds: a policy's time.Duration where the
// controller and its backends speak Duration.
func FromStd(d time.Duration) Duration { return Duration(d.Seconds()) }

// String formats the duration compactly (2h, 1h30m, 30s, 500ms).
func (d Duration) String() string {
	if math.IsInf(float64(d), 0) || math.IsNaN(float64(d)) {
		return fmt.Sprint(float64(d))
	}
	ns := math.Round(float64(d) * 1e9)
	if ns >= 1<<63 || ns < -(1<<63) { // beyond time.Duration's ±292 years: days
		return strconv.FormatFloat(float64(d)/86400, 'g', -1, 64) + "d"
	}
	s := time.Duration(ns).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

func (d *Duration) UnmarshalYAML(node ast.Node) error { return decode.Scalar(node, ParseDuration, d) }

// Rate is records per second, written 25000/s, 25k/s or 1.5M/s.
type Rate float64

// ParseRate reads a rate with its /s unit; k and M multiply by 10³ and 10⁶.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	num, ok := strings.CutSuffix(s, "/s")
	if !ok {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return 0, fmt.Errorf("rate %q has no unit; write it as %s/s", s, s)
		}
		return 0, fmt.Errorf("invalid rate %q; write e.g. 25000/s or 25k/s", s)
	}
	v, err := parseScaled(num, map[string]float64{"k": 1e3, "M": 1e6})
	if err != nil {
		return 0, fmt.Errorf("invalid rate %q; write e.g. 25000/s or 25k/s", s)
	}
	return Rate(v), nil
}

func (r Rate) String() string                     { return strconv.FormatFloat(float64(r), 'g', -1, 64) + "/s" }
func (r Rate) MarshalYAML() (any, error)          { return r.String(), nil }
func (r *Rate) UnmarshalYAML(node ast.Node) error { return decode.Scalar(node, ParseRate, r) }

// Bytes is a size in bytes, written 512KiB, 100MiB, 2GiB, 10MB or 0.
type Bytes float64

var byteUnits = map[string]float64{
	"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
}

// ParseBytes reads a size with a unit (B, KB, MB, GB, KiB, MiB, GiB).
func ParseBytes(s string) (Bytes, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	v, err := parseScaled(s, byteUnits)
	if err != nil || !hasUnit(s, byteUnits) {
		return 0, fmt.Errorf("invalid size %q; write e.g. 512KiB, 100MiB or 2GiB", s)
	}
	return Bytes(v), nil
}

func (b Bytes) String() string {
	for _, u := range []string{"GiB", "MiB", "KiB"} {
		if f := byteUnits[u]; float64(b) >= f && math.Mod(float64(b), f) == 0 {
			return strconv.FormatFloat(float64(b)/f, 'g', -1, 64) + u
		}
	}
	return strconv.FormatFloat(float64(b), 'g', -1, 64) + "B"
}
func (b Bytes) MarshalYAML() (any, error)          { return b.String(), nil }
func (b *Bytes) UnmarshalYAML(node ast.Node) error { return decode.Scalar(node, ParseBytes, b) }

// Bandwidth is bytes per second, written 100MiB/s.
type Bandwidth float64

// ParseBandwidth reads a size per second, e.g. 100MiB/s.
func ParseBandwidth(s string) (Bandwidth, error) {
	s = strings.TrimSpace(s)
	size, ok := strings.CutSuffix(s, "/s")
	if !ok {
		return 0, fmt.Errorf("invalid bandwidth %q; write e.g. 100MiB/s", s)
	}
	v, err := ParseBytes(size)
	if err != nil {
		return 0, fmt.Errorf("invalid bandwidth %q; write e.g. 100MiB/s", s)
	}
	return Bandwidth(v), nil
}

func (b Bandwidth) String() string                     { return Bytes(b).String() + "/s" }
func (b Bandwidth) MarshalYAML() (any, error)          { return b.String(), nil }
func (b *Bandwidth) UnmarshalYAML(node ast.Node) error { return decode.Scalar(node, ParseBandwidth, b) }

// parseScaled reads "<number><suffix>" where suffix is a key of units (or
// empty, meaning ×1).
func parseScaled(s string, units map[string]float64) (float64, error) {
	i := len(s)
	for i > 0 && !(s[i-1] >= '0' && s[i-1] <= '9' || s[i-1] == '.') {
		i--
	}
	num, suffix := s[:i], s[i:]
	mult := 1.0
	if suffix != "" {
		m, ok := units[suffix]
		if !ok {
			return 0, fmt.Errorf("unknown unit %q", suffix)
		}
		mult = m
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, err
	}
	return v * mult, nil
}

func hasUnit(s string, units map[string]float64) bool {
	for u := range units {
		if strings.HasSuffix(s, u) {
			return true
		}
	}
	return false
}
