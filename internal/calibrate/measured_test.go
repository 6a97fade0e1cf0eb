package calibrate

import (
	"math"
	"strings"
	"testing"
)

// assertPoints compares points field by field, NaN equal to NaN; Line is
// where a point was read, so it is left out.
func assertPoints(t *testing.T, got, want []Point) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d", len(got), len(want))
	}
	eq := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for i, g := range got {
		w := want[i]
		if g.Label != w.Label || !eq(g.Throughput, w.Throughput) || !eq(g.CheckpointIntervalS, w.CheckpointIntervalS) ||
			!eq(g.RecoveryS, w.RecoveryS) || !eq(g.LatencyMs, w.LatencyMs) || !eq(g.FaultAtS, w.FaultAtS) {
			t.Errorf("point %d: got %+v, want %+v", i, g, w)
		}
	}
}

// A CI with one failure is a warning naming its row.
func TestWarnings(t *testing.T) {
	pts := []Point{
		{Throughput: 1000, CheckpointIntervalS: 10, RecoveryS: 20, Line: 2},
		{Throughput: 1000, CheckpointIntervalS: 10, RecoveryS: 21, Line: 3},
		{Throughput: 1000, CheckpointIntervalS: 30, RecoveryS: 40, Line: 4},
	}
	w := Warnings("m.csv", pts)
	if len(w) != 1 || !strings.Contains(w[0], "m.csv:4: CI 30s has a single measured failure") {
		t.Errorf("warnings %q, want one for CI 30s at line 4", w)
	}
}
