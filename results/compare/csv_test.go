package compare

import (
	"math"
	"strings"
	"testing"
)

// TestWriteCSV: every figure at full precision, empty cells where a side
// has none, and the runs on one side only.
func TestWriteCSV(t *testing.T) {
	c := &Comparison{
		Diffs: []FigureDiff{
			{Run: "demo", Figure: "recovery_mean_s", A: 76.25, B: 80.125, InA: true, InB: true, Abs: 3.875, Rel: 3.875 / 76.25, Tol: Tolerance{Rel: 0.05}, Beyond: false},
			{Run: "demo", Figure: "final_lag", A: 0, B: 3, InA: true, InB: true, Abs: 3, Rel: math.Inf(1), Tol: Tolerance{Rel: 0.05}, Beyond: true},
			{Run: "demo", Figure: "cpu_busy_mean", A: 0.5, B: 0.6, InA: true, InB: true, Abs: 0.1, Rel: 0.2, Tol: Tolerance{Informational: true}},
			{Run: "demo", Figure: "lag_max", A: 7, InA: true},
		},
		RunsOnlyB: []string{"extra"},
	}
	var b strings.Builder
	if err := c.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "run,figure,a,b,diff,rel,tol_rel,tol_abs,informational,status\n" +
		"demo,recovery_mean_s,76.25,80.125,3.875,0.05081967213114754,0.05,0,false,ok\n" +
		"demo,final_lag,0,3,3,,0.05,0,false,BEYOND\n" +
		"demo,cpu_busy_mean,0.5,0.6,0.1,0.2,,,true,info\n" +
		"demo,lag_max,7,,,,,,false,only in A\n" +
		"extra,*,,,,,,,false,run only in B\n"
	if got := b.String(); got != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want)
	}
}
