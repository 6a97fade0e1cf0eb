package cluster

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// TestConfigDefaults: only a zero field (−0, "" and nil too) takes its
// default; a negative or NaN one is kept for Validate to refuse.
func TestConfigDefaults(t *testing.T) {
	nan := math.NaN()
	ref := Config{Dir: ".streamtwin-live", TaskManagers: 2, Slots: 2, Ports: DefaultPorts,
		TaskManagerMemory: "1024m", ManagedMemoryFraction: 0.1, JobManagerHeap: "512m", KafkaHeap: "512m",
		StateBackend: "hashmap", KafkaPartitions: 4, StartTimeout: 3 * time.Minute, StopGrace: 15 * time.Second}
	with := func(f func(*Config)) Config { c := ref; f(&c); return c }
	cases := []struct {
		name    string
		in, out Config
	}{
		{"zero", Config{}, ref},
		{"one port set", Config{Ports: Ports{REST: 18081}}, with(func(c *Config) { c.Ports.REST = 18081 })},
		{"negative kept", Config{TaskManagers: -1, Slots: -2, KafkaPartitions: -3, ManagedMemoryFraction: -0.5, StartTimeout: -1, StopGrace: -2},
			with(func(c *Config) {
				c.TaskManagers, c.Slots, c.KafkaPartitions, c.ManagedMemoryFraction, c.StartTimeout, c.StopGrace = -1, -2, -3, -0.5, -1, -2
			})},
		{"NaN kept", Config{ManagedMemoryFraction: nan}, with(func(c *Config) { c.ManagedMemoryFraction = nan })},
		{"−0 is zero", Config{ManagedMemoryFraction: math.Copysign(0, -1)}, ref},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.in.withDefaults()
			if got.Log == nil {
				t.Fatal("Log is nil, want a discarding func")
			}
			got.Log = nil
			if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", c.out); g != w {
				t.Errorf("withDefaults() = %s, want %s", g, w)
			}
		})
	}
	if got := DefaultConfig(); got.Dir != ref.Dir || got.Ports != DefaultPorts {
		t.Errorf("DefaultConfig() = %+v", got)
	}
}
