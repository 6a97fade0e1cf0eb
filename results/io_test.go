package results_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

func TestRoundTrip(t *testing.T) {
	small, smallEv, sum := resultstest.SyntheticRun(300)
	// Crosses two row-group boundaries and a partial batch.
	big, _, _ := resultstest.SyntheticRun(2*results.RowGroupRows + 1234)
	cases := []struct {
		name    string
		samples []results.Sample
		events  []results.Event
	}{
		{"empty", nil, nil},
		{"nan and nil optionals", small, smallEv},
		{"all optionals null", small[:1], []results.Event{{TimeS: 1, Kind: results.KindPolicyDecision}}},
		{"several row groups", big, smallEv},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			resultstest.WriteRun(t, dir, tc.samples, tc.events, sum)
			if want := (len(tc.samples) + results.RowGroupRows - 1) / results.RowGroupRows; rowGroups(t, filepath.Join(dir, results.TimeseriesFile)) != want {
				t.Errorf("want %d row groups of at most %d rows", want, results.RowGroupRows)
			}
			gotS, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(gotS) != len(tc.samples) {
				t.Fatalf("got %d samples, want %d", len(gotS), len(tc.samples))
			}
			for i := range gotS {
				// The counts are written as whole records.
				want := tc.samples[i]
				want.Lag, want.EndOffset, want.CommittedOffset = math.Round(want.Lag), math.Round(want.EndOffset), math.Round(want.CommittedOffset)
				if !resultstest.Same(gotS[i], want) {
					t.Fatalf("sample %d: got %+v, want %+v", i, gotS[i], want)
				}
			}
			gotE, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
			if err != nil {
				t.Fatal(err)
			}
			wantE := make([]results.Event, len(tc.events))
			for i, e := range tc.events {
				if (e.Kind == results.KindRunning || e.Kind == results.KindReconfigured) && e.Value != nil {
					e.Value = resultstest.Ptr(math.Round(*e.Value)) // a backlog: whole records
				}
				wantE[i] = e
			}
			if !resultstest.Same(gotE, wantE) && !(len(gotE) == 0 && len(tc.events) == 0) {
				t.Fatalf("events: got %+v, want %+v", gotE, tc.events)
			}
			gotSum, err := results.ReadSummary(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !resultstest.Same(gotSum, sum) {
				t.Fatalf("summary: got %+v, want %+v", gotSum, sum)
			}
			yaml, err := os.ReadFile(filepath.Join(dir, results.ScenarioFile))
			if err != nil || string(yaml) != "name: synthetic\n" {
				t.Fatalf("scenario.yaml: %q, %v", yaml, err)
			}
		})
	}
}

func TestOutputIsByteDeterministic(t *testing.T) {
	samples, events, sum := resultstest.SyntheticRun(results.RowGroupRows + 500)
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	resultstest.WriteRun(t, a, samples, events, sum)
	resultstest.WriteRun(t, b, samples, events, sum)
	for _, name := range []string{results.TimeseriesFile, results.EventsFile, results.SummaryFile, results.ScenarioFile} {
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
	_, _, sum := resultstest.SyntheticRun(1)
	sum.RecoveryTimesS = nil
	b, err := sum.Marshal()
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
	if _, err := sum.Marshal(); err == nil || !strings.Contains(err.Error(), results.SummaryFile) {
		t.Errorf("NaN in summary: want an error naming %s, got %v", results.SummaryFile, err)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	cases := []struct {
		name  string
		write func(w *results.RunWriter) error
	}{
		{"nothing written", func(*results.RunWriter) error { return nil }},
		{"rows written", func(w *results.RunWriter) error {
			samples, events, _ := resultstest.SyntheticRun(100)
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
			w, err := results.CreateRun(filepath.Join(base, "run"), false)
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
			if err := w.WriteSample(results.Sample{}); err == nil {
				t.Error("WriteSample after Abort: want an error")
			}
			if err := w.Commit(results.Summary{}, nil); err == nil {
				t.Error("Commit after Abort: want an error")
			}
		})
	}
}

// TestOutputFolders: a run replaces only what runs write, never the user's
// files, and a second writer of the same folder is refused at once.
func TestOutputFolders(t *testing.T) {
	samples, _, sum := resultstest.SyntheticRun(50)
	write := func(dir string, force bool) error {
		w, err := results.CreateRun(dir, force)
		if err != nil {
			return err
		}
		defer w.Abort()
		for _, s := range samples {
			if err := w.WriteSample(s); err != nil {
				return err
			}
		}
		return w.Commit(sum, nil)
	}
	file := func(dir, name, content string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		prepare func(dir string) // the folder before the run
		force   bool
		refused string   // part of the refusal, "" when the run is written
		survive []string // files that must still be there, unchanged
		gone    []string // files that must be gone
	}{
		{"new folder", func(string) {}, false, "", nil, nil},
		{"an earlier run's files only", func(d string) { file(d, results.FigurePNG, "old figure"); file(d, results.SummaryFile, "{}") }, false, "", nil, []string{results.FigurePNG}},
		{"a user's file", func(d string) { file(d, "thesis.tex", "chapter 1") }, false, "it holds thesis.tex, which streamtwin did not write", []string{"thesis.tex"}, nil},
		{"a user's file, --force", func(d string) { file(d, "thesis.tex", "chapter 1") }, true, "", []string{"thesis.tex"}, nil},
		{"a user's notes in a run folder", func(d string) {
			if err := write(d, false); err != nil {
				t.Fatal(err)
			}
			file(d, "notes.txt", "looks good")
			file(d, results.FigurePNG, "old figure")
		}, false, "", []string{"notes.txt"}, []string{results.FigurePNG}},
		{"the Khaos profile of run", func(d string) { file(filepath.Join(d, "profile"), "models.json", "{}") }, false, "", []string{"profile/models.json"}, nil},
		{"--out is a file", func(d string) { file(filepath.Dir(d), filepath.Base(d), "data") }, false, "it is a file", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			c.prepare(dir)
			before := map[string][]byte{}
			for _, f := range c.survive {
				before[f], _ = os.ReadFile(filepath.Join(dir, f))
			}
			err := write(dir, c.force)
			var re *results.RefusedError
			switch {
			case c.refused != "" && (!errors.As(err, &re) || !strings.Contains(err.Error(), c.refused)):
				t.Fatalf("error %v, want a refusal saying %q", err, c.refused)
			case c.refused == "" && err != nil:
				t.Fatal(err)
			case c.refused == "":
				if got, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile)); err != nil || len(got) != len(samples) {
					t.Errorf("read back %d samples (%v), want %d", len(got), err, len(samples))
				}
				if err := results.VerifyRun(dir); err != nil {
					t.Errorf("VerifyRun: %v", err)
				}
			}
			for _, f := range c.survive {
				if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || !bytes.Equal(b, before[f]) {
					t.Errorf("%s did not survive unchanged (%v)", f, err)
				}
			}
			for _, f := range c.gone {
				if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
					t.Errorf("stale %s survived the run (%v)", f, err)
				}
			}
			entries, _ := os.ReadDir(filepath.Dir(dir))
			if len(entries) != 1 {
				t.Errorf("leftovers next to the run: %v", entries)
			}
		})
	}
}

func TestSecondWriterRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w, err := results.CreateRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = results.CreateRun(dir, false)
	var re *results.RefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "another streamtwin process is writing it") || time.Since(start) > time.Second {
		t.Errorf("second writer: %v after %v, want an immediate refusal", err, time.Since(start))
	}
	w.Abort()
	if w2, err := results.CreateRun(dir, false); err != nil {
		t.Errorf("after the first writer finished: %v", err)
	} else {
		w2.Abort()
	}
}

// A resumed sweep reruns a run whose files changed or went missing.
func TestVerifyRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	samples, _, sum := resultstest.SyntheticRun(20)
	w, err := results.CreateRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		w.WriteSample(s)
	}
	if err := w.Commit(sum, []byte("name: x\n")); err != nil {
		t.Fatal(err)
	}
	if err := results.VerifyRun(dir); err != nil {
		t.Fatalf("a fresh run: %v", err)
	}
	os.Remove(filepath.Join(dir, results.TimeseriesFile))
	if err := results.VerifyRun(dir); err == nil {
		t.Error("VerifyRun accepts a run without its timeseries.parquet")
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.txt")
	for _, content := range []string{"first\n", "second\n"} {
		if err := results.WriteFileAtomic(path, []byte(content)); err != nil {
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
	if err := results.WriteFileAtomic(filepath.Join(dir, "missing", "x"), nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("want an error naming the path, got %v", err)
	}
}

func TestReadErrorsNameTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bogus.parquet")
	os.WriteFile(path, []byte("not parquet"), 0o644)
	if _, err := results.ReadSamples(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadSamples: %v", err)
	}
	if _, err := results.ReadEvents(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadEvents: %v", err)
	}
	if _, err := results.ReadSummary(filepath.Dir(path)); err == nil || !strings.Contains(err.Error(), results.SummaryFile) {
		t.Errorf("ReadSummary: %v", err)
	}
}

// TestWeekLongRunMemory writes a 7-day 1-s run (604800 rows) in a child
// process and checks its peak RSS, so the writer's memory stays flat.
func TestWeekLongRunMemory(t *testing.T) {
	const rows = 7 * 24 * 3600
	if dir := os.Getenv("RESULTS_MEMTEST_DIR"); dir != "" {
		w, err := results.CreateRun(filepath.Join(dir, "run"), false)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			tm := float64(i + 1)
			s := results.Sample{TimeS: tm, InputRate: 1e4 + float64(i%977), Throughput: 1e4, Lag: float64(i % 5000),
				LatencyP50Ms: math.NaN(), LatencyP99Ms: 100 + float64(i%313), CheckpointIntervalS: 10,
				Parallelism: 4, Workers: 4, JobState: "RUNNING"}
			if err := w.WriteSample(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(results.Summary{Scenario: "week"}, nil); err != nil {
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
	got, err := results.ReadSamples(filepath.Join(dir, "run", results.TimeseriesFile))
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
		if rg.NumRows() > results.RowGroupRows {
			t.Errorf("row group of %d rows", rg.NumRows())
		}
	}
	return len(pf.RowGroups())
}

// TestRunWriterWriteFile: a caller's file comes with the run folder, and
// only a plain name that is not one of the run's own files is accepted.
func TestRunWriterWriteFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w, err := results.CreateRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w.SkipSync()
	for _, bad := range []string{results.SummaryFile, results.TimeseriesFile, results.MarkerFile, "notes.txt", "../params.json", "sub/params.json", ".."} {
		if err := w.WriteFile(bad, []byte("{}")); err == nil {
			t.Errorf("WriteFile(%q) accepted", bad)
		}
	}
	if err := w.WriteFile("params.json", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "params.json")); err == nil {
		t.Error("params.json visible before the commit")
	}
	if err := w.Commit(results.Summary{}, []byte("name: x\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "params.json")); err != nil || string(b) != "{}\n" {
		t.Errorf("params.json after the commit: %q, %v", b, err)
	}
	if err := w.WriteFile("params.json", nil); err == nil {
		t.Error("WriteFile after Commit accepted")
	}
}

// TestCreateRunRemovesOnlyItsLeftovers: a killed writer's scratch folder is
// removed; the user's look-alikes beside the run folder are not.
func TestCreateRunRemovesOnlyItsLeftovers(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "run")
	for _, d := range []string{dir + results.ScratchSuffix, dir + ".tmp", dir + ".old", dir + ".tmp-123"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "x"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := results.CreateRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Commit(results.Summary{}, []byte("name: x\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir+results.ScratchSuffix, "x")); err == nil {
		t.Error("the killed writer's scratch folder survived")
	}
	for _, d := range []string{dir + ".tmp", dir + ".old", dir + ".tmp-123"} {
		if _, err := os.Stat(filepath.Join(d, "x")); err != nil {
			t.Errorf("the user's %s was touched: %v", filepath.Base(d), err)
		}
	}
}
