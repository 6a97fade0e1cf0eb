package evaluation

import (
	"strings"
	"testing"
)

// TestScalingMarkdownNamesItsLatency: the autoscaling table's latency
// columns say which latency they summarise (the median and the p95 over
// seconds of the per-second event-time p99, not a per-second p50 or p95),
// and usage says what it is normalised to.
func TestScalingMarkdownNamesItsLatency(t *testing.T) {
	stats := map[string]ScalingStat{}
	for _, f := range ScalingFigures {
		stats[f] = ScalingStat{N: 2, Mean: 1000, Low: 900, High: 1100}
	}
	s := &Scaling{Scenario: "wc", Baseline: "static-12", Variants: []ScalingVariant{{Name: "hpa-80", Stats: stats, Runs: make([]ScalingRun, 2)}}}
	md := s.Markdown()
	var header string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| variant") {
			header = l
		}
	}
	for _, want := range []string{"| usage (÷ static-12) |", "| event-time p99, median over seconds (s) |", "| event-time p99, p95 over seconds (s) |"} {
		if !strings.Contains(header, want) {
			t.Errorf("header %q lacks %q", header, want)
		}
	}
	for _, cell := range strings.Split(header, " | ") {
		if strings.Contains(cell, "latency") {
			t.Errorf("header cell %q says latency without its definition", cell)
		}
	}
	// Cells by the one number format: thousands separated, 4 significant digits.
	if !strings.Contains(md, "| hpa-80 | 1,000 [900.0, 1,100] |") || !strings.Contains(md, "| 1.000 [0.9000, 1.100] | 1.000 [0.9000, 1.100] |") ||
		!strings.Contains(md, "Mean over 2 seeds") {
		t.Errorf("rows:\n%s", md)
	}
	for _, f := range ScalingFigures {
		if f == "latency_p50_ms" || f == "latency_p95_ms" {
			t.Errorf("figure %s reads as a per-second p50/p95 column of timeseries.parquet", f)
		}
	}
}
