// Package twin is the simulator backend: it builds the Kafka and Flink models
// of a resolved scenario on the engine, replays the schedule's rates, faults
// and forced actions, runs the scenario's policy through the Controller
// interface, and streams the results to a run folder.
//
// RunToDirWith is the run-folder path of every backend: it creates the
// folder, has an Executor stream the rows into it (Run for the simulator,
// the live driver for `streamtwin live run`) and commits the summary and the
// resolved scenario.yaml atomically.
//
// Of streamtwin it imports sim, internal/scenario, models/flink,
// models/policy, internal/control and results; never the live backend (the
// live driver is handed in as an Executor) or any results layer above
// results.
package twin
