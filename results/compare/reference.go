package compare

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/streamtwin/streamtwin/results"
)

// Reference is a regression reference file: the summaries of every run of
// one scenario (one per variant, or one keyed by the scenario name when it
// has no variants). See results/reference/README.md.
type Reference struct {
	Format   string                     `json:"format"`   // ReferenceFormat
	Scenario string                     `json:"scenario"` // the scenario's name
	Source   string                     `json:"source,omitempty"`
	Runs     map[string]results.Summary `json:"runs"`
}

// ReadRunSummaries reads a run folder (one summary, keyed by Summary.Key) or a
// folder of run folders (keyed by folder name).
func ReadRunSummaries(dir string) (map[string]results.Summary, error) {
	if fileExists(filepath.Join(dir, results.SummaryFile)) {
		s, err := results.ReadSummary(dir)
		if err != nil {
			return nil, err
		}
		return map[string]results.Summary{s.Key(): s}, nil
	}
	subs, err := results.RunSubfolders(dir)
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return nil, fmt.Errorf("%s holds no run folders", dir)
	}
	out := map[string]results.Summary{}
	for _, d := range subs {
		s, err := results.ReadSummary(filepath.Join(dir, d))
		if err != nil {
			return nil, err
		}
		out[d] = s
	}
	return out, nil
}

// MarshalReference renders a reference file: indented, runs sorted by key,
// wall_time_s zeroed (it is never compared and would churn the file) and
// recovery_times_s as [] rather than null.
func MarshalReference(r Reference) ([]byte, error) {
	if r.Format == "" {
		r.Format = ReferenceFormat
	}
	runs := make(map[string]results.Summary, len(r.Runs))
	for k, s := range r.Runs {
		s.WallTimeS = 0
		if s.RecoveryTimesS == nil {
			s.RecoveryTimesS = []float64{}
		}
		runs[k] = s
	}
	r.Runs = runs
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteReference writes a reference file atomically.
func WriteReference(path string, r Reference) error {
	b, err := MarshalReference(r)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return results.WriteFileAtomic(path, b)
}
