package driver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/results"
)

// TestRestartTracking replays what the samples saw around a TaskManager
// kill: a cached job snapshot still RUNNING while numRestarts already
// counts the restart, the restart itself, the job RUNNING while its tasks
// restore (RESTORING), all tasks running, then a restart fast enough to
// fall between two samples. Each restart is one failure_detected at
// Flink's RESTARTING time and one running: when the samples saw all tasks
// running, or at Flink's RUNNING time for a restart between samples.
func TestRestartTracking(t *testing.T) {
	var numRestarts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprintf(w, `[{"id":"numRestarts","value":"%d"}]`, numRestarts.Load())
	}))
	defer srv.Close()
	r := &run{env: Env{REST: rest.New(srv.URL)}}
	r.state = "RUNNING"
	steps := []struct {
		now                 float64 // s, when the sample is taken
		state               string  // as the driver sees it
		restarting, running float64 // s, Flink's timestamps (0: none)
		restarts            int64   // numRestarts
	}{
		{71, "RUNNING", 0, -1, 0},
		{72, "RUNNING", 0, -1, 1}, // stale snapshot
		{76, "RESTARTING", 75.7, -1, 1},
		{78, "RESTORING", 75.7, 77.7, 1},
		{85, "RUNNING", 75.7, 77.7, 1},
		{86, "RUNNING", 75.7, 77.7, 1},
		{102, "RUNNING", 100.2, 101.5, 2}, // between samples
		{103, "RUNNING", 100.2, 101.5, 2},
	}
	r.start = time.Now()
	for _, s := range steps {
		ts := map[string]int64{}
		for state, at := range map[string]float64{"RESTARTING": s.restarting, "RUNNING": s.running} {
			if at != 0 {
				ts[state] = r.start.Add(time.Duration(at * float64(time.Second))).UnixMilli()
			}
		}
		j := rest.Job{ID: "j", State: s.state, Timestamps: ts}
		numRestarts.Store(s.restarts)
		r.trackState(context.Background(), j, s.now)
		if s.state == "RUNNING" {
			r.countRestarts(context.Background(), j)
		}
	}
	var got []string
	for _, e := range r.events {
		got = append(got, fmt.Sprintf("%s@%.1f", e.Kind, e.TimeS))
	}
	want := []string{"failure_detected@75.7", "running@85.0", "failure_detected@100.2", "running@101.5"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if r.restarts != 2 {
		t.Errorf("restarts %v, want 2", r.restarts)
	}
}

// TestDowntimeFrom: the downtime of a return to RUNNING runs from the last
// fault when that fault stopped the job itself (a crash), and from the
// failure it caused since when it did not (read-only checkpoint storage
// fails the job at its next checkpoint), as the twin dates it.
func TestDowntimeFrom(t *testing.T) {
	for _, c := range []struct {
		name string
		late bool
		want float64
	}{{"crash", false, 9}, {"checkpoint storage", true, 3}} {
		r := &run{}
		r.events = []results.Event{{TimeS: 40, Kind: results.KindFault}, {TimeS: 46, Kind: results.KindDetected}}
		if c.late {
			r.lateFaults = map[float64]bool{40: true}
		}
		r.backRunning(rest.Job{}, 49)
		got := r.events[len(r.events)-1]
		if got.Kind != results.KindRunning || got.DurationS == nil || *got.DurationS != c.want {
			t.Errorf("%s: %+v, want a running event down %g s", c.name, got, c.want)
		}
	}
}
