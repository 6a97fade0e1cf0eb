// Package ds2 is DS2 (Kalavri et al., OSDI 2018; reference/autoscaling.md
// §5), registered as the policy `ds2`: the optimal parallelism of every
// operator from its true processing rate (records per unit of useful time,
// measured as busy time, as the Flink autoscaler approximates it), walking
// the dataflow in topological order and propagating the rates the new
// parallelisms would output. The job runs the largest of them (one
// parallelism for all operators, as Flink's reactive mode gives).
package ds2
