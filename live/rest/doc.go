// Package rest is a small client of the Flink REST API (the endpoints live
// mode needs: jars, jobs, checkpoints, savepoints and stop-with-savepoint,
// metrics), with errors that carry Flink's own messages and a hint.
//
// It imports only the standard library.
package rest
