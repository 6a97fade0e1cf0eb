// Package stepper runs the twin one policy interval at a time for a
// learner outside it: the Python Gymnasium environments
// (python/streamtwin/gym.py) start `streamtwin gym SCENARIO` and drive it
// over the stepping protocol (docs/gym.md).
//
// The learner takes the policy's seat. An Episode runs the scenario with
// run.StreamWith and a policy whose Step hands the observation out and
// waits for the learner's action, so the controller, the backend and the
// rows are those of `streamtwin run`: a learned policy that later runs as
// an external process makes the same decisions on the same run. The
// simulation runs in its own goroutine and blocks in Step between two
// learner calls; a reset abandons it through the Fallible error path
// (the run ends at once), never by leaving a goroutine behind.
//
// Costs are counted by a measure.Summarizer over the rows the run writes,
// the same function that makes summary.json: the steps' costs add up to
// the summary's latency violation seconds, recovery violations and
// worker-seconds.
package stepper
