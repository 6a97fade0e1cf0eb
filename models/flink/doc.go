// Package flink is the fluid model of a Flink job reading a Kafka topic: an
// operator DAG on TaskManager slots with a bottleneck capacity and
// backpressure, aligned checkpoints with sync and async phases, TaskManager
// crashes with detection, restart strategy, TaskManager restart, state
// restore and reprocessing from the checkpointed offsets, stop-with-savepoint
// and resubmit, end-to-end latency, and per-TaskManager CPU.
//
// Records are never simulated one by one. Between two events (a rate change,
// a checkpoint phase, a fault, a restart step, a metric sample) every rate is
// constant, so offsets and lag are integrated in closed form and the moment
// the backlog drains is solved for exactly. The event count per simulated
// second is O(1) whatever the record rate.
package flink
