package results

// Internals read by the tests of package results_test, which share their
// fixtures (results/resultstest) with the layers above.
const (
	TableWidthRows = tableWidthRows
	RowGroupRows   = rowGroupRows
)
