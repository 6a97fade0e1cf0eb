package evaluation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results/resultstest"
)

// TestScalingFiguresNameTheBackend: the autoscaling figures are titled by
// the scenario and the runs' backends, so a twin comparison and a live
// one of the same scenario tell themselves apart; the summary draws the
// baseline as its reference and the latency in the table's unit, s.
func TestScalingFiguresNameTheBackend(t *testing.T) {
	for _, c := range []struct{ backend, want string }{{"sim", "wc (twin)"}, {"live", "wc (live)"}, {"", "wc"}} {
		t.Run(c.backend, func(t *testing.T) {
			dir := t.TempDir()
			var dirs []string
			for _, v := range []string{"auto", "static-12"} {
				samples, events, sum := resultstest.SyntheticRun(1800)
				sum.Scenario, sum.Variant, sum.Seed, sum.Backend = "wc", v, 1, c.backend
				d := filepath.Join(dir, "runs", v)
				resultstest.WriteRun(t, d, samples, events, sum)
				dirs = append(dirs, d)
			}
			s, err := EvaluateScaling(dirs, "static-12")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := WriteScaling(s, filepath.Join(dir, "out")); err != nil {
				t.Fatal(err)
			}
			for f, title := range map[string]string{"scaling-summary.svg": c.want + ":", "scaling-timeline.svg": c.want + ", seed 1:"} {
				b, err := os.ReadFile(filepath.Join(dir, "out", f))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), ">"+title) {
					t.Errorf("%s: no title starting %q", f, title)
				}
			}
			b, _ := os.ReadFile(filepath.Join(dir, "out", "scaling-summary.svg"))
			for _, want := range []string{"static-12 (baseline)", "event-time p99 (s)"} {
				if !strings.Contains(string(b), want) {
					t.Errorf("scaling-summary.svg lacks %q", want)
				}
			}
		})
	}
}
