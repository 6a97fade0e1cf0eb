package flink

import (
	"math"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads/iot"
)

// Latency quantiles with staleness, by hand. Not queued: the results are
// point masses at their gaps, so p50 and p99 are gaps. Queued uniformly on
// [0, 2] s: 0.9·U[1, 3] + 0.1·U[4, 6]; p50 solves 0.9·(x − 1)/2 = 0.5, so
// x = 2.111 s, and p99 solves 0.9 + 0.1·(x − 4)/2 = 0.99, so x = 5.8 s.
// The mean adds 0.9·1 + 0.1·4 = 1.3 s to the queueing mean.
func TestLatencyStaleness(t *testing.T) {
	stale := []StalenessLevel{{Gap: 1, Share: 0.9}, {Gap: 4, Share: 0.1}}
	for _, tc := range []struct {
		name           string
		lo, hi         float64
		stale          []StalenessLevel
		mean, p50, p99 float64 // s
	}{
		{"fresh, not queued", 0, 0, nil, 0, 0, 0},
		{"stale, not queued", 0, 0, stale, 1.3, 1, 4},
		{"fresh, queued", 0, 2, nil, 1, 1, 1.98},
		{"stale, queued", 0, 2, stale, 2.3, 1 + 1/0.9, 5.8},
		{"all stale", 0, 0, []StalenessLevel{{Gap: 2, Share: 1}}, 2, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &Job{cfg: JobConfig{Latency: LatencyConfig{Staleness: tc.stale}},
				segs: []latencySegment{{w: 10, lo: tc.lo, hi: tc.hi}}}
			mean, p50, p99, marker := j.latency()
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"mean", mean, tc.mean}, {"p50", p50, tc.p50}, {"p99", p99, tc.p99}, {"marker", marker, 0}} {
				if math.Abs(c.got-1000*c.want) > 0.5 {
					t.Errorf("%s = %.1f ms, want %.1f ms", c.name, c.got, 1000*c.want)
				}
			}
		})
	}
}

// staleQuantile, the unqueued fast path, is the quantile the bisection over
// the mixture converges to, at every level boundary and between.
func TestStaleQuantileMatchesMixture(t *testing.T) {
	stale := []StalenessLevel{{Gap: 4, Share: 0.036}, {Gap: 1, Share: 0.893}, {Gap: 3, Share: 0.036}, {Gap: 2, Share: 0.035}}
	segs := []latencySegment{{w: 3}, {w: 7}}
	var parts []uniformPart
	for _, c := range []struct{ p, want float64 }{{0.5, 1}, {0.893, 1}, {0.9, 2}, {0.93, 3}, {0.99, 4}, {1, 4}} {
		if got := staleQuantile(stale, c.p); got != c.want {
			t.Errorf("staleQuantile(p=%g) = %g, want %g", c.p, got, c.want)
		}
		if got := mixtureQuantile(segs, stale, &parts, 10, c.p); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("mixtureQuantile(p=%g) = %g, want %g", c.p, got, c.want)
		}
	}
	if got := staleQuantile([]StalenessLevel{{Gap: 2, Share: 0.3}}, 0.5); got != 0 {
		t.Errorf("70 %% fresh: p50 = %g s, want 0", got)
	}
}

// The traffic-monitoring template's staleness is what the generator and the
// job's windows give (at a smaller size than the template's 6,000 vehicles
// for 600 s, to keep the test short).
func TestTrafficStaleness(t *testing.T) {
	b, err := Template("traffic-monitoring")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Job struct {
			Latency struct {
				Staleness []StalenessLevel `yaml:"staleness"`
			} `yaml:"latency"`
		} `yaml:"job"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want, err := iot.ResultStaleness(nil, 2, 2000, 300, 300)
	if err != nil {
		t.Fatal(err)
	}
	got := doc.Job.Latency.Staleness
	if len(got) != len(want) {
		t.Fatalf("template has %v, the generator gives %v", got, want)
	}
	for i, w := range want {
		if got[i].Gap != sim.Duration(w.GapS) || math.Abs(got[i].Share-w.Share) > 0.01 {
			t.Errorf("level %d: template %+v, generator %+v", i, got[i], w)
		}
	}
}
