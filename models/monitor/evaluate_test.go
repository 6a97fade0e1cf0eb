package monitor

import (
	"math"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/models/forecast/external"
	"github.com/streamtwin/streamtwin/models/hostmetrics"
	"github.com/streamtwin/streamtwin/sim"
)

// A ramp (metric = load = 100 + t) sampled every 4 s: linear interpolation
// is exact between samples, and the last 3 s hold the value at 16 s.
func TestEvaluateByHand(t *testing.T) {
	load := make([]float64, 30)
	for i := range load {
		load[i] = 100 + float64(i)
	}
	spec := Spec{Train: 10, PeakQuantile: 0.9,
		Metrics: []hostmetrics.Relation{
			{Name: "a", Slope: 1, Bytes: 100},
			{Name: "b", Slope: 1, Bytes: 300},
		},
		Samplers: []SamplerSpec{{Kind: "fixed", Intervals: []int{1, 4}}}}
	ev, err := Evaluate(spec, load, sim.Seeds{Root: 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Rows) != 6 {
		t.Fatalf("%d rows, want 2 intervals × (all, a, b)", len(ev.Rows))
	}
	// evaluated: seconds 10..29, truth 110..129; scraped at 110, 114, …, 126
	// (5 of 20), then 127, 128, 129 read as 126: errors 1, 2, 3
	wantMAE := 6.0 / 20
	wantMAPE := 100 * (1.0/127 + 2.0/128 + 3.0/129) / 20
	// peaks: the 0.9 quantile of 110..129 (type 7) is 127.1; one run above it (128, 129), missed
	a := ev.Rows[4]
	if a.Metric != "a" || a.Param != 4 || a.SamplesShare != 0.25 || a.BytesShare != 0.25 ||
		math.Abs(a.MAE-wantMAE) > 1e-12 || math.Abs(a.MAPE-wantMAPE) > 1e-12 || a.Peaks != 1 || a.MissedPeaks != 1 {
		t.Errorf("row %+v; want a at 4 s: share 0.25, MAE %g, MAPE %g, 1 peak missed", a, wantMAE, wantMAPE)
	}
	all := ev.Rows[3]
	if all.Metric != "all" || all.BytesShare != 0.25 || !math.IsNaN(all.MAE) || math.Abs(all.MAPE-wantMAPE) > 1e-12 || all.Peaks != 2 || all.MissedPeaks != 2 {
		t.Errorf("all row %+v", all)
	}
	if r := ev.Rows[1]; r.SamplesShare != 1 || r.MAE != 0 || r.MissedPeaks != 0 {
		t.Errorf("1 s row %+v; want everything scraped, nothing missed", r)
	}
}

// Every replay has its own random stream: the rows do not depend on the
// number of workers.
func TestEvaluateDeterministic(t *testing.T) {
	load := make([]float64, 4000)
	for i := range load {
		load[i] = 500 + 300*math.Sin(float64(i)/200)
	}
	spec := Spec{Train: 2000, Samplers: []SamplerSpec{
		{Kind: "adam", Gammas: []float64{0.3, 0.9}},
		{Kind: "forecast", Forecaster: "seasonal", Period: 400, Thresholds: []float64{0.01, 0.05}},
	}}
	one, err := Evaluate(spec, load, sim.Seeds{Root: 3}, 1)
	if err != nil {
		t.Fatal(err)
	}
	four, err := Evaluate(spec, load, sim.Seeds{Root: 3}, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range one.Rows {
		a, b := one.Rows[i], four.Rows[i]
		if a.Sampler != b.Sampler || a.BytesShare != b.BytesShare || !(a.MAPE == b.MAPE || math.IsNaN(a.MAPE) && math.IsNaN(b.MAPE)) {
			t.Fatalf("row %d: %+v with 1 worker, %+v with 4", i, a, b)
		}
	}
}

func TestSpecProblems(t *testing.T) {
	for _, tc := range []struct {
		spec  Spec
		field string
	}{
		{Spec{Train: 100, Samplers: []SamplerSpec{{Kind: "fixed", Intervals: []int{1}}}}, "train"},
		{Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "random"}}}, "samplers[0].kind"},
		{Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "fixed", Intervals: []int{0}}}}, "samplers[0].intervals[0]"},
		{Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "forecast", Thresholds: []float64{0.01}, Forecaster: "lstm"}}}, "samplers[0].forecaster"},
		{Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "forecast", Thresholds: []float64{0.01}, Forecaster: "external"}}}, "samplers[0].external.command"},
		{Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "adam", Gammas: []float64{1.5}}}}, "samplers[0].gammas[0]"},
		{Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "adam", Gammas: []float64{0.1}}}, Live: &LiveSampler{Sampler: "fixed", Param: 5}}, "live.sampler"},
		{Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "adam", Gammas: []float64{0.1}}}, Live: &LiveSampler{Sampler: "adam", Param: 0.2}}, "live.param"},
		{Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "forecast", Thresholds: []float64{0.1}}}, Live: &LiveSampler{Sampler: "forecast", Param: 0.1}}, "live.sampler"},
	} {
		if p := tc.spec.Problems(50); p[tc.field] == "" {
			t.Errorf("%+v: problems %v lack %s", tc.spec, p, tc.field)
		}
	}
	// the default name of a forecast sampler is forecast-<forecaster>
	ok := Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "forecast", Thresholds: []float64{0.1}}}, Live: &LiveSampler{Sampler: "forecast-seasonal", Param: 0.1}}
	if p := ok.Problems(50); p != nil {
		t.Errorf("problems %v", p)
	}
}

func TestSpecLiveProblems(t *testing.T) {
	ok := Spec{Train: 10, Samplers: []SamplerSpec{{Kind: "fixed", Intervals: []int{5}}}, Live: &LiveSampler{Sampler: "fixed", Param: 5}}
	if p := ok.LiveProblems(); p != nil {
		t.Errorf("the default metrics carry their queries and families: %v", p)
	}
	for _, tc := range []struct {
		spec  Spec
		field string
	}{
		{Spec{Train: 10, Samplers: ok.Samplers}, "live"},
		{Spec{Train: 10, Samplers: ok.Samplers, Live: ok.Live, Metrics: []hostmetrics.Relation{{Name: "x", Query: "sum(x)", Families: []string{"x"}}}}, "metrics[0].query"},
		{Spec{Train: 10, Samplers: ok.Samplers, Live: ok.Live, Metrics: []hostmetrics.Relation{{Name: "x", Query: `sum(x{job="$job"})`}}}, "metrics[0].families"},
	} {
		if p := tc.spec.LiveProblems(); p[tc.field] == "" {
			t.Errorf("%+v: problems %v lack %s", tc.spec, p, tc.field)
		}
	}
}

// EvaluateTruth on a hand-made truth: fixed 2 s on 0, 2, 4, … (train 2 s)
// holds the truth at even seconds and interpolates the odd ones exactly.
func TestEvaluateTruthByHand(t *testing.T) {
	truth := [][]float64{{1, 1, 2, 4, 6, 8, 10, 12}}
	spec := Spec{Train: 2, Metrics: []hostmetrics.Relation{{Name: "m", Bytes: 10}}, Samplers: []SamplerSpec{{Kind: "fixed", Intervals: []int{2, 4}}}}
	ev, err := EvaluateTruth(spec, truth, sim.Seeds{Root: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// evaluated part 2 4 6 8 10 12; fixed 2 scrapes 2 6 10 and interpolates
	// 4 and 8 exactly, holds 10 for the last second: |12−10| / 6 s
	r := ev.Rows[1]
	if r.Sampler != "fixed" || r.Param != 2 || r.SamplesShare != 0.5 || r.MAE != 2.0/6 {
		t.Errorf("fixed 2: %+v", r)
	}
	// fixed 4 scrapes 2 and 10: 4, 6, 8 interpolated exactly, 12 held at 10
	if r := ev.Rows[3]; r.Param != 4 || r.SamplesShare != 2.0/6 || r.MAE != 2.0/6 {
		t.Errorf("fixed 4: %+v", r)
	}
	if _, err := EvaluateTruth(spec, [][]float64{{1, 2}, {3, 4}}, sim.Seeds{}, 1); err == nil {
		t.Error("two series for one metric accepted")
	}
}

// A forecaster that fails is an error of the run, not a silent fetch.
func TestEvaluateForecasterFailure(t *testing.T) {
	load := make([]float64, 3000)
	for i := range load {
		load[i] = 500
	}
	spec := Spec{Train: 1000, Samplers: []SamplerSpec{{Kind: "forecast", Forecaster: "external",
		External: &external.Settings{Command: []string{"/nonexistent/forecaster"}}, Thresholds: []float64{0.02}}}}
	_, err := Evaluate(spec, load, sim.Seeds{Root: 1}, 1)
	if err == nil || !strings.Contains(err.Error(), "forecast-external on cpu_rate at threshold 0.02") || !strings.Contains(err.Error(), "/nonexistent/forecaster") {
		t.Errorf("Evaluate: %v; want the failed forecasts named", err)
	}
}
