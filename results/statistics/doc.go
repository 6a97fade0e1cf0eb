// Package statistics holds the statistics of streamtwin's results: the one
// quantile (Quantile) and the one confidence interval (MeanCI, CIBounds)
// of the tree, means of the finite values, and the statistics of a sweep's
// runs.parquet across replications (SummarizeRuns, WriteStats: `streamtwin
// results summarize`).
//
// Of streamtwin it imports results only.
package statistics
