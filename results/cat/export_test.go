package cat

// Internals read by the tests of package cat_test.
const TableWidthRows = tableWidthRows
