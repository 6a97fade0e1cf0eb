// Package ingest reads data measured outside streamtwin into results'
// terms: measured failures (ReadMeasured, the table `calibrate` and
// `evaluate --measured` take), a measured run's series as Samples
// (ReadMeasuredSeries), host metrics (ReadHostMeasured), and the strict
// CSV reading they share (ReadCSVTable: errors name file:line:column).
//
// Of streamtwin it imports results only.
package ingest
