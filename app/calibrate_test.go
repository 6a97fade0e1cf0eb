package app

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/measure"
)

const (
	ysbBase     = "../scenarios/khaos-ysb-base.yaml"
	ysbMeasured = "../scenarios/measured/khaos-ysb-failures.csv"
)

// fitReport is what the acceptance tests read of a fit.json.
type fitReport struct {
	HeldOut struct {
		N          int     `json:"n"`
		MAPE       float64 `json:"recovery_mape_pct"`
		ClosedForm float64 `json:"closed_form_recovery_mape_pct"`
		OLS        float64 `json:"ols_recovery_mape_pct"`
		LatencyN   int     `json:"latency_n"`
		Latency    float64 `json:"latency_mape_pct"`
	} `json:"held_out"`
	Parameters []struct {
		Name   string     `json:"name"`
		Value  float64    `json:"value"`
		Bounds [2]float64 `json:"bounds"`
		Flags  []string   `json:"flags"`
	} `json:"parameters"`
	Intervals []struct {
		CI        float64 `json:"checkpoint_interval_s"`
		Held      bool    `json:"held_out"`
		MAPE      float64 `json:"recovery_mape_pct"`
		Measured  float64 `json:"measured_median_recovery_s"`
		Predicted float64 `json:"predicted_median_recovery_s"`
		// mean latency over the interval's points, ms
		MeasuredLatency  float64 `json:"measured_mean_latency_ms"`
		PredictedLatency float64 `json:"predicted_mean_latency_ms"`
	} `json:"intervals"`
	CV struct {
		Twin       struct{ Mean float64 } `json:"twin_recovery_mape_pct"`
		ClosedForm struct{ Mean float64 } `json:"closed_form_recovery_mape_pct"`
		OLS        struct{ Mean float64 } `json:"ols_recovery_mape_pct"`
	} `json:"cross_validation"`
	WallS float64 `json:"wall_time_s"`
}

// checkFlags: no fitted parameter sits at a bound without a flag.
func (rep fitReport) checkFlags(t *testing.T) {
	t.Helper()
	for _, p := range rep.Parameters {
		span := p.Bounds[1] - p.Bounds[0]
		if atBound := p.Value-p.Bounds[0] < 1e-3*span || p.Bounds[1]-p.Value < 1e-3*span; atBound && len(p.Flags) == 0 {
			t.Errorf("%s = %g sits at a bound %v without a flag", p.Name, p.Value, p.Bounds)
		}
	}
}

// TestCalibrateKhaosYSBLeaveIntervalsOut is the acceptance fit: fit
// on the failures of CI 30 s and 90 s, predict those of 10, 60 and 120 s.
func TestCalibrateKhaosYSBLeaveIntervalsOut(t *testing.T) {
	if testing.Short() {
		t.Skip("the full Khaos YSB fit takes 15–30 s; make test runs it")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "cal.yaml")
	stdout, stderr, code, _ := runCLI(t, "calibrate", "--scenario", ysbBase, "--measured", ysbMeasured,
		"--holdout", "10s,60s,120s", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	t.Log(stdout)
	var rep fitReport
	readJSON(t, filepath.Join(dir, "cal-fit", "fit.json"), &rep)
	if rep.HeldOut.N != 36 || rep.HeldOut.MAPE > 7.5 {
		t.Errorf("held out: %d points, MAPE %.1f %%; want 36 points within 7.5 %%", rep.HeldOut.N, rep.HeldOut.MAPE)
	}
	if !(rep.HeldOut.MAPE < rep.HeldOut.ClosedForm && rep.HeldOut.MAPE < rep.HeldOut.OLS) {
		t.Errorf("held-out recovery MAPE: twin %.1f %%, closed form %.1f %%, OLS %.1f %%; want the twin below both",
			rep.HeldOut.MAPE, rep.HeldOut.ClosedForm, rep.HeldOut.OLS)
	}
	rep.checkFlags(t)
	for _, iv := range rep.Intervals {
		if iv.Held != (iv.CI != 30 && iv.CI != 90) {
			t.Errorf("CI %g s: held_out = %v", iv.CI, iv.Held)
		}
		if math.Abs(iv.Predicted-iv.Measured)/iv.Measured > 0.15 {
			t.Errorf("CI %g s: median recovery %.1f s in the twin, %.1f s measured", iv.CI, iv.Predicted, iv.Measured)
		}
	}
	if rep.WallS > 60 {
		t.Errorf("calibration took %.0f s; make bench measures it on a quiet machine, the goal is 10 s", rep.WallS)
	}
	for _, f := range []string{"points.csv", "report.md", "recovery.png", "recovery.svg", "latency.png"} {
		if st, err := os.Stat(filepath.Join(dir, "cal-fit", f)); err != nil || st.Size() == 0 {
			t.Errorf("report file %s missing or empty", f)
		}
	}
	if _, stderr, code, _ := runCLI(t, "scenario", "validate", out); code != 0 {
		t.Errorf("calibrated scenario does not validate: %s", stderr)
	}
}

// TestCalibrateLiveTrafficLeaveIntervalOut fits the project's own measured
// job (make live-traffic-profile: the live traffic-monitoring job at 4 loads
// × 3 kills per CI, the CIs interleaved) on CI 10 s and 40 s and predicts CI
// 20 s, and leaves each CI out once, as make calibration-live does
// (predictions are means over 10 seeds). The twin must beat the closed form
// and Khaos's OLS across the folds, beat the OLS held out, and predict the
// event-time p99 within 25 % (the windows' staleness sets it). Held out on
// CI 20 s, between the fitted CIs, it lost its thin margin over the closed
// form when its recovery came to be measured by the live detector (issue
// 33: 11.4 against 10.5 %, before 10.2 %; docs/calibration.md): until issue
// 35's fidelity work it must stay within 1.5 points of it, so a further
// loss fails.
func TestCalibrateLiveTrafficLeaveIntervalOut(t *testing.T) {
	if testing.Short() {
		t.Skip("a full fit; make test runs it")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "cal.yaml")
	stdout, stderr, code, _ := runCLI(t, "calibrate", "--scenario", "../scenarios/live-traffic.yaml",
		"--measured", "../scenarios/measured/live-traffic-failures.csv", "--fit", "cost_scale,warmup,deploy,latency_base",
		"--holdout", "20s", "--cv", "ci", "--replications", "10", "--latency", "p99", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	t.Log(stdout)
	var rep fitReport
	readJSON(t, filepath.Join(dir, "cal-fit", "fit.json"), &rep)
	h, cv := rep.HeldOut, rep.CV
	t.Logf("held out: recovery MAPE twin %.1f %%, closed form %.1f %%, Khaos OLS %.1f %%", h.MAPE, h.ClosedForm, h.OLS)
	t.Logf("leave-one-CI-out: twin %.1f %%, closed form %.1f %%, Khaos OLS %.1f %%", cv.Twin.Mean, cv.ClosedForm.Mean, cv.OLS.Mean)
	if h.N != 12 || !(h.MAPE < h.ClosedForm+1.5 && h.MAPE < h.OLS) {
		t.Errorf("held out: %d points; twin %.1f %%, closed form %.1f %%, OLS %.1f %%; want 12, the twin below the OLS and within 1.5 points of the closed form",
			h.N, h.MAPE, h.ClosedForm, h.OLS)
	}
	if !(cv.Twin.Mean < cv.ClosedForm.Mean && cv.Twin.Mean < cv.OLS.Mean) {
		t.Errorf("leave-one-CI-out: twin %.1f %%, closed form %.1f %%, OLS %.1f %%; want the twin below both",
			cv.Twin.Mean, cv.ClosedForm.Mean, cv.OLS.Mean)
	}
	if h.LatencyN != 12 || h.Latency > 25 {
		t.Errorf("held out: event-time p99 MAPE %.1f %% on %d points; want ≤ 25 %% on 12", h.Latency, h.LatencyN)
	}
	rep.checkFlags(t)
}

// TestCalibratedYSBReplay replays the committed calibrated scenario: the
// measured day with the 12 kills, every static CI. The per-interval median
// recovery must be within 15 % of the measured one, and the pre-failure
// latency must fall as the CI grows, as it does on the real cluster.
func TestCalibratedYSBReplay(t *testing.T) {
	dir := t.TempDir()
	if stdout, stderr, code, _ := runCLI(t, "run", "../scenarios/khaos-ysb-calibrated.yaml", "--out", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	measured := []struct {
		variant           string
		medianS, latMeanS float64 // medians of failures.txt; mean of its avgLat per CI
	}{{"ci10", 168, 667.8}, {"ci30", 173, 744.6}, {"ci60", 217, 668.7}, {"ci90", 249, 529.3}, {"ci120", 279.5, 508.2}}
	prevLat := math.Inf(1)
	for _, m := range measured {
		run := filepath.Join(dir, m.variant)
		sum, err := results.ReadSummary(run)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Recoveries != 12 {
			t.Fatalf("%s: %d recoveries, want 12", m.variant, sum.Recoveries)
		}
		rel := (sum.RecoveryMedianS - m.medianS) / m.medianS
		if math.Abs(rel) > 0.15 {
			t.Errorf("%s: median recovery %.1f s, measured %.1f s (%+.1f %%)", m.variant, sum.RecoveryMedianS, m.medianS, 100*rel)
		}
		lat := preFailureLatency(t, run)
		t.Logf("%s: median recovery %.1f s (measured %.1f, %+.1f %%); pre-failure p99 latency %.0f ms (measured %.0f, %+.1f %%)",
			m.variant, sum.RecoveryMedianS, m.medianS, 100*rel, lat, m.latMeanS, 100*(lat-m.latMeanS)/m.latMeanS)
		if !(lat < prevLat) {
			t.Errorf("%s: pre-failure latency %.1f ms does not fall below the shorter CI's %.1f ms", m.variant, lat, prevLat)
		}
		prevLat = lat
	}
}

// preFailureLatency is the mean over a run's faults of the mean p99 latency
// in the 300 s before each, as Khaos's avgLat.
func preFailureLatency(t *testing.T, run string) float64 {
	t.Helper()
	samples, err := results.ReadSamples(filepath.Join(run, results.TimeseriesFile))
	if err != nil {
		t.Fatal(err)
	}
	events, err := results.ReadEvents(filepath.Join(run, results.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	sum, n := 0.0, 0
	for _, e := range events {
		if e.Kind != results.KindFault {
			continue
		}
		r, err := measure.DetectRecovery(samples, e.TimeS, measure.RecoveryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sum += r.PreLatencyMs
		n++
	}
	return sum / float64(n)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestCalibrateBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.csv", "throughput,checkpoint_interval_s,recovery_s\n60000,30,150\n70000,60,200\n")
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"missing column", []string{"--measured", write("nocol.csv", "throughput,checkpoint_interval_s\n60000,30\n")},
			"missing column recovery_s"},
		{"non-positive recovery", []string{"--measured", write("neg.csv", "throughput,checkpoint_interval_s,recovery_s\n60000,30,150\n60000,60,0\n")},
			"neg.csv:3: recovery_s: must be in (0, 604800] seconds"},
		{"unknown --fit", []string{"--measured", good, "--fit", "cost_scale,restrat_delay"},
			`unknown parameter "restrat_delay"; choose from`},
		{"holdout matches nothing", []string{"--measured", good, "--holdout", "45s"},
			"no measured point has a checkpoint interval of 45s"},
		{"holdout of everything", []string{"--measured", good, "--holdout", "30s,60s"},
			"holds out every point"},
		{"latency fit without latency", []string{"--measured", good, "--fit", "latency_base"},
			"has no latency_ms"},
		{"no measured file", []string{"--measured", filepath.Join(dir, "nope.csv")}, "nope.csv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"calibrate", "--scenario", ysbBase, "--out", filepath.Join(dir, "x.yaml")}, c.args...)
			_, stderr, code, _ := runCLI(t, args...)
			if code != 2 || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, stderr %q; want exit 2 with %q", code, stderr, c.msg)
			}
			if _, err := os.Stat(filepath.Join(dir, "x.yaml")); err == nil {
				t.Error("a failed calibration wrote its output")
			}
		})
	}
}

// TestCalibrateConvert turns the Khaos log and a measured series into
// tables; the series' recovery comes from the simulator's own rule.
func TestCalibrateConvert(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "k.csv")
	stdout, stderr, code, _ := runCLI(t, "calibrate", "convert", "--khaos", "../internal/calibrate/testdata/khaos-ysb-failures.txt", "--out", out)
	if code != 0 || !strings.Contains(stdout, "60 points") || !strings.Contains(stderr, "skipped 12") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	want, _ := os.ReadFile(ysbMeasured)
	if got, _ := os.ReadFile(out); string(got) != string(want) {
		t.Error("converting failures.txt no longer gives the committed scenarios/measured/khaos-ysb-failures.csv")
	}
	// a simulated run stands in for a measured one: its recovery events are
	// the truth the series detector must find again
	run := filepath.Join(dir, "run")
	if _, stderr, code, _ := runCLI(t, "run", "../scenarios/demo.yaml", "--out", run); code != 0 {
		t.Fatal(stderr)
	}
	events, err := results.ReadEvents(filepath.Join(run, results.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	var faults []string
	var truth []float64
	for _, e := range events {
		switch {
		case e.Kind == results.KindFault:
			faults = append(faults, strconv.FormatFloat(e.TimeS, 'f', -1, 64)+"s")
		case e.Kind == results.KindRecovered && !strings.HasPrefix(e.Reason, "reconfiguration"):
			truth = append(truth, *e.DurationS)
		}
	}
	if len(faults) == 0 || len(faults) != len(truth) {
		t.Fatalf("demo has %d faults and %d recoveries", len(faults), len(truth))
	}
	table := filepath.Join(dir, "s.parquet")
	_, stderr, code, _ = runCLI(t, "calibrate", "convert", "--series", filepath.Join(run, results.TimeseriesFile),
		"--fault-at", strings.Join(faults, ","), "--ci", "30s", "--out", table)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, stderr, code, _ = runCLI(t, "calibrate", "convert", "--series", filepath.Join(run, results.TimeseriesFile), "--out", table)
	if code != 2 || !strings.Contains(stderr, "--fault-at") {
		t.Errorf("series without --fault-at: exit %d, %s", code, stderr)
	}
	pts, err := ingest.ReadMeasured(table)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pts {
		// the detector sees 1 s samples, the simulator exact times
		if math.Abs(p.RecoveryS-truth[i]) > 2 {
			t.Errorf("fault %d: recovery %.1f s from the series, %.2f s in the simulator", i, p.RecoveryS, truth[i])
		}
	}
}

// TestCalibrateCreatesOutputFolders: --out in a folder that does not exist
// yet is created before the fit, not found missing after it.
func TestCalibrateCreatesOutputFolders(t *testing.T) {
	out := filepath.Join(t.TempDir(), "new", "nested", "cal.yaml")
	_, stderr, code, _ := runCLI(t, "calibrate", "--scenario", "../scenarios/live-traffic.yaml",
		"--measured", "../scenarios/measured/live-traffic-profile.csv", "--fit", "warmup", "--max-evaluations", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{out, filepath.Join(strings.TrimSuffix(out, ".yaml")+"-fit", "report.md")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

// TestCalibrateValidation: --cv and --replications put the cross-validated
// errors and the interval coverage of the twin and both baselines into
// fit.json and report.md (a short fit: one parameter, 3 evaluations a fold).
func TestCalibrateValidation(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cal.yaml")
	stdout, stderr, code, _ := runCLI(t, "calibrate", "--scenario", "../scenarios/live-traffic.yaml",
		"--measured", "../scenarios/measured/live-traffic-profile.csv", "--fit", "restart_delay", "--max-evaluations", "3",
		"--cv", "k=2", "--replications", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "cross-validation (k=2, 2 folds)") || !strings.Contains(stderr, "cross-validation 2/2") {
		t.Errorf("stdout %q\nstderr %q", stdout, stderr)
	}
	var rep struct {
		Models []map[string]any `json:"models"`
		CV     struct {
			Scheme string           `json:"scheme"`
			Folds  []map[string]any `json:"folds"`
			Twin   map[string]any   `json:"twin_recovery_mape_pct"`
		} `json:"cross_validation"`
		Fit map[string]any `json:"fit"`
	}
	readJSON(t, filepath.Join(dir, "cal-fit", "fit.json"), &rep)
	if len(rep.Models) != 5 || rep.Models[0]["model"] != "twin" || rep.Models[1]["model"] != "closed_form" || rep.Models[2]["model"] != "ols" ||
		rep.Models[3]["model"] != "median" || rep.Models[4]["model"] != "daedalus" {
		t.Errorf("models %v", rep.Models)
	}
	for _, m := range rep.Models {
		if _, ok := m["cv_recovery_mape_pct"]; !ok {
			t.Errorf("%v: no cross-validated error", m["model"])
		}
	}
	if rep.CV.Scheme != "k=2" || len(rep.CV.Folds) != 2 || rep.CV.Twin["mean"] == nil || rep.Fit["interval_coverage_pct"] == nil {
		t.Errorf("cross-validation %+v, fit %v", rep.CV, rep.Fit)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "cal-fit", "report.md"))
	for _, s := range []string{"## Cross-validation (k=2)", "| closed form |", "90 % interval coverage"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	_, stderr, code, _ = runCLI(t, "calibrate", "--scenario", ysbBase, "--measured", ysbMeasured, "--cv", "k=1", "--out", filepath.Join(dir, "x.yaml"))
	if code != 2 || !strings.Contains(stderr, "--cv: want ci") {
		t.Errorf("--cv k=1: exit %d, %s", code, stderr)
	}
}
