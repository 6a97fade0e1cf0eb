package control

import (
	"math"
	"testing"

	"github.com/goccy/go-yaml/parser"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/policy"
	_ "github.com/streamtwin/streamtwin/models/policy/all"
	"github.com/streamtwin/streamtwin/results"
)

// BenchmarkPolicyStep is the cost of one controller tick: the Observation
// and the policy's Step, for Khaos on a 300-sample window with a recovery
// violation every tick (the full candidate search) and for the static
// policy. make bench prints it.
func BenchmarkPolicyStep(b *testing.B) {
	cases := []struct{ name, src string }{
		{"khaos", "{name: khaos, profile: ../../scenarios/live-khaos-profile/models.json, recovery_bound: 13s, period: 60s, min_uptime: 0s, window: 300s}"},
		{"static", "{name: static, interval: 30s}"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			f, err := parser.ParseBytes([]byte(c.src), 0)
			if err != nil {
				b.Fatal(err)
			}
			var spec scenario.PolicySpec
			if err := spec.UnmarshalYAML(f.Docs[0].Body); err != nil {
				b.Fatal(err)
			}
			pol, err := policy.New(spec.Name, spec.Node, nil)
			if err != nil {
				b.Fatal(err)
			}
			fb := &fake{due: math.NaN(), ci: 30, par: 2}
			fb.ctl = New(fb, pol, &scenario.Schedule{})
			for i := 1; i <= 600; i++ {
				fb.ctl.Observe(results.Sample{TimeS: float64(i), Throughput: 3000, InputRate: 3000, LatencyMarkerP99Ms: 400})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				fb.ops, fb.events, fb.ci = fb.ops[:0], fb.events[:0], 30
				fb.ctl.step()
			}
			if c.name == "khaos" && len(fb.events) == 0 {
				b.Fatal("khaos took no decision: the benchmark measures the wrong path")
			}
		})
	}
}
