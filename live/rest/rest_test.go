package rest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeFlink answers with the JSON shapes of Flink's REST spec
// (rest_v1_dispatcher.yml); the live tests check them against a real one.
func fakeFlink(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var polls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jars/upload", func(w http.ResponseWriter, r *http.Request) {
		f, h, err := r.FormFile("jarfile")
		if err != nil {
			http.Error(w, `{"errors":["no jarfile part"]}`, http.StatusBadRequest)
			return
		}
		data, _ := io.ReadAll(f)
		if string(data) != "PK-jar" || h.Header.Get("Content-Type") != "application/x-java-archive" {
			http.Error(w, `{"errors":["bad jar"]}`, http.StatusBadRequest)
			return
		}
		io.WriteString(w, `{"filename":"/tmp/flink-web-upload/1234_`+h.Filename+`","status":"success"}`)
	})
	mux.HandleFunc("POST /jars/{id}/run", func(w http.ResponseWriter, r *http.Request) {
		var req RunRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.EntryClass == "" || req.FlinkConfiguration["execution.checkpointing.interval"] != "30 s" || req.Parallelism != 2 {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"errors":["org.apache.flink.runtime.rest.handler.RestHandlerException: Could not execute application."]}`)
			return
		}
		io.WriteString(w, `{"jobid":"abc123"}`)
	})
	mux.HandleFunc("POST /jobs/{id}/stop", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"request-id":"trig-1"}`)
	})
	mux.HandleFunc("GET /jobs/{id}/savepoints/{trig}", func(w http.ResponseWriter, r *http.Request) {
		if polls.Add(1) < 3 {
			io.WriteString(w, `{"status":{"id":"IN_PROGRESS"}}`)
			return
		}
		if r.PathValue("id") == "failing" {
			io.WriteString(w, `{"status":{"id":"COMPLETED"},"operation":{"failure-cause":{"class":"x","stack-trace":"java.util.concurrent.CompletionException: task not running\n\tat …"}}}`)
			return
		}
		io.WriteString(w, `{"status":{"id":"COMPLETED"},"operation":{"location":"file:/sp/savepoint-abc"}}`)
	})
	mux.HandleFunc("GET /jobs/{id}/metrics", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `[{"id":"numRestarts","value":"2"},{"id":"lastCheckpointDuration","value":"153"}]`)
	})
	mux.HandleFunc("GET /jobs/{id}/vertices/{vid}/subtasks/metrics", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("agg") != "sum" {
			http.Error(w, "agg", http.StatusBadRequest)
			return
		}
		io.WriteString(w, `[{"id":"numRecordsOutPerSecond","sum":1234.5}]`)
	})
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"errors":["org.apache.flink.runtime.rest.NotFoundException: Job 1 not found"]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &polls
}

func TestClient(t *testing.T) {
	srv, polls := fakeFlink(t)
	c := New(srv.URL)
	ctx := context.Background()
	jar := filepath.Join(t.TempDir(), "jobs.jar")
	if err := os.WriteFile(jar, []byte("PK-jar"), 0o644); err != nil {
		t.Fatal(err)
	}
	id, err := c.UploadJar(ctx, jar)
	if err != nil || id != "1234_jobs.jar" {
		t.Fatalf("upload: %q, %v", id, err)
	}
	job, err := c.RunJar(ctx, id, RunRequest{EntryClass: "streamtwin.jobs.YahooStreamingBenchmark", Parallelism: 2,
		FlinkConfiguration: map[string]string{"execution.checkpointing.interval": "30 s"}})
	if err != nil || job != "abc123" {
		t.Fatalf("run: %q, %v", job, err)
	}
	loc, err := c.StopWithSavepoint(ctx, job, "file:/sp", false)
	if err != nil || loc != "file:/sp/savepoint-abc" || polls.Load() != 3 {
		t.Fatalf("stop: %q, %v after %d polls", loc, err, polls.Load())
	}
	m, err := c.JobMetrics(ctx, job, "numRestarts", "lastCheckpointDuration")
	if err != nil || m["numRestarts"] != 2 || m["lastCheckpointDuration"] != 153 {
		t.Fatalf("job metrics %v, %v", m, err)
	}
	s, err := c.SubtaskMetrics(ctx, job, "v1", "sum", "numRecordsOutPerSecond")
	if err != nil || s["numRecordsOutPerSecond"] != 1234.5 {
		t.Fatalf("subtask metrics %v, %v", s, err)
	}
}

func TestErrorsSayWhatFlinkSaid(t *testing.T) {
	srv, polls := fakeFlink(t)
	c := New(srv.URL)
	ctx := context.Background()
	cases := []struct {
		name string
		call func() error
		want []string
	}{
		{"rejected run", func() error {
			_, err := c.RunJar(ctx, "x.jar", RunRequest{EntryClass: "A"})
			return err
		}, []string{"POST /jars/x.jar/run: 400 Bad Request", "Could not execute application", "rejected the request"}},
		{"unknown job", func() error { _, err := c.Job(ctx, "1"); return err }, []string{"404 Not Found", "Job 1 not found", "GET /jobs"}},
		{"failed savepoint", func() error {
			polls.Store(5)
			_, err := c.StopWithSavepoint(ctx, "failing", "file:/sp", false)
			return err
		}, []string{"stop-with-savepoint of job failing failed", "task not running"}},
		{"missing jar", func() error { _, err := c.UploadJar(ctx, "/nonexistent/jobs.jar"); return err }, []string{"job jar", "make live-jobs"}},
		{"unreachable", func() error { _, err := New("http://127.0.0.1:1").Overview(ctx); return err }, []string{"is the JobManager up", "streamtwin live up"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := c.Job(ctx, "1"); !IsNotFound(err) {
		t.Error("IsNotFound does not see the 404")
	}
}

// fixture serves a recorded Flink 2.2.1 answer from testdata/ (see its README).
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The per-subtask latency-marker histograms of the sink writer, as a real
// Flink 2.2.1 names and answers them.
func TestVertexMetricsRecorded(t *testing.T) {
	const job, writer = "aa025c1e2267b9b4ed9f6d92e965704f", "6f007a2ee602da0824249dbe09fd0b1e"
	p99 := func(n string) string {
		return n + ".latency.source_id.61252f73469d3ffba207c548d29a0267.operator_id." + writer + ".operator_subtask_index." + n + ".latency_p99"
	}
	var got []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /jobs/{id}/vertices/{vid}/metrics", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != job || r.PathValue("vid") != writer {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query().Get("get")
		if q == "" {
			w.Write(fixture(t, "markers-writer-vertex-metrics.json"))
			return
		}
		got = strings.Split(q, ",")
		// Flink answers the ids it knows: the recording, minus unknown ones
		var all []map[string]string
		_ = json.Unmarshal(fixture(t, "markers-writer-vertex-p99.json"), &all)
		var out []map[string]string
		for _, m := range all {
			for _, id := range got {
				if m["id"] == id {
					out = append(out, m)
				}
			}
		}
		if out == nil {
			out = []map[string]string{}
		}
		json.NewEncoder(w).Encode(out)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := New(srv.URL)
	ctx := context.Background()

	names, err := c.VertexMetricNames(ctx, job, writer)
	if err != nil || len(names) != 58 {
		t.Fatalf("names: %d, %v", len(names), err)
	}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	for _, n := range []string{p99("0"), p99("1"), "0.numRecordsIn", "1.mailboxLatencyMs_p99"} {
		if !has[n] {
			t.Errorf("%s missing from the names", n)
		}
	}

	v, err := c.VertexMetricValues(ctx, job, writer, p99("0"), p99("1"), "0.bogus")
	if err != nil || len(v) != 2 || v[p99("0")] != 383 || v[p99("1")] != 426 {
		t.Fatalf("values %v, %v", v, err)
	}
	if len(got) != 3 || got[0] != p99("0") {
		t.Errorf("asked for %q", got)
	}
	if _, err := c.VertexMetricValues(ctx, job, "other", p99("0")); !IsNotFound(err) {
		t.Errorf("unknown vertex: %v", err)
	}
}

// The aggregating endpoint answers numbers, and (as Flink 2.2.1 does) []
// when one of the ids is unknown.
func TestSubtaskMetricsRecorded(t *testing.T) {
	ids := []string{
		"latency.source_id.61252f73469d3ffba207c548d29a0267.operator_id.6f007a2ee602da0824249dbe09fd0b1e.operator_subtask_index.0.latency_p99",
		"latency.source_id.61252f73469d3ffba207c548d29a0267.operator_id.6f007a2ee602da0824249dbe09fd0b1e.operator_subtask_index.1.latency_p99",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, id := range strings.Split(r.URL.Query().Get("get"), ",") {
			if id != ids[0] && id != ids[1] {
				io.WriteString(w, "[]")
				return
			}
		}
		w.Write(fixture(t, "markers-writer-subtasks-p99-max.json"))
	}))
	defer srv.Close()
	c := New(srv.URL)
	v, err := c.SubtaskMetrics(context.Background(), "j", "v", "max", ids...)
	if err != nil || v[ids[0]] != 383 || v[ids[1]] != 426 {
		t.Fatalf("%v, %v", v, err)
	}
	v, err = c.SubtaskMetrics(context.Background(), "j", "v", "max", append(ids, "latency_count")...)
	if err != nil || len(v) != 0 {
		t.Fatalf("with an unknown id: %v, %v", v, err)
	}
}

// The job's own metrics carry no latency histogram in Flink 2.2.1.
func TestJobMetricsHaveNoMarkers(t *testing.T) {
	var raw []map[string]string
	if err := json.Unmarshal(fixture(t, "markers-job-metrics.json"), &raw); err != nil || len(raw) == 0 {
		t.Fatal(err)
	}
	for _, m := range raw {
		if strings.HasPrefix(m["id"], "latency") {
			t.Errorf("job metric %s", m["id"])
		}
	}
	var j Job
	if err := json.Unmarshal(fixture(t, "markers-job.json"), &j); err != nil || len(j.Vertices) != 8 || j.State != "RUNNING" {
		t.Fatalf("job: %+v, %v", j, err)
	}
}

// SetParallelism PUTs every vertex of GET resource-requirements back with
// upper bound par, or its own from vertices (matched by the REST name of
// GET /jobs/{id}); a name the job lacks is refused before anything is PUT.
func TestSetParallelismPerVertex(t *testing.T) {
	var put atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/jobs/j/resource-requirements" && r.Method == http.MethodGet:
			io.WriteString(w, `{"a1":{"parallelism":{"lowerBound":1,"upperBound":2}},"b2":{"parallelism":{"lowerBound":1,"upperBound":2}}}`)
		case r.URL.Path == "/jobs/j/resource-requirements" && r.Method == http.MethodPut:
			b, _ := io.ReadAll(r.Body)
			put.Store(string(b))
			io.WriteString(w, "{}")
		case r.URL.Path == "/jobs/j":
			io.WriteString(w, `{"jid":"j","state":"RUNNING","vertices":[{"id":"a1","name":"Source: Kafka","parallelism":2},{"id":"b2","name":"Sink: Kafka","parallelism":2}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := New(srv.URL)
	ctx := context.Background()
	for _, k := range []struct {
		vertices map[string]int
		want     string
	}{
		{nil, `{"a1":{"parallelism":{"lowerBound":1,"upperBound":4}},"b2":{"parallelism":{"lowerBound":1,"upperBound":4}}}`},
		{map[string]int{"Sink: Kafka": 1}, `{"a1":{"parallelism":{"lowerBound":1,"upperBound":4}},"b2":{"parallelism":{"lowerBound":1,"upperBound":1}}}`},
	} {
		if err := c.SetParallelism(ctx, "j", 4, k.vertices); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(put.Load().(string)); got != k.want {
			t.Errorf("vertices %v: PUT %s, want %s", k.vertices, got, k.want)
		}
	}
	put.Store("")
	if err := c.SetParallelism(ctx, "j", 4, map[string]int{"Map": 1}); err == nil || !strings.Contains(err.Error(), `no vertex "Map"`) || put.Load() != "" {
		t.Errorf("unknown vertex: err %v, PUT %q", err, put.Load())
	}
}
