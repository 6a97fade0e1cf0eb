package kafka

import (
	"math"
	"testing"
)

func TestShares(t *testing.T) {
	cases := []struct {
		cfg  Config
		want []float64
	}{
		{Config{Partitions: 4}, []float64{0.25, 0.25, 0.25, 0.25}},
		{Config{Partitions: 2, Skew: 1}, []float64{2.0 / 3, 1.0 / 3}},
	}
	for _, c := range cases {
		got := c.cfg.Shares()
		for i := range c.want {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("%+v: shares %v, want %v", c.cfg, got, c.want)
			}
		}
	}
}

func TestSourceShares(t *testing.T) {
	topic := New(Config{Partitions: 3})
	// 3 partitions on 2 subtasks: subtask 0 reads partitions 0 and 2
	if got := topic.SourceShares(2); math.Abs(got[0]-2.0/3) > 1e-12 || math.Abs(got[1]-1.0/3) > 1e-12 {
		t.Errorf("3 partitions over 2 subtasks: %v", got)
	}
	// more subtasks than partitions: the extra subtask idles
	if got := topic.SourceShares(4); got[3] != 0 {
		t.Errorf("subtask 3 of 4 reads %v of 3 partitions", got[3])
	}
	topic.EndOffset, topic.Consumed, topic.Committed = 300, 240, 210
	end, consumed, committed := topic.PartitionOffsets()
	if end[0] != 100 || consumed[1] != 80 || committed[2] != 70 || topic.Lag() != 60 {
		t.Errorf("offsets %v %v %v lag %v", end, consumed, committed, topic.Lag())
	}
}
