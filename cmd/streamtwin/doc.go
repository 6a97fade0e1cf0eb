// Command streamtwin is the CLI of the Flink + Kafka twin: run scenarios,
// validate and print them, print result files and plot runs.
//
// Exit codes: 0 success, 1 a run failed, 2 bad input (the message names the
// file, line and field).
package main
