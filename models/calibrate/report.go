package calibrate

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/kafka"
	"github.com/streamtwin/streamtwin/models/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
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
	Name    string  `json:"name"`
	Path    string  `json:"path"`
	Unit    string  `json:"unit"`
	Initial float64 `json:"initial"`
	Value   float64 `json:"value"`
	Doc     string  `json:"doc"`
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
		rep.Parameters = append(rep.Parameters, jsonValue{v.Name, v.Path, v.Unit, v.Initial, v.Fitted, v.Doc})
	}
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
	figs, err := plotFit(dir, r.Points)
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
		"not_recovered": m.NotRecoveredIn}
}

func intervalJSON(iv IntervalMetrics) map[string]any {
	return map[string]any{"checkpoint_interval_s": iv.CheckpointIntervalS, "held_out": iv.HeldOut, "n": iv.N,
		"recovery_mape_pct": finite(iv.RecoveryMAPE), "measured_median_recovery_s": finite(iv.MeasuredMedianS),
		"predicted_median_recovery_s": finite(iv.PredictedMedianS), "measured_mean_latency_ms": finite(iv.MeasuredLatencyMs),
		"predicted_mean_latency_ms": finite(iv.PredictedLatencyMs)}
}

func pointsCSV(pts []PointResult) []byte {
	var b strings.Builder
	b.WriteString("label,throughput,checkpoint_interval_s,held_out,measured_recovery_s,predicted_recovery_s,recovered,measured_latency_ms,predicted_latency_ms\n")
	for _, p := range pts {
		fmt.Fprintf(&b, "%s,%s,%s,%t,%s,%s,%t,%s,%s\n", csvText(p.Label), num(p.Throughput), num(p.CheckpointIntervalS), p.HeldOut,
			num(p.Point.RecoveryS), num(p.Prediction.RecoveryS), p.Recovered, num(p.Point.LatencyMs), num(p.Prediction.LatencyMs))
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
	if n := r.Options.Replications; n > 1 {
		fmt.Fprintf(&b, "Predictions are means over %d seeds per point.\n\n", n)
	}
	b.WriteString("## Parameters\n\n| parameter | scenario path | before | fitted | unit |\n|---|---|---|---|---|\n")
	for _, v := range r.Values {
		fmt.Fprintf(&b, "| %s | `%s` | %.4g | %.4g | %s |\n", v.Name, v.Path, v.Initial, v.Fitted, v.Unit)
	}
	fmt.Fprintf(&b, "\nJob capacity at full CPU: %.0f → %.0f records/s.\n\n", rep.CapacityBefore, rep.CapacityAfter)
	b.WriteString("## Errors\n\n| set | points | recovery MAPE | recovery R² | latency MAPE | latency R² |\n|---|---|---|---|---|---|\n")
	row := func(name string, m Metrics) {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", name, m.N, pct(m.RecoveryMAPE), fixed(m.RecoveryR2), pct(m.LatencyMAPE), fixed(m.LatencyR2))
	}
	row("fitted", r.Fit)
	if r.Held.N > 0 {
		row("held out", r.Held)
	}
	b.WriteString("\n## Per checkpoint interval\n\n| CI (s) | set | points | recovery MAPE | median recovery measured (s) | predicted (s) | mean latency measured (ms) | predicted (ms) |\n|---|---|---|---|---|---|---|---|\n")
	for _, iv := range r.Intervals {
		set := "fitted"
		if iv.HeldOut {
			set = "held out"
		}
		fmt.Fprintf(&b, "| %g | %s | %d | %s | %.1f | %.1f | %s | %s |\n", iv.CheckpointIntervalS, set, iv.N, pct(iv.RecoveryMAPE),
			iv.MeasuredMedianS, iv.PredictedMedianS, fixed0(iv.MeasuredLatencyMs), fixed0(iv.PredictedLatencyMs))
	}
	fmt.Fprintf(&b, "\nOptimiser: Nelder–Mead (gonum/optimize), %d loss evaluations, stopped by %s, loss %.4f; %.1f s wall.\n",
		r.Evaluations, r.Status, r.Loss, r.WallS)
	if n := r.Fit.NotRecoveredIn + r.Held.NotRecoveredIn; n > 0 {
		fmt.Fprintf(&b, "\n%d point(s) did not recover within the %g s horizon in the twin (capacity below the load?); they count as %g s.\n", n, r.Options.Horizon, r.Options.Horizon)
	}
	return []byte(b.String())
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

// plotFit draws recovery.{png,svg,pdf} and, with latency, latency.*.
func plotFit(dir string, pts []PointResult) ([]string, error) {
	var rec, lat []figures.FitPoint
	for _, p := range pts {
		g := fmt.Sprintf("CI %g s", p.CheckpointIntervalS)
		rec = append(rec, figures.FitPoint{Group: g, X: p.Throughput, Measured: p.Point.RecoveryS, Predicted: p.Prediction.RecoveryS, HeldOut: p.HeldOut})
		if !math.IsNaN(p.Point.LatencyMs) && !math.IsNaN(p.Prediction.LatencyMs) {
			lat = append(lat, figures.FitPoint{Group: g, X: p.Throughput, Measured: p.Point.LatencyMs, Predicted: p.Prediction.LatencyMs, HeldOut: p.HeldOut})
		}
	}
	out, err := figures.PlotFit(filepath.Join(dir, "recovery"), "Recovery time: twin vs measured", "recovery time (s)", "throughput (records/s)", rec)
	if err != nil || len(lat) == 0 {
		return out, err
	}
	more, err := figures.PlotFit(filepath.Join(dir, "latency"), "Pre-failure latency: twin vs measured", "latency (ms)", "throughput (records/s)", lat)
	return append(out, more...), err
}
