package driver

import (
	"math"
	"reflect"
	"testing"
)

type offsets = map[int32]float64

func TestPositions(t *testing.T) {
	end := offsets{0: 1000, 1: 2000}
	tests := []struct {
		name                    string
		committed, current, prv offsets
		running                 bool
		want                    offsets
	}{
		{"reading: last consumed + 1", offsets{0: 500, 1: 1500}, offsets{0: 999, 1: 1989}, offsets{0: 900, 1: 1900}, true,
			offsets{0: 1000, 1: 1990}},
		{"down: resumes from the committed offsets", offsets{0: 500, 1: 1500}, nil, offsets{0: 1000, 1: 1990}, false,
			offsets{0: 500, 1: 1500}},
		{"restored, a partition not read yet", offsets{0: 500, 1: 1500}, offsets{0: 700}, offsets{0: 500, 1: 1500}, true,
			offsets{0: 701, 1: 1500}},
		{"Flink unreachable while running: last seen", offsets{0: 500, 1: 1500}, nil, offsets{0: 990, 1: 1990}, true,
			offsets{0: 990, 1: 1990}},
		{"before the first checkpoint and before reading", nil, nil, nil, false,
			offsets{0: 1000, 1: 2000}},
		{"never past the end offset", nil, offsets{0: 5000, 1: 1999}, nil, true,
			offsets{0: 1000, 1: 2000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := positions(end, tc.committed, tc.current, tc.prv, tc.running); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("positions = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestConsumedSince(t *testing.T) {
	tests := []struct {
		name                 string
		prev, now, committed offsets
		want                 float64
	}{
		{"steady", offsets{0: 100, 1: 200}, offsets{0: 400, 1: 500}, nil, 600},
		// restored to 150 on partition 0 and read 100 records since
		{"replay counts from the restored offset", offsets{0: 300, 1: 200}, offsets{0: 250, 1: 200}, offsets{0: 150}, 100},
		{"went back below a stale commit: nothing known", offsets{0: 300}, offsets{0: 100}, offsets{0: 150}, 0},
		{"new partition", offsets{0: 10}, offsets{0: 20, 1: 30}, nil, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := consumedSince(tc.prev, tc.now, tc.committed); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("consumedSince = %g, want %g", got, tc.want)
			}
		})
	}
}

// advance shares records over the partitions by backlog, never past the end.
func TestAdvance(t *testing.T) {
	prev := map[int32]float64{0: 100, 1: 100}
	end := map[int32]float64{0: 400, 1: 200} // backlogs 300 and 100
	got := advance(prev, end, 200)
	if want := map[int32]float64{0: 250, 1: 150}; !reflect.DeepEqual(got, want) {
		t.Errorf("advance by 200: %v, want %v", got, want)
	}
	if got := advance(prev, end, 1000); !reflect.DeepEqual(got, end) {
		t.Errorf("advance by 1000: %v, want the end offsets %v", got, end)
	}
}

// The live per-interval latency percentiles are the simulator's: linear
// interpolation between order statistics (statistics.Quantile), not nearest
// rank.
func TestLatencyStats(t *testing.T) {
	tests := []struct {
		name           string
		ms             []float64
		mean, p50, p99 float64
	}{
		{"four values", []float64{40, 10, 30, 20}, 25, 25, 39.7}, // nearest rank gave p50 30, p99 40
		{"one value", []float64{12}, 12, 12, 12},
		{"1..100", seq(100), 50.5, 50.5, 99.01},
	}
	for _, tt := range tests {
		mean, p50, p99 := latencyStats(tt.ms)
		if math.Abs(mean-tt.mean) > 1e-9 || math.Abs(p50-tt.p50) > 1e-9 || math.Abs(p99-tt.p99) > 1e-9 {
			t.Errorf("%s: mean %g, p50 %g, p99 %g; want %g, %g, %g", tt.name, mean, p50, p99, tt.mean, tt.p50, tt.p99)
		}
	}
	if mean, p50, p99 := latencyStats(nil); !math.IsNaN(mean) || !math.IsNaN(p50) || !math.IsNaN(p99) {
		t.Errorf("no latencies: %g, %g, %g; want NaN", mean, p50, p99)
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

// TestIsCommitter: only the committer half of a Flink 2 sink is left out
// of the operators a policy sees.
func TestIsCommitter(t *testing.T) {
	for name, want := range map[string]bool{
		"Sink: Kafka: Committer":                  true,
		"Sink: Kafka: Writer":                     false,
		"Format -> Sink: Kafka: Writer":           false,
		"Source: Kafka -> Parse -> POI filter":    false,
		"Average speed -> Speed filter -> Format": false,
		"Committer": false,
	} {
		if got := isCommitter(name); got != want {
			t.Errorf("isCommitter(%q) = %v, want %v", name, got, want)
		}
	}
}
