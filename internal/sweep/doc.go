// Package sweep expands a sweep file (a base scenario, parameters as grids,
// lists or random samples, replications) into runs, executes them on
// parallel workers with resume and deterministic sharding, and collects
// runs.parquet: one row per run, the parameters as columns plus the summary
// figures. Every run folder carries params.json, so runs.parquet can always
// be rebuilt from the folders alone (resume and merge use that).
package sweep
