// Package policy is the Controller interface between a backend (the
// simulator or a live Flink cluster) and the policies that steer a job:
// a policy is a deterministic state machine that a backend calls every
// Interval with an Observation and that answers with Actions. A policy never
// knows which backend it drives, so the offline policy and the live
// controller are the same code.
package policy
