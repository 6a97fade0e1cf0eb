// Package static is the baseline checkpoint policy: one fixed interval for
// the whole run. If the job starts with another interval, the first Step
// asks for the configured one (applied by stop-with-savepoint + resubmit);
// after that the policy never acts.
//
// It imports models/policy and sim only.
package static
