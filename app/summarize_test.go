package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// summarizeSweep runs testSweep (checkpoint interval 10s/30s/60s × rate
// 60,000/s and 120,000/s × first fault at 8m/12m, 2 replications: 24 runs)
// once for the summarize tests.
func summarizeSweep(t *testing.T) string {
	t.Helper()
	dir, sweep := testSweep(t)
	out := filepath.Join(dir, "sweep")
	if _, stderr, code, _ := runCLI(t, "sweep", sweep, "--out", out, "--workers", "2"); code != 0 {
		t.Fatal(stderr)
	}
	return out
}

// TestSummarizeTests: summarize refuses to pool swept parameters silently,
// pools them on purpose with --pool and says so (table and parquet), prints
// group keys in their units, and refuses unknown figures with the closest
// names, as plot and compare do.
func TestSummarizeTests(t *testing.T) {
	sweep := summarizeSweep(t)
	stats := filepath.Join(sweep, "stats-by-job.checkpoint.interval.parquet")

	t.Run("pooling refused", func(t *testing.T) {
		_, stderr, code, _ := runCLI(t, "results", "summarize", sweep, "--by", "job.checkpoint.interval")
		for _, want := range []string{
			"workload.rate (2 values: 60,000/s, 120,000/s)", "faults[0].at (2 values: 8m, 12m)",
			"--by job.checkpoint.interval,workload.rate,faults[0].at", "--pool workload.rate,faults[0].at",
		} {
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
			}
		}
		if strings.Contains(stderr, "replication") && !strings.Contains(stderr, "with the replications") || strings.Contains(stderr, "seed") {
			t.Errorf("replications are not a parameter to pool: %s", stderr)
		}
		if exists(stats) {
			t.Error("a refused summary wrote its statistics")
		}
		// without --by every varying parameter is named
		_, stderr, code, _ = runCLI(t, "results", "summarize", sweep)
		for _, want := range []string{"job.checkpoint.interval (3 values: 10s, 30s, 1m)", "workload.rate", "faults[0].at"} {
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("no --by: exit %d, stderr %q; want 2 and %q", code, stderr, want)
			}
		}
		// one parameter pooled, the other still refused
		_, stderr, code, _ = runCLI(t, "results", "summarize", sweep, "--by", "job.checkpoint.interval", "--pool", "workload.rate")
		if code != 2 || !strings.Contains(stderr, "faults[0].at") || strings.Contains(stderr, "workload.rate (") {
			t.Errorf("--pool workload.rate only: exit %d, stderr %q; want 2 naming faults[0].at alone", code, stderr)
		}
	})

	t.Run("pool on purpose", func(t *testing.T) {
		stdout, stderr, code, _ := runCLI(t, "results", "summarize", sweep, "--by", "job.checkpoint.interval",
			"--pool", "workload.rate", "--pool", "faults[0].at", "--figure", "recovery_mean_s")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "pooled over workload.rate (2 values), faults[0].at (2 values)") {
			t.Errorf("the table does not say what it pooled:\n%s", stdout)
		}
		for _, l := range strings.Split(stdout, "\n") {
			if f := strings.Fields(l); len(f) > 3 && f[1] == "recovery_mean_s" && f[2] != "8" {
				t.Errorf("n = %s, want 8 (2 replications × 2 rates × 2 fault times): %q", f[2], l)
			}
		}
		tab, err := results.ReadTable(stats)
		if err != nil {
			t.Fatal(err)
		}
		col := tab.Strings[statistics.PooledColumn]
		if len(col) == 0 || col[0] != "workload.rate,faults[0].at" {
			t.Errorf("%s: column %s = %q, want workload.rate,faults[0].at", stats, statistics.PooledColumn, col)
		}
		os.Remove(stats)
		// grouped by every parameter nothing is pooled, and the column says so
		if _, stderr, code, _ := runCLI(t, "results", "summarize", sweep, "--by", "job.checkpoint.interval,workload.rate,faults[0].at"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		tab, err = results.ReadTable(filepath.Join(sweep, "stats-by-job.checkpoint.interval+workload.rate+faults0.at.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if col := tab.Strings[statistics.PooledColumn]; len(col) == 0 || col[0] != "" {
			t.Errorf("nothing pooled: column %s = %q, want empty", statistics.PooledColumn, col)
		}
	})

	t.Run("keys in units", func(t *testing.T) {
		stdout, stderr, code, _ := runCLI(t, "results", "summarize", sweep,
			"--by", "job.checkpoint.interval,workload.rate,faults[0].at", "--figure", "lag_max")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		keys := map[string]bool{}
		for _, l := range strings.Split(stdout, "\n")[1:] {
			if f := strings.Fields(l); len(f) > 3 && f[3] == "lag_max" {
				keys[f[0]], keys[f[1]], keys[f[2]] = true, true, true
			}
		}
		for _, want := range []string{"10s", "30s", "1m", "60,000/s", "120,000/s", "8m", "12m"} {
			if !keys[want] {
				t.Errorf("no group key %q (keys %v):\n%s", want, keys, stdout)
			}
		}
		for _, bare := range []string{"10", "60", "60000", "480"} {
			if keys[bare] {
				t.Errorf("group key %q without its unit:\n%s", bare, stdout)
			}
		}
		// a merged runs.parquet has no run folders, so no units: base units
		merged := filepath.Join(filepath.Dir(sweep), "merged")
		if _, stderr, code, _ := runCLI(t, "results", "merge", "--out", merged, sweep); code != 0 {
			t.Fatal(stderr)
		}
		stdout, stderr, code, _ = runCLI(t, "results", "summarize", merged,
			"--by", "job.checkpoint.interval,workload.rate,faults[0].at", "--figure", "lag_max")
		if code != 0 || !strings.Contains(stdout, "\n60 ") {
			t.Errorf("merged: exit %d, want keys in base units (60 s):\n%s%s", code, stdout, stderr)
		}
	})

	t.Run("unknown figure", func(t *testing.T) {
		tol := filepath.Join(t.TempDir(), "tol.yaml")
		os.WriteFile(tol, []byte("figures:\n  recovery_mean: {rel: 0.02}\n"), 0o644)
		cases := []struct {
			args []string
			want string
		}{
			{[]string{"results", "summarize", sweep, "--by", "job.checkpoint.interval", "--pool", "workload.rate,faults[0].at", "--figure", "recovery"},
				`unknown figure "recovery"; did you mean recovery_mean_s, recovery_median_s or recovery_max_s?`},
			{[]string{"results", "summarize", sweep, "--by", "job.checkpoint.interval", "--pool", "workload.rate,faults[0].at", "--figure", "lag_max,recovery_mean"},
				`unknown figure "recovery_mean"; did you mean recovery_mean_s?`},
			{[]string{"results", "summarize", sweep, "--by", "job.checkpoint.intervall"},
				`unknown parameter "job.checkpoint.intervall"; did you mean job.checkpoint.interval?`},
			{[]string{"results", "summarize", sweep, "--by", "job.checkpoint.interval", "--pool", "rate,faults[0].at"},
				`unknown parameter "rate"; did you mean workload.rate?`},
			{[]string{"plot", "lines", sweep, "--x", "job.checkpoint.interval", "--y", "recovery_mean"},
				`no column "recovery_mean"; did you mean recovery_mean_s?`},
			{[]string{"plot", "heatmap", sweep, "--x", "job.checkpoint.interval", "--y", "workload.rate", "--z", "p99"},
				`no column "p99"; did you mean latency_p99_ms?`},
			{[]string{"plot", "lines", sweep, "--x", "interval", "--y", "recovery_mean_s"},
				`no column "interval"; did you mean job.checkpoint.interval`},
			{[]string{"compare", sweep, sweep, "--tolerance", tol},
				`unknown figure "recovery_mean"; did you mean recovery_mean_s?`},
		}
		for _, c := range cases {
			stdout, stderr, code, _ := runCLI(t, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("%s: exit %d, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
			}
			if strings.Contains(stdout, " figure ") {
				t.Errorf("%s printed a table:\n%s", strings.Join(c.args, " "), stdout)
			}
		}
	})
}
