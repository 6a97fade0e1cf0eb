// Package policy is the interface between the controller (models/control)
// and the policies that steer a job: a policy is a deterministic state
// machine that the controller calls every Interval with an Observation and
// that answers with Actions. A policy never knows which backend — the
// simulator or a live Flink cluster — it drives, so the offline policy and
// the live one are the same code.
package policy
