// Package autoscaler is the Flink Kubernetes operator's autoscaler
// (flink-autoscaler, reference/autoscaling.md §4): per job vertex, the true
// processing rate from busy time, a target capacity that covers the input,
// a catch-up of the lag and the restart time, utilisation bounds, clamped
// scale factors, key-group and partition alignment, and the delayed
// scale-down.
//
// So far it holds these as pure functions of their inputs, with the
// operator's defaults (Defaults); it is not yet a registered policy: that
// needs per-vertex busy time and rates in the observation (issue 21).
//
// It imports nothing of streamtwin.
package autoscaler
