// Package monitor is adaptive monitoring (issue 23;
// docs/reference/monitoring.md): samplers that decide, per metric, when a
// monitoring system scrapes it — fixed intervals, AdaM's adaptive period and
// the probabilistic-forecast rule — and the replay that runs a sampler over
// a metric's 1 s ground truth, reconstructs what the monitoring system holds
// and accounts for what was transmitted and what was missed.
package monitor
