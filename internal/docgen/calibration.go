package docgen

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The committed fits (make calibration, make calibration-live) as
// docs/calibration.md reports them, read from their fit.json: nothing here
// runs the twin.
const (
	ysbFit = "scenarios/khaos-ysb-calibrated-fit/fit.json"
	// liveSpreadFit is make calibration-live's second step: the spread of
	// the catch-ups on the calibrated scenario, its centre fixed
	liveSpreadFit = "scenarios/live-traffic-calibrated-spread-fit/fit.json"
)

func calibrationBlocks() []Block {
	return []Block{
		{"khaos-ysb fit", func(c *Context) (string, error) { return fitTables(c, ysbFit, "`make calibration`") }},
		{"live-traffic fit", func(c *Context) (string, error) { return fitTables(c, liveCalibratedFit, "`make calibration-live`") }},
		{"live-traffic spread fit", func(c *Context) (string, error) {
			return fitTables(c, liveSpreadFit, "the second step of `make calibration-live`, on the fit above")
		}},
	}
}

// fitReport is the part of calibrate's fit.json the block reads.
type fitReport struct {
	calibrationFit
	Replications         int `json:"replications"`
	IntervalReplications int `json:"interval_replications"`
	Intervals            []struct {
		CI             float64 `json:"checkpoint_interval_s"`
		HeldOut        bool    `json:"held_out"`
		N              int     `json:"n"`
		Twin           float64 `json:"recovery_mape_pct"`
		ClosedForm     float64 `json:"closed_form_recovery_mape_pct"`
		OLS            float64 `json:"ols_recovery_mape_pct"`
		Coverage       float64 `json:"interval_coverage_pct"`
		MeasuredMedian float64 `json:"measured_median_recovery_s"`
		TwinMedian     float64 `json:"predicted_median_recovery_s"`
		MeasuredLatMs  float64 `json:"measured_mean_latency_ms"`
		TwinLatMs      float64 `json:"predicted_mean_latency_ms"`
	} `json:"intervals"`
	Models []struct {
		Model string `json:"model"`
		CV    *struct {
			Folds              int
			Mean, SD, Min, Max float64
		} `json:"cv_recovery_mape_pct"`
	} `json:"models"`
	Baselines struct {
		ClosedForm struct {
			Downtime float64 `json:"downtime_s"`
			Capacity float64 `json:"capacity_records_per_s"`
		} `json:"closed_form"`
	} `json:"baselines"`
}

func readFitReport(c *Context, path string) (fitReport, error) {
	var f fitReport
	b, err := os.ReadFile(c.Path(path))
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Parameters) == 0 || len(f.Intervals) == 0 {
		return f, fmt.Errorf("%s: no fitted parameter or no checkpoint interval (re-run its calibration)", path)
	}
	return f, nil
}

// pct formats a percentage already in percent.
func pct(x float64) string { return num(x) + " %" }

// fitTables: the fitted parameters, the three models' recovery MAPE held
// out, fitted and across the leave-one-CI-out folds with the twin's
// interval coverage, and the same per CI, of the fit at path.
func fitTables(c *Context, path, target string) (string, error) {
	f, err := readFitReport(c, path)
	if err != nil {
		return "", err
	}
	var params []string
	for _, p := range f.Parameters {
		v := num(p.Value)
		if p.Unit != "" {
			v += " " + p.Unit
		}
		if len(p.Flags) > 0 {
			v += " (flagged: " + strings.Join(p.Flags, "; ") + ")"
		}
		params = append(params, fmt.Sprintf("`%s` %s", p.Name, v))
	}
	var fittedCIs, heldCIs []string
	for _, iv := range f.Intervals {
		if iv.HeldOut {
			heldCIs = append(heldCIs, num(iv.CI)+" s")
		} else {
			fittedCIs = append(fittedCIs, num(iv.CI)+" s")
		}
	}
	seeds := fmt.Sprintf("%d seeds per point", f.Replications)
	if f.IntervalReplications > f.Replications {
		seeds += fmt.Sprintf(", intervals from %d", f.IntervalReplications)
	}
	intro := fmt.Sprintf("Fitted on the %s points of CI %s (%s, %s): %s; capacity %s records/s. "+
		"Recovery MAPE of the three models, all fitted on the same points, and the share of the measured recoveries "+
		"inside the twin's 90 %% interval:",
		num(f.Fit["n"]), andList(fittedCIs), target, seeds, andList(params), num(f.CapacityAfter))
	rows := [][]string{
		{"", "twin", fmt.Sprintf("closed form (D = %s s, μ = %s records/s)", num(f.Baselines.ClosedForm.Downtime), num(f.Baselines.ClosedForm.Capacity)), "Khaos OLS (refitted here)", "twin's 90 % interval coverage"},
		{fmt.Sprintf("held out, %s points (CI %s)", num(f.HeldOut["n"]), andList(heldCIs)), pct(f.HeldOut["recovery_mape_pct"]),
			pct(f.HeldOut["closed_form_recovery_mape_pct"]), pct(f.HeldOut["ols_recovery_mape_pct"]), pct(f.HeldOut["interval_coverage_pct"])},
		{fmt.Sprintf("fitted, %s points", num(f.Fit["n"])), pct(f.Fit["recovery_mape_pct"]),
			pct(f.Fit["closed_form_recovery_mape_pct"]), pct(f.Fit["ols_recovery_mape_pct"]), pct(f.Fit["interval_coverage_pct"])},
	}
	cv, folds := []string{"leave-one-CI-out, mean ± s.d. over the folds (range)"}, false
	for _, name := range []string{"twin", "closed_form", "ols"} {
		cell := "–"
		for _, m := range f.Models {
			if m.Model == name && m.CV != nil {
				cell, folds = fmt.Sprintf("%s ± %s (%s–%s)", num(m.CV.Mean), pct(m.CV.SD), num(m.CV.Min), pct(m.CV.Max)), true
			}
		}
		cv = append(cv, cell)
	}
	if folds {
		rows = append(rows, append(cv, "–"))
	}
	perCI := [][]string{{"CI", "set", "recovery MAPE twin / closed form / OLS", "median recovery measured", "twin", "90 % interval coverage", "pre-failure latency measured", "twin"}}
	for _, iv := range f.Intervals {
		set := "fitted"
		if iv.HeldOut {
			set = "held out"
		}
		perCI = append(perCI, []string{num(iv.CI) + " s", set, fmt.Sprintf("%s / %s / %s", num(iv.Twin), num(iv.ClosedForm), pct(iv.OLS)),
			seconds(iv.MeasuredMedian), seconds(iv.TwinMedian), pct(iv.Coverage), num(iv.MeasuredLatMs) + " ms", num(iv.TwinLatMs) + " ms"})
	}
	return wrap(intro, liveWidth) + "\n\n" + khaosMarkdownTable(rows) + "\n" + strings.TrimRight(khaosMarkdownTable(perCI), "\n"), nil
}
