// Package evaluation computes the Khaos paper's evaluation of a policy
// comparison (streamtwin evaluate) from the run folders of a scenario's
// variants: per-failure measurements, latency-series statistics and, given
// a measured table, measured against simulated recoveries; written as
// evaluation.md, failures.csv, variants.csv and figures. EvaluateScaling
// is the autoscaling comparison of a sweep over variants and seeds
// (scaling.md, scaling.csv, scaling-runs.csv and figures).
//
// Of streamtwin it imports results (run folders), results/figures (its
// figures) and sim (durations in scenario.yaml); only the CLI imports it.
package evaluation
