// Package ds2 is DS2 (Kalavri et al., OSDI 2018; reference/autoscaling.md
// §5): the optimal parallelism of every operator from its true processing
// rate (records per unit of useful time), walking the dataflow in
// topological order and propagating the rates the new parallelisms would
// output.
//
// So far it holds the decision as a pure function; it is not yet a
// registered policy: that needs per-operator true rates in the observation
// (issue 21).
//
// It imports nothing of streamtwin.
package ds2
