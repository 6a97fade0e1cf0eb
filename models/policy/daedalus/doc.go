// Package daedalus is the Daedalus MAPE-K autoscaler (Pfister et al., ICPE
// 2024; reference/autoscaling.md §1, from the authors' code), registered as
// the policy `daedalus`: it scales a job to the cheapest parallelism whose
// capacity covers the forecast workload and whose predicted recovery after
// the rescale stays within the target recovery time (600 s).
//
// Every loop (60 s) it reads the last 61 s: Monitor (per-TaskManager CPU
// and source throughput, Kafka ingress, lag), Analyse (the per-TaskManager
// online regression of throughput on CPU and the skewed current capacity,
// the capacity book of observed and extrapolated capacities, auto-ARIMA
// with a 15 min horizon, WAPE tracking, retraining after 15 bad
// predictions and the linear fallback), Plan (the recovery-time prediction
// from the backlog and the surplus integral, and the scale-out choice in
// the code's order of checks), Execute (a Rescale action through the
// controller) and the self-adaptation of the downtime estimates from the
// observed recovery. The pure steps are exported for decision tests.
//
// Where the twin differs from the authors' deployment: the workload is
// the per-second Kafka ingress rather than the broker's one-minute moving
// average; the ARIMA update keeps the parameters and appends the new
// window (pmdarima's update also runs a few optimiser steps); a retrain
// runs at once rather than in a background thread; and the observed
// recovery is the first sample, 30 s or more after a rescale, at which the
// lag is back to its level at the decision, in place of the anomaly
// detector (whose published version reads two fixed CSV files).
package daedalus
