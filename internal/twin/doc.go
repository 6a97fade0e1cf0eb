// Package twin is the simulator backend: it builds the Kafka and Flink models
// of a resolved scenario on the engine, replays the schedule's rates, faults
// and forced actions, runs the scenario's policy through the one controller
// (internal/control) and streams the rows, with recovery detected as for a
// live run.
//
// Backend is a run.Backend: internal/run owns the run around it (the
// policy, the capability check, the policy's session, the run folder), as
// it does for the live driver.
//
// Of streamtwin it imports sim, internal/run, internal/scenario,
// internal/control, models/flink, models/policy and results; never the live
// backend or any results layer above results.
package twin
