package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/internal/profile"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/evaluation"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// TestRefusalSaysWhatTheFolderIs: a run refused a folder that streamtwin
// wrote as something else (a sweep, the run folders of variants, an
// evaluation, a profile) says so, instead of calling streamtwin's files
// ones it did not write; the user's own files are still named as theirs.
// --force writes the run beside them and touches none of them.
func TestRefusalSaysWhatTheFolderIs(t *testing.T) {
	samples, _, sum := resultstest.SyntheticRun(20)
	run := func(dir string, force bool) error {
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
		return w.Commit(sum, []byte("name: x\n"))
	}
	file := func(path string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs := func(d string, names ...string) {
		t.Helper()
		for _, n := range names {
			if err := run(filepath.Join(d, n), false); err != nil {
				t.Fatal(err)
			}
		}
	}
	sweep := func(d string) {
		runs(filepath.Join(d, "runs"), "r000000", "r000001")
		file(filepath.Join(d, "sweep.yaml"))
		file(filepath.Join(d, results.RunsFile))
	}
	cases := []struct {
		name    string
		prepare func(d string)
		want    []string // parts of the refusal
		notWant string
	}{
		{"sweep", sweep, []string{"it is a sweep folder streamtwin wrote (runs/, runs.parquet, sweep.yaml), not a run folder", "choose another --out", "--force"}, "did not write"},
		{"sweep with statistics and figures", func(d string) {
			sweep(d)
			file(filepath.Join(d, "stats-by-job.checkpoint.interval.parquet"))
			file(filepath.Join(d, "figure-lines-recovery_mean_s.png"))
		}, []string{"a sweep folder streamtwin wrote", "the output of streamtwin results summarize (stats-by-job.checkpoint.interval.parquet)", "the output of streamtwin plot (figure-lines-recovery_mean_s.png)"}, "did not write"},
		{"a sweep's runs/", func(d string) { runs(d, "r000000", "r000001") }, []string{"a folder of run folders streamtwin wrote (r000000, r000001)"}, "did not write"},
		{"variants with an evaluation", func(d string) {
			runs(d, "ci10", "ci30")
			for _, f := range []string{evaluation.MarkdownFile, evaluation.FailuresCSV, evaluation.VariantsCSV, evaluation.RecoveryFigure + ".svg"} {
				file(filepath.Join(d, f))
			}
			file(filepath.Join(d, "profile", profile.ModelsFile))
		}, []string{"a folder of run folders streamtwin wrote (ci10, ci30) with the output of streamtwin evaluate (evaluation-recovery.svg, evaluation.md, failures.csv, … (1 more))"}, "did not write"},
		{"a scaling evaluation", func(d string) {
			sweep(d)
			for _, f := range []string{evaluation.ScalingMarkdown, evaluation.ScalingCSV, evaluation.ScalingRunsCSV, "scaling-summary.pdf"} {
				file(filepath.Join(d, f))
			}
		}, []string{"with the output of streamtwin evaluate (scaling-runs.csv, scaling-summary.pdf, scaling.csv, … (1 more))"}, "did not write"},
		{"check's folders of variants", func(d string) { runs(filepath.Join(d, "demo"), "a", "b"); runs(d, "plain") }, []string{"a folder of run folders streamtwin wrote (demo, plain)"}, "did not write"},
		{"a profile", func(d string) {
			for _, f := range []string{profile.PointsFile, profile.ProfilingFile, profile.ModelsFile, "recovery_model.png"} {
				file(filepath.Join(d, f))
			}
		}, []string{"a Khaos profile folder streamtwin wrote (streamtwin profile: failure_points.csv, models.json, profiling.parquet, … (1 more))"}, "did not write"},
		{"leftovers of a killed run", func(d string) {
			runs(d, "a")
			os.MkdirAll(filepath.Join(d, "b"+results.ScratchSuffix), 0o755)
			os.WriteFile(filepath.Join(d, "b.lock"), nil, 0o644)
		}, []string{"a folder of run folders streamtwin wrote (a), not a run folder"}, "did not write"},
		{"a user's notes in a sweep folder", func(d string) { sweep(d); file(filepath.Join(d, "notes.txt")) },
			[]string{"it is a sweep folder streamtwin wrote (runs/, runs.parquet, sweep.yaml), and holds notes.txt, which streamtwin did not write"}, ""},
		{"a user's folder of folders", func(d string) {
			file(filepath.Join(d, "chapter1", "thesis.tex"))
			file(filepath.Join(d, "runs.parquet"))
		},
			[]string{"it is what streamtwin results merge writes (runs.parquet), and holds chapter1, which streamtwin did not write"}, ""},
		{"a user's files only", func(d string) { file(filepath.Join(d, "chapter1", "thesis.tex")); file(filepath.Join(d, "notes.txt")) },
			[]string{"it holds chapter1, notes.txt, which streamtwin did not write"}, "streamtwin wrote"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			c.prepare(dir)
			before := tree(t, dir)
			err := run(dir, false)
			var re *results.RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("error %v, want a refusal", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q lacks %q", err, w)
				}
			}
			if c.notWant != "" && strings.Contains(err.Error(), c.notWant) {
				t.Errorf("refusal %q says %q", err, c.notWant)
			}
			if err := run(dir, true); err != nil {
				t.Fatalf("--force: %v", err)
			}
			after := tree(t, dir)
			for path, size := range before {
				if after[path] != size {
					t.Errorf("--force changed %s", path)
				}
			}
		})
	}
}

// tree maps every file below dir (but the run files --force writes at its
// top) to its size.
func tree(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if filepath.Dir(rel) == "." && (rel == results.MarkerFile || rel == results.SummaryFile || rel == results.TimeseriesFile || rel == results.EventsFile || rel == results.ScenarioFile) {
			return nil
		}
		info, _ := d.Info()
		out[rel] = info.Size()
		return nil
	})
	return out
}
