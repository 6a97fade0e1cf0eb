package textfmt_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results/textfmt"
)

func TestFormatNumber(t *testing.T) {
	cases := []struct {
		x, scale float64
		want     string
	}{
		{0, 0, "0"},
		{21357.3, 0, "21,357"},     // the integer part is written out in full
		{8514.2, 0, "8,514"},       // the same style as 21,357, never 2.136e+04
		{9999.7, 0, "10,000"},      // rounding to 4 digits first
		{123.456, 0, "123.5"},      // 4 significant digits
		{160, 0, "160.0"},          // trailing zeros kept: decimals line up
		{1.5, 0, "1.500"},          //
		{0.012345, 0, "0.01235"},   // small values in plain notation
		{0.0000123, 0, "0.000012"}, // at most MaxDecimals decimals
		{2.901e-10, 0, "0"},        // noise without a scale: beyond MaxDecimals
		{2.901e-10, 80, "0"},       // noise against its scale (a std on a mean of 80)
		{2e-8, 1e9, "0"},           // below 1e-9 × scale
		{0.5, 1e8, "0.5000"},       // above it
		{-6780.4, 0, "-6,780"},     //
		{-0.00000001, 0, "0"},      // no "-0"
		{367308139.53, 0, "367,308,140"},
		{1234567.125, 0, "1,234,567"},
		{math.NaN(), 0, textfmt.NoValue},
		{math.Inf(1), 0, "inf"},
		{math.Inf(-1), 0, "-inf"},
	}
	for _, c := range cases {
		if got := textfmt.Number(c.x, c.scale); got != c.want {
			t.Errorf("Number(%g, %g) = %q, want %q", c.x, c.scale, got, c.want)
		}
	}
}

func TestFormatCountAndSigned(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{textfmt.Count(367308139.53), "367,308,140"},
		{textfmt.Count(5.96e-08), "0"},
		{textfmt.Count(-1500), "-1,500"},
		{textfmt.Count(999), "999"},
		{textfmt.Count(math.NaN()), textfmt.NoValue},
		{textfmt.Signed(12, 0), "+12.00"},
		{textfmt.Signed(-0.25, 0), "-0.2500"},
		{textfmt.Signed(5.96e-08, 0), "0"},
		{textfmt.Signed(math.Inf(1), 0), "+inf"},
		{textfmt.SignedCount(12), "+12"},
		{textfmt.SignedCount(0.4), "0"},
		{textfmt.Figure("records_in", 367308139.53, 0), "367,308,140"},
		{textfmt.Figure("qos_recovery_violations", 2, 0), "2"},
		{textfmt.Figure("final_lag", 5.96e-08, 0), "0"},
		{textfmt.Figure("latency_p99_ms", 1234.5678, 0), "1,235"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

func TestIsCount(t *testing.T) {
	for name, want := range map[string]bool{
		"records_in": true, "lag": true, "end_offset": true, "faults": true, "checkpoints_completed": true,
		"qos_recovery_violations": true, "qos_latency_violation_seconds": true,
		// evaluate's variants.csv and failures.csv, the scaling CSVs
		"failures": true, "recovered": true, "recovery_violations": true, "latency_windows_over": true,
		"latency_windows": true, "reconfigurations": true, "failure": true, "n": true, "rescalings": true,
		"latency_p99_ms": false, "latency_over_bound_pct": false, "worker_seconds": false, "throughput_mean": false, "recovery_mean_s": false, "qos_latency_bound_ms": false,
	} {
		if got := textfmt.IsCount(name); got != want {
			t.Errorf("IsCount(%q) = %v, want %v", name, got, want)
		}
	}
}

// Every printed table formats its numbers the same way: 4 significant
// digits, thousands separated, counts whole, noise as 0, no exponents.
func ExampleNumber() {
	scale := textfmt.Scale(21357.3, 8514.2, 2.901e-10)
	for _, x := range []float64{21357.3, 8514.2, 2.901e-10, 0.012345} {
		fmt.Println(textfmt.Number(x, scale))
	}
	fmt.Println(textfmt.Count(367308139.53))
	fmt.Println(textfmt.Signed(-0.25, 0))
	// Output:
	// 21,357
	// 8,514
	// 0
	// 0.01235
	// 367,308,140
	// -0.2500
}

func TestFormatCoefficientAndLinear(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{textfmt.Coefficient(570.172), "570.2"},
		{textfmt.Coefficient(-0.000622618), "-0.0006226"}, // 4 digits, however small: not 0.000623
		{textfmt.Coefficient(0.00000554479), "0.000005545"},
		{textfmt.Coefficient(-207.735), "-207.7"},
		{textfmt.Coefficient(138513.2), "138,513"},
		{textfmt.Coefficient(1e-14), "0"},
		{textfmt.Coefficient(-1e-14), "0"}, // never "-0"
		{textfmt.Coefficient(0), "0"},
		{textfmt.Coefficient(math.NaN()), textfmt.NoValue},
		{textfmt.Linear(570.172, textfmt.Term{Coef: -0.000622618, Var: "thr"}), "570.2 − 0.0006226·thr"},
		{textfmt.Linear(-207.735, textfmt.Term{Coef: 0.00496175, Var: "thr"}, textfmt.Term{Coef: 0.00104618, Var: "CI_ms"}),
			"−207.7 + 0.004962·thr + 0.001046·CI_ms"},
		{textfmt.Linear(1, textfmt.Term{Coef: -1e-14, Var: "x"}), "1.000 + 0·x"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	cases := []struct {
		n          int
		noun, want string
	}{
		{1, "fault", "1 fault"},
		{0, "fault", "0 faults"},
		{2, "fault", "2 faults"},
		{1200, "run", "1,200 runs"},
		{2, "recovery", "2 recoveries"},
		{1, "recovery", "1 recovery"},
		{3, "copy", "3 copies"},
		{2, "day", "2 days"}, // a vowel before the y
		{2, "process", "2 processes"},
		{12, "failure point", "12 failure points"},
		{2, "TaskManager", "2 TaskManagers"},
		{-1, "fault", "-1 faults"},
	}
	for _, c := range cases {
		if got := textfmt.Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
