package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/models/policy/khaos"
)

// TestProfileFiguresNeverSayMeasured: the profile's failure points come
// from the twin's chaos experiments, so its model figures name them
// "profiled (twin)" and never "measured" (issue 37).
func TestProfileFiguresNeverSayMeasured(t *testing.T) {
	r := &Result{Models: khaos.Models{
		Latency:  khaos.Linear{Intercept: 400, Throughput: 0.002},
		Recovery: khaos.Linear{Intercept: 20, Throughput: 0.001, CIms: 0.0005},
	}}
	for _, ci := range []float64{10, 60} {
		for _, thr := range []float64{20000, 40000, 60000, 80000} {
			r.Samples = append(r.Samples, khaos.Sample{CheckpointIntervalS: ci, Throughput: thr,
				LatencyMs: 410 + thr/500, RecoveryS: 30 + thr/1000 + ci/2})
		}
	}
	dir := t.TempDir()
	files, err := r.plot(dir)
	if err != nil {
		t.Fatal(err)
	}
	var svgs int
	for _, f := range files {
		if filepath.Ext(f) != ".svg" {
			continue
		}
		svgs++
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "measured") {
			t.Errorf("%s labels simulated points \"measured\"", filepath.Base(f))
		}
		if !strings.Contains(string(b), ProfiledLabel) || !strings.Contains(string(b), "(twin)") {
			t.Errorf("%s does not name its points %q", filepath.Base(f), ProfiledLabel)
		}
	}
	if svgs != 2 {
		t.Errorf("%d SVG figures, want recovery_model and latency_model", svgs)
	}
}
