package calibrate

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/kafka"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// Report file names inside a fit-report folder.
const (
	ReportJSON   = "fit.json"
	ReportPoints = "points.csv"
	ReportText   = "report.md"
)

// Capacity is the source rate (records/s) the scenario's job sustains at
// full CPU: what a fitted cost_scale means in the units a researcher reads.
func Capacity(sc scenario.Scenario) (float64, error) {
	g, err := flink.BuildGraph(sc.Job, sc.Job.Parallelism, kafka.New(sc.Kafka).SourceShares)
	if err != nil {
		return 0, err
	}
	return g.Capacity(1), nil
}

type jsonValue struct {
	Name    string     `json:"name"`
	Path    string     `json:"path"`
	Unit    string     `json:"unit"`
	Initial float64    `json:"initial"`
	Value   float64    `json:"value"`
	Bounds  [2]float64 `json:"bounds"`
	Typical [2]float64 `json:"typical"`
	Stage   string     `json:"stage"`
	Flags   []string   `json:"flags"`
	Doc     string     `json:"doc"`
}

type jsonStage struct {
	Name        string   `json:"name"`
	Fit         []string `json:"fit"`
	Loss        float64  `json:"loss"`
	Evaluations int      `json:"evaluations"`
	Status      string   `json:"optimiser_status"`
}

type jsonReport struct {
	Scenario         string           `json:"scenario"`
	Measured         string           `json:"measured"`
	Holdout          string           `json:"holdout,omitempty"`
	Parameters       []jsonValue      `json:"parameters"`
	CapacityBefore   float64          `json:"capacity_before_records_per_s"`
	CapacityAfter    float64          `json:"capacity_after_records_per_s"`
	Fit              map[string]any   `json:"fit"`
	HeldOut          map[string]any   `json:"held_out,omitempty"`
	Intervals        []map[string]any `json:"intervals"`
	Models           []map[string]any `json:"models"`
	Baselines        map[string]any   `json:"baselines"`
	CV               map[string]any   `json:"cross_validation,omitempty"`
	Replications     int              `json:"replications"`
	IntervalSeeds    int              `json:"interval_replications"`
	IntervalLevel    float64          `json:"interval_level"`
	Stages           []jsonStage      `json:"stages"`
	Warnings         []string         `json:"warnings"`
	Loss             float64          `json:"loss"`
	Evaluations      int              `json:"evaluations"`
	Status           string           `json:"optimiser_status"`
	BeforeCheckpoint float64          `json:"before_checkpoint_s"`
	SettleS          float64          `json:"settle_s"`
	HorizonS         float64          `json:"horizon_s"`
	Latency          string           `json:"latency_column"`
	WallS            float64          `json:"wall_time_s"`
}

// ReportInfo names the inputs, for the report's header.
type ReportInfo struct {
	Scenario, Measured, Holdout string
	Base                        scenario.Scenario // before calibration
}

// WriteReport writes fit.json, points.csv, report.md and the residual
// figures (recovery, and latency when measured) into dir.
func WriteReport(dir string, r *Result, info ReportInfo) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	before, err := Capacity(info.Base)
	if err != nil {
		return nil, err
	}
	after, err := Capacity(r.Scenario)
	if err != nil {
		return nil, err
	}
	rep := jsonReport{Scenario: info.Scenario, Measured: info.Measured, Holdout: info.Holdout,
		CapacityBefore: before, CapacityAfter: after, Fit: metricsJSON(r.Fit), Loss: r.Loss,
		Evaluations: r.Evaluations, Status: r.Status, BeforeCheckpoint: r.Options.BeforeCheckpoint,
		SettleS: r.Options.Settle, HorizonS: r.Options.Horizon, Latency: r.Options.Latency, WallS: r.WallS}
	if r.Held.N > 0 {
		rep.HeldOut = metricsJSON(r.Held)
	}
	for _, iv := range r.Intervals {
		rep.Intervals = append(rep.Intervals, intervalJSON(iv))
	}
	for _, v := range r.Values {
		rep.Parameters = append(rep.Parameters, jsonValue{Name: v.Name, Path: v.Path, Unit: v.Unit, Initial: v.Initial, Value: v.Fitted,
			Bounds: [2]float64{v.Lo, v.Hi}, Typical: v.Typical, Stage: stageOf(r, v.Name), Flags: append([]string{}, v.Flags...), Doc: v.Doc})
	}
	for _, st := range r.Stages {
		rep.Stages = append(rep.Stages, jsonStage(st))
	}
	rep.Models, rep.Baselines = modelsJSON(r), baselinesJSON(r.Baselines)
	if r.CV != nil {
		rep.CV = cvJSON(r.CV)
	}
	rep.Replications, rep.IntervalSeeds, rep.IntervalLevel = r.Options.Replications, r.Options.IntervalReplications, IntervalLevel
	rep.Warnings = append([]string{}, r.Warnings()...)
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	written := []string{filepath.Join(dir, ReportJSON), filepath.Join(dir, ReportPoints), filepath.Join(dir, ReportText)}
	for i, data := range [][]byte{append(js, '\n'), pointsCSV(r.Points), reportText(r, rep)} {
		if err := results.WriteFileAtomic(written[i], data); err != nil {
			return nil, err
		}
	}
	figs, err := plotFit(dir, r)
	return append(written, figs...), err
}

// WriteScenario writes the calibrated scenario to out, atomically: the base
// scenario file (info.Scenario, whose text is src) with the name
// NAME-calibrated and the fitted values patched in, under a comment naming
// the measured table, the fit report folder report and the fit.
func WriteScenario(out string, src []byte, r *Result, info ReportInfo, report string) error {
	sets := []scenario.Set{{Path: "name", Value: info.Base.Name + "-calibrated"}}
	for _, v := range r.Values {
		sets = append(sets, scenario.Set{Path: v.Path, Value: v.Text(v.Fitted)})
	}
	patched, err := scenario.Patch(info.Scenario, src, sets)
	if err != nil {
		return err
	}
	header := fmt.Sprintf("# Calibrated by `streamtwin calibrate` from %s on %s\n# (fit report: %s/%s). Fitted: %s.\n",
		filepath.Base(info.Scenario), filepath.Base(info.Measured), filepath.Base(report), ReportText, fittedSummary(r))
	return results.WriteFileAtomic(out, append([]byte(header), patched...))
}

// fittedSummary is the fit in one line: each value and the recovery errors.
func fittedSummary(r *Result) string {
	var parts []string
	for _, v := range r.Values {
		parts = append(parts, v.Name+" "+v.Text(v.Fitted))
	}
	s := strings.Join(parts, ", ") + fmt.Sprintf("; recovery MAPE %.1f %% on the fitted points", r.Fit.RecoveryMAPE)
	if r.Held.N > 0 {
		s += fmt.Sprintf(", %.1f %% held out", r.Held.RecoveryMAPE)
	}
	return s
}

// finite maps NaN (no latency measured, one point only) to null, which
// encoding/json cannot write as a number.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func metricsJSON(m Metrics) map[string]any {
	return map[string]any{"n": m.N, "recovery_mape_pct": finite(m.RecoveryMAPE), "recovery_r2": finite(m.RecoveryR2),
		"latency_n": m.LatencyN, "latency_mape_pct": finite(m.LatencyMAPE), "latency_r2": finite(m.LatencyR2),
		"not_recovered": m.NotRecoveredIn, "censored": m.Censored, "closed_form_recovery_mape_pct": finite(m.ClosedFormMAPE),
		"ols_recovery_mape_pct": finite(m.OLSMAPE), "median_recovery_mape_pct": finite(m.MedianMAPE),
		"daedalus_recovery_mape_pct": finite(m.DaedalusMAPE), "interval_coverage_pct": finite(100 * m.Coverage)}
}

func intervalJSON(iv IntervalMetrics) map[string]any {
	return map[string]any{"checkpoint_interval_s": iv.CheckpointIntervalS, "held_out": iv.HeldOut, "n": iv.N,
		"recovery_mape_pct": finite(iv.RecoveryMAPE), "measured_median_recovery_s": finite(iv.MeasuredMedianS),
		"predicted_median_recovery_s": finite(iv.PredictedMedianS), "measured_mean_latency_ms": finite(iv.MeasuredLatencyMs),
		"predicted_mean_latency_ms": finite(iv.PredictedLatencyMs), "closed_form_recovery_mape_pct": finite(iv.ClosedFormMAPE),
		"ols_recovery_mape_pct": finite(iv.OLSMAPE), "median_recovery_mape_pct": finite(iv.MedianMAPE),
		"daedalus_recovery_mape_pct": finite(iv.DaedalusMAPE), "interval_coverage_pct": finite(100 * iv.Coverage)}
}

// stageOf names the fit stage a parameter was fitted in.
func stageOf(r *Result, name string) string {
	for _, st := range r.Stages {
		if slices.Contains(st.Fit, name) {
			return st.Name
		}
	}
	return ""
}

// modelsJSON sets the twin's and the baselines' recovery MAPE side by
// side: fitted, held out and, with cross-validation, the mean and spread
// over folds.
func modelsJSON(r *Result) []map[string]any {
	type model struct {
		name      string
		fit, held float64
		cv        func(*CVResult) Spread
		present   bool
	}
	models := []model{
		{"twin", r.Fit.RecoveryMAPE, r.Held.RecoveryMAPE, func(c *CVResult) Spread { return c.Twin }, true},
		{"closed_form", r.Fit.ClosedFormMAPE, r.Held.ClosedFormMAPE, func(c *CVResult) Spread { return c.ClosedForm }, r.Baselines.ClosedForm != nil},
		{"ols", r.Fit.OLSMAPE, r.Held.OLSMAPE, func(c *CVResult) Spread { return c.OLS }, r.Baselines.OLS != nil},
		{"median", r.Fit.MedianMAPE, r.Held.MedianMAPE, func(c *CVResult) Spread { return c.Median }, r.Baselines.Median != nil},
		{"daedalus", r.Fit.DaedalusMAPE, r.Held.DaedalusMAPE, func(c *CVResult) Spread { return c.Daedalus }, r.Baselines.Daedalus != nil},
	}
	var out []map[string]any
	for _, m := range models {
		j := map[string]any{"model": m.name, "fitted": m.present, "fit_recovery_mape_pct": finite(m.fit)}
		if r.Held.N > 0 {
			j["held_out_recovery_mape_pct"] = finite(m.held)
		}
		if r.CV != nil {
			j["cv_recovery_mape_pct"] = spreadJSON(m.cv(r.CV))
		}
		out = append(out, j)
	}
	return out
}

func baselinesJSON(b Baselines) map[string]any {
	out := map[string]any{"closed_form_formula": "rec = D + λ·(CI − before_checkpoint + D)/(μ − λ)",
		"ols_formula":      "rec = intercept + Σ coefficient·column",
		"daedalus_formula": "rec = 2d + λ·(CI + d)/(c·parallelism − λ)"}
	if cf := b.ClosedForm; cf != nil {
		out["closed_form"] = map[string]any{"downtime_s": cf.DowntimeS, "capacity_records_per_s": cf.Capacity, "before_checkpoint_s": cf.BeforeS, "n": cf.N}
	} else {
		out["closed_form_note"] = b.ClosedFormNote
	}
	if l := b.OLS; l != nil {
		coef := map[string]any{}
		for k, c := range l.Columns {
			coef[c] = l.Coef[k]
		}
		out["ols"] = map[string]any{"intercept": l.Intercept, "coefficients": coef, "r2": finite(l.R2), "n": l.N}
	} else {
		out["ols_note"] = b.OLSNote
	}
	if b.Median != nil {
		out["median_s"] = *b.Median
	} else {
		out["median_note"] = b.MedianNote
	}
	if d := b.Daedalus; d != nil {
		out["daedalus"] = map[string]any{"downtime_s": d.DowntimeS, "capacity_per_subtask": d.CapacityPerSubtask, "n": d.N}
	} else {
		out["daedalus_note"] = b.DaedalusNote
	}
	return out
}

func spreadJSON(s Spread) map[string]any {
	return map[string]any{"mean": finite(s.Mean), "sd": finite(s.SD), "min": finite(s.Min), "max": finite(s.Max), "folds": s.N}
}

func cvJSON(cv *CVResult) map[string]any {
	var folds []map[string]any
	for _, f := range cv.Folds {
		folds = append(folds, map[string]any{"fold": f.Label, "n": f.N, "twin_recovery_mape_pct": finite(f.Twin),
			"closed_form_recovery_mape_pct": finite(f.ClosedForm), "ols_recovery_mape_pct": finite(f.OLS),
			"median_recovery_mape_pct": finite(f.Median), "daedalus_recovery_mape_pct": finite(f.Daedalus),
			"interval_coverage_pct": finite(100 * f.Coverage)})
	}
	cov := cv.Coverage
	for _, v := range []*float64{&cov.Mean, &cov.SD, &cov.Min, &cov.Max} {
		*v *= 100
	}
	return map[string]any{"scheme": cv.Scheme, "folds": folds, "twin_recovery_mape_pct": spreadJSON(cv.Twin),
		"closed_form_recovery_mape_pct": spreadJSON(cv.ClosedForm), "ols_recovery_mape_pct": spreadJSON(cv.OLS),
		"median_recovery_mape_pct": spreadJSON(cv.Median), "daedalus_recovery_mape_pct": spreadJSON(cv.Daedalus),
		"interval_coverage_pct": spreadJSON(cov), "pooled": metricsJSON(cv.Pooled)}
}

func pointsCSV(pts []PointResult) []byte {
	var b strings.Builder
	b.WriteString("label,throughput,checkpoint_interval_s,held_out,measured_recovery_s,censored,predicted_recovery_s,recovered,measured_latency_ms,predicted_latency_ms," +
		"predicted_recovery_lo_s,predicted_recovery_hi_s,closed_form_recovery_s,ols_recovery_s,median_recovery_s,daedalus_recovery_s\n")
	for _, p := range pts {
		fmt.Fprintf(&b, "%s,%s,%s,%t,%s,%t,%s,%t,%s,%s,%s,%s,%s,%s,%s,%s\n", csvText(p.Label), num(p.Throughput), num(p.CheckpointIntervalS), p.HeldOut,
			num(p.Point.RecoveryS), p.Point.Censored, num(p.Prediction.RecoveryS), p.Recovered, num(p.Point.LatencyMs), num(p.Prediction.LatencyMs),
			num(p.RecoveryLo), num(p.RecoveryHi), num(p.ClosedFormS), num(p.OLSS), num(p.MedianS), num(p.DaedalusS))
	}
	return []byte(b.String())
}

func csvText(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// num prints a float for CSV; NaN is an empty field (pandas reads NaN).
func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

func reportText(r *Result, rep jsonReport) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Calibration of %s\n\nMeasured: `%s`", rep.Scenario, rep.Measured)
	if rep.Holdout != "" {
		fmt.Fprintf(&b, "; held out: %s", rep.Holdout)
	}
	fmt.Fprintf(&b, ".\n\nEach measured point was simulated at its throughput and CI with one crash of the sink's TaskManager %g s before a checkpoint (Khaos's alignment), after %g s of steady load; latency is the mean %s over the %g s before the crash.\n\n",
		r.Options.BeforeCheckpoint, r.Options.Settle, r.Options.Latency, r.Options.Window)
	if n, m := r.Options.Replications, r.Options.IntervalReplications; m > 1 {
		fmt.Fprintf(&b, "Predictions are means over %s per point; the prediction interval is the central %.0f %% of %s' predictions.\n\n",
			textfmt.Plural(n, "seed"), 100*IntervalLevel, textfmt.Plural(m, "seed"))
	}
	if ws := r.Warnings(); len(ws) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range ws {
			fmt.Fprintf(&b, "- %s\n", w)
		}
		b.WriteString("\n")
	}
	writeParameters(&b, r, rep)
	writeModels(&b, r)
	writeIntervals(&b, r)
	if r.CV != nil {
		writeCV(&b, r.CV)
	}
	fmt.Fprintf(&b, "\nOptimiser: Nelder–Mead (gonum/optimize), %d loss evaluations (%s), loss %.4f; %.1f s wall.\n",
		r.Evaluations, r.Status, r.Loss, r.WallS)
	if n := r.Fit.NotRecoveredIn + r.Held.NotRecoveredIn; n > 0 {
		fmt.Fprintf(&b, "\n%d point(s) did not recover within the %g s horizon in the twin (capacity below the load?); they count as %g s.\n", n, r.Options.Horizon, r.Options.Horizon)
	}
	return []byte(b.String())
}

func writeParameters(b *strings.Builder, r *Result, rep jsonReport) {
	b.WriteString("## Parameters\n\n| parameter | scenario path | stage | before | fitted | unit | bounds | typical | flags |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, v := range r.Values {
		flags := strings.Join(v.Flags, "; ")
		if flags == "" {
			flags = "–"
		}
		fmt.Fprintf(b, "| %s | `%s` | %s | %.4g | %.4g | %s | %g–%g | %g–%g | %s |\n", v.Name, v.Path, stageOf(r, v.Name), v.Initial, v.Fitted, v.Unit,
			v.Lo, v.Hi, v.Typical[0], v.Typical[1], flags)
	}
	fmt.Fprintf(b, "\nJob capacity at full CPU: %.0f → %.0f records/s. The recovery parameters were fitted first, on recovery error; the latency stage's with them fixed, on latency error (docs/calibration.md).\n\n", rep.CapacityBefore, rep.CapacityAfter)
}

// writeModels is the twin beside the baselines, fitted on the same points.
func writeModels(b *strings.Builder, r *Result) {
	b.WriteString("## Errors: the twin and the baselines\n\n")
	b.WriteString("| set | points | censored | twin recovery MAPE | closed form | OLS | median | Daedalus | twin R² | 90 % interval coverage | latency MAPE | latency R² |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(name string, m Metrics) {
		fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, m.N, m.Censored, pct(m.RecoveryMAPE), pct(m.ClosedFormMAPE), pct(m.OLSMAPE),
			pct(m.MedianMAPE), pct(m.DaedalusMAPE), fixed(m.RecoveryR2), share(m.Coverage), pct(m.LatencyMAPE), fixed(m.LatencyR2))
	}
	row("fitted", r.Fit)
	if r.Held.N > 0 {
		row("held out", r.Held)
	}
	b.WriteString("\nBaselines, fitted on the same fitted points:\n\n")
	if cf := r.Baselines.ClosedForm; cf != nil {
		fmt.Fprintf(b, "- closed form rec = D + λ·(CI − %g s + D)/(μ − λ): D = %.1f s, μ = %.0f records/s\n", cf.BeforeS, cf.DowntimeS, cf.Capacity)
	} else {
		fmt.Fprintf(b, "- closed form: not fitted (%s)\n", r.Baselines.ClosedFormNote)
	}
	if l := r.Baselines.OLS; l != nil {
		fmt.Fprintf(b, "- OLS %s (R² %.3f)\n", l, l.R2)
	} else {
		fmt.Fprintf(b, "- OLS: not fitted (%s)\n", r.Baselines.OLSNote)
	}
	if m := r.Baselines.Median; m != nil {
		fmt.Fprintf(b, "- median of the fitted recoveries: %.1f s\n", *m)
	} else {
		fmt.Fprintf(b, "- median: not fitted (%s)\n", r.Baselines.MedianNote)
	}
	if d := r.Baselines.Daedalus; d != nil {
		fmt.Fprintf(b, "- Daedalus rec = 2d + λ·(CI + d)/(c·p − λ): d = %.1f s, c = %.0f records/s per subtask\n", d.DowntimeS, d.CapacityPerSubtask)
	} else {
		fmt.Fprintf(b, "- Daedalus: not fitted (%s)\n", r.Baselines.DaedalusNote)
	}
	if r.Fit.Censored+r.Held.Censored > 0 {
		b.WriteString("\nA censored recovery is a lower bound (the measurement's cap): the baselines are fitted on the uncensored points, and a prediction at or above a censored point's cap counts as exact, one below it as off by its shortfall.\n")
	}
}

func writeIntervals(b *strings.Builder, r *Result) {
	b.WriteString("\n## Per checkpoint interval\n\n| CI (s) | set | points | recovery MAPE twin | closed form | OLS | coverage | median recovery measured (s) | twin (s) | mean latency measured (ms) | twin (ms) |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, iv := range r.Intervals {
		set := "fitted"
		if iv.HeldOut {
			set = "held out"
		}
		fmt.Fprintf(b, "| %g | %s | %d | %s | %s | %s | %s | %.1f | %.1f | %s | %s |\n", iv.CheckpointIntervalS, set, iv.N, pct(iv.RecoveryMAPE),
			pct(iv.ClosedFormMAPE), pct(iv.OLSMAPE), share(iv.Coverage), iv.MeasuredMedianS, iv.PredictedMedianS, fixed0(iv.MeasuredLatencyMs), fixed0(iv.PredictedLatencyMs))
	}
}

func writeCV(b *strings.Builder, cv *CVResult) {
	fmt.Fprintf(b, "\n## Cross-validation (%s)\n\nEach fold fitted the twin and both baselines on the other folds' points (the whole table; --holdout does not apply) and scored them on its own. Recovery MAPE, mean ± s.d. over folds [min–max]:\n\n", cv.Scheme)
	b.WriteString("| model | mean ± s.d. | range | pooled |\n|---|---|---|---|\n")
	for _, m := range []struct {
		name   string
		s      Spread
		pooled float64
	}{{"twin", cv.Twin, cv.Pooled.RecoveryMAPE}, {"closed form", cv.ClosedForm, cv.Pooled.ClosedFormMAPE}, {"OLS", cv.OLS, cv.Pooled.OLSMAPE},
		{"median", cv.Median, cv.Pooled.MedianMAPE}, {"Daedalus", cv.Daedalus, cv.Pooled.DaedalusMAPE}} {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", m.name, spreadText(m.s, 1), rangeText(m.s, 1), pct(m.pooled))
	}
	if !math.IsNaN(cv.Coverage.Mean) {
		fmt.Fprintf(b, "| twin 90 %% interval coverage | %s | %s | %s |\n", spreadText(cv.Coverage, 100), rangeText(cv.Coverage, 100), share(cv.Pooled.Coverage))
	}
	b.WriteString("\n| fold | points | twin | closed form | OLS | median | Daedalus | coverage |\n|---|---|---|---|---|---|---|---|\n")
	for _, f := range cv.Folds {
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", f.Label, f.N, pct(f.Twin), pct(f.ClosedForm), pct(f.OLS), pct(f.Median), pct(f.Daedalus), share(f.Coverage))
	}
}

func spreadText(s Spread, scale float64) string {
	if math.IsNaN(s.Mean) {
		return "–"
	}
	if math.IsNaN(s.SD) {
		return fmt.Sprintf("%.1f %%", scale*s.Mean)
	}
	return fmt.Sprintf("%.1f ± %.1f %%", scale*s.Mean, scale*s.SD)
}

func rangeText(s Spread, scale float64) string {
	if math.IsNaN(s.Min) {
		return "–"
	}
	return fmt.Sprintf("%.1f–%.1f %%", scale*s.Min, scale*s.Max)
}

// share prints a share in [0, 1] as a percentage.
func share(v float64) string { return pct(100 * v) }

// Warnings are what a reader of the fit must know: a parameter at a bound
// or outside its typical range, and a twin whose held-out recovery error
// (or, without held-out points, cross-validated mean) is not below every
// baseline's.
func (r *Result) Warnings() []string {
	var out []string
	for _, v := range r.Values {
		for _, f := range v.Flags {
			out = append(out, fmt.Sprintf("%s = %s is %s", v.Name, v.Text(v.Fitted), f))
		}
	}
	m, set := r.Held, "held-out"
	twin, cf, ols, med, dae := m.RecoveryMAPE, m.ClosedFormMAPE, m.OLSMAPE, m.MedianMAPE, m.DaedalusMAPE
	if r.Held.N == 0 {
		if r.CV == nil {
			return out
		}
		cv := r.CV
		twin, cf, ols, med, dae, set = cv.Twin.Mean, cv.ClosedForm.Mean, cv.OLS.Mean, cv.Median.Mean, cv.Daedalus.Mean, "cross-validated"
	}
	for _, b := range []struct {
		name string
		mape float64
	}{{"the closed-form recovery model", cf}, {"the OLS", ols}, {"the median", med}, {"Daedalus's model", dae}} {
		if !math.IsNaN(b.mape) && !(twin < b.mape) {
			out = append(out, fmt.Sprintf("the twin's %s recovery MAPE %.1f %% is not below %s's %.1f %%", set, twin, b.name, b.mape))
		}
	}
	return out
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", v)
}

func fixed(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.3f", v)
}

func fixed0(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

// plotFit draws recovery.{png,svg,pdf}, with the twin's and the baselines'
// errors beside, and, with latency, latency.*.
func plotFit(dir string, r *Result) ([]string, error) {
	var rec, lat []figures.FitPoint
	for _, p := range r.Points {
		g := fmt.Sprintf("CI %g s", p.CheckpointIntervalS)
		rec = append(rec, figures.FitPoint{Group: g, X: p.Throughput, Measured: p.Point.RecoveryS, Predicted: p.Prediction.RecoveryS,
			HeldOut: p.HeldOut, Censored: p.Point.Censored})
		if !math.IsNaN(p.Point.LatencyMs) && !math.IsNaN(p.Prediction.LatencyMs) {
			lat = append(lat, figures.FitPoint{Group: g, X: p.Throughput, Measured: p.Point.LatencyMs, Predicted: p.Prediction.LatencyMs, HeldOut: p.HeldOut})
		}
	}
	out, err := figures.PlotFitCompared(filepath.Join(dir, "recovery"), "Recovery time: twin vs measured", "recovery time (s)", "throughput (records/s)", rec, modelErrors(r), figures.FitObserved("measured"))
	if err != nil || len(lat) == 0 {
		return out, err
	}
	more, err := figures.PlotFit(filepath.Join(dir, "latency"), "Pre-failure latency: twin vs measured", "latency (ms)", "throughput (records/s)", lat, figures.FitObserved("measured"))
	return append(out, more...), err
}

// modelErrors are the recovery MAPE of the twin and the baselines per CI
// (held-out CIs starred) and over the fitted and held-out sets.
func modelErrors(r *Result) figures.FitErrors {
	e := figures.FitErrors{Title: "recovery MAPE per CI (* held out)", Models: []string{"twin", "closed form", "OLS", "median", "Daedalus"}, MAPE: make([][]float64, 5)}
	add := func(group string, m Metrics) {
		e.Groups = append(e.Groups, group)
		for k, v := range []float64{m.RecoveryMAPE, m.ClosedFormMAPE, m.OLSMAPE, m.MedianMAPE, m.DaedalusMAPE} {
			e.MAPE[k] = append(e.MAPE[k], v)
		}
	}
	for _, iv := range r.Intervals {
		g := fmt.Sprintf("%g s", iv.CheckpointIntervalS)
		if iv.HeldOut {
			g += "*"
		}
		add(g, Metrics{RecoveryMAPE: iv.RecoveryMAPE, ClosedFormMAPE: iv.ClosedFormMAPE, OLSMAPE: iv.OLSMAPE, MedianMAPE: iv.MedianMAPE, DaedalusMAPE: iv.DaedalusMAPE})
	}
	add("fitted", r.Fit)
	if r.Held.N > 0 {
		add("held out", r.Held)
	}
	return e
}
