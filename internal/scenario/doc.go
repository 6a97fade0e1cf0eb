// Package scenario loads scenario files: strict YAML with every default
// filled in, errors that name the file, line and field, variants that
// overlay the base scenario, and the resolved schedule (per-second rates,
// faults, forced actions) that every variant and both backends replay.
package scenario
