package textfmt

import (
	"fmt"
	"math"
	"strconv"
)

// EventTime is a time in a run, in s, to the millisecond with
// thousands separated: 2,101.380 (4 significant digits would say 2,101,
// where a run's events are milliseconds apart). results cat's times and the
// times stored in event reasons use it; never "-0.000".
func EventTime(s float64) string {
	if t, special := Special(s); special {
		return t
	}
	t := strconv.FormatFloat(s, 'f', 3, 64)
	if t == "-0.000" {
		t = "0.000"
	}
	return GroupThousands(t)
}

// Clock is a time in a run as the evaluation tables and the fault figures
// print it: h:mm:ss, rounded to the second; "–" for NaN.
func Clock(s float64) string {
	if math.IsNaN(s) {
		return "–"
	}
	n := int64(math.Round(s))
	return fmt.Sprintf("%d:%02d:%02d", n/3600, n/60%60, n%60)
}
