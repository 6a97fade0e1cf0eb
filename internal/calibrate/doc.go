// Package calibrate fits scenario parameters to measured failures: it reads
// the measured table (or makes points from Khaos's failures.txt or a
// measured series), simulates every measured point and fits with
// gonum/optimize in two stages (recovery, then latency), then writes the
// calibrated scenario and the fit report. The report scores the twin beside
// two baselines fitted on the same points (the closed-form recovery model
// and Khaos's OLS), with optional cross-validation and prediction intervals.
//
// The defaults of a calibration live here, not in the CLI: which
// parameters are fitted (DefaultFit, plus DefaultLatencyFit when latency was
// measured), the evaluation bound, the crash timing and the latency column
// (Options.WithDefaults, applied by Calibrate), so a Go caller calibrates
// as `streamtwin calibrate` does.
//
// Of streamtwin it imports internal/scenario, models/flink, models/kafka,
// internal/twin (the points run on the simulator), models/policy/khaos (its
// closed-form and OLS fits serve as the baselines), workloads, sim, results
// and results/figures (the residual figures); not the live backend or the
// CLI.
package calibrate
