package twin

import (
	"fmt"
	"testing"
)

func TestSmoke(t *testing.T) {
	sink, sum := runYAML(t, `
duration: 10m
workload: {shape: constant, rate: 20000/s}
job:
  checkpoint: {interval: 30s}
faults:
  - {at: 5m, before_checkpoint: 3s}
`)
	for _, e := range sink.events {
		if e.Kind != "checkpoint_completed" {
			d := 0.0
			if e.DurationS != nil { d = *e.DurationS }
			fmt.Printf("%8.3f %-22s d=%.3f %s\n", e.TimeS, e.Kind, d, e.Reason)
		}
	}
	for _, tt := range []float64{10, 100, 290, 300, 310, 330, 360, 400, 500, 600} {
		s := sink.at(tt)
		fmt.Printf("%+v\n", s)
	}
	fmt.Printf("%+v\n", sum)
}
