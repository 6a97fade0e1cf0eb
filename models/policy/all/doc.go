// Package all registers every policy, so that importing it makes all of
// them available by name to scenarios.
//
// It imports the policy packages and nothing else.
package all
