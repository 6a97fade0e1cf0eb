package calibrate

import (
	"math"
	"slices"
	"testing"
)

// heldPoint is a point of a hand-made set, held out or fitted.
func heldPoint(thr, ci, rec float64, held bool) PointResult {
	return PointResult{Point: Point{Throughput: thr, CheckpointIntervalS: ci, RecoveryS: rec, LatencyMs: math.NaN()}, HeldOut: held}
}

// TestClosedFormBaseline: three fitted points made by hand with D = 30 s,
// μ = 100 000 records/s and kills 3 s before a checkpoint, e.g.
// 30 + 50 000·(33 − 3 + 30)/(100 000 − 50 000) = 90 s. The fit finds D and μ
// again and predicts the held-out point 30 + 60 000·(23 − 3 + 30)/40 000 =
// 105 s; three points are too few for the OLS.
func TestClosedFormBaseline(t *testing.T) {
	pts := []PointResult{
		heldPoint(50000, 33, 90, false),
		heldPoint(75000, 13, 150, false),
		heldPoint(25000, 63, 60, false),
		heldPoint(60000, 23, 999, true),
	}
	b := fitBaselines(pts, Options{BeforeCheckpoint: 3, Horizon: 1800})
	if b.ClosedForm == nil {
		t.Fatalf("closed form not fitted: %s", b.ClosedFormNote)
	}
	if math.Abs(b.ClosedForm.DowntimeS-30) > 0.01 || math.Abs(b.ClosedForm.Capacity-100000)/100000 > 1e-4 {
		t.Errorf("D = %.3f s, μ = %.1f records/s; want 30 s, 100 000 records/s", b.ClosedForm.DowntimeS, b.ClosedForm.Capacity)
	}
	if got := pts[3].ClosedFormS; math.Abs(got-105) > 0.05 {
		t.Errorf("held-out point: closed form predicts %.3f s, want 105 s", got)
	}
	if b.OLS != nil || b.OLSNote == "" || !math.IsNaN(pts[3].OLSS) {
		t.Errorf("OLS on 3 points: %+v, note %q, prediction %v; want none, with a note", b.OLS, b.OLSNote, pts[3].OLSS)
	}
}

// TestOLSBaseline: fitted points on the exact plane rec = 10 + 0.002·λ +
// 1.5·CI(s); the held-out point at λ = 70 000, CI = 45 s lies on it at
// 10 + 140 + 67.5 = 217.5 s. All points at one CI leave the plane
// undetermined: no OLS, and the note says why.
func TestOLSBaseline(t *testing.T) {
	plane := func(thr, ci float64) float64 { return 10 + 0.002*thr + 1.5*ci }
	var pts []PointResult
	for _, p := range [][2]float64{{40000, 10}, {50000, 30}, {60000, 60}, {80000, 20}, {90000, 90}} {
		pts = append(pts, heldPoint(p[0], p[1], plane(p[0], p[1]), false))
	}
	pts = append(pts, heldPoint(70000, 45, 230, true))
	b := fitBaselines(pts, Options{BeforeCheckpoint: 3, Horizon: 1800})
	if b.OLS == nil {
		t.Fatalf("OLS not fitted: %s", b.OLSNote)
	}
	if got := pts[5].OLSS; math.Abs(got-217.5) > 1e-6 {
		t.Errorf("held-out point: OLS predicts %.6f s, want 217.5 s", got)
	}
	if m := metricsOf(pts, false); m.OLSMAPE > 1e-9 {
		t.Errorf("OLS MAPE on points of its own plane: %g %%", m.OLSMAPE)
	}
	// 230 s measured, 217.5 s predicted: 5.43 %
	if m := metricsOf(pts, true); math.Abs(m.OLSMAPE-100*12.5/230) > 1e-6 {
		t.Errorf("held-out OLS MAPE %.4f %%, want %.4f %%", m.OLSMAPE, 100*12.5/230)
	}

	// at one CI, the CI is no regressor: rec = −25 + 0.003·λ fits the
	// four points (100, 120, 150, 190 s at 40–70 k/s) best
	oneCI := []PointResult{heldPoint(40000, 30, 100, false), heldPoint(50000, 30, 120, false), heldPoint(60000, 30, 150, false),
		heldPoint(70000, 30, 190, false), heldPoint(80000, 60, 300, true)}
	b = fitBaselines(oneCI, Options{BeforeCheckpoint: 3, Horizon: 1800})
	if b.OLS == nil || !slices.Equal(b.OLS.Columns, []string{"throughput"}) || math.Abs(b.OLS.Intercept+25) > 1e-6 || math.Abs(b.OLS.Coef[0]-0.003) > 1e-9 {
		t.Errorf("OLS on a single CI: %+v (note %q); want rec = −25 + 0.003·throughput", b.OLS, b.OLSNote)
	}
	// three points cannot fit an intercept and two slopes with a residual
	if b := fitBaselines(oneCI[:2], Options{BeforeCheckpoint: 3, Horizon: 1800}); b.OLS != nil || b.OLSNote == "" {
		t.Errorf("OLS on 2 points: %+v (note %q); want none", b.OLS, b.OLSNote)
	}
}

// TestClosedFormBeyondCapacity: a held-out load above the fitted capacity
// never recovers in the closed form; like the twin, it predicts the horizon.
func TestClosedFormBeyondCapacity(t *testing.T) {
	pts := []PointResult{heldPoint(50000, 33, 90, false), heldPoint(75000, 13, 150, false), heldPoint(25000, 63, 60, false),
		heldPoint(150000, 33, 500, true)}
	fitBaselines(pts, Options{BeforeCheckpoint: 3, Horizon: 900})
	if got := pts[3].ClosedFormS; got != 900 {
		t.Errorf("beyond capacity: %v s, want the 900 s horizon", got)
	}
}
