// Package results defines the files every run writes (timeseries.parquet,
// events.parquet, summary.json, scenario.yaml, and a monitoring section's
// tradeoff and host-metrics tables), a sweep's runs.parquet and the output
// folders that hold them, and reads and writes them atomically. That is
// its one job: the simulator and the live backend both write through this
// package, so their outputs compare column for column.
//
// It is the base of the results layers and imports none of them, nor any
// plotting or font package (gonum.org/v1/plot, golang.org/x/image),
// directly or not: policies and backends that need a Sample do not pull in
// a renderer. The packages above import it:
//
//   - results/measure defines the quantities measured over a run's rows:
//     recovery detection, the summary of the rows, rescales, cold starts;
//   - results/statistics holds the quantile, the confidence interval and
//     the statistics of a sweep's runs;
//   - results/textfmt formats numbers and words for people, and
//     results/cat prints result files (`streamtwin results cat`);
//   - results/ingest reads data measured outside streamtwin;
//   - results/figures draws the figures of runs and sweeps;
//   - results/compare compares result sets figure by figure, and two runs
//     fault by fault and decision by decision;
//   - results/evaluation computes the Khaos paper's evaluation of a policy
//     comparison;
//   - results/resultstest holds the test fixtures they share.
package results
