package results

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Folders of run folders: the output of a scenario with variants, or a
// sweep's runs/, as the comparison, evaluation and figure layers read them.

// RunSubfolders lists the sub-folders of dir that hold a summary.json,
// sorted; hidden (temporary) folders are skipped.
func RunSubfolders(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && fileExists(filepath.Join(dir, e.Name(), SummaryFile)) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// RunKey is how a single summary is keyed: its variant, or its scenario
// name when it has none.
func RunKey(s Summary) string { return cmp.Or(s.Variant, s.Scenario) }

// LabelledRun is one run folder of a multi-run figure or evaluation.
type LabelledRun struct {
	Dir, Label string
	Summary    *Summary // nil when the folder has no summary.json
}

// LabelRuns pairs run folders with labels; without labels a run is named by
// its folder (with the parent folder too when two runs share a name).
func LabelRuns(runDirs, labels []string) ([]LabelledRun, error) {
	if len(runDirs) == 0 {
		return nil, errors.New("no run folders")
	}
	if len(labels) > 0 && len(labels) != len(runDirs) {
		return nil, fmt.Errorf("%d labels for %d run folders", len(labels), len(runDirs))
	}
	out := make([]LabelledRun, len(runDirs))
	count := map[string]int{}
	for _, d := range runDirs {
		count[filepath.Base(filepath.Clean(d))]++
	}
	for i, d := range runDirs {
		d = filepath.Clean(d)
		out[i] = LabelledRun{Dir: d, Label: filepath.Base(d)}
		if count[out[i].Label] > 1 {
			out[i].Label = filepath.Join(filepath.Base(filepath.Dir(d)), filepath.Base(d))
		}
		if s, err := ReadSummary(d); err == nil {
			out[i].Summary = &s
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if len(labels) > 0 {
			out[i].Label = labels[i]
		}
	}
	return out, nil
}
