package driver

import (
	"testing"

	"github.com/streamtwin/streamtwin/live/rest"
)

func TestCheckpointEnd(t *testing.T) {
	cases := []struct {
		name string
		h    rest.CheckpointStat
		want int64
	}{
		{"completed", rest.CheckpointStat{Status: "COMPLETED", TriggerTimestamp: 1000, LatestAckTimestamp: 1400, EndToEndDuration: 400}, 1400},
		{"failed after acks", rest.CheckpointStat{Status: "FAILED", TriggerTimestamp: 1000, LatestAckTimestamp: 1200, FailureTimestamp: 1900}, 1900},
		{"failed before any ack", rest.CheckpointStat{Status: "FAILED", TriggerTimestamp: 1000, EndToEndDuration: 18}, 1018},
	}
	for _, c := range cases {
		if got := checkpointEnd(c.h); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
