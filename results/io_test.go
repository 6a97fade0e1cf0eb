package results

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestRoundTrip(t *testing.T) {
	small, smallEv, sum := syntheticRun(300)
	// Crosses two row-group boundaries and a partial batch.
	big, _, _ := syntheticRun(2*rowGroupRows + 1234)
	cases := []struct {
		name    string
		samples []Sample
		events  []Event
	}{
		{"empty", nil, nil},
		{"nan and nil optionals", small, smallEv},
		{"all optionals null", small[:1], []Event{{TimeS: 1, Kind: KindPolicyDecision}}},
		{"several row groups", big, smallEv},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			writeRun(t, dir, tc.samples, tc.events, sum)
			if want := (len(tc.samples) + rowGroupRows - 1) / rowGroupRows; rowGroups(t, filepath.Join(dir, TimeseriesFile)) != want {
				t.Errorf("want %d row groups of at most %d rows", want, rowGroupRows)
			}
			gotS, err := ReadSamples(filepath.Join(dir, TimeseriesFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(gotS) != len(tc.samples) {
				t.Fatalf("got %d samples, want %d", len(gotS), len(tc.samples))
			}
			for i := range gotS {
				if !same(gotS[i], tc.samples[i]) {
					t.Fatalf("sample %d: got %+v, want %+v", i, gotS[i], tc.samples[i])
				}
			}
			gotE, err := ReadEvents(filepath.Join(dir, EventsFile))
			if err != nil {
				t.Fatal(err)
			}
			if !same(gotE, tc.events) && !(len(gotE) == 0 && len(tc.events) == 0) {
				t.Fatalf("events: got %+v, want %+v", gotE, tc.events)
			}
			gotSum, err := ReadSummary(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !same(gotSum, sum) {
				t.Fatalf("summary: got %+v, want %+v", gotSum, sum)
			}
			yaml, err := os.ReadFile(filepath.Join(dir, ScenarioFile))
			if err != nil || string(yaml) != "name: synthetic\n" {
				t.Fatalf("scenario.yaml: %q, %v", yaml, err)
			}
		})
	}
}

func TestOutputIsByteDeterministic(t *testing.T) {
	samples, events, sum := syntheticRun(rowGroupRows + 500)
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	writeRun(t, a, samples, events, sum)
	writeRun(t, b, samples, events, sum)
	for _, name := range []string{TimeseriesFile, EventsFile, SummaryFile, ScenarioFile} {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two writes of the same rows", name)
		}
	}
}

func TestSummaryJSONFormat(t *testing.T) {
	_, _, sum := syntheticRun(1)
	sum.RecoveryTimesS = nil
	b, err := MarshalSummary(sum)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasSuffix(s, "}\n") || !strings.Contains(s, "\n  \"scenario\": \"synthetic\"") {
		t.Errorf("summary.json not indented with trailing newline:\n%s", s)
	}
	if !strings.Contains(s, `"recovery_times_s": []`) {
		t.Errorf("nil recovery_times_s should be written as []:\n%s", s)
	}
	sum.LatencyMeanMs = math.NaN()
	if _, err := MarshalSummary(sum); err == nil || !strings.Contains(err.Error(), SummaryFile) {
		t.Errorf("NaN in summary: want an error naming %s, got %v", SummaryFile, err)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	cases := []struct {
		name  string
		write func(w *RunWriter) error
	}{
		{"nothing written", func(*RunWriter) error { return nil }},
		{"rows written", func(w *RunWriter) error {
			samples, events, _ := syntheticRun(100)
			for _, s := range samples {
				if err := w.WriteSample(s); err != nil {
					return err
				}
			}
			return w.WriteEvent(events[0])
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			w, err := CreateRun(filepath.Join(base, "run"))
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.write(w); err != nil {
				t.Fatal(err)
			}
			w.Abort()
			w.Abort() // idempotent
			if entries, _ := os.ReadDir(base); len(entries) != 0 {
				t.Errorf("Abort left %v", entries)
			}
			if err := w.WriteSample(Sample{}); err == nil {
				t.Error("WriteSample after Abort: want an error")
			}
			if err := w.Commit(Summary{}, nil); err == nil {
				t.Error("Commit after Abort: want an error")
			}
		})
	}
}

func TestCommitReplacesExistingRun(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stale.txt"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	samples, events, sum := syntheticRun(50)
	w, err := CreateRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Until Commit the old run stays readable where it was.
	if _, err := os.Stat(filepath.Join(dir, "stale.txt")); err != nil {
		t.Fatalf("old run disturbed before Commit: %v", err)
	}
	for _, s := range samples {
		if err := w.WriteSample(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(sum, nil); err != nil {
		t.Fatal(err)
	}
	w.Abort() // no-op after Commit
	if _, err := os.Stat(filepath.Join(dir, "stale.txt")); !os.IsNotExist(err) {
		t.Errorf("stale file survived Commit: %v", err)
	}
	got, err := ReadSamples(filepath.Join(dir, TimeseriesFile))
	if err != nil || len(got) != len(samples) {
		t.Fatalf("read back %d samples (%v), want %d", len(got), err, len(samples))
	}
	if ev, err := ReadEvents(filepath.Join(dir, EventsFile)); err != nil || len(ev) != 0 {
		t.Errorf("events.parquet should exist and be empty: %d rows, %v", len(ev), err)
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 1 || entries[0].Name() != "run" {
		t.Errorf("leftovers next to the run: %v", entries)
	}
	_ = events
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.txt")
	for _, content := range []string{"first\n", "second\n"} {
		if err := WriteFileAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("got %q, %v; want %q", got, err, content)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x"), nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("want an error naming the path, got %v", err)
	}
}

func TestReadErrorsNameTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bogus.parquet")
	os.WriteFile(path, []byte("not parquet"), 0o644)
	if _, err := ReadSamples(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadSamples: %v", err)
	}
	if _, err := ReadEvents(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadEvents: %v", err)
	}
	if _, err := ReadSummary(filepath.Dir(path)); err == nil || !strings.Contains(err.Error(), SummaryFile) {
		t.Errorf("ReadSummary: %v", err)
	}
}

// TestWeekLongRunMemory writes a 7-day 1-s run (604800 rows) in a child
// process and checks its peak RSS, so the writer's memory stays flat.
func TestWeekLongRunMemory(t *testing.T) {
	const rows = 7 * 24 * 3600
	if dir := os.Getenv("RESULTS_MEMTEST_DIR"); dir != "" {
		w, err := CreateRun(filepath.Join(dir, "run"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			tm := float64(i + 1)
			s := Sample{TimeS: tm, InputRate: 1e4 + float64(i%977), Throughput: 1e4, Lag: float64(i % 5000),
				LatencyP50Ms: math.NaN(), LatencyP99Ms: 100 + float64(i%313), CheckpointIntervalS: 10,
				Parallelism: 4, Workers: 4, JobState: "RUNNING"}
			if err := w.WriteSample(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(Summary{Scenario: "week"}, nil); err != nil {
			t.Fatal(err)
		}
		status, _ := os.ReadFile("/proc/self/status")
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				fmt.Println("PEAK", strings.Fields(line)[1]) // kB
			}
		}
		return
	}
	if testing.Short() {
		t.Skip("writes 604800 rows")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to measure peak RSS")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWeekLongRunMemory$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RESULTS_MEMTEST_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var peakKB int
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "PEAK "); ok {
			peakKB, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if peakKB == 0 {
		t.Fatalf("child printed no peak RSS:\n%s", out)
	}
	t.Logf("peak RSS writing %d rows: %.1f MiB", rows, float64(peakKB)/1024)
	if peakKB > 100*1024 {
		t.Errorf("peak RSS %.1f MiB, want < 100 MiB", float64(peakKB)/1024)
	}
	got, err := ReadSamples(filepath.Join(dir, "run", TimeseriesFile))
	if err != nil || len(got) != rows || got[rows-1].TimeS != rows || !math.IsNaN(got[5].LatencyP50Ms) {
		t.Fatalf("read back %d rows, %v", len(got), err)
	}
}

func rowGroups(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if got := pf.Metadata().CreatedBy; got != "streamtwin" {
		t.Errorf("created_by %q", got)
	}
	for _, rg := range pf.RowGroups() {
		if rg.NumRows() > rowGroupRows {
			t.Errorf("row group of %d rows", rg.NumRows())
		}
	}
	return len(pf.RowGroups())
}
