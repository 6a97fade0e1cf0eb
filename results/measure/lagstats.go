package measure

import (
	"math"
	"slices"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// LagStats summarise a run's consumer lag per partition: its mean and its
// 95th percentile over the run's samples (Quantile). Per partition is what
// a measured run reports as Kafka's records-lag-max averaged over the
// source subtasks (each subtask's most lagged partition), and what the
// twin's total lag over its partitions is when the partitions lag alike:
// PartitionLag. LagStatsOf is its one definition.
type LagStats struct {
	Mean float64 `json:"mean"`
	P95  float64 `json:"p95"`
}

// PartitionLag is a sample's lag per partition: its total lag spread over
// the topic's partitions.
func PartitionLag(s results.Sample, partitions int) float64 { return s.Lag / float64(partitions) }

// LagStatsOf summarises lags per partition, one per sample (NaN where not
// measured, left out); NaN for none.
func LagStatsOf(lags []float64) LagStats {
	xs := slices.DeleteFunc(slices.Clone(lags), math.IsNaN)
	if len(xs) == 0 {
		return LagStats{math.NaN(), math.NaN()}
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return LagStats{Mean: sum / float64(len(xs)), P95: statistics.Quantile(xs, 0.95)}
}
