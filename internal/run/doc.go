// Package run owns a run from a resolved scenario to its folder, whatever
// carries it out: it builds the scenario's policy once (NewPolicy), checks
// what the scenario asks against the backend's capabilities once, begins
// and ends the policy's session around the backend, and writes the run
// folder (ToDir) or streams the rows to a caller's sink (Stream).
//
// A backend (the twin, internal/twin; a live cluster, live/driver) only
// executes: it receives a Plan, builds its side of the one controller with
// Plan.Control and streams rows. So a capability a backend lacks is
// refused before the run starts, in one place, for both.
//
// Of streamtwin it imports internal/control, internal/scenario,
// models/policy, models/monitor, results and sim; never a backend.
package run
