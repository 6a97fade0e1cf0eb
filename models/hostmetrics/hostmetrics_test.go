package hostmetrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGenerateByHand(t *testing.T) {
	r := Relation{Name: "cpu_rate", Intercept: 2, Slope: 0.5, Lag: 2, Max: 10}
	got := r.Generate([]float64{4, 6, 8, 30, 0}, rand.New(rand.NewPCG(1, 2)))
	// lag 2: t=0,1 use load[0]=4 → 4; t=2 → load[0]=4 → 4; t=3 → load[1]=6 → 5; t=4 → load[2]=8 → 6
	want := []float64{4, 4, 4, 5, 6}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Generate = %v, want %v", got, want)
		}
	}
	// the clamp: 2 + 0.5·30 = 17 > max 10
	if v := (Relation{Intercept: 2, Slope: 0.5, Max: 10}).Generate([]float64{30}, nil); v[0] != 10 {
		t.Errorf("clamp: %v", v)
	}
}

func TestFitRecoversTheRelation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	load := make([]float64, 4000)
	for i := range load {
		load[i] = 600 + 250*math.Sin(float64(i)/300) + 20*rng.NormFloat64()
	}
	truth := Relation{Name: "cpu_rate", Intercept: 2.559, Slope: 0.03112, Lag: 70, SD: 0.59}
	metric := truth.Generate(load, rng)
	got, err := Fit("cpu_rate", load, metric, 120)
	if err != nil {
		t.Fatal(err)
	}
	if got.Lag != 70 || math.Abs(got.Slope-truth.Slope) > 0.002 || math.Abs(got.Intercept-truth.Intercept) > 1 || math.Abs(got.SD-truth.SD) > 0.05 {
		t.Errorf("Fit = %+v, want about %+v", got, truth)
	}
	if _, err := Fit("x", []float64{1, 1, 1, 1}, []float64{1, 2, 3, 4}, 0); err == nil {
		t.Error("a constant load fitted")
	}
}

func TestDefaultsValidate(t *testing.T) {
	for _, r := range Defaults() {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
	if err := (Relation{Name: "x", SD: -1}).Validate(); err == nil {
		t.Error("negative sd accepted")
	}
}

func TestFitHeldOutByHand(t *testing.T) {
	// metric = 10 + 2·load exactly, load 1..10: the relation is exact, the
	// baseline is the fitted part's mean (load 1..8: metric 12..26, mean 19)
	load := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	metric := make([]float64, len(load))
	for i, x := range load {
		metric[i] = 10 + 2*x
	}
	r, err := FitHeldOut("m", load, metric, 0, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	// held out: 28 and 30; baseline errors |28−19|/28 and |30−19|/30
	wantBase := 100 * (9.0/28 + 11.0/30) / 2
	if r.Fitted != 8 || r.HeldOut != 2 || math.Abs(r.Slope-2) > 1e-9 || r.HeldOutMAPE > 1e-9 || math.Abs(r.BaselineMAPE-wantBase) > 1e-9 {
		t.Errorf("FitHeldOut = %+v; want slope 2, held-out MAPE 0, baseline %g", r, wantBase)
	}
}
