package iot

import (
	"bytes"
	"testing"
)

// BenchmarkAppendSecond measures the generator at a steady 100 000 active
// vehicles: one iteration = one simulated second ≈ 100 000 JSON events,
// including spawning the ≈ 1 100 trips that replace finished ones.
func BenchmarkAppendSecond(b *testing.B) {
	const target = 100_000
	gen := NewGenerator(nil, 1, 1630930000000)
	buf := make([]byte, 0, 16<<20)
	// Warm up past the longest trips so trip ages are mixed, not all 0.
	for range 300 {
		buf = gen.AppendSecond(buf[:0], target)
	}
	b.ReportAllocs()
	b.ResetTimer()
	events, bytesOut := 0, 0
	for b.Loop() {
		events += max(target, gen.Active())
		buf = gen.AppendSecond(buf[:0], target)
		bytesOut += len(buf)
	}
	b.StopTimer()
	if n := bytes.Count(buf, []byte("\n")); n != target {
		b.Fatalf("last second had %d events, want %d", n, target)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/sec, "events/s")
	b.ReportMetric(float64(bytesOut)/float64(events), "B/event")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}
