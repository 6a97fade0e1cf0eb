package driver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/live/rest"
)

// fakeFlink is the part of Flink's REST API a run's cleanup uses. A jar
// run takes runTime and creates its job even when the client gave up on
// the request, as Flink's does.
type fakeFlink struct {
	mu      sync.Mutex
	jobs    []rest.JobSummary
	runTime time.Duration
}

func (f *fakeFlink) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/run"):
		var body rest.RunRequest
		_ = json.NewDecoder(req.Body).Decode(&body)
		name := "TrafficMonitoring"
		for i, a := range body.ProgramArgsList {
			if a == "--job-name" && i+1 < len(body.ProgramArgsList) {
				name = body.ProgramArgsList[i+1]
			}
		}
		time.Sleep(f.runTime) // main() runs, whether the client waits or not
		f.mu.Lock()
		id := "job-" + string(rune('a'+len(f.jobs)))
		f.jobs = append(f.jobs, rest.JobSummary{ID: id, Name: name, State: "CREATED"})
		f.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]string{"jobid": id})
	case req.Method == http.MethodGet && req.URL.Path == "/jobs/overview":
		f.mu.Lock()
		defer f.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"jobs": f.jobs})
	case req.Method == http.MethodPatch && req.URL.Query().Get("mode") == "cancel":
		id := strings.TrimPrefix(req.URL.Path, "/jobs/")
		f.mu.Lock()
		defer f.mu.Unlock()
		for i := range f.jobs {
			if f.jobs[i].ID == id && f.jobs[i].State != "FINISHED" {
				f.jobs[i].State = "CANCELED"
			}
		}
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte("{}"))
	default:
		w.Write([]byte("{}"))
	}
}

func (f *fakeFlink) states() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for _, j := range f.jobs {
		out[j.Name+" "+j.ID] = j.State
	}
	return out
}

// TestCleanupAfterAnInterruptedSubmission: a run interrupted while its
// (re)submission runs on the JobManager must still cancel the job that
// submission creates, and a job of the run whose ID it never learnt
// (named after its input topic), but no job of anyone else.
func TestCleanupAfterAnInterruptedSubmission(t *testing.T) {
	f := &fakeFlink{runTime: 300 * time.Millisecond}
	f.jobs = []rest.JobSummary{
		{ID: "other", Name: "someone-else", State: "RUNNING"},
		{ID: "lost", Name: "run-in", State: "INITIALIZING"},
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	r := &run{env: Env{REST: rest.New(srv.URL)}, in: "run-in", out: "run-out", jarID: "jar"}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel) // Ctrl-C while main() runs
	if _, err := r.submit(ctx, 10, 2, "file:///savepoint"); err != nil {
		t.Fatalf("the interrupted submission: %v", err)
	}
	r.cleanup()
	want := map[string]string{"someone-else other": "RUNNING", "run-in lost": "CANCELED", "run-in job-c": "CANCELED"}
	got := f.states()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("job %s is %s after the cleanup, want %s (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("jobs %v, want %v", got, want)
	}
}
