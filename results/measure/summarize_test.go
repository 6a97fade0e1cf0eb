package measure

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// A sample the backend could not measure (Kafka down: no offsets, so no
// lag, input or throughput) leaves the totals as they were, and the next
// measured throughput, a rate over the whole gap, counts over the gap.
func TestSummarizerUnmeasuredSamples(t *testing.T) {
	nan := math.NaN()
	rows := []results.Sample{
		{TimeS: 1, Throughput: 100, Lag: 10, EndOffset: 100, CheckpointIntervalS: 10},
		{TimeS: 2, Throughput: nan, Lag: nan, EndOffset: nan, CheckpointIntervalS: 10},
		{TimeS: 3, Throughput: nan, Lag: nan, EndOffset: nan, CheckpointIntervalS: 10},
		// 300 records consumed over (1, 4]: 100/s
		{TimeS: 4, Throughput: 100, Lag: 50, EndOffset: 450, CheckpointIntervalS: 10},
		{TimeS: 5, Throughput: nan, Lag: nan, EndOffset: nan, CheckpointIntervalS: 10},
	}
	z := NewSummarizer("s", "", "live", 1, 1000, 60, len(rows))
	for _, r := range rows {
		z.Sample(r)
	}
	s := z.Summary(5, 0)
	// hand-computed: 100 + 3·100 processed; lag max 50, final 50 (the last
	// measured); records in 450
	if s.RecordsProcessed != 400 || s.LagMax != 50 || s.FinalLag != 50 || s.RecordsIn != 450 {
		t.Errorf("processed %d, lag max %d, final lag %d, records in %d; want 400, 50, 50, 450",
			s.RecordsProcessed, s.LagMax, s.FinalLag, s.RecordsIn)
	}
	if s.ThroughputMean != 80 || s.CheckpointIntervalMeanS != 10 {
		t.Errorf("throughput mean %v, CI mean %v; want 80 (400 over 5 s), 10", s.ThroughputMean, s.CheckpointIntervalMeanS)
	}
}
