package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/results"
)

// instant is one testdata/flink-NNN.json: what the sampler reads of Flink
// and Kafka at the sample of second NNN of a live run (testdata/README.md).
// The Flink answers are kept as they came.
type instant struct {
	UnixMs     int64              `json:"unix_ms"`
	JobID      string             `json:"job_id"`
	InputTopic string             `json:"input_topic"`
	End        map[string]float64 `json:"kafka_end_offsets"`
	Committed  map[string]float64 `json:"kafka_committed_offsets"`
	MarkerIDs  []string           `json:"sink_marker_p99_ids"`

	Job                  json.RawMessage `json:"job"`
	NumRestarts          json.RawMessage `json:"num_restarts"`
	SourceCurrentOffsets json.RawMessage `json:"source_current_offsets"`
	SinkRecordsIn        json.RawMessage `json:"sink_records_in"`
	SinkMarkerP99        json.RawMessage `json:"sink_marker_p99"`
	SourceBackpressure   json.RawMessage `json:"source_backpressure"`
	Overview             json.RawMessage `json:"overview"`
	Checkpoints          json.RawMessage `json:"checkpoints"`
}

// The recorded run started (run time 0) at this Unix ms: Flink's
// RESTARTING timestamp of the kill's restart, 1796640511525, is the
// run's failure_detected event at 78.407 s.
const recordedStartMs = 1796640511525 - 78407

func loadInstant(t *testing.T, second int) instant {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("flink-%03d.json", second)))
	if err != nil {
		t.Fatal(err)
	}
	var in instant
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// replay serves an instant's answers as Flink's REST API, so the reading
// is decoded by the client the reader uses.
func replay(t *testing.T, in instant) *rest.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		get := req.URL.Query().Get("get")
		var body json.RawMessage
		switch p := req.URL.Path; {
		case p == "/overview":
			body = in.Overview
		case p == "/jobs/"+in.JobID:
			body = in.Job
		case p == "/jobs/"+in.JobID+"/metrics" && get == "numRestarts":
			body = in.NumRestarts
		case p == "/jobs/"+in.JobID+"/checkpoints":
			body = in.Checkpoints
		case strings.HasSuffix(p, "/subtasks/metrics") && strings.HasSuffix(get, ".currentOffset"):
			body = in.SourceCurrentOffsets
		case strings.HasSuffix(p, "/subtasks/metrics") && get == "numRecordsIn":
			body = in.SinkRecordsIn
		case strings.HasSuffix(p, "/subtasks/metrics") && get == "backPressuredTimeMsPerSecond":
			body = in.SourceBackpressure
		case strings.HasSuffix(p, "/metrics") && get == strings.Join(in.MarkerIDs, ","):
			body = in.SinkMarkerP99
		default:
			t.Errorf("not recorded: %s", req.URL)
			http.Error(w, `{"errors":["not recorded"]}`, http.StatusNotFound)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return rest.New(srv.URL)
}

func partitions(m map[string]float64) map[int32]float64 {
	if len(m) == 0 {
		return nil
	}
	out := map[int32]float64{}
	for k, v := range m {
		p, _ := strconv.Atoi(k)
		out[int32(p)] = v
	}
	return out
}

// recordedNames are the metric ids of the recorded job, as discover finds
// them at its first sample.
func recordedNames(t *testing.T) *metricNames {
	t.Helper()
	in := loadInstant(t, 74)
	var j rest.Job
	if err := json.Unmarshal(in.Job, &j); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "source-subtask-metric-names.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct{ ID string }
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range raw {
		ids = append(ids, r.ID)
	}
	m, err := newMetricNames(in.JobID, j, in.InputTopic, ids)
	if err != nil {
		t.Fatal(err)
	}
	m.markers = in.MarkerIDs
	return m
}

// recordedReading is the reading of second `second`, read as read does
// from the recorded answers; restarts are the run's count of the job's
// restarts by then (restarts.go books one when a sample sees RESTARTING).
func recordedReading(t *testing.T, m *metricNames, second int, restarts float64) reading {
	t.Helper()
	in := loadInstant(t, second)
	c := replay(t, in)
	ctx := context.Background()
	rd := reading{t: float64(second), job: in.JobID, ci: 10, par: 2, sinkIn: math.NaN(), markerP99Ms: math.NaN(),
		backpressured: math.NaN(), restarts: restarts}
	rd.end, rd.committed = partitions(in.End), partitions(in.Committed)
	var err error
	rd.status, err = c.Job(ctx, in.JobID)
	rd.answered = err == nil
	if st := rd.seen(); st.State == "RUNNING" {
		readJobMetrics(ctx, c, m, st, &rd)
	}
	rd.workers = taskManagers(ctx, c)
	return rd
}

// TestNewMetricNamesRecorded: the recorded job's source, sink writer and
// the current-offset ids of the input topic's two partitions.
func TestNewMetricNamesRecorded(t *testing.T) {
	m := recordedNames(t)
	topic := loadInstant(t, 74).InputTopic
	want := map[int32]string{
		0: "Source__Kafka.KafkaSourceReader.topic." + topic + ".partition.0.currentOffset",
		1: "Source__Kafka.KafkaSourceReader.topic." + topic + ".partition.1.currentOffset",
	}
	if m.source != recSource || m.sink != recWriter || !reflect.DeepEqual(m.offsets, want) || len(m.vertices) != 8 {
		t.Errorf("source %s, sink %s, offsets %v, %d vertices; want %s, %s, %v, 8", m.source, m.sink, m.offsets, len(m.vertices), recSource, recWriter, want)
	}
}

// TestStepRecorded steps the sampler through 17 s of a live run (the
// traffic-monitoring job at 3,000 events/s, parallelism 2, two partitions)
// around a TaskManager kill at 75.5 s. The instants were read at whole
// seconds of the run, as the producer's burst of the second begins, so a
// steady sample has lag 0 or the 3,000 records of a burst not read yet.
func TestStepRecorded(t *testing.T) {
	m := recordedNames(t)
	nan := math.NaN()
	type row struct {
		state                          string
		input, throughput, output, lag float64
		end, committed                 float64
		markerP99                      float64
		workers                        int32
		backpressure                   float64
	}
	want := map[int]row{
		74: {"RUNNING", 0, 0, 0, 0, 219000, 207000, 376, 2, 0}, // the first sample: no rates yet
		75: {"RUNNING", 3000, 3000, 119, 0, 222000, 207000, 376, 2, 0},
		76: {"RUNNING", 3000, 3000, 122, 0, 225000, 207000, 297, 2, 0},
		// killed at 75.5 s: Flink's metric store keeps the killed
		// TaskManager's last offsets and the source's record count stands
		// still too, so nothing is read and the lag grows by the input
		77: {"RUNNING", 3000, 0, 0, 3000, 228000, 207000, 297, 2, 0},
		78: {"RUNNING", 3000, 0, 0, 6000, 231000, 207000, 297, 2, 0},
		79: {"RUNNING", 3000, 0, 0, 9000, 234000, 207000, 297, 2, 0},
		// Flink detected the loss: the job restarts from the last
		// checkpoint's committed offsets (207,000), which is where the
		// position goes; 6,000 records in since the instant before
		80: {"RESTARTING", 6000, 0, 0, 33000, 240000, 207000, nan, 1, 0},
		81: {"RESTARTING", 0, 0, 0, 33000, 240000, 207000, nan, 1, 0},
		// RUNNING in Flink's words, its tasks CREATED, then one
		// INITIALIZING: RESTORING, with no metrics read
		82: {"RESTORING", 3000, 0, 0, 36000, 243000, 207000, nan, 1, 0},
		83: {"RESTORING", 6000, 0, 0, 42000, 249000, 207000, nan, 1, 0},
		// every task running, the new attempt not reporting yet: Flink
		// still serves the old attempt's offsets (103,796 + 121,203), taken
		// as read; the position moves from the committed offsets to them
		84: {"RUNNING", 3000, 18000, 0, 27000, 252000, 207000, 297, 1, 0},
		85: {"RUNNING", 3000, 0, 0, 30000, 255000, 207000, 297, 1, 0},
		86: {"RUNNING", 3000, 0, 0, 33000, 258000, 207000, 297, 1, 0},
		// the new attempt's offsets: caught up; the sink's counter counts
		// from the restart (2,252 records)
		87: {"RUNNING", 3000, 33000, 2252, 3000, 261000, 207000, 791, 2, 0},
		88: {"RUNNING", 3000, 3000, 139, 3000, 264000, 207000, 791, 2, 0},
		89: {"RUNNING", 3000, 3000, 132, 3000, 267000, 207000, 791, 2, 0.157},
		90: {"RUNNING", 3000, 3000, 139, 3000, 270000, 264000, 791, 2, 0.157}, // checkpoint 8 committed
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	var sm sampler
	restarts := 0.0
	for second := 74; second <= 90; second++ {
		rd := recordedReading(t, m, second, restarts)
		if rd.status.State == "RESTARTING" && restarts == 0 {
			restarts = 1 // trackState books the restart as the reading shows it
			rd.restarts = restarts
		}
		s := sm.step(rd)
		g := row{s.JobState, s.InputRate, s.Throughput, s.OutputRate, s.Lag, s.EndOffset, s.CommittedOffset, s.LatencyMarkerP99Ms, s.Workers, s.Backpressure}
		w := want[second]
		if g.state != w.state || !same(g.input, w.input) || !same(g.throughput, w.throughput) || !same(g.output, w.output) ||
			!same(g.lag, w.lag) || g.end != w.end || !same(g.committed, w.committed) || !same(g.markerP99, w.markerP99) ||
			g.workers != w.workers || math.Abs(g.backpressure-w.backpressure) > 1e-12 {
			t.Errorf("%d s: %+v\nwant  %+v", second, g, w)
		}
		if s.TimeS != float64(second) || s.CheckpointIntervalS != 10 || s.Parallelism != 2 || !math.IsNaN(s.Capacity) || !math.IsNaN(s.LatencyP99Ms) {
			t.Errorf("%d s: time %g, CI %g, parallelism %d, capacity %g, latency p99 %g", second, s.TimeS, s.CheckpointIntervalS, s.Parallelism, s.Capacity, s.LatencyP99Ms)
		}
	}
	if sm.stale != 0 {
		t.Errorf("%d stale samples, want none (the source's record count stood still with the offsets)", sm.stale)
	}
}

// TestUnmeasuredRecorded: a reading without Kafka's offsets is a sample
// of NaNs with the job's state and the TaskManagers, and leaves the
// sampler's state as it was.
func TestUnmeasuredRecorded(t *testing.T) {
	m := recordedNames(t)
	var sm sampler
	sm.step(recordedReading(t, m, 79, 0))
	before := sm
	rd := recordedReading(t, m, 80, 1)
	rd.end, rd.committed = nil, nil
	s := sm.step(rd)
	if s.JobState != "RESTARTING" || s.Workers != 1 || !math.IsNaN(s.InputRate) || !math.IsNaN(s.Throughput) || !math.IsNaN(s.Lag) ||
		!math.IsNaN(s.EndOffset) || !math.IsNaN(s.Backpressure) || !math.IsNaN(s.LatencyMarkerP99Ms) {
		t.Errorf("unmeasured sample %+v", s)
	}
	if !reflect.DeepEqual(sm, before) {
		t.Error("an unmeasured reading changed the sampler")
	}
	rd = recordedReading(t, m, 82, 1) // RUNNING, its tasks CREATED
	rd.end = nil
	if s := sm.step(rd); s.JobState != "RESTORING" {
		t.Errorf("state %s, want RESTORING", s.JobState)
	}
	rd.answered = false
	if s := sm.step(rd); s.JobState != "UNKNOWN" {
		t.Errorf("no answer: state %s, want UNKNOWN", s.JobState)
	}
}

// TestSeen: how the samples name the job's state.
func TestSeen(t *testing.T) {
	running := rest.Job{ID: "j", State: "RUNNING", Vertices: []rest.Vertex{{Status: "RUNNING"}, {Status: "RUNNING"}}}
	deploying := rest.Job{ID: "j", State: "RUNNING", Vertices: []rest.Vertex{{Status: "RUNNING"}, {Status: "DEPLOYING"}}}
	for _, c := range []struct {
		name              string
		status            rest.Job
		answered, jobLost bool
		want              string
	}{
		{"running", running, true, false, "RUNNING"},
		{"tasks deploying", deploying, true, false, "RESTORING"},
		{"restarting", rest.Job{ID: "j", State: "RESTARTING"}, true, false, "RESTARTING"},
		{"no answer", rest.Job{}, false, false, ""},
		{"no answer after a jobmanager fault", rest.Job{}, false, true, "FAILED"},
		{"answered after a jobmanager fault", running, true, true, "RUNNING"},
	} {
		rd := reading{job: "j", status: c.status, answered: c.answered, jobLost: c.jobLost}
		if got := rd.seen().State; got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestNewCheckpointsRecorded: the recorded checkpoint statistics give the
// checkpoint_completed events of the live run, each once.
func TestNewCheckpointsRecorded(t *testing.T) {
	in := loadInstant(t, 90)
	var cp rest.Checkpoints
	if err := json.Unmarshal(in.Checkpoints, &cp); err != nil {
		t.Fatal(err)
	}
	seen := map[checkpointKey]bool{}
	var got []string
	for _, e := range newCheckpoints(cp, in.JobID, seen, recordedStartMs) {
		got = append(got, fmt.Sprintf("%s %d@%.3f", e.Kind, *e.CheckpointID, e.TimeS))
	}
	// the run's events.parquet
	var want []string
	for i, at := range []float64{8.898, 18.965, 28.562, 38.560, 48.537, 58.578, 68.547, 87.525} {
		want = append(want, fmt.Sprintf("%s %d@%.3f", results.KindCheckpointCompleted, i+1, at))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n%v\nwant\n%v", got, want)
	}
	if again := newCheckpoints(cp, in.JobID, seen, recordedStartMs); len(again) != 0 {
		t.Errorf("%d events again", len(again))
	}
}

// runningJob is a hand-made job status: RUNNING, its source vertex "src"
// having emitted the given records.
func runningJob(id string, emitted float64) rest.Job {
	return rest.Job{ID: id, State: "RUNNING", Vertices: []rest.Vertex{{ID: "src", Status: "RUNNING", Metrics: rest.VertexMetrics{WriteRecords: emitted}}}}
}

// handReading is a hand-made reading of one partition at 1,000 records/s.
func handReading(t float64, job string, status rest.Job, end, committed float64, current offsets) reading {
	rd := reading{t: t, job: job, ci: 10, par: 1, status: status, answered: true, source: "src", current: current,
		end: offsets{0: end}, sinkIn: math.NaN(), markerP99Ms: math.NaN(), backpressured: math.NaN(), workers: 1}
	if committed >= 0 {
		rd.committed = offsets{0: committed}
	}
	return rd
}

// TestStepStaleOffsets (hand-made readings): Flink's offsets stand still
// at 4,999 from 6 s while the source's record count goes on. For
// staleAfter-1 samples the sampler believes them; then it advances the
// position by the records emitted since the offsets last moved, and
// counts the stale samples; offsets that move again take over.
func TestStepStaleOffsets(t *testing.T) {
	var sm sampler
	type step struct {
		current         float64 // Flink's last consumed offset
		lag, throughput float64
		stale           bool // the position is estimated
	}
	steps := map[float64]step{
		1:  {999, 0, 0, false},
		2:  {1999, 0, 1000, false},
		5:  {4999, 0, 1000, false}, // 3 s: 3,000 records
		6:  {4999, 1000, 0, false},
		7:  {4999, 2000, 0, false},
		8:  {4999, 0, 3000, true}, // the 3,000 records emitted since 5 s
		9:  {4999, 0, 1000, true},
		10: {9999, 0, 1000, false}, // from the estimate's position
	}
	stale := 0
	for _, sec := range []float64{1, 2, 5, 6, 7, 8, 9, 10} {
		st := steps[sec]
		if st.stale {
			stale++
		}
		s := sm.step(handReading(sec, "j", runningJob("j", 1000*sec), 1000*sec, -1, offsets{0: st.current}))
		if s.Lag != st.lag || s.Throughput != st.throughput || sm.stale != stale {
			t.Errorf("%g s: lag %g, throughput %g, %d stale; want %g, %g, %d", sec, s.Lag, s.Throughput, sm.stale, st.lag, st.throughput, stale)
		}
	}
}

// TestStepSavepointResume (hand-made readings): TestSavepointResume's
// sequence through the step. The old job read up to 59,999 when it
// stopped with a savepoint; Kafka's committed offset is still its last
// checkpoint's, 36,500. While the reconfiguration runs the position stays;
// the resubmitted job, RUNNING before its source reports an offset,
// resumes at the savepoint (lag 4,000, not 27,500), and its first second
// reads 1,000 records, not 24,500 replayed.
func TestStepSavepointResume(t *testing.T) {
	var sm sampler
	s := sm.step(handReading(60, "old", runningJob("old", 60000), 60000, 36500, offsets{0: 59999}))
	if s.Lag != 0 {
		t.Fatalf("60 s: lag %g", s.Lag)
	}
	rd := handReading(61, "old", rest.Job{ID: "old", State: "FINISHED"}, 61000, 36500, nil)
	rd.reconfiguring = true
	if s := sm.step(rd); s.Lag != 1000 || s.Throughput != 0 {
		t.Errorf("61 s, stopped: lag %g, throughput %g; want 1000, 0", s.Lag, s.Throughput)
	}
	if s := sm.step(handReading(64, "new", runningJob("new", 0), 64000, 36500, offsets{})); s.Lag != 4000 || s.Throughput != 0 {
		t.Errorf("64 s, resubmitted: lag %g, throughput %g; want 4000, 0", s.Lag, s.Throughput)
	}
	if s := sm.step(handReading(65, "new", runningJob("new", 1000), 65000, 36500, offsets{0: 60999})); s.Lag != 4000 || s.Throughput != 1000 {
		t.Errorf("65 s: lag %g, throughput %g; want 4000, 1000", s.Lag, s.Throughput)
	}
}
