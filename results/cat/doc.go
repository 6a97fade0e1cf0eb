// Package cat is `streamtwin results cat`: it prints a result file
// (Parquet, JSON or CSV) as an aligned table or as CSV, the head or tail
// of its rows, an events file's rows of some kinds, or one line per fault
// (FaultSummaries).
//
// Of streamtwin it imports results, results/measure (the faults'
// recoveries) and results/textfmt (the number format).
package cat
