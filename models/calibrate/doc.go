// Package calibrate fits scenario parameters to measured failures: it reads
// the measured table, simulates every measured point and fits with
// gonum/optimize.
package calibrate
