package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamtwin/streamtwin/live/rest"
)

// metricPhase is how long after priming Flink's metric fetcher the sampler
// reads: the JobManager serves cached metrics and refreshes them
// asynchronously when asked (metrics.fetcher.update-interval), so one
// request starts a fetch and the reads after it see that fetch. Every
// sample's counters then come from the same point of its second, and
// rates do not alias to 0 / 2× the true rate.
const metricPhase = 300 * time.Millisecond

// kafkaGrace is how long the broker may fail the sampler's offset reads
// before the run ends with the error.
const kafkaGrace = 30 * time.Second

// reader gathers the readings, and keeps what it needs to read the next
// one: the current job's metric ids, the CPU meter's last readings, and
// since when Kafka has failed.
type reader struct {
	names     *metricNames
	cpu       cpuMeter
	kafkaDown time.Time // first of a run of failed end-offset reads
}

// read gathers the reading of the sample at run time t; without Kafka's
// end offsets an unmeasured one (withoutKafka). It hands the job's status
// to the restart tracking (restarts.go) as soon as it has it, as the
// reconfigurer waits on the state it records.
func (r *run) read(ctx context.Context, rr *reader, t float64) (reading, error) {
	rd := reading{t: t, job: r.currentJob(), sinkIn: math.NaN(), markerP99Ms: math.NaN(), backpressured: math.NaN()}
	job := rd.job
	if rr.names == nil || rr.names.job != job || len(rr.names.offsets) == 0 {
		if n, err := r.discover(ctx, job); err == nil {
			rr.names = n
		}
	}
	primed := time.Now()
	if rr.names != nil {
		_, _ = r.env.REST.SubtaskMetrics(ctx, job, rr.names.source, "max", "numRecordsOut") // primes the fetcher
	}
	// Kafka's offsets at the moment the fetcher reads Flink's
	endBy, err := r.endOffsets(ctx)
	if err != nil {
		return rd, r.withoutKafka(ctx, rr, &rd, err)
	}
	rr.kafkaDown = time.Time{}
	rd.end, rd.committed = endBy, r.committed(ctx)
	if err := sleepCtx(ctx, time.Until(primed.Add(metricPhase))); err != nil {
		return rd, err
	}
	r.mu.Lock() // a reconfiguration changes them from its own goroutine
	rd.ci, rd.par = r.ci, r.par
	r.mu.Unlock()
	rd.cpu = rr.cpu.measure(ctx, r, r.allotment())
	rd.status, err = r.env.REST.Job(ctx, job)
	rd.answered = err == nil
	r.mu.Lock()
	rd.jobLost = r.jobLost
	r.mu.Unlock()
	st := rd.seen()
	r.trackState(ctx, st, r.now())
	if st.State == "RUNNING" {
		r.countRestarts(ctx, st)
	}
	if rr.names != nil && st.State == "RUNNING" {
		readJobMetrics(ctx, r.env.REST, rr.names, st, &rd)
	}
	rd.workers = taskManagers(ctx, r.env.REST)
	r.mu.Lock()
	rd.reconfiguring, rd.restarts = r.reconfiguring, r.restarts // restarts as trackState and countRestarts left them
	rd.latencies, r.latencies = r.latencies, nil
	r.mu.Unlock()
	return rd, nil
}

// withoutKafka completes rd, a reading whose end offsets Kafka did not
// give (err), as an unmeasured one: the job's state, the TaskManagers and
// their CPU. A broker hiccup (LEADER_NOT_AVAILABLE after a busy moment)
// gives such a reading; a broker gone for kafkaGrace (from the end of a
// kafka_broker fault) is an error, which ends the run.
func (r *run) withoutKafka(ctx context.Context, rr *reader, rd *reading, err error) error {
	if rr.kafkaDown.IsZero() {
		rr.kafkaDown = time.Now()
	}
	r.mu.Lock()
	from := rr.kafkaDown
	if r.brokerBack.After(from) {
		from = r.brokerBack
	}
	r.mu.Unlock()
	if time.Since(from) > kafkaGrace {
		return err
	}
	r.logf("sample at %.0f s without Kafka's offsets: %v", rd.t, err)
	r.mu.Lock()
	rd.ci, rd.par = r.ci, r.par
	r.mu.Unlock()
	rd.cpu = rr.cpu.measure(ctx, r, r.allotment())
	var jerr error
	rd.status, jerr = r.env.REST.Job(ctx, rd.job)
	rd.answered = jerr == nil
	rd.workers = taskManagers(ctx, r.env.REST)
	return nil
}

// readJobMetrics reads the metrics a sample needs of the running job st
// (rd.job) into rd: the sources' current offsets, the sink's records in
// and latency-marker p99, the sources' backpressure. m may be an earlier
// submission's when the current one's could not be discovered: its
// vertex ids are the same (the jobs set uids). A subtask gets its
// latency-marker histogram with its first marker, so the marker ids are
// listed again until every subtask of the sink has one.
func readJobMetrics(ctx context.Context, c *rest.Client, m *metricNames, st rest.Job, rd *reading) {
	job := rd.job
	rd.source = m.source
	rd.current = currentOffsets(ctx, c, m)
	if v, err := c.SubtaskMetrics(ctx, job, m.sink, "sum", "numRecordsIn"); err == nil {
		if x, ok := v["numRecordsIn"]; ok {
			rd.sinkIn = x
		}
	}
	if len(m.markers) < vertexParallelism(st, m.sink) {
		m.markers, _ = markerMetricIDs(ctx, c, job, m.sink)
	}
	rd.markerP99Ms, _ = markerP99(ctx, c, job, m.sink, m.markers)
	if v, err := c.SubtaskMetrics(ctx, job, m.source, "avg", "backPressuredTimeMsPerSecond"); err == nil {
		rd.backpressured = v["backPressuredTimeMsPerSecond"]
	}
}

// taskManagers is the TaskManagers registered with the JobManager, 0
// when it does not answer.
func taskManagers(ctx context.Context, c *rest.Client) int {
	if o, err := c.Overview(ctx); err == nil {
		return o.TaskManagers
	}
	return 0
}

// metricNames are the metric ids of the current job, discovered once per
// submission (operator metric ids carry the operator's name as a prefix).
type metricNames struct {
	job      string
	source   string           // vertex id
	vertices []string         // every vertex, for busy time
	offsets  map[int32]string // partition → its KafkaSourceReader currentOffset id
	sink     string           // vertex id of the sink writer
	markers  []string         // the sink writer's latency-marker p99 ids (markers.go)
}

func (r *run) discover(ctx context.Context, jobID string) (*metricNames, error) {
	j, err := r.env.REST.Job(ctx, jobID)
	if err != nil {
		return nil, err
	}
	if len(j.Vertices) == 0 {
		return nil, fmt.Errorf("job %s has no vertices", jobID)
	}
	names, err := r.env.REST.SubtaskMetricNames(ctx, jobID, sourceOf(j))
	if err != nil {
		return nil, err
	}
	return newMetricNames(jobID, j, r.in, names)
}

// sourceOf is the job's source vertex: the first whose name starts with
// "Source", else the first vertex ("" for a job without vertices).
func sourceOf(j rest.Job) string {
	id := ""
	for i, v := range j.Vertices {
		if i == 0 || strings.HasPrefix(v.Name, "Source") {
			id = v.ID
		}
	}
	return id
}

// newMetricNames finds the metric ids of job (j, as GET /jobs/{job}
// answered) among its source vertex's subtask metric names (GET
// …/vertices/{source}/subtasks/metrics): the current offset of each
// partition of topic.
func newMetricNames(job string, j rest.Job, topic string, sourceMetrics []string) (*metricNames, error) {
	if len(j.Vertices) == 0 {
		return nil, fmt.Errorf("job %s has no vertices", job)
	}
	m := &metricNames{job: job, source: sourceOf(j), sink: j.Vertices[len(j.Vertices)-1].ID, offsets: map[int32]string{}}
	for _, v := range j.Vertices {
		m.vertices = append(m.vertices, v.ID)
	}
	if id := sinkVertex(j); id != "" {
		m.sink = id
	}
	prefix := "KafkaSourceReader.topic." + topic + ".partition."
	for _, n := range sourceMetrics {
		i := strings.Index(n, prefix)
		if i < 0 || !strings.HasSuffix(n, ".currentOffset") {
			continue
		}
		if p, err := strconv.Atoi(strings.TrimSuffix(n[i+len(prefix):], ".currentOffset")); err == nil {
			m.offsets[int32(p)] = n
		}
	}
	return m, nil
}

// currentOffsets reads the offset of the last record each partition's
// reader consumed; partitions not reporting one yet are missing.
func currentOffsets(ctx context.Context, c *rest.Client, m *metricNames) map[int32]float64 {
	ids := make([]string, 0, len(m.offsets))
	for _, id := range m.offsets {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	v, err := c.SubtaskMetrics(ctx, m.job, m.source, "max", ids...)
	if err != nil {
		return nil
	}
	out := map[int32]float64{} // non-nil: Flink answered
	for p, id := range m.offsets {
		if x, ok := v[id]; ok && x >= 0 { // -1 until the first record after a (re)start
			out[p] = x
		}
	}
	return out
}

// endOffsets is the input topic's end offset per partition.
func (r *run) endOffsets(ctx context.Context) (map[int32]float64, error) {
	offs, err := r.adm.ListEndOffsets(ctx, r.in)
	if err != nil {
		return nil, fmt.Errorf("reading end offsets of %s: %w", r.in, err)
	}
	out := map[int32]float64{}
	offs.Each(func(o kadm.ListedOffset) { out[o.Partition] = float64(o.Offset) })
	return out, nil
}

// committed is the job's committed source offset per partition (Flink
// commits them when a checkpoint completes); nil when unknown.
func (r *run) committed(ctx context.Context) map[int32]float64 {
	offs, err := r.adm.FetchOffsets(ctx, r.in+"-job")
	if err != nil {
		return nil
	}
	var out map[int32]float64
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == r.in && o.At >= 0 {
			if out == nil {
				out = map[int32]float64{}
			}
			out[o.Partition] = float64(o.At)
		}
	})
	return out
}

// consumeLatency reads the sink topic: each output carries the event time
// of the input it came from, and its record timestamp is when the sink
// wrote it, so their difference is the end-to-end latency.
func (r *run) consumeLatency(ctx context.Context) error {
	c, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(r.env.Bootstrap, ",")...), kgo.ConsumeTopics(r.out),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		fetches := c.PollFetches(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var lat []float64
		fetches.EachRecord(func(rec *kgo.Record) {
			var v struct {
				EventTime float64 `json:"event_time"`
			}
			if json.Unmarshal(rec.Value, &v) == nil && v.EventTime > 0 {
				lat = append(lat, math.Max(0, float64(rec.Timestamp.UnixMilli())-v.EventTime))
			}
		})
		r.mu.Lock()
		r.latencies = append(r.latencies, lat...)
		r.mu.Unlock()
	}
}

// vertexParallelism is the parallelism of vertex id in j (0 if absent).
func vertexParallelism(j rest.Job, id string) int {
	for _, v := range j.Vertices {
		if v.ID == id {
			return v.Parallelism
		}
	}
	return 0
}

// isCommitter: vertex name is the committer half of a Flink 2 sink
// ("Sink: …: Committer"). It receives one committable per writer and
// checkpoint, not the records, so it is no operator of the record flow:
// the twin's sink is the writer and the committer in one.
func isCommitter(name string) bool {
	// a vertex that chains the writer and the committer carries the records
	return strings.HasPrefix(name, "Sink") && strings.HasSuffix(name, "Committer") && !strings.Contains(name, " -> ")
}

// sinkVertex is the vertex that writes the results: Flink 2 splits a Kafka
// sink into "Sink: …: Writer" and "…: Committer", and only the writer's
// numRecordsIn counts records.
func sinkVertex(j rest.Job) string {
	first := ""
	for _, v := range j.Vertices {
		if !strings.HasPrefix(v.Name, "Sink") {
			continue
		}
		if strings.HasSuffix(v.Name, "Writer") {
			return v.ID
		}
		if first == "" {
			first = v.ID
		}
	}
	return first
}
