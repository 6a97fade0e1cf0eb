package calibrate

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseCV(t *testing.T) {
	cases := []struct {
		in   string
		want CVSpec
		err  bool
	}{
		{"ci", CVSpec{ByCI: true}, false},
		{" k=5", CVSpec{K: 5}, false},
		{"k=1", CVSpec{}, true},
		{"k=x", CVSpec{}, true},
		{"5", CVSpec{}, true},
	}
	for _, c := range cases {
		got, err := ParseCV(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseCV(%q) = %+v, %v; want %+v (error %v)", c.in, got, err, c.want, c.err)
		}
		if err == nil && got.String() != strings.TrimSpace(c.in) {
			t.Errorf("%+v prints %q, want %q", got, got.String(), strings.TrimSpace(c.in))
		}
	}
}

func ciPoints(cis ...float64) []Point {
	var pts []Point
	for i, ci := range cis {
		pts = append(pts, Point{Throughput: 50000 + 1000*float64(i), CheckpointIntervalS: ci, RecoveryS: 100, LatencyMs: math.NaN()})
	}
	return pts
}

// TestFolds: leave one CI out numbers the CIs in ascending order; k folds
// deal a seeded permutation round-robin, so 10 points in 3 folds are 4, 3
// and 3, the same for the same seed.
func TestFolds(t *testing.T) {
	fold, labels, err := Folds(ciPoints(30, 10, 30, 60), CVSpec{ByCI: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fold, []int{1, 0, 1, 2}) || !slices.Equal(labels, []string{"CI 10 s", "CI 30 s", "CI 60 s"}) {
		t.Errorf("by CI: folds %v, labels %q", fold, labels)
	}

	pts := ciPoints(10, 10, 10, 10, 10, 30, 30, 30, 30, 30)
	a, labels, err := Folds(pts, CVSpec{K: 3}, 60)
	if err != nil {
		t.Fatal(err)
	}
	sizes := make([]int, 3)
	for _, f := range a {
		sizes[f]++
	}
	if !slices.Equal(sizes, []int{4, 3, 3}) || !slices.Equal(labels, []string{"fold 1", "fold 2", "fold 3"}) {
		t.Errorf("k=3: fold sizes %v, labels %q; want 4, 3, 3", sizes, labels)
	}
	if again, _, _ := Folds(pts, CVSpec{K: 3}, 60); !slices.Equal(again, a) {
		t.Errorf("same seed, other folds: %v then %v", a, again)
	}
	if other, _, _ := Folds(pts, CVSpec{K: 3}, 61); slices.Equal(other, a) {
		t.Errorf("seeds 60 and 61 deal the same folds %v", a)
	}

	for _, c := range []struct {
		pts  []Point
		spec CVSpec
		msg  string
	}{
		{ciPoints(30, 30, 30), CVSpec{ByCI: true}, "two or more checkpoint intervals"},
		{ciPoints(10, 30), CVSpec{K: 3}, "needs at least 3 points"},
	} {
		if _, _, err := Folds(c.pts, c.spec, 1); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: error %v, want %q", c.spec, err, c.msg)
		}
	}
}

// TestSpreadOf: 5, 7, 9 (a NaN fold skipped): mean 7, s.d. 2, range 5–9.
func TestSpreadOf(t *testing.T) {
	s := spreadOf([]float64{5, math.NaN(), 9, 7})
	if s != (Spread{Mean: 7, SD: 2, Min: 5, Max: 9, N: 3}) {
		t.Errorf("spread %+v", s)
	}
	if one := spreadOf([]float64{4}); one.Mean != 4 || !math.IsNaN(one.SD) {
		t.Errorf("one fold: %+v, want mean 4 and no s.d.", one)
	}
}

// TestCrossValidate: leave one CI out on a small synthetic table, a few
// evaluations per fold: a fold per CI, every point predicted once out of
// its fold, each model's spread over the three folds.
func TestCrossValidate(t *testing.T) {
	base := baseScenario(t)
	var pts []Point
	for _, ci := range []float64{10, 40, 80} {
		for _, thr := range []float64{40000, 60000} {
			pts = append(pts, Point{Throughput: thr, CheckpointIntervalS: ci, RecoveryS: 60 + ci + thr/1000, LatencyMs: math.NaN(), Line: len(pts) + 2})
		}
	}
	var seen []string
	o := Options{Fit: params(t, "restart_delay"), MaxEvaluations: 4, Replications: 2, CV: CVSpec{ByCI: true},
		FoldDone: func(f Fold, folds int) { seen = append(seen, f.Label) }}
	r, err := Calibrate(base, pts, o)
	if err != nil {
		t.Fatal(err)
	}
	cv := r.CV
	if cv == nil || cv.Scheme != "ci" || len(cv.Folds) != 3 || !slices.Equal(seen, []string{"CI 10 s", "CI 40 s", "CI 80 s"}) {
		t.Fatalf("cross-validation %+v, folds reported %v", cv, seen)
	}
	for _, f := range cv.Folds {
		if f.N != 2 || math.IsNaN(f.Twin) || math.IsNaN(f.ClosedForm) || math.IsNaN(f.Coverage) {
			t.Errorf("fold %+v", f)
		}
		// 4 points at 2 CIs: enough for the OLS
		if math.IsNaN(f.OLS) {
			t.Errorf("fold %s: no OLS", f.Label)
		}
	}
	if cv.Pooled.N != len(pts) || cv.Twin.N != 3 || cv.ClosedForm.N != 3 {
		t.Errorf("pooled over %d points, spreads over %d/%d folds", cv.Pooled.N, cv.Twin.N, cv.ClosedForm.N)
	}
}
