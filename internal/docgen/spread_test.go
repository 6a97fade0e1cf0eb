package docgen

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// TestKills: each fault's outage by hand. A kill at 10 s detected at
// 12.5 s and running again at 16 s, with a restart delay of 2 s: detection
// 2.5 s, deployment 16 − 12.5 − 2 = 1.5 s, downtime 6 s. A kill never
// detected is left out.
func TestKills(t *testing.T) {
	dir := t.TempDir()
	six, five := 6.0, 5.0
	// live, the job can read its backlog before its last subtask reports
	// RUNNING: the recovery closes before the running event, which still
	// belongs to this outage (it comes before the next fault)
	events := []results.Event{
		{TimeS: 10, Kind: results.KindFault},
		{TimeS: 12.5, Kind: results.KindDetected},
		{TimeS: 15, Kind: results.KindRecovered, DurationS: &five},
		{TimeS: 16, Kind: results.KindRunning, DurationS: &six},
		{TimeS: 40, Kind: results.KindFault},
	}
	if err := results.WriteParquetFile(filepath.Join(dir, results.EventsFile), events); err != nil {
		t.Fatal(err)
	}
	ks, err := kills(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 1 {
		t.Fatalf("%d outages, want 1: %+v", len(ks), ks)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"detection", ks[0].detect, 2.5}, {"deployment", ks[0].deploy, 1.5}, {"downtime", ks[0].down, 6}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %g s, want %g s", c.name, c.got, c.want)
		}
	}
}
