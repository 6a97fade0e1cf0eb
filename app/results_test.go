package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// TestCatKindAndSummary: results cat --kind keeps the events of those
// kinds and refuses an unknown one with exit 2, suggesting the kind
// meant; --summary prints a line per fault, an unrecovered one as such;
// both need an events file (exit 2 otherwise). A file that is not
// Parquet, JSON or CSV by its extension (a scenario's YAML) is refused.
func TestCatKindAndSummary(t *testing.T) {
	dir := t.TempDir()
	f := func(x float64) *float64 { return &x }
	tm := int32(1)
	events := filepath.Join(dir, results.EventsFile)
	if err := results.WriteParquetFile(events, []results.Event{
		{TimeS: 30.004, Kind: results.KindCheckpointCompleted, DurationS: f(0.5)},
		{TimeS: 600.25, Kind: results.KindFault, TaskManager: &tm, Reason: "faults[0]"},
		{TimeS: 601.25, Kind: results.KindDetected, Reason: "TaskManager 1 lost"},
		{TimeS: 1800, Kind: results.KindUnrecovered, DurationS: f(1199.75), Reason: "TaskManager 1 lost"},
		{TimeS: 1800, Kind: results.KindRunEnd, DurationS: f(1198.75), Reason: "FAILED"},
	}); err != nil {
		t.Fatal(err)
	}
	out, stderr, code, _ := runCLI(t, "results", "cat", events, "--kind", "fault", "--kind", "unrecovered")
	if code != 0 || strings.Contains(out, "checkpoint_completed") || !strings.Contains(out, "600.250  fault") || !strings.Contains(out, "unrecovered") {
		t.Errorf("--kind fault --kind unrecovered: exit %d %s\n%s", code, stderr, out)
	}
	out, stderr, code, _ = runCLI(t, "results", "cat", events, "--summary")
	if code != 0 || !strings.Contains(out, "unrecovered (>1,199.750)") || !strings.Contains(out, "1 fault: 0 recovered, 1 unrecovered") {
		t.Errorf("--summary: exit %d %s\n%s", code, stderr, out)
	}
	samples := filepath.Join(dir, results.TimeseriesFile)
	if err := results.WriteParquetFile(samples, []results.Sample{{TimeS: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{events, "--kind", "fault,recovery"}, `--kind "recovery": no such event kind; did you mean recovered? (kinds: fault, failure_detected,`},
		{[]string{events, "--kind", "checkpoint"}, "did you mean checkpoint_completed or checkpoint_failed?"},
		{[]string{events, "--kind", ","}, "--kind takes event kinds"},
		{[]string{events, "--summary", "--kind", "fault"}, "--summary prints one line per fault"},
		{[]string{samples, "--kind", "fault"}, "not an events file"},
		{[]string{samples, "--summary"}, "not an events file"},
		// not a result file by its extension: refused, not read as a one-column CSV
		{[]string{"../scenarios/demo.yaml"}, "results cat reads Parquet (.parquet), JSON (.json) and CSV (.csv) files, not YAML; a scenario prints with streamtwin scenario print ../scenarios/demo.yaml"},
	} {
		_, stderr, code, _ := runCLI(t, append([]string{"results", "cat"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("results cat %v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
