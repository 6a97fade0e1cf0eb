// Package khaos is Khaos (Geldenhuys et al., FedCSIS 2022): phase 1's
// steady-state failure points, phase 3's OLS latency and recovery models
// (plus a physical recovery model), and the runtime optimiser that moves
// the checkpoint interval on a QoS violation by stop-with-savepoint and
// resubmit. Phase 2, the chaos experiments, needs a backend: see
// internal/profile for the twin's.
package khaos
