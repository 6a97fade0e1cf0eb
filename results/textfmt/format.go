package textfmt

import (
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
)

// The one number format of every printed table and message (results
// summarize, compare, results cat, evaluate and evaluation.md, the one-line
// reports of run, sweep, profile, calibrate and workload show). Files
// (Parquet, JSON, CSV) keep full precision; this is only what people read.
//
//   - 4 significant digits, in plain decimal notation, never an exponent:
//     0.01235, 1.500, 123.5, 8,514, 21,357 (the integer part is always
//     written out in full, so large values keep more than 4 digits);
//   - thousands separated by commas: 367,308,140;
//   - counts (records, offsets, lag, faults, violations…, see IsCount) as
//     whole numbers: 5.96e-08 records is 0, 367308139.53 is 367,308,140;
//   - noise shown as 0: a value whose magnitude is below ZeroTolerance
//     times the scale it is read against (its column, or its figure's
//     magnitude), or that needs more than MaxDecimals decimals;
//   - NaN as "–", infinities as "inf" and "-inf";
//   - a fitted model's coefficients to 4 significant digits however small,
//     a negative term with a minus: 570.2 − 0.0006226·thr (Linear);
//   - a count with its noun, singular for 1: 1 fault, 2 faults (Plural).
//
// app's TestPrintedNumbers checks the output of every command against it.
const (
	SignificantDigits = 4
	// MaxDecimals bounds the decimals: figures are in s, ms, records,
	// records/s or fractions, where a millionth is below anything measured.
	MaxDecimals = 6
	// ZeroTolerance: |x| < ZeroTolerance·scale is floating-point noise of a
	// quantity of that scale (a std of 3e-10 on a mean of 80) and shows as 0.
	ZeroTolerance = 1e-9
	// NoValue is how a table shows NaN (nothing to report).
	NoValue = "–"
)

// Number formats x by the table rule above; scale is the magnitude x
// is read against (e.g. the largest |value| of its column), 0 for none.
func Number(x, scale float64) string {
	if s, special := Special(x); special {
		return s
	}
	if x == 0 || math.Abs(x) < ZeroTolerance*math.Abs(scale) {
		return "0"
	}
	return significant(x, MaxDecimals)
}

// significant is x to SignificantDigits significant digits in plain decimal
// notation with at most maxDecimals decimals, thousands grouped; "0" when
// it rounds to 0 (never "-0").
func significant(x float64, maxDecimals int) string {
	// The digits of x rounded to 4 significant digits decide the decimals,
	// so 9999.7 counts as 10,000.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', SignificantDigits, 64), 64)
	intDigits := int(math.Floor(math.Log10(math.Abs(r)))) + 1
	decimals := min(max(SignificantDigits-intDigits, 0), maxDecimals)
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" { // rounds to 0 at maxDecimals
		return "0"
	}
	return GroupThousands(s)
}

// CoefficientDecimals bounds the decimals of Coefficient: a fitted
// coefficient below 5e-13 shows as 0.
const CoefficientDecimals = 12

// Coefficient formats a fitted model's coefficient: 4 significant
// digits in plain decimal notation, like Number, but without its
// MaxDecimals bound, since a coefficient multiplies a large quantity (ms
// per record/s: 0.0006226·thr); 0.000622618 is 0.0006226, never 6.226e-04.
func Coefficient(x float64) string {
	if s, special := Special(x); special {
		return s
	}
	if x == 0 {
		return "0"
	}
	return significant(x, CoefficientDecimals)
}

// Plain is x to digits significant digits in plain decimal notation,
// never an exponent, without thousands separators: numbers written in a
// file's syntax (a scenario's YAML, CSV) that must read back. 8.12173e-05
// is 0.0000812173 and 4.716e+06 is 4716000; never "-0".
func Plain(x float64, digits int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	if r == 0 {
		return "0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// Term is one term of a linear model: a coefficient and the name of the
// variable it multiplies.
type Term struct {
	Coef float64
	Var  string
}

// Linear writes a fitted linear model, intercept first, each
// coefficient by Coefficient and a minus sign (−, U+2212) for a
// negative one, never "+ -": "570.2 − 0.0006226·thr + 0.001046·CI_ms".
func Linear(intercept float64, terms ...Term) string {
	var b strings.Builder
	b.WriteString(typographicMinus(Coefficient(intercept)))
	for _, t := range terms {
		c := Coefficient(t.Coef)
		if s, neg := strings.CutPrefix(c, "-"); neg {
			b.WriteString(" − " + s)
		} else {
			b.WriteString(" + " + c)
		}
		b.WriteString("·" + t.Var)
	}
	return b.String()
}

func typographicMinus(s string) string {
	if rest, neg := strings.CutPrefix(s, "-"); neg {
		return "−" + rest
	}
	return s
}

// Plural is n, thousands grouped, and the noun, plural unless n is 1:
// "1 fault", "2 faults", "0 recoveries", "3 copies", "1,200 runs". The
// noun is given in the singular and takes the regular English plural
// (-y after a consonant → -ies; -s, -x, -ch, -sh → -es; else -s) on its
// last word: "failure point" → "failure points".
func Plural(n int, noun string) string {
	return GroupThousands(strconv.Itoa(n)) + " " + PluralNoun(n, noun)
}

// PluralNoun is the noun alone, as Plural would write it after n.
func PluralNoun(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	last := noun[strings.LastIndexByte(noun, ' ')+1:]
	switch {
	case len(last) > 1 && strings.HasSuffix(last, "y") && !strings.ContainsRune("aeiou", rune(last[len(last)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(last, "s"), strings.HasSuffix(last, "x"), strings.HasSuffix(last, "ch"), strings.HasSuffix(last, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// Count formats a count (records, offsets, events) as a whole number
// with thousands separators; the fluid model's fractional records round.
func Count(x float64) string {
	if s, special := Special(x); special {
		return s
	}
	return GroupThousands(strconv.FormatFloat(math.Round(x), 'f', 0, 64))
}

// Signed is Number with an explicit "+" on positive values, for
// differences; a difference that shows as 0 has no sign.
func Signed(x, scale float64) string {
	return signed(Number(x, scale))
}

// SignedCount is Count with an explicit "+" on positive values.
func SignedCount(x float64) string { return signed(Count(x)) }

func signed(s string) string {
	if s == "0" || s == NoValue || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "inf") {
		if s == "inf" {
			return "+inf"
		}
		return s
	}
	return "+" + s
}

// Figure formats the value of a figure or column: a count (IsCount)
// as a whole number, anything else by Number.
func Figure(name string, x, scale float64) string {
	if IsCount(name) {
		return Count(x)
	}
	return Number(x, scale)
}

// Scale is the largest finite |x| of xs: the scale a column is read
// against. 0 for no finite values.
func Scale(xs ...float64) float64 {
	s := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s = max(s, math.Abs(x))
		}
	}
	return s
}

// Special is how a table shows a value that is no finite number: NaN as
// NoValue, infinities as "inf" and "-inf"; false for any other x.
func Special(x float64) (string, bool) {
	switch {
	case math.IsNaN(x):
		return NoValue, true
	case math.IsInf(x, 1):
		return "inf", true
	case math.IsInf(x, -1):
		return "-inf", true
	}
	return "", false
}

// GroupThousands puts a comma between each group of three digits of the
// integer part of a plain decimal number ("-1234567.5" → "-1,234,567.5").
func GroupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if len(intPart) <= 3 {
		return sign + s
	}
	var b strings.Builder
	b.WriteString(sign)
	head := len(intPart) % 3
	if head > 0 {
		b.WriteString(intPart[:head])
	}
	for i := head; i < len(intPart); i += 3 {
		if b.Len() > len(sign) {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return b.String()
}

// countNames are the figures and columns that count records or offsets.
// The fluid model computes them as float64 (fractions of records); tables
// show them as whole numbers. Integer figures of Summary (faults,
// checkpoints, violations…) are counts too (see IsCount).
var countNames = map[string]bool{
	"records_in": true, "records_processed": true, "records_replayed": true,
	"final_lag": true, "lag_max": true,
	"lag": true, "end_offset": true, "committed_offset": true,
	// the count columns of the CSV files streamtwin writes, which results
	// cat reads back as numbers: evaluate's variants.csv (failures,
	// recovered, recovery_violations, latency_windows_over, latency_windows,
	// reconfigurations) and failures.csv (failure, its number), the scaling
	// evaluation's scaling.csv (n) and scaling-runs.csv (seed, rescalings),
	// the monitoring tradeoff.csv (missed_peaks, peaks) and a monitoring
	// session's table (reloads, steps, toggles)
	"failures": true, "recovered": true, "recovery_violations": true,
	"latency_windows_over": true, "latency_windows": true, "reconfigurations": true,
	"failure": true, "n": true, "seed": true, "rescalings": true,
	"missed_peaks": true, "peaks": true, "reloads": true, "steps": true, "toggles": true,
}

// intFigures are the figures of Summary held in integer fields.
var intFigures = func() map[string]bool {
	m := map[string]bool{}
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			switch name := prefix + jsonName(f); f.Type.Kind() {
			case reflect.Struct:
				walk(name+"_", f.Type)
			case reflect.Int:
				m[name] = true
			}
		}
	}
	walk("", reflect.TypeOf(results.Summary{}))
	return m
}()

// jsonName is a field's name in summary.json (results.Summary.Figures
// names the figures the same way).
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "" {
		return f.Name
	}
	name, _, _ := strings.Cut(tag, ",")
	return name
}

// IsCount reports whether the figure or column name counts something
// (records, offsets, faults, checkpoints, violations): whole numbers.
func IsCount(name string) bool { return countNames[name] || intFigures[name] }
