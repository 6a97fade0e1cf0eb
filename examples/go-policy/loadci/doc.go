// Package loadci is the example policy of docs/policies.md: a checkpoint
// interval that follows the load. Under high load a crash replays more
// records per second of checkpoint interval, so it checkpoints often; under
// low load it saves the overhead. examples/python/load_ci_policy.py is the
// same rule in Python, over the external-process protocol; both take the
// same decisions with the same reasons.
package loadci
