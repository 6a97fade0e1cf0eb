package external_test

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/models/forecast/external"
)

// repoRoot is the folder of go.mod above the test's working directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// numpyExample is examples/python/numpy_forecaster.py under the repository's
// .venv interpreter, run from an unrelated folder. Without a .venv the test
// skips; a .venv without numpy fails it (requirements.txt pins numpy).
func numpyExample(t testing.TB, config map[string]any) *external.Forecaster {
	t.Helper()
	root := repoRoot(t)
	python := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Skipf("no Python virtual environment at %s (make python-test creates it): %v", python, err)
	}
	if out, err := exec.Command(python, "-c", "import numpy").CombinedOutput(); err != nil {
		t.Fatalf("%s has no numpy (pip install -r requirements.txt): %v\n%s", python, err, out)
	}
	f, err := external.New(external.Settings{
		Command: []string{python, filepath.Join(root, "examples", "python", "numpy_forecaster.py")},
		Dir:     t.TempDir(), Config: config, StartTimeout: 60, Timeout: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// series is 360 points of a trend, a slow wave and seeded noise.
func series() []float64 {
	r := rand.New(rand.NewPCG(23, 1))
	y := make([]float64, 360)
	for t := range y {
		y[t] = 20000 + 15*float64(t) + 3000*math.Sin(float64(t)/40) + 400*r.NormFloat64()
	}
	return y
}

func TestNumpyExample(t *testing.T) {
	f := numpyExample(t, nil)
	hist, h := series(), 420
	q, err := f.Quantiles(hist, h, levels)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name() != "holt-numpy" {
		t.Errorf("name %q; want holt-numpy", f.Name())
	}
	if len(q) != 3 || len(q[0]) != h {
		t.Fatalf("%d×%d quantiles; want 3×%d", len(q), len(q[0]), h)
	}
	// The rule: point + √k·Q(level), so the spread of step k is √k times step 1's.
	width1 := q[2][0] - q[0][0]
	if !(width1 > 0) {
		t.Fatalf("the 10–90 %% spread of step 1 is %g; want > 0 on a noisy series", width1)
	}
	for _, k := range []int{4, 100, 420} {
		if got, w := q[2][k-1]-q[0][k-1], math.Sqrt(float64(k))*width1; math.Abs(got-w) > 1e-9*w {
			t.Errorf("spread at step %d %g; want √%d × %g = %g", k, got, k, width1, w)
		}
	}
	if last := hist[len(hist)-1]; math.Abs(q[1][0]-last) > 2000 {
		t.Errorf("median of step 1 %g, far from the last point %g", q[1][0], last)
	}
	again, err := f.Quantiles(hist, h, levels)
	if err != nil || !equal(again, q) {
		t.Errorf("the same request answered differently: %v", err)
	}

	// A straight line has no one-step errors: every quantile is the line.
	line := make([]float64, 50)
	for i := range line {
		line[i] = 5 + 2*float64(i)
	}
	q, err = f.Quantiles(line, 5, levels)
	if err != nil {
		t.Fatal(err)
	}
	for i := range q {
		for k, v := range q[i] {
			if w := 5 + 2*float64(len(line)+k); math.Abs(v-w) > 1e-9 {
				t.Errorf("line: quantile %g of step %d is %g; want %g", levels[i], k+1, v, w)
			}
		}
	}

	// Too short a history is an error reply; the process serves on.
	_, err = f.Quantiles(line[:5], 5, levels)
	if err == nil || !strings.Contains(err.Error(), "forecaster holt-numpy [") ||
		!strings.Contains(err.Error(), "cannot forecast at call 4: holt-numpy needs at least 10 points of history, got 5") {
		t.Errorf("short history: %v", err)
	}
	if _, err := f.Quantiles(line, 5, levels); err != nil {
		t.Errorf("after the error reply: %v", err)
	}
}

// A configuration the example refuses fails at start, with its traceback.
func TestNumpyExampleBadConfig(t *testing.T) {
	f := numpyExample(t, map[string]any{"alpha": 0.3})
	err := f.Start()
	if err == nil || !strings.Contains(err.Error(), "exited (exit status 1) at hello before replying") ||
		!strings.Contains(err.Error(), "ValueError: holt-numpy: unknown config keys ['alpha']") {
		t.Errorf("Start: %v", err)
	}
}

// TestNumpyExampleCost logs the median wall time of one Quantiles call over
// the protocol (history 360, horizon 420, 3 levels), started process, warm:
// go test ./models/forecast/external/ -run NumpyExampleCost -v
func TestNumpyExampleCost(t *testing.T) {
	f := numpyExample(t, nil)
	hist := series()
	begin := time.Now()
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Start (the interpreter, numpy, hello and ready): %v", time.Since(begin))
	n := 31
	if testing.Short() {
		n = 5
	}
	times := make([]time.Duration, 0, n)
	for i := 0; i < n+2; i++ {
		start := time.Now()
		if _, err := f.Quantiles(hist, 420, levels); err != nil {
			t.Fatal(err)
		}
		if i >= 2 { // the first calls warm numpy's caches
			times = append(times, time.Since(start))
		}
	}
	slices.Sort(times)
	t.Logf("one Quantiles call (history 360, horizon 420, 3 levels): median %v, min %v, max %v over %d calls",
		times[len(times)/2], times[0], times[len(times)-1], len(times))
}

func BenchmarkNumpyExample(b *testing.B) {
	f := numpyExample(b, nil)
	hist := series()
	if err := f.Start(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := f.Quantiles(hist, 420, levels); err != nil {
			b.Fatal(err)
		}
	}
}
