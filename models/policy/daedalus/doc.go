// Package daedalus is the Daedalus MAPE-K autoscaler (Pfister et al., ICPE
// 2024; reference/autoscaling.md §1, from the authors' code): it scales a
// job to the cheapest parallelism whose capacity covers the forecast
// workload and whose predicted recovery after the rescale stays within the
// target recovery time (600 s).
//
// So far it holds the Analyse and Plan steps as pure functions of their
// inputs, with the constants of the authors' code: the per-TaskManager
// online regression of throughput on CPU and the skewed current capacity,
// the capacity book (observed capacities per parallelism, linear
// extrapolation to the others), forecast accuracy (WAPE, retraining, the
// linear fallback), the recovery-time prediction from the backlog and the
// surplus integral, the downtime self-adaptation, and the scale-out choice
// in the code's order of checks. It is not yet a registered policy: that
// needs per-TaskManager metrics in the observation and auto-ARIMA (issue
// 21).
//
// It imports nothing of streamtwin.
package daedalus
