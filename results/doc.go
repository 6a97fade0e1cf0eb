// Package results defines the files every run writes (timeseries.parquet,
// events.parquet, summary.json, scenario.yaml), reads and writes them
// atomically, prints them, and draws figures from them. The simulator and the
// live backend both write through this package, so their outputs compare
// column for column.
package results
