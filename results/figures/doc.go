// Package figures draws streamtwin's figures from results: the figure of
// one run (PlotRun, `streamtwin run --plot`), several runs and sweeps side
// by side (PlotSweepLines, PlotLatencyDistributions, PlotLatencyDifferences,
// PlotPanels, PlotFaults, PlotHeatmap), the autoscaling comparison
// (PlotScalingSummary, PlotScalingTimeline), model fits (PlotFit,
// PlotFitCompared), workload rates (PlotRates), the monitoring trade-off
// (PlotTradeoff) and the recovery figure of a policy evaluation
// (PlotRecovery). Each figure is written as PNG, SVG and PDF, the same bytes
// for the same input.
//
// Every figure keeps two rules. Its axes are labelled at round numbers
// only, as many as each axis holds apart and never fewer than three
// (ticks.go; fitTicks runs in drawOn, through which every plot is drawn),
// and no label is drawn over another (strips, margins and the key take
// what would collide). rules_test.go checks both on what each figure kind
// really draws, at the default size and at both print widths.
//
// It is the one results layer that imports gonum.org/v1/plot (and through
// it the font packages). Of streamtwin it imports results, results/measure,
// results/statistics and results/textfmt. LabelRuns names the run folders
// of a multi-run figure (and of an evaluation).
package figures
