// Package resultstest holds the test fixtures of the results packages: a
// small synthetic run, writing it as a run folder, and equality under which
// NaN equals NaN. Only tests import it; of streamtwin it imports results.
package resultstest
