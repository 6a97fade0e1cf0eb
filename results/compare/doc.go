// Package compare compares results: two result sets figure by figure within
// tolerances (streamtwin compare, and the regression references in
// results/reference/), and two runs fault by fault (FaultOutcomes,
// WriteFaultTable) and policy decision by decision (Decisions,
// WriteDecisionTable).
//
// Of streamtwin it imports package results only, and no plotting package.
package compare
