// Package hostmetrics is the twin's host and TaskManager metrics for
// adaptive monitoring (issue 23): CPU %, memory %, disk read and write B/s
// and network B/s, each a linear relation to the job's load at a lag plus
// seeded Gaussian noise, metric(t) = intercept + slope·load(t − lag) + ε,
// ε ~ N(0, sd). The default relations are those of the adaptive-monitoring
// testbed (docs/reference/monitoring.md §5.5); Fit estimates one from a
// measured load and metric series (the live cluster's, through Prometheus).
package hostmetrics
