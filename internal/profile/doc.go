// Package profile runs Khaos's offline phases on the twin: steady-state
// failure points from the recorded input (phase 1), chaos experiments on
// parallel job copies with evenly spaced checkpoint intervals, each killed
// at every point just before a checkpoint (phase 2), and the latency and
// recovery models fitted to what they measured (phase 3).
//
// It also keeps profiles for the runs that need them: Into writes a profile
// folder stamped with the Hash of the job and input it was made on, and
// InlineModels gives every Khaos run of a scenario its models (from
// policy.profile, from the cached profile of the output folder when its
// hash matches, else by profiling now), inlined so that the run's resolved
// scenario.yaml replays on its own. `streamtwin run` and `streamtwin live
// run` call it; a Go caller gets the same profiles.
//
// Of streamtwin it imports internal/scenario, models/policy/khaos, internal/twin
// (the copies run on the simulator), results and results/figures (the
// profile's files and figures) and sim; not the live backend or the CLI.
package profile
