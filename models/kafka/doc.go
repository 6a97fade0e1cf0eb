// Package kafka models the input topic of a job as a fluid: P partitions with
// per-partition append shares, log-end, consumed and committed offsets, and
// consumer lag. Offsets are float64 record counts; between two events every
// rate is constant, so offsets move linearly and are integrated exactly.
package kafka
