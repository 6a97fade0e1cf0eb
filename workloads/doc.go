// Package workloads turns a workload description into a per-second rate
// schedule (records/s for each second of the run) and answers the two
// questions the fluid model asks of it: how many records had arrived by time
// t, and when had the c-th record arrived.
package workloads
