package calibrate

import (
	"fmt"

	"github.com/streamtwin/streamtwin/results/ingest"
)

// Point is one measured failure, a row of the measured table that
// ingest.ReadMeasured reads and ingest.WriteMeasured writes (the same
// table `streamtwin evaluate --measured` reads).
type Point = ingest.MeasuredFailure

// Warnings are things a fit can run with but a reader should know: a CI
// measured at fewer than two failures, whose fit error is one number.
func Warnings(path string, pts []Point) []string {
	n, first := map[float64]int{}, map[float64]int{}
	var cis []float64
	for _, p := range pts {
		if n[p.CheckpointIntervalS] == 0 {
			first[p.CheckpointIntervalS] = p.Line
			cis = append(cis, p.CheckpointIntervalS)
		}
		n[p.CheckpointIntervalS]++
	}
	var out []string
	for _, ci := range cis {
		if n[ci] < 2 {
			out = append(out, fmt.Sprintf("%s:%d: CI %gs has a single measured failure; its error in the report is one point, not a spread", path, first[ci], ci))
		}
	}
	return out
}
