package calibrate

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParseKhaosFailures reads the real Khaos YSB log: 12 failures for each
// of the five static-CI profiling copies, and 12 of the Khaos-managed job,
// skipped. The per-CI medians are the hand-checked ones of docs/reference/khaos.md §12.
func TestParseKhaosFailures(t *testing.T) {
	const path = "testdata/khaos-ysb-failures.txt"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pts, skipped, err := ParseKhaosFailures(path, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 60 || skipped != 12 {
		t.Fatalf("%d points, %d skipped; want 60 and 12", len(pts), skipped)
	}
	byCI := map[float64][]float64{}
	for _, p := range pts {
		byCI[p.CheckpointIntervalS] = append(byCI[p.CheckpointIntervalS], p.RecoveryS)
		if !math.IsNaN(p.FaultAtS) || p.Label != "profile_"+profileMs(p.CheckpointIntervalS) {
			t.Errorf("line %d: label %q, FaultAtS %v", p.Line, p.Label, p.FaultAtS)
		}
	}
	wantMedian := map[float64]float64{10: 168, 30: 173, 60: 217, 90: 249, 120: 279.5}
	for ci, want := range wantMedian {
		if n := len(byCI[ci]); n != 12 {
			t.Errorf("CI %gs: %d points, want 12", ci, n)
		}
		if got := khaosMedian(byCI[ci]); got != want {
			t.Errorf("CI %gs: median recovery %v s, want %v", ci, got, want)
		}
	}
	if len(byCI) != len(wantMedian) {
		t.Errorf("CIs %v, want 10, 30, 60, 90, 120 s", ciKeys(byCI))
	}
	// the first profiling line, with no space before avgThr
	want := Point{Label: "profile_10000", Throughput: 57116.571653, CheckpointIntervalS: 10, RecoveryS: 122, LatencyMs: 561.625116, FaultAtS: math.NaN()}
	assertPoints(t, pts[:1], []Point{want})
	if pts[0].Line != 14 {
		t.Errorf("first point from line %d, want 14", pts[0].Line)
	}
}

func profileMs(ciS float64) string { return strconv.FormatFloat(ciS*1000, 'g', -1, 64) }

func khaosMedian(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	return (s[(n-1)/2] + s[n/2]) / 2
}

func ciKeys(m map[float64][]float64) []float64 {
	var out []float64
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestParseKhaosFailuresLenient(t *testing.T) {
	src := "\n  FailureMetrics{jobId='profile_25714',avgThr=60000,avgLat=500.5,recTime=140.0}  \n" +
		"FailureMetrics{ jobId = profile_120000 , avgThr = 1e5, avgLat=0, recTime=3, extra='x'}\n" +
		"FailureMetrics{experimentId=60, jobId='advertising', avgThr=1, avgLat=1, recTime=1} (actual: 202)\n" +
		"FailureMetrics{jobId='advertising', avgThr=1, avgLat=1, recTime=1}(actual:7.5)\n"
	pts, skipped, err := ParseKhaosFailures("f.txt", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	assertPoints(t, pts, []Point{
		{Label: "profile_25714", Throughput: 60000, CheckpointIntervalS: 25.714, RecoveryS: 140, LatencyMs: 500.5, FaultAtS: math.NaN()},
		{Label: "profile_120000", Throughput: 1e5, CheckpointIntervalS: 120, RecoveryS: 3, LatencyMs: 0, FaultAtS: math.NaN()},
	})
	if skipped != 2 || pts[0].Line != 2 || pts[1].Line != 3 {
		t.Errorf("skipped %d, lines %d %d; want 2, 2 3", skipped, pts[0].Line, pts[1].Line)
	}
}

func TestParseKhaosFailuresErrors(t *testing.T) {
	const ok = "FailureMetrics{experimentId=60, jobId='profile_10000', avgThr=57116.5, avgLat=561.6, recTime=122.0}\n"
	cases := []struct{ name, src, want string }{
		{"not a FailureMetrics line", ok + "experimentId=60, jobId='profile_10000'\n", "f.txt:2: expected a line like FailureMetrics{experimentId=60, jobId='profile_10000'"},
		{"no closing brace", "FailureMetrics{jobId='profile_10000', avgThr=1, avgLat=1, recTime=1\n", "f.txt:1: expected a line like"},
		{"missing key", "FailureMetrics{jobId='profile_10000', avgThr=1, avgLat=1}\n", "f.txt:1: missing recTime="},
		{"missing jobId", "FailureMetrics{avgThr=1, avgLat=1, recTime=1}\n", "f.txt:1: missing jobId="},
		{"not a number", ok + ok + "FailureMetrics{jobId='profile_10000', avgThr=fast, avgLat=1, recTime=1}\n", `f.txt:3: avgThr: "fast" is not a number`},
		{"not key=value", "FailureMetrics{jobId='profile_10000' avgThr=1, avgLat=1, recTime=1}\n", `f.txt:1: "jobId='profile_10000' avgThr=1" holds two key=value pairs (a comma missing?)`},
		{"empty pair", "FailureMetrics{jobId='profile_10000',, avgThr=1, avgLat=1, recTime=1}\n", `f.txt:1: "" is not key=value`},
		{"duplicate key", "FailureMetrics{jobId='profile_10000', avgThr=1, avgThr=2, avgLat=1, recTime=1}\n", "f.txt:1: avgThr appears twice"},
		{"bad CI", "FailureMetrics{jobId='profile_10s', avgThr=1, avgLat=1, recTime=1}\n", `f.txt:1: jobId "profile_10s": a profiling copy is named profile_<checkpoint interval in ms>`},
		{"zero CI", "FailureMetrics{jobId='profile_0', avgThr=1, avgLat=1, recTime=1}\n", `f.txt:1: jobId "profile_0"`},
		{"negative recovery", "FailureMetrics{jobId='profile_10000', avgThr=1, avgLat=1, recTime=-1}\n", "f.txt:1: recTime: must be in (0, 604800] seconds (a week), got -1"},
		{"negative latency", "FailureMetrics{jobId='profile_10000', avgThr=1, avgLat=-1, recTime=1}\n", "f.txt:1: avgLat: must be in [0, 86400000] ms"},
		{"zero throughput", "FailureMetrics{jobId='profile_10000', avgThr=0, avgLat=1, recTime=1}\n", "f.txt:1: avgThr: must be in (0, 1e9] records/s, got 0"},
		{"trailing text", ok + "FailureMetrics{jobId='advertising', avgThr=1, avgLat=1, recTime=1} (predicted: 3)\n", "f.txt:2: unexpected \"(predicted: 3)\" after }"},
		{"bad actual", "FailureMetrics{jobId='advertising', avgThr=1, avgLat=1, recTime=1} (actual: n/a)\n", "f.txt:1: unexpected"},
		{"only the Khaos job", "FailureMetrics{jobId='advertising', avgThr=1, avgLat=1, recTime=1}\n\n", "f.txt: no lines of profiling copies (jobId 'profile_<CI ms>'); 1 other lines skipped"},
		{"empty", "", "f.txt: no lines of profiling copies"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ParseKhaosFailures("f.txt", strings.NewReader(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant one containing %q", err, c.want)
			}
		})
	}
}
