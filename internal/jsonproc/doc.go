// Package jsonproc is a child process that speaks JSON lines over its
// standard input and output, with a deadline on every reply: the transport
// of external policies (models/policy/external) and external forecasters
// (models/forecast/external). It keeps the end of the process's standard
// error for error messages, runs it in its own process group (a shell's
// children die with it) and always reaps it.
package jsonproc
