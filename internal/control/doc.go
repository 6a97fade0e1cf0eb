// Package control is the one policy loop of streamtwin. A Controller owns
// everything a run does to a job on a schedule: the policy's ticks and its
// observation window, the forced actions of the scenario, the fault
// schedule (aligned to checkpoints, with seeded targets) and the decision
// events. Beneath it a Backend — the simulator (internal/twin) or a real
// Flink cluster (live/driver) — only keeps the clock, samples metrics,
// reports the job's state and carries out reconfigure, savepoint and kill.
// So a policy compared offline runs live as the same code, and both
// backends write the same decision events with the same reasons.
//
// A backend declares what it can do (Capabilities); Check refuses a
// scenario that asks for more before anything starts.
package control
