// Package measure defines the quantities measured over a run's rows, each
// by one definition and one function that the twin, the live driver and
// the import of measured data all use: the observed quantities of an
// interval (CPUUtilisation, TimeFraction, Rate, Lag) and the
// per-TaskManager and per-operator Detail policies read, recovery
// detection (DetectRecovery, and RecoveryStream, which labels the rows as
// a run writes them), the run's Summary as its rows pass (Summarizer), and
// what is read off a finished run: faults' recoveries, rescales, cold
// starts, CPU lines, workers and lag statistics.
//
// Of streamtwin it imports results and results/statistics.
package measure
