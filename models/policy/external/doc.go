// Package external runs a policy written in any language as a child process
// that speaks the JSON-lines protocol of docs/policy-protocol.md over its
// standard input and output: a hello with the run and the backend's
// capabilities, one observation and one reply of actions per tick, and a
// goodbye. The scenario names it `policy: {external: {command: [...]}}`.
//
// The process is one policy.Policy to the controller: it runs unchanged in
// the twin and live. A process that cannot start, exits, hangs past its
// timeout or answers nonsense ends the run with an error that names the
// tick and the message (the run folder is then never written), or, with
// `on_error: hold`, leaves the job as it is and is recorded as a
// policy_error event.
package external
