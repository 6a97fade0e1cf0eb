// Command streamtwin is the CLI of the Flink + Kafka twin; it is package
// app's command line with streamtwin's own policies.
package main
