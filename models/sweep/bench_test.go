package sweep

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// benchSweep runs the 1,000-run benchmark sweep with the given workers and
// reports runs per second.
func benchSweep(b *testing.B, workers int) {
	spec, err := Load("../../scenarios/sweeps/bench-1000.yaml")
	if err != nil {
		b.Fatal(err)
	}
	if testing.Short() {
		spec.Replications = 1 // 100 runs
	}
	n := len(spec.Runs())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(b.TempDir(), "sweep")
		if _, err := Execute(context.Background(), spec, Options{Out: out, Workers: workers}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/sweep")
}

func BenchmarkSweep1000Workers1(b *testing.B) { benchSweep(b, 1) }
func BenchmarkSweep1000Workers2(b *testing.B) { benchSweep(b, 2) }

// TestSweepScaling times the 1,000-run sweep with 1 and 2 workers (make
// bench). Goals: under 60 s, and 2 workers at least 1.7× faster.
func TestSweepScaling(t *testing.T) {
	if os.Getenv("STREAMTWIN_BENCH") == "" {
		t.Skip("set STREAMTWIN_BENCH=1 (make bench)")
	}
	spec, err := Load("../../scenarios/sweeps/bench-1000.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(400)) // as the sweep command does
	var wall [3]float64
	for _, w := range []int{1, 2} {
		rep, err := Execute(context.Background(), spec, Options{Out: filepath.Join(t.TempDir(), "s"), Workers: w})
		if err != nil || rep.Done != 1000 {
			t.Fatalf("%d workers: %v, %d runs", w, err, rep.Done)
		}
		wall[w] = rep.Wall.Seconds()
		t.Logf("1000 one-hour runs with %d worker(s): %.1f s (%.0f runs/s)", w, wall[w], 1000/wall[w])
	}
	t.Logf("speedup with 2 workers: %.2f× (goal ≥ 1.7×)", wall[1]/wall[2])
}
