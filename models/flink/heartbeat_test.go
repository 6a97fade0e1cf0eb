package flink

import (
	"fmt"
	"math"
	"testing"
)

// TestHeartbeatLoss works the two heartbeat loops out by hand: a 2 s
// interval, threshold 2, a 10 s timeout, the JobMaster's requests at
// 0.6 s + 2k, the ResourceManager's at 1.5 s + 2k.
func TestHeartbeatLoss(t *testing.T) {
	d := DetectionConfig{HeartbeatInterval: 2, HeartbeatTimeout: 10, RPCFailureThreshold: 2}
	phases := [2]float64{0.6, 1.5}
	for _, c := range []struct {
		now, rpc, timeout float64
	}{
		// JobMaster: last 100.6 − 2 = 98.6, next 100.6: fails at 100.6 and
		// 102.6, 2.6 s; times out at 108.6, 8.6 s. ResourceManager: last
		// 99.5, next 101.5: 3.5 s and 9.5 s. The JobMaster's loop wins both.
		{100, 2.6, 8.6},
		// 0.8 s later: the JobMaster's next request is 102.6 (3.8 s), the
		// ResourceManager's 101.5 (2.7 s) wins the RPC path, and its timeout,
		// from its request at 99.5, fires first: 109.5, 8.7 s (the
		// JobMaster's, from 100.6, 9.8 s).
		{100.8, 2.7, 8.7},
		// a kill 45 s after the first, half an interval on: the loops swap
		// (JobMaster next 146.6, 3.6 s; ResourceManager next 145.5, 2.5 s)
		{145, 2.5, 8.5},
	} {
		t.Run(fmt.Sprint(c.now), func(t *testing.T) {
			rpc, timeout := heartbeatLoss(c.now, phases, d)
			if math.Abs(rpc-c.rpc) > 1e-9 || math.Abs(timeout-c.timeout) > 1e-9 {
				t.Errorf("heartbeatLoss(%g) = %g, %g; want %g, %g", c.now, rpc, timeout, c.rpc, c.timeout)
			}
		})
	}
	if rpc, timeout := heartbeatLoss(100, phases, DetectionConfig{HeartbeatTimeout: 10}); rpc != 0 || timeout != 10 {
		t.Errorf("without a heartbeat interval: %g, %g; want 0, 10", rpc, timeout)
	}
}
