// Package decode reads YAML strictly and says where it went wrong: Strict
// decodes a node, turning an unknown key into an UnknownFieldError that
// suggests the nearest known field (internal/suggest); Problem and Problems
// are errors at a file, line and field path, with the allowed range in the
// message, as scenario, sweep and policy files report them.
package decode
