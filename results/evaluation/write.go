package evaluation

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// Write writes evaluation.md, failures.csv, variants.csv and the figures
// evaluation-recovery, evaluation-latency (each variant's latency minus
// the first's, by quantile, beside the tails), evaluation-panels (small
// multiples, a row per variant) and
// evaluation-faults (a zoom per fault; none without faults), each .png,
// .svg and .pdf, into dir and returns their paths. opts (e.g.
// figures.WithWidth) go to every figure.
func (ev *Evaluation) Write(dir string, opts ...figures.Option) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results: evaluation: %w", err)
	}
	var paths []string
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{MarkdownFile, ev.WriteMarkdown},
		{FailuresCSV, ev.writeFailuresCSV},
		{VariantsCSV, ev.writeVariantsCSV},
	} {
		var b strings.Builder
		if err := f.write(&b); err != nil {
			return paths, fmt.Errorf("results: evaluation: %s: %w", f.name, err)
		}
		p := filepath.Join(dir, f.name)
		if err := results.WriteFileAtomic(p, []byte(b.String())); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	figs, err := ev.plotRecovery(filepath.Join(dir, RecoveryFigure), opts...)
	if err != nil {
		return paths, err
	}
	paths = append(paths, figs...)
	dirs, labels := make([]string, len(ev.Variants)), make([]string, len(ev.Variants))
	for i, v := range ev.Variants {
		dirs[i], labels[i] = v.Dir, v.Label
	}
	title := append([]figures.Option{figures.WithTitle(ev.figureTitle())}, opts...)
	latOpts := append(slices.Clone(title), figures.WithLatencyColumn(ev.LatencyColumn))
	if figs, err = figures.PlotLatencyDistributions(dirs, labels, filepath.Join(dir, LatencyFigure), figures.LatencyOverview, latOpts...); err != nil {
		return paths, err
	}
	paths = append(paths, figs...)
	if figs, err = figures.PlotPanels(dirs, labels, filepath.Join(dir, PanelsFigure), title...); err != nil {
		return paths, err
	}
	paths = append(paths, figs...)
	// No figure when no variant had a fault.
	if figs, err = figures.PlotFaults(dirs, labels, filepath.Join(dir, FaultsFigure), title...); err != nil {
		return paths, err
	}
	return append(paths, figs...), nil
}

// WriteSummaryTable prints one aligned line per variant: the figures of
// variants.csv that fit a terminal. The latency columns are named by their
// definition: the series' (latency-marker p99 by default: marker_p99_…) and
// the steady event-time mean.
func (ev *Evaluation) WriteSummaryTable(w io.Writer) error {
	lat := latencyShortName(ev.LatencyColumn)
	rows := [][]string{{"variant", "CI_s", "failures", "rec_median_s", "rec_mean_s", "rec_max_s", ">R",
		lat + "_mean_ms", lat + "_median_ms", lat + ">L", "windows>L", "steady_event_mean_ms", "reconf", "CI_mean_s", "worker_s"}}
	for _, v := range ev.Variants {
		rows = append(rows, []string{v.Label, fmtG(v.CheckpointIntervalS), strconv.Itoa(len(v.Failures)),
			fmtNum(v.RecoveryMedianS), fmtNum(v.RecoveryMeanS), fmtNum(v.RecoveryMaxS),
			strconv.Itoa(v.RecoveryViolations), fmtNum(v.LatencyMeanMs), fmtNum(v.LatencyMedianMs),
			fmtPct(v.LatencyOverPct), fmt.Sprintf("%d/%d", v.LatencyWindowsOver, v.LatencyWindows),
			fmtNum(v.LatencySteadyMeanMs), strconv.Itoa(v.Reconfigurations), fmtNum(v.CheckpointIntervalMeanS),
			fmtNum(v.WorkerSeconds)})
	}
	right := make([]bool, len(rows[0]))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	var b strings.Builder
	textfmt.WriteAligned(&b, rows, right)
	_, err := io.WriteString(w, b.String())
	return err
}

func (ev *Evaluation) writeFailuresCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"variant", "failure", "fault_at_s", "throughput", "latency_ms", "recovery_s", "checkpoint_interval_s", "latency_column"})
	for _, v := range ev.Variants {
		for _, f := range v.Failures {
			cw.Write([]string{v.Label, strconv.Itoa(f.Index), csvNum(f.FaultAtS), csvNum(f.ThroughputMean),
				csvNum(f.LatencyMeanMs), csvNum(f.RecoveryS), csvNum(f.CIS), ev.LatencyColumn})
		}
	}
	cw.Flush()
	return cw.Error()
}

func (ev *Evaluation) writeVariantsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"variant", "policy", "checkpoint_interval_s", "failures", "recovered",
		"recovery_median_s", "recovery_mean_s", "recovery_max_s", "recovery_bound_s", "recovery_violations",
		"latency_bound_ms", "latency_mean_ms", "latency_median_ms", "latency_over_bound_pct",
		"latency_windows_over", "latency_windows", "latency_steady_mean_ms",
		"reconfigurations", "ci_changes", "checkpoint_interval_mean_s", "worker_seconds", "latency_column"})
	for _, v := range ev.Variants {
		changes := make([]string, len(v.CIChanges))
		for i, c := range v.CIChanges {
			changes[i] = csvNum(c.AtS) + ":" + csvNum(c.CheckpointIntervalS)
		}
		cw.Write([]string{v.Label, v.Policy, csvNum(v.CheckpointIntervalS), strconv.Itoa(len(v.Failures)), strconv.Itoa(v.Recovered),
			csvNum(v.RecoveryMedianS), csvNum(v.RecoveryMeanS), csvNum(v.RecoveryMaxS), csvNum(v.RecoveryBoundS), strconv.Itoa(v.RecoveryViolations),
			csvNum(v.LatencyBoundMs), csvNum(v.LatencyMeanMs), csvNum(v.LatencyMedianMs), csvNum(v.LatencyOverPct),
			strconv.Itoa(v.LatencyWindowsOver), strconv.Itoa(v.LatencyWindows), csvNum(v.LatencySteadyMeanMs),
			strconv.Itoa(v.Reconfigurations), strings.Join(changes, ";"), csvNum(v.CheckpointIntervalMeanS), csvNum(v.WorkerSeconds),
			ev.LatencyColumn})
	}
	cw.Flush()
	return cw.Error()
}

func (ev *Evaluation) maxDuration() float64 {
	d := 0.0
	for _, v := range ev.Variants {
		d = max(d, v.DurationS)
	}
	return d
}

// plotRecovery draws recovery time against the throughput before each
// failure (figures.PlotRecovery): a line and filled markers per variant,
// the measured failures matched to a variant as hollow markers of its
// colour, and R as a labelled dashed line.
func (ev *Evaluation) plotRecovery(base string, opts ...figures.Option) ([]string, error) {
	variants := make([]figures.RecoveryVariant, len(ev.Variants))
	for i, v := range ev.Variants {
		pts := make([]figures.RecoveryPoint, len(v.Failures))
		for j, f := range v.Failures {
			pts[j] = figures.RecoveryPoint{Throughput: f.ThroughputMean, RecoveryS: f.RecoveryS}
		}
		variants[i] = figures.RecoveryVariant{Label: v.Label, Points: pts, BoundS: v.RecoveryBoundS}
	}
	var measured []figures.MeasuredRecoveries
	for _, m := range ev.Measured {
		if m.variantIndex < 0 {
			continue
		}
		pts := make([]figures.RecoveryPoint, len(m.measured))
		for j, f := range m.measured {
			pts[j] = figures.RecoveryPoint{Throughput: f.Throughput, RecoveryS: f.RecoveryS}
		}
		measured = append(measured, figures.MeasuredRecoveries{Label: "measured CI " + fmtCI(m.CheckpointIntervalS) + " s", Variant: m.variantIndex, Points: pts})
	}
	title := "recovery per failure"
	if t := ev.figureTitle(); t != "" {
		title = t + ": " + title
	}
	return figures.PlotRecovery(base, title, variants, measured, opts...)
}

// figureTitle is what the figures are titled by: the scenario and the
// runs' backends, "khaos-ysb (twin)"; "" when the runs' scenarios differ.
func (ev *Evaluation) figureTitle() string {
	if ev.Scenario == "" {
		return ""
	}
	return ev.Scenario + ev.backends
}
