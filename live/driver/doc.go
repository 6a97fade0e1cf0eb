// Package driver replays a scenario's schedule against a real Flink job and
// Kafka broker: it creates the topics, submits the job, produces the
// workload's real events at the schedule's per-second rates, kills
// TaskManagers at the schedule's fault times (Khaos-aligned through the REST
// checkpoint statistics), runs the scenario's policy through the same
// Controller as the simulator (the run is a control.Backend), samples
// metrics every second and writes the simulator's result files. With
// Env.ExactlyOnce it audits the sink topic against the input (audit.go).
//
// It may import internal/control, models/policy, internal/scenario, results,
// workloads, sim and live/rest; never the simulator (internal/twin) or
// results' figure and comparison layers.
package driver
