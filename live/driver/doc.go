// Package driver is the live backend of a run (Backend, a run.Backend:
// internal/run builds the policy, checks the capabilities and writes the
// folder). It replays a scenario's schedule against a real Flink job and
// Kafka broker: it creates the topics, submits the job, produces the
// workload's real events at the schedule's per-second rates, kills
// TaskManagers at the schedule's fault times (Khaos-aligned through the REST
// checkpoint statistics), runs the scenario's policy through the same
// Controller as the simulator (the run is a control.Backend), samples
// metrics every second and writes the simulator's result files. With
// Env.ExactlyOnce it audits the sink topic against the input (audit.go).
//
// Each second the sampler reads Flink's REST API and Kafka into a reading
// (read.go), turns it into the sample with a pure step that keeps the
// offset estimation's state (sampler.go; its tests replay answers recorded
// on a live run, testdata/) and records it (sample.go). restarts.go books
// the job's restarts as the readings show them, checkpoints.go its
// checkpoints; reconfigure.go and rescale.go carry out the controller's
// reconfigurations, inject.go its faults; backend.go is the run as the
// controller's backend; summary.go writes and summarises the run.
//
// It may import internal/run, internal/control, models/policy,
// internal/scenario, results and its measure, statistics and text layers,
// workloads, sim and live/rest; never the simulator (internal/twin,
// models/flink, models/kafka) or results' figure and comparison layers.
package driver
