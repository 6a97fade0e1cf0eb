// Package autoscaler is the Flink Kubernetes operator's autoscaler
// (flink-autoscaler, reference/autoscaling.md §4), registered as the policy
// `flink-autoscaler`: per job vertex, the true processing rate from busy
// time, a target capacity that covers the input, a catch-up of the lag and
// the restart time, utilisation bounds, clamped scale factors, key-group
// and partition alignment, the stabilisation interval and metric window
// after every (re)start, restart-time tracking and the delayed scale-down.
// Every job.autoscaler.* key that shapes a decision is a policy parameter
// with the operator's default (DefaultSettings).
//
// The pure steps (TargetCapacity, Bounds, Parallelism, Align, ScaleDowns)
// are exported for decision tests.
package autoscaler
