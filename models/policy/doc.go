// Package policy is the interface between the controller (internal/control)
// and the policies that steer a job, and the registry that lets a
// scenario's `policy: {name: …}` name one. It is streamtwin's stable API
// for policies written in Go (docs/policies.md; examples/go-policy).
//
// # The contract
//
// A Policy is a type with Name, Interval and Step. The controller is the
// only caller of Step: every Interval of run time (the first call at
// Interval, not at 0), from one goroutine, with an Observation of the
// recent per-second samples (10 minutes, or WindowSamples of a WindowUser)
// and the job's status. Step answers with zero or more Actions; the
// controller carries them out in order and records each as a
// policy_decision event with its Reason, or with the backend's refusal.
//
// Between calls a policy may keep whatever it likes in its own fields (a
// fitted model, the time of its last action). It must not keep
// Observation.Window or Observation.Detail: they are valid during the call
// only; copy what it needs.
//
// Step must be deterministic given its inputs and the *rand.Rand its
// Factory received (a stream derived from the run's root seed): the same
// scenario and seed then give byte-identical results. It must not read the
// wall clock. Step never learns which backend it drives: the same code runs
// in the twin and live.
//
// # Actions per backend
//
//	                          twin   live, local cluster       live, external cluster
//	set_checkpoint_interval   yes    yes (savepoint+resubmit)  yes
//	rescale, savepoint mode   yes    yes, up to the slots      yes, up to the slots
//	rescale, checkpoint mode  yes    with --scheduler adaptive no
//	rescale_vertices          yes    checkpoint mode, adaptive no
//	trigger_savepoint         yes    yes                       yes
//	note                      yes    yes                       yes
//	Detail (DetailUser)       yes    yes                       no
//
// A policy that implements Requires (control.Requirer) or DetailUser is
// refused before the run starts by a backend that lacks what it names,
// never silently cut short.
//
// # Optional interfaces
//
// WindowUser sets the window length; DetailUser asks for per-TaskManager
// and per-operator metrics; Session gets Begin before the first Step and
// End after the last; Fallible can fail a step (HoldError: record and go
// on). The external-process policy (models/policy/external) uses all four.
package policy
