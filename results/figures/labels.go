package figures

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/streamtwin/streamtwin/results"
)

// LabelledRun is one run folder of a multi-run figure or evaluation.
type LabelledRun struct {
	Dir, Label string
	Summary    *results.Summary // nil when the folder has no summary.json
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
		if s, err := results.ReadSummary(d); err == nil {
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
