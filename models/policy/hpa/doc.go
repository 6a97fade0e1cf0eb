// Package hpa is the Kubernetes Horizontal Pod Autoscaler on CPU, the
// baseline of the Daedalus evaluation (Flink reactive mode, one slot per
// TaskManager pod, so replicas = parallelism):
//
//	desired = ceil(current × utilisation / target)
//
// with no change while utilisation/target is within 1 ± tolerance, a sync
// every 15 s, and the autoscaling/v2 behaviour: a recommendation is
// stabilised over a window (scale-up: the minimum of the window's
// recommendations, scale-down: the maximum) and rate-limited (Kubernetes'
// defaults: up by max(100 %, 4 pods) per 15 s, down by 100 % per 15 s).
// Utilisation is the TaskManagers' mean CPU busy fraction over the metric
// window, against the CPU request (a share of the TaskManager's cores).
//
// It imports models/policy, results and sim only.
package hpa
