package daedalus

import (
	"math"
	"testing"
)

// TestRegression: y = 2000 + 50,000·x exactly, fed in two windows, is
// recovered; a flat CPU gives throughput proportional to CPU (0.5 → 1.5
// records/s, so 3 at 100 %), and no CPU at all no model.
func TestRegression(t *testing.T) {
	var r Regression
	r.Add([]float64{0.2, 0.4}, []float64{12000, 22000})
	r.Add([]float64{0.5, 0.8}, []float64{27000, 42000})
	if got := r.Predict(1); math.Abs(got-52000) > 1e-6 {
		t.Errorf("Predict(1) = %g, want 52000", got)
	}
	var flat Regression
	flat.Add([]float64{0.5, 0.5}, []float64{1, 2})
	if got := flat.Predict(1); got != 3 {
		t.Errorf("flat CPU: %g, want 3", got)
	}
	var none Regression
	none.Add([]float64{0, 0}, []float64{0, 0})
	if !math.IsNaN(none.Predict(1)) {
		t.Errorf("no CPU: %g, want NaN", none.Predict(1))
	}
}

// TestCurrentCapacity: two TaskManagers at 60 % and 40 % CPU, each with
// throughput = 50,000·CPU. When the busier one reaches 100 %, the other
// reaches 1 − (0.6 − 0.4) = 80 %: 50,000 + 40,000.
func TestCurrentCapacity(t *testing.T) {
	models := []*Regression{{}, {}}
	for _, m := range models {
		m.Add([]float64{0.2, 0.6}, []float64{10000, 30000})
	}
	if got := CurrentCapacity(models, []float64{0.6, 0.4}); math.Abs(got-90000) > 1e-6 {
		t.Errorf("capacity %g, want 90000", got)
	}
}

// TestAccuracy: WAPE ≥ 0.10 counts as bad, 15 in a row ask for a retrain,
// a good one resets; ARIMA is used below 0.25.
func TestAccuracy(t *testing.T) {
	actual := []float64{100, 100}
	if w := WAPE(actual, []float64{90, 120}); math.Abs(w-0.15) > 1e-12 {
		t.Errorf("WAPE %g, want 0.15", w)
	}
	var a Accuracy
	if !a.UseARIMA() {
		t.Error("no score yet: ARIMA should be used")
	}
	for i := 1; i <= RetrainAfter; i++ {
		retrain := a.Score(actual, []float64{70, 100}) // WAPE 0.15
		if retrain != (i == RetrainAfter) {
			t.Fatalf("bad prediction %d: retrain %v", i, retrain)
		}
	}
	if !a.UseARIMA() {
		t.Error("WAPE 0.15 < 0.25: ARIMA should be used")
	}
	a.Score(actual, []float64{40, 100}) // 0.30
	if a.UseARIMA() {
		t.Error("WAPE 0.30: the linear fallback should be used")
	}
	a.Score(actual, []float64{95, 100}) // 0.025
	if a.Bad != 0 {
		t.Errorf("a good prediction should reset the bad count, got %d", a.Bad)
	}
}

// TestLinearFallback: a window rising by 10/s from 1000 continues the line
// for 600 s; a falling one stops at 0.
func TestLinearFallback(t *testing.T) {
	w := make([]float64, 61)
	for i := range w {
		w[i] = 1000 + 10*float64(i)
	}
	f := LinearFallback(w)
	if len(f) != LinearHorizonS || math.Abs(f[0]-1600) > 1e-6 || math.Abs(f[599]-(1600+5990)) > 1e-6 {
		t.Errorf("forecast %d steps, f[0] = %g, f[599] = %g; want 600, 1600, 7590", len(f), f[0], f[599])
	}
	for i := range w {
		w[i] = 600 - 10*float64(i)
	}
	if f := LinearFallback(w); f[599] != 0 {
		t.Errorf("falling line: f[599] = %g, want 0", f[599])
	}
}

func TestAdaptDowntime(t *testing.T) {
	if got := AdaptDowntime(30, 45, 40); got != 31 {
		t.Errorf("longer than predicted: %d, want 31", got)
	}
	if got := AdaptDowntime(15, 20, 40); got != 14 {
		t.Errorf("shorter than predicted: %d, want 14", got)
	}
	if got := AdaptDowntime(0, 1, 2); got != 0 {
		t.Errorf("floor: %d, want 0", got)
	}
}
