// Package twin is the simulator backend: it builds the Kafka and Flink models
// of a resolved scenario on the engine, replays the schedule's rates, faults
// and forced actions, runs the scenario's policy through the Controller
// interface, and streams the results to a run folder.
package twin
