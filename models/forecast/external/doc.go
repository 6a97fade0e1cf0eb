// Package external runs a probabilistic forecaster written in any language
// (a darts or PyTorch model, a numpy script) as a child process that speaks
// the JSON-lines protocol of docs/forecaster-protocol.md over its standard
// input and output: a hello with the configuration, one forecast request and
// one reply of quantiles per call, and a goodbye. The Python side is
// streamtwin_policy.Forecaster and run_forecaster (python/); an example is
// examples/python/numpy_forecaster.py.
//
// A Forecaster is a forecast.Quantiler. Its process starts on the first
// Quantiles call (or an explicit Start) and lives until Close, so an
// interpreter and its imports start once, not per call. The transport is
// internal/jsonproc, the one of external policies.
//
// Errors name the call and, for a bad reply, quote the line. A process that
// cannot start, exits, or does not reply within the timeout is stopped, and
// every later call returns that error until Start runs a new one; a reply
// that is malformed, of the wrong shape or with quantiles that decrease
// across levels fails that call only, as does an error reply (the process
// saying it cannot forecast, e.g. a history too short), and the process
// keeps serving.
package external
