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
