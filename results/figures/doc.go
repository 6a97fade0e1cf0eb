// Package figures draws streamtwin's figures from results: the figure of
// one run (PlotRun, `streamtwin run --plot`), several runs and sweeps side
// by side (PlotSweepLines, PlotLatencyDistributions, PlotPanels,
// PlotHeatmap), model fits (PlotFit), workload rates (PlotRates) and the
// recovery figure of a policy evaluation (PlotRecovery). Each figure is
// written as PNG, SVG and PDF, the same bytes for the same input.
//
// It is the one results layer that imports gonum.org/v1/plot (and through
// it the font packages). Of streamtwin it imports results, results/measure
// and results/statistics. LabelRuns names the run folders of a multi-run
// figure (and of an evaluation).
package figures
