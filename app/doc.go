// Package app is the streamtwin command line (cmd/streamtwin calls Main), the CLI of the Flink + Kafka twin: run scenarios,
// validate and print them, print result files and plot runs.
//
// It is thin: each command parses its flags, calls one function of a
// package and prints. What a Go caller would need too lives in the
// packages: a run from scenario to folder in internal/run (ToDir, with
// the twin's or the live driver's backend), Khaos profiles and model inlining in internal/profile, calibration
// defaults in internal/calibrate. It may import any package of the module.
//
// Exit codes: 0 success, 1 a run failed, 2 bad input (the message names the
// file, line and field).
package app
