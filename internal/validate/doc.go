// Package validate runs the twin against measured datasets, each under a
// fixed protocol declared beside its data, and scores it against the
// baselines a researcher would write instead (the closed form, an OLS on
// the configuration, the median, Daedalus's recovery model).
//
// A dataset is a folder holding a protocol file (ProtocolFile), its
// measured table and, usually, its base scenario. The protocol says what
// is fitted on what: which parameters every fit has (the job's costs and
// the restart times), which optional mechanisms may join them (each only
// if it lowers the cross-validated error of the fitted points: Select),
// which rows are held out (by a column of the table, e.g. experiment 3)
// and how the whole table is cross-validated (leave one value of a column
// out). A dataset of kind autoscaler holds long autoscaled runs instead:
// the job's cost is calibrated on a static run's CPU, and the twin's
// autoscaled run is scored against the measured ones' TaskManager-seconds,
// rescales and time at each count (measure.WorkersOf). Run does one
// dataset; its Summary is what `streamtwin validate` writes and
// docs/validation.md shows.
//
// Nothing here is tuned to a dataset: the protocol file is the only place
// a dataset's choices live, and the code treats every dataset alike.
//
// Of streamtwin it imports internal/calibrate (the fits and the baselines),
// internal/scenario, internal/twin (the autoscaled runs), results and sim;
// not the CLI or the live backend.
package validate
