package driver

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/streamtwin/streamtwin/live/rest"
)

// Recorded answers of a real Flink 2.2.1 (live/rest/testdata/README.md).
const (
	recJob    = "aa025c1e2267b9b4ed9f6d92e965704f"
	recSource = "61252f73469d3ffba207c548d29a0267"
	recWriter = "6f007a2ee602da0824249dbe09fd0b1e"
)

func recP99(n string) string {
	return n + ".latency.source_id." + recSource + ".operator_id." + recWriter + ".operator_subtask_index." + n + ".latency_p99"
}

func recorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "rest", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeMarkers serves the recorded job, the writer's metric ids and its
// p99 values; values replaces the recorded values (id → Flink's string)
// when non-nil. Like Flink's vertex endpoint, it answers the ids it knows.
func fakeMarkers(t *testing.T, values map[string]string) (*rest.Client, *atomic.Int32) {
	t.Helper()
	var reads atomic.Int32
	if values == nil {
		var rec []map[string]string
		if err := json.Unmarshal(recorded(t, "markers-writer-vertex-p99.json"), &rec); err != nil {
			t.Fatal(err)
		}
		values = map[string]string{}
		for _, m := range rec {
			values[m["id"]] = m["value"]
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Write(recorded(t, "markers-job.json"))
	})
	mux.HandleFunc("GET /jobs/{id}/vertices/{vid}/metrics", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != recJob || r.PathValue("vid") != recWriter {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"errors":["Job or vertex not found"]}`)
			return
		}
		q := r.URL.Query().Get("get")
		if q == "" {
			w.Write(recorded(t, "markers-writer-vertex-metrics.json"))
			return
		}
		reads.Add(1)
		out := []map[string]string{}
		for _, id := range strings.Split(q, ",") {
			if v, ok := values[id]; ok {
				out = append(out, map[string]string{"id": id, "value": v})
			}
		}
		json.NewEncoder(w).Encode(out)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return rest.New(srv.URL), &reads
}

func TestMarkerMetricIDsRecorded(t *testing.T) {
	c, _ := fakeMarkers(t, nil)
	ctx := context.Background()
	j, err := c.Job(ctx, recJob)
	if err != nil {
		t.Fatal(err)
	}
	sink := sinkVertex(j) // the vertex the driver reads the sink from
	if sink != recWriter {
		t.Fatalf("sink vertex %s, want the writer %s", sink, recWriter)
	}
	ids, err := markerMetricIDs(ctx, c, recJob, sink)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{recP99("0"), recP99("1")}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids %q, want %q", ids, want)
	}
	p99, ok := markerP99(ctx, c, recJob, sink, ids)
	if !ok || p99 != 426 { // subtask 0: 383 ms, subtask 1: 426 ms
		t.Fatalf("p99 %v, %v; want 426 (the slower subtask)", p99, ok)
	}
}

func TestMarkerP99(t *testing.T) {
	ids := []string{recP99("0"), recP99("1")}
	cases := []struct {
		name   string
		values map[string]string
		want   float64
		ok     bool
	}{
		{"both subtasks", map[string]string{ids[0]: "383.0", ids[1]: "426.0"}, 426, true},
		{"one subtask without a marker yet", map[string]string{ids[0]: "8490.0"}, 8490, true},
		{"no histogram", map[string]string{}, math.NaN(), false},
		{"NaN", map[string]string{ids[0]: "NaN", ids[1]: "NaN"}, math.NaN(), false},
		{"NaN beside a value", map[string]string{ids[0]: "NaN", ids[1]: "12190.0"}, 12190, true},
		{"not a number", map[string]string{ids[0]: "n/a"}, math.NaN(), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := fakeMarkers(t, tc.values)
			got, ok := markerP99(context.Background(), c, recJob, recWriter, ids)
			if ok != tc.ok || (ok && got != tc.want) || (!ok && !math.IsNaN(got)) {
				t.Fatalf("got %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestMarkerFailures(t *testing.T) {
	c, reads := fakeMarkers(t, nil)
	ctx := context.Background()
	if v, ok := markerP99(ctx, c, recJob, recWriter, nil); ok || !math.IsNaN(v) || reads.Load() != 0 {
		t.Errorf("no ids: %v, %v after %d reads (want none)", v, ok, reads.Load())
	}
	if v, ok := markerP99(ctx, c, recJob, "gone", []string{recP99("0")}); ok || !math.IsNaN(v) {
		t.Errorf("unknown vertex: %v, %v", v, ok)
	}
	if _, err := markerMetricIDs(ctx, c, recJob, "gone"); !rest.IsNotFound(err) {
		t.Errorf("unknown vertex: %v", err)
	}
	if v, ok := markerP99(ctx, rest.New("http://127.0.0.1:1"), recJob, recWriter, []string{recP99("0")}); ok || !math.IsNaN(v) {
		t.Errorf("unreachable: %v, %v", v, ok)
	}
}

// Before the first marker (or with latency tracking off) the writer has
// no latency histogram: no ids, no error.
func TestMarkerMetricIDsNone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `[{"id":"0.numRecordsIn"},{"id":"0.mailboxLatencyMs_p99"},{"id":"1.Sink__Kafka__Writer.KafkaProducer.request-latency-avg"}]`)
	}))
	defer srv.Close()
	ids, err := markerMetricIDs(context.Background(), rest.New(srv.URL), "j", "v")
	if err != nil || len(ids) != 0 {
		t.Fatalf("%q, %v", ids, err)
	}
}

func TestIsMarkerP99(t *testing.T) {
	for id, want := range map[string]bool{
		recP99("0"): true,
		recP99("1"): true,
		"12.latency.source_id.a.operator_id.b.operator_subtask_index.12.latency_p99": true,
		"3.latency.operator_id.b.operator_subtask_index.3.latency_p99":               true, // granularity "single"
		strings.TrimSuffix(recP99("0"), "p99") + "p999":                              false,
		strings.TrimSuffix(recP99("0"), "p99") + "median":                            false,
		strings.TrimPrefix(recP99("0"), "0."):                                        false, // the subtasks endpoint's form
		"0.mailboxLatencyMs_p99":                                                     false,
		"0.Sink__Kafka__Writer.KafkaProducer.request-latency-avg":                    false,
		"x.latency.source_id.a.operator_id.b.operator_subtask_index.0.latency_p99":   false,
		"": false,
	} {
		if got := isMarkerP99(id); got != want {
			t.Errorf("isMarkerP99(%q) = %v, want %v", id, got, want)
		}
	}
}
