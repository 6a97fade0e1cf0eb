package results

// Internals read by the tests of package results_test, which share their
// fixtures (results/resultstest) with the layers above.
const RowGroupRows = rowGroupRows

// MarkerFile is the name of the marker the tests look for in run folders.
const MarkerFile = markerFile
