// Package results defines the files every run writes (timeseries.parquet,
// events.parquet, summary.json, scenario.yaml), reads and writes them
// atomically, prints them, folds a run into its summary (and a sweep's runs
// into statistics) and detects recoveries. The simulator and the live
// backend both write through this package, so their outputs compare column
// for column.
//
// It is the base of the results layers and imports none of them, nor any
// plotting or font package (gonum.org/v1/plot, golang.org/x/image),
// directly or not: policies and backends that need a Sample do not pull in
// a renderer. The layers above import it:
//
//   - results/figures draws the figures of runs and sweeps;
//   - results/compare compares result sets figure by figure, and two runs
//     fault by fault and decision by decision;
//   - results/evaluation computes the Khaos paper's evaluation of a policy
//     comparison;
//   - results/resultstest holds the test fixtures they share.
package results
