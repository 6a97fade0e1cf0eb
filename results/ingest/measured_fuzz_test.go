package ingest

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseMeasuredCSV feeds arbitrary bytes to the measured-table reader
// as ReadMeasured runs it on a .csv (make fuzz; plain go test replays the
// seeds and testdata/fuzz/). A table it accepts has points within the
// physical ranges, on increasing lines, and no repeated row, and
// WriteMeasured's CSV — and its Parquet, for small tables — reads back to
// the same points.
func FuzzParseMeasuredCSV(f *testing.F) {
	for _, s := range []string{
		"throughput,checkpoint_interval_s,recovery_s\n50000,10,120\n",
		"throughput,checkpoint_interval_s,recovery_s,latency_ms,label,fault_at_s\n2875,10,9.5,5106.2,live-1,48.4\n3140,10,13.3,,\"a, b\",\n",
		"# measured\nrecovery_s, throughput ,checkpoint_interval_s\n\n120,50000,10\n90,60000,30\n",
		"throughput,checkpoint_interval_s,recovery_s\n50000,10,120\n50000,10,120\n",
		"throughput,checkpoint_interval_s,recovery_s\n1e300,10,120\n",
		"throughput,checkpoint_interval_s,recovery_s\n-1,10,120\n",
		"throughput,checkpoint_interval_s,recovery_s,latency_ms\n1,1,1,NaN\n",
		"throughput,checkpoint_interval_s\n1,1\n",
		"throughput,checkpoint_interval_s,recovery_s\n",
		"50000,10,120\n",
		"",
	} {
		f.Add([]byte(s))
	}
	paths, _ := filepath.Glob("../scenarios/measured/*.csv")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		pts, err := ParseMeasuredCSV("fuzz.csv", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(pts) == 0 {
			t.Fatal("an empty table was accepted")
		}
		for i, p := range pts {
			if err := p.Check(); err != nil {
				t.Fatalf("point %d accepted out of range: %v", i, err)
			}
			if p.Line < 2 || i > 0 && p.Line <= pts[i-1].Line {
				t.Fatalf("point %d at line %d after %d", i, p.Line, pts[max(i-1, 0)].Line)
			}
		}

		back, err := ParseMeasuredCSV("back.csv", bytes.NewReader(formatMeasuredCSV(pts)))
		if err != nil {
			t.Fatalf("WriteMeasured's CSV does not read back: %v\n%s", err, formatMeasuredCSV(pts))
		}
		samePoints(t, "CSV", back, pts)

		if len(pts) > 8 {
			return // Parquet is slower; small tables cover it
		}
		pq := filepath.Join(dir, "back.parquet")
		if err := WriteMeasured(pq, pts); err != nil {
			t.Fatalf("WriteMeasured: %v", err)
		}
		back, err = ReadMeasured(pq)
		if err != nil {
			t.Fatalf("WriteMeasured's Parquet does not read back: %v", err)
		}
		samePoints(t, "Parquet", back, pts)
	})
}

func samePoints(t *testing.T, format string, got, want []MeasuredFailure) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s round trip: %d points, want %d", format, len(got), len(want))
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for i, w := range want {
		g := got[i]
		if g.Label != w.Label || !same(g.Throughput, w.Throughput) || !same(g.CheckpointIntervalS, w.CheckpointIntervalS) ||
			!same(g.RecoveryS, w.RecoveryS) || !same(g.LatencyMs, w.LatencyMs) || !same(g.FaultAtS, w.FaultAtS) {
			t.Fatalf("%s round trip point %d: %+v, want %+v", format, i, g, w)
		}
	}
}
