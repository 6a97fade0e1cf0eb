package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/results"
)

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
	m := &metricNames{job: jobID, source: j.Vertices[0].ID, sink: j.Vertices[len(j.Vertices)-1].ID, offsets: map[int32]string{}}
	for _, v := range j.Vertices {
		m.vertices = append(m.vertices, v.ID)
		if strings.HasPrefix(v.Name, "Source") {
			m.source = v.ID
		}
	}
	if id := sinkVertex(j); id != "" {
		m.sink = id
	}
	names, err := r.env.REST.SubtaskMetricNames(ctx, jobID, m.source)
	if err != nil {
		return nil, err
	}
	prefix := "KafkaSourceReader.topic." + r.in + ".partition."
	for _, n := range names {
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

// metricPhase is how long after priming Flink's metric fetcher the sampler
// reads: the JobManager serves cached metrics and refreshes them
// asynchronously when asked (metrics.fetcher.update-interval), so one
// request starts a fetch and the reads after it see that fetch. Every
// sample's counters then come from the same point of its second, and
// rates do not alias to 0 / 2× the true rate.
const metricPhase = 300 * time.Millisecond

// samplePhase places the samples half a second after the producer's
// per-second bursts, when a healthy job has consumed them.
const samplePhase = 500 * time.Millisecond

// sample takes one sample a second and hands it to the controller (on the
// clock's loop) and the result files.
func (r *run) sample(ctx context.Context) error {
	if err := sleepCtx(ctx, time.Until(r.start.Add(samplePhase))); err != nil {
		return err
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var names *metricNames
	var cpu cpuMeter
	var resume savepointResume
	var consuming struct{ job string } // the job whose sources last reported offsets
	var kafkaDown time.Time            // first of a run of failed end-offset reads
	written := math.Inf(-1)            // the latest sample's time
	var prev struct {
		t, end, consumed, out float64
		pos                   map[int32]float64
		ok                    bool
		estimated             bool // pos came from the source's record count
	}
	// the last sample whose Flink offsets moved, and for how many samples
	// they have stood still since (see staleAfter)
	var fresh struct {
		current, emitted float64
		pos              map[int32]float64
		job              string
		attempt          float64 // the job's restarts then
		still            int
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		// The tick falls half a second after the producer's burst of second
		// k, and the reads see the state up to about k+0.8 s. The twin labels
		// a sample by the end of the second it covers (its input rate over
		// (k, k+1] is the rate of second k), so this sample is k+1: labelled
		// k, every live catch-up would end a second early.
		t := math.Floor(r.now()) + 1
		if t <= written {
			continue
		}
		job := r.currentJob()
		if names == nil || names.job != job || len(names.offsets) == 0 {
			if n, err := r.discover(ctx, job); err == nil {
				names = n
			}
		}
		primed := time.Now()
		if names != nil {
			_, _ = r.env.REST.SubtaskMetrics(ctx, job, names.source, "max", "numRecordsOut") // primes the fetcher
		}
		// Kafka's offsets at the moment the fetcher reads Flink's
		endBy, err := r.endOffsets(ctx)
		if err != nil {
			// a broker hiccup (LEADER_NOT_AVAILABLE after a busy moment) skips
			// the sample; only a broker gone for kafkaGrace ends the run
			if kafkaDown.IsZero() {
				kafkaDown = time.Now()
			}
			r.mu.Lock()
			from := kafkaDown
			if r.brokerBack.After(from) { // a kafka_broker fault: the grace runs from its end
				from = r.brokerBack
			}
			r.mu.Unlock()
			if time.Since(from) > kafkaGrace {
				return err
			}
			r.logf("sample at %.0f s without Kafka's offsets: %v", t, err)
			r.unmeasured(ctx, t, job, &cpu)
			written = t
			continue
		}
		kafkaDown = time.Time{}
		committedBy := r.committed(ctx)
		if err := sleepCtx(ctx, time.Until(primed.Add(metricPhase))); err != nil {
			return err
		}
		r.mu.Lock() // a reconfiguration changes them from its own goroutine
		ci, par := r.ci, r.par
		r.mu.Unlock()
		s := results.Sample{TimeS: t, Capacity: math.NaN(), LatencyMarkerP99Ms: math.NaN(),
			CheckpointIntervalS: ci, Parallelism: int32(par)}
		// every running TaskManager's CPU, whatever the job does: an idle
		// JVM uses CPU too, and the twin counts it (cluster.idle_cpu)
		tmCPU := cpu.measure(ctx, r, r.allotment())
		s.CPUBusyMean, s.CPUBusyMax = results.CPUAcross(byIndex(tmCPU))
		st, err := r.env.REST.Job(ctx, job)
		r.mu.Lock()
		lost := r.jobLost
		r.mu.Unlock()
		if err != nil && lost {
			// a jobmanager fault: the JobManager, back or not, knows no job
			st = rest.Job{ID: job, State: "FAILED"}
		}
		if st.State == "RUNNING" && !allRunning(st) {
			// Flink calls the job RUNNING while its tasks still deploy and
			// restore state; the simulator's name for that is RESTORING
			st.State = "RESTORING"
		}
		s.JobState = st.State
		if s.JobState == "" {
			s.JobState = "UNKNOWN"
		}
		r.trackState(ctx, st, r.now())
		if st.State == "RUNNING" {
			r.countRestarts(ctx, st)
		}
		var current map[int32]float64 // partition → last consumed offset, from Flink
		out := math.NaN()
		if m := names; m != nil && st.State == "RUNNING" {
			current = r.currentOffsets(ctx, m)
			if v, err := r.env.REST.SubtaskMetrics(ctx, job, m.sink, "sum", "numRecordsIn"); err == nil {
				if x, ok := v["numRecordsIn"]; ok {
					out = x
				}
			}
			if len(m.markers) < vertexParallelism(st, m.sink) { // subtasks get their histogram with their first marker
				m.markers, _ = markerMetricIDs(ctx, r.env.REST, job, m.sink)
			}
			if v, ok := markerP99(ctx, r.env.REST, job, m.sink, m.markers); ok {
				s.LatencyMarkerP99Ms = v
			}
			if v, err := r.env.REST.SubtaskMetrics(ctx, job, m.source, "avg", "backPressuredTimeMsPerSecond"); err == nil {
				// Flink's gauge is the ms of the last second its sources waited
				s.Backpressure = results.TimeFraction(v["backPressuredTimeMsPerSecond"]/1000, 1)
			}
		}
		if o, err := r.env.REST.Overview(ctx); err == nil {
			s.Workers = int32(o.TaskManagers)
		}
		s.EndOffset, s.CommittedOffset = sumOffsets(endBy), math.NaN()
		if committedBy != nil {
			s.CommittedOffset = sumOffsets(committedBy)
		}
		r.mu.Lock()
		reconfiguring := r.reconfiguring
		r.mu.Unlock()
		// a job other than the one last consuming was resubmitted from a
		// savepoint of it (reconfigure): it resumes where that one stopped
		if consuming.job != "" && job != consuming.job && resume.stopped != consuming.job && prev.pos != nil {
			resume.stop(consuming.job, prev.pos)
		}
		// where a restore of this job resumes: the committed offsets, or
		// the savepoint's until this job's first checkpoint commits newer
		restoreBy := resume.restore(job, committedBy)
		var pos map[int32]float64
		emitted := sourceEmitted(st, names)
		r.mu.Lock()
		attempt := r.restarts
		r.mu.Unlock()
		if job == fresh.job && attempt != fresh.attempt && restoreBy != nil {
			// restarted while Flink's offsets stand still: the new attempt
			// resumed from the last checkpoint's (committed) offsets, and
			// its source counts its records from 0 there
			fresh.attempt, fresh.emitted = attempt, 0
			fresh.pos = positions(endBy, restoreBy, nil, nil, false)
		}
		switch {
		case reconfiguring && len(current) == 0 && prev.pos != nil:
			// stopped at a savepoint, which a resubmission resumes from: the
			// position stays where it was (not at the last checkpoint's offsets)
			pos = positions(endBy, nil, nil, prev.pos, false)
		case len(current) > 0 && job == fresh.job && sumOffsets(current) == fresh.current && emitted > fresh.emitted:
			fresh.still++
			if fresh.still < staleAfter {
				pos = positions(endBy, restoreBy, current, prev.pos, true)
				break
			}
			// Flink's metric store keeps serving a restarted job's old offsets
			// (seen now and then after a second restart, for the rest of the
			// run); the source's record count in the job details, which the
			// TaskManagers' heartbeats keep fresh, advances the positions
			// from the last ones Flink gave
			pos = advance(fresh.pos, endBy, emitted-fresh.emitted)
			r.staleSamples++
		default:
			pos = positions(endBy, restoreBy, current, prev.pos, st.State == "RUNNING")
			fresh.still = 0
			if len(current) > 0 {
				fresh.current, fresh.emitted, fresh.pos, fresh.job, fresh.attempt = sumOffsets(current), emitted, pos, job, attempt
			} else {
				fresh.job = ""
			}
		}
		estimated := fresh.still >= staleAfter
		if len(current) > 0 {
			consuming.job = job
		}
		consumed := sumOffsets(pos)
		dt := t - prev.t
		if prev.ok && dt > 0 {
			s.InputRate = results.Rate(prev.end, s.EndOffset, dt)
			s.Throughput = consumedSince(prev.pos, pos, restoreBy) / dt
			if prev.estimated && !estimated { // back from an estimate: no restore in between
				s.Throughput = math.Max(0, sumOffsets(pos)-prev.consumed) / dt
			}
			if !math.IsNaN(out) && !math.IsNaN(prev.out) {
				s.OutputRate = results.Rate(prev.out, out, dt) // the sink's counter restarts with the job
			}
		}
		s.Lag = results.Lag(s.EndOffset, consumed)
		r.mu.Lock()
		lat := r.latencies
		r.latencies = nil
		r.mu.Unlock()
		s.LatencyMeanMs, s.LatencyP50Ms, s.LatencyP99Ms = latencyStats(lat)
		prev.t, prev.end, prev.consumed, prev.out, prev.pos, prev.ok = t, s.EndOffset, consumed, out, pos, true
		prev.estimated = estimated
		r.checkpoints(ctx, job)
		var d results.Detail
		if r.useDetail && names != nil && st.State == "RUNNING" {
			d = r.det.measure(ctx, r, names, tmCPU)
		}
		r.mu.Lock()
		r.samples = append(r.samples, s)
		r.mu.Unlock()
		written = t
		r.clock.post(func() { r.detail = d; r.ctl.Observe(s) })
	}
}

// unmeasured records the sample of a second whose Kafka offsets could not
// be read (the broker is down or has no leader yet): input, throughput, lag
// and offsets are NaN, so the recovery detector counts the second as
// anomalous (a skipped second would hide a short outage from it) and the
// summary leaves it out; the next measured sample's rates span the gap.
// The controller does not see it: a policy observes measured seconds only,
// as it would if its metrics were scraped.
func (r *run) unmeasured(ctx context.Context, t float64, job string, cpu *cpuMeter) {
	nan := math.NaN()
	r.mu.Lock()
	ci, par := r.ci, r.par
	r.mu.Unlock()
	s := results.Sample{TimeS: t, InputRate: nan, Throughput: nan, OutputRate: nan, Capacity: nan, Lag: nan,
		EndOffset: nan, CommittedOffset: nan, LatencyMeanMs: nan, LatencyP50Ms: nan, LatencyP99Ms: nan,
		LatencyMarkerP99Ms: nan, Backpressure: nan, CheckpointIntervalS: ci, Parallelism: int32(par), JobState: "UNKNOWN"}
	tmCPU := cpu.measure(ctx, r, r.allotment())
	s.CPUBusyMean, s.CPUBusyMax = results.CPUAcross(byIndex(tmCPU))
	if st, err := r.env.REST.Job(ctx, job); err == nil {
		s.JobState = st.State
		if st.State == "RUNNING" && !allRunning(st) {
			s.JobState = "RESTORING"
		}
	}
	if o, err := r.env.REST.Overview(ctx); err == nil {
		s.Workers = int32(o.TaskManagers)
	}
	r.mu.Lock()
	r.samples = append(r.samples, s)
	r.mu.Unlock()
}

// sourceEmitted is the records the source vertex emitted in the current
// job attempt (write-records of GET /jobs/{id}), NaN when unknown.
func sourceEmitted(j rest.Job, m *metricNames) float64 {
	if m == nil || j.State != "RUNNING" {
		return math.NaN()
	}
	for _, v := range j.Vertices {
		if v.ID == m.source {
			return v.Metrics.WriteRecords
		}
	}
	return math.NaN()
}

// savepointResume remembers where a job stopped with a savepoint: the job
// resubmitted from it (reconfigure) resumes at those offsets. Flink's Kafka
// source commits offsets to Kafka when a checkpoint completes, not at a
// savepoint, so until the new job's first checkpoint the committed offsets
// are the old job's last checkpoint's, seconds older: taken for the
// restore point they made the lag jump by those seconds of input for a
// sample after each reconfiguration (60–81k records on live Khaos) and
// the records replayed count them.
type savepointResume struct {
	stopped string            // the job stopped with the savepoint
	pos     map[int32]float64 // its positions when it stopped
}

// stop records that job stopped at positions pos.
func (s *savepointResume) stop(job string, pos map[int32]float64) {
	s.stopped, s.pos = job, maps.Clone(pos)
}

// restore is the offsets a restore of job resumes from, per partition:
// the committed offsets, but for a job resubmitted from the savepoint no
// earlier than the savepoint's positions (a checkpoint of the new job
// commits offsets at or past them, so the committed offsets take over once
// there is one). Before any savepoint, and for the stopped job itself, the
// committed offsets.
func (s *savepointResume) restore(job string, committed map[int32]float64) map[int32]float64 {
	if s.pos == nil || job == s.stopped {
		return committed
	}
	out := maps.Clone(s.pos)
	for p, c := range committed {
		out[p] = math.Max(c, out[p])
	}
	return out
}

// kafkaGrace is how long the broker may fail the sampler's offset reads
// before the run ends with the error.
const kafkaGrace = 30 * time.Second

// staleAfter is how many samples Flink's offsets may stand still while the
// source emits records before the sampler takes them for stale (one
// missed metric refresh is not).
const staleAfter = 3

// advance moves the positions by n records, shared over the partitions in
// proportion to their backlog, none beyond its end offset.
func advance(prev, end map[int32]float64, n float64) map[int32]float64 {
	backlog := 0.0
	for p, e := range end {
		backlog += math.Max(0, e-prev[p])
	}
	out := map[int32]float64{}
	for p, e := range end {
		out[p] = prev[p]
		if backlog > 0 {
			out[p] = math.Min(e, prev[p]+n*math.Max(0, e-prev[p])/backlog)
		}
	}
	return out
}

// currentOffsets reads the offset of the last record each partition's
// reader consumed; partitions not reporting one yet are missing.
func (r *run) currentOffsets(ctx context.Context, m *metricNames) map[int32]float64 {
	ids := make([]string, 0, len(m.offsets))
	for _, id := range m.offsets {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	v, err := r.env.REST.SubtaskMetrics(ctx, m.job, m.source, "max", ids...)
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

// positions is each partition's consumer position (the next offset to
// read). Flink's reader reports the last offset it consumed; while it does
// not (job down, or restored and not yet reading), the position is the
// offset committed by the last completed checkpoint, which is where a
// restore resumes. current is nil when Flink could not be asked; then, or
// before any checkpoint, the position is the last one seen.
func positions(end, committed, current, prev map[int32]float64, running bool) map[int32]float64 {
	pos := map[int32]float64{}
	for p, e := range end {
		c, hasC := committed[p]
		switch x, ok := current[p]; {
		case ok:
			pos[p] = x + 1
			if hasC && c > pos[p] {
				pos[p] = c
			}
		case hasC && (current != nil || !running):
			pos[p] = c
		default:
			if q, ok := prev[p]; ok {
				pos[p] = q
			} else {
				pos[p] = e // nothing read yet and nothing to read before the job runs
			}
		}
		pos[p] = math.Min(pos[p], e)
	}
	return pos
}

// consumedSince is the records read between two position snapshots. A
// position that went back was restored from a checkpoint: the records read
// since count from the restored (committed) offset, as the simulator
// counts a replay.
func consumedSince(prev, now, committed map[int32]float64) float64 {
	total := 0.0
	for p, x := range now {
		q, ok := prev[p]
		if !ok {
			continue
		}
		if x < q {
			if c, ok := committed[p]; ok && c <= x {
				q = c
			} else {
				q = x
			}
		}
		total += x - q
	}
	return total
}

func sumOffsets(m map[int32]float64) float64 {
	total := 0.0
	for _, x := range m {
		total += x
	}
	return total
}

// byIndex is m's values in the order of their keys (a sum over them is
// then the same from run to run).
func byIndex(m map[int]float64) []float64 {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([]float64, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// latencyStats is the mean, p50 and p99 in ms of an interval's measured
// latencies (NaN for none), by results.Quantile: the simulator's quantile
// definition, so live and simulated percentiles are the same statistic. It
// sorts ms.
func latencyStats(ms []float64) (mean, p50, p99 float64) {
	if len(ms) == 0 {
		nan := math.NaN()
		return nan, nan, nan
	}
	mean = results.FiniteMean(ms)
	return mean, results.Quantile(ms, 0.5), results.Quantile(ms, 0.99)
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

// trackState records restarts and the return to RUNNING as it sees the
// job's state change in the sample taken at run time seen.
func (r *run) trackState(ctx context.Context, j rest.Job, seen float64) {
	r.mu.Lock()
	prev := r.state
	r.state = j.State
	r.mu.Unlock()
	r.mu.Lock()
	rescaling := r.rescaling
	r.mu.Unlock()
	if rescaling {
		return // rescaleFromCheckpoint books this restart
	}
	if prev == "RUNNING" && (j.State == "RESTARTING" || j.State == "FAILING") && r.newRestart(j, j.State) {
		r.mu.Lock()
		r.restarts++
		r.down = true
		r.mu.Unlock()
		r.event(results.Event{TimeS: r.stamp(j, j.State), Kind: results.KindDetected, Reason: "job " + strings.ToLower(j.State)})
	}
	r.mu.Lock()
	back := r.down && prev != "" && prev != "RUNNING" && j.State == "RUNNING"
	r.mu.Unlock()
	if back {
		at := seen
		if t, ok := r.tasksRunningAt(ctx, j); ok && t <= seen {
			at = t
		}
		r.backRunning(j, at)
	}
}

// newRestart tells whether the job's last entry into state (FAILING or
// RESTARTING) is a restart not recorded yet, and records it. Flink's entry
// time identifies a restart; a job without one is taken as new.
func (r *run) newRestart(j rest.Job, state string) bool {
	ts := j.Timestamps[state]
	r.mu.Lock()
	defer r.mu.Unlock()
	if ts > 0 && ts <= r.restartSeen {
		return false
	}
	r.restartSeen = max(r.restartSeen, ts)
	return true
}

// countRestarts adds a restart Flink counted (numRestarts) that began and
// ended between two samples, too fast for trackState to see. The job's
// timestamps must show it too (a RESTARTING entry newer than the last
// restart recorded): the counter can run ahead of a cached job snapshot.
func (r *run) countRestarts(ctx context.Context, j rest.Job) {
	v, err := r.env.REST.JobMetrics(ctx, j.ID, "numRestarts")
	n, ok := v["numRestarts"]
	if err != nil || !ok {
		return
	}
	r.mu.Lock()
	ahead := n > r.restarts && !r.rescaling
	r.mu.Unlock()
	ts := j.Timestamps["RESTARTING"]
	if !ahead || ts <= r.start.UnixMilli() || ts > j.Timestamps["RUNNING"] || !r.newRestart(j, "RESTARTING") {
		return
	}
	r.mu.Lock()
	r.restarts = n
	r.mu.Unlock()
	r.event(results.Event{TimeS: r.stamp(j, "RESTARTING"), Kind: results.KindDetected, Reason: "job restarted between two samples (numRestarts)"})
	at := r.stamp(j, "RUNNING")
	if t, ok := r.tasksRunningAt(ctx, j); ok {
		at = t
	}
	r.backRunning(j, at)
}

// backRunning records the job running again at run time at, with the
// downtime since the last fault.
func (r *run) backRunning(j rest.Job, at float64) {
	r.mu.Lock()
	r.down = false
	if ts := j.Timestamps["RUNNING"]; ts > 0 {
		r.runningAt = time.UnixMilli(ts)
	}
	// the outage began at the last fault when that fault stopped the job
	// itself (a crash, a freeze), else at the failure it caused since (a
	// checkpoint storage outage fails the job at its next checkpoint), as
	// the twin dates it
	down := 0.0
	for i := len(r.events) - 1; i >= 0; i-- {
		if r.events[i].Kind != results.KindFault {
			continue
		}
		from := r.events[i].TimeS
		if r.lateFaults[from] {
			for _, e := range r.events[i:] {
				if e.Kind == results.KindDetected && e.TimeS <= at {
					from = max(from, e.TimeS)
				}
			}
		}
		down = at - from
		break
	}
	r.mu.Unlock()
	r.event(results.Event{TimeS: at, Kind: results.KindRunning, DurationS: &down})
}

// stamp is the run time at which the job last entered state, from Flink's
// own timestamps, or now when Flink has none.
func (r *run) stamp(j rest.Job, state string) float64 {
	if ts := j.Timestamps[state]; ts > r.start.UnixMilli() {
		return float64(ts-r.start.UnixMilli()) / 1000
	}
	return r.now()
}

// checkpoints turns newly completed or failed checkpoints into events.
func (r *run) checkpoints(ctx context.Context, job string) {
	cp, err := r.env.REST.Checkpoints(ctx, job)
	if err != nil {
		return
	}
	sort.Slice(cp.History, func(i, j int) bool { return cp.History[i].ID < cp.History[j].ID })
	triggered := false
	for _, h := range cp.History {
		key := checkpointKey{job, h.ID}
		if r.seenCkpt[key] || h.IsSavepoint || (h.Status != "COMPLETED" && h.Status != "FAILED") {
			continue // savepoints are written by the operations that take them
		}
		r.seenCkpt[key], triggered = true, true
		id := h.ID
		at := float64(checkpointEnd(h)-r.start.UnixMilli()) / 1000
		d := float64(h.EndToEndDuration) / 1000
		size := float64(h.CheckpointedSize)
		kind := results.KindCheckpointCompleted
		if h.Status == "FAILED" {
			kind = results.KindCheckpointFailed
		}
		r.event(results.Event{TimeS: math.Max(at, 1e-3), Kind: kind, CheckpointID: &id, DurationS: &d, SizeBytes: &size})
	}
	if triggered { // aligned faults waiting for a trigger look again
		r.clock.post(func() {
			for _, h := range r.hooks {
				h()
			}
		})
	}
}

// checkpointKey identifies a checkpoint across the run's jobs.
type checkpointKey struct {
	job string
	id  int64
}

// checkpointEnd is when a checkpoint completed or failed (Unix ms): its
// failure time, else its last acknowledgement, else its trigger time plus
// its duration (a checkpoint failed before any task acknowledged it).
func checkpointEnd(h rest.CheckpointStat) int64 {
	switch {
	case h.Status == "FAILED" && h.FailureTimestamp > 0:
		return h.FailureTimestamp
	case h.LatestAckTimestamp > 0:
		return h.LatestAckTimestamp
	}
	return h.TriggerTimestamp + h.EndToEndDuration
}

// reconfigure is a stop-with-savepoint and a resubmission from it with CI
// ci and parallelism par, as Khaos does.
func (r *run) reconfigure(ctx context.Context, ci float64, par int, vertices map[string]int, why string) error {
	r.mu.Lock()
	fromCheckpoint := r.sc.Job.Rescale.Mode == flink.RescaleCheckpoint && ci == r.ci && (par != r.par || !maps.Equal(vertices, r.vertices))
	r.mu.Unlock()
	if fromCheckpoint {
		return r.rescaleFromCheckpoint(ctx, par, vertices, why)
	}
	start := r.now()
	old := r.currentJob()
	loc, err := r.env.REST.StopWithSavepoint(ctx, old, fileURI(r.env.StateDir+"/savepoints"), false)
	if err != nil {
		return err
	}
	r.savepointDone(ctx, old, loc, why)
	id, err := r.submit(ctx, ci, par, loc)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.jobID, r.ci, r.par, r.vertices, r.restarts = id, ci, par, nil, 0
	r.mu.Unlock()
	j, err := r.waitRunning(ctx, id)
	if err != nil {
		return err
	}
	back, runningAt := r.now(), time.Now()
	if t, ok := r.tasksRunningAt(ctx, j); ok && t <= back {
		back = t
	}
	if ts := j.Timestamps["RUNNING"]; ts > 0 {
		runningAt = time.UnixMilli(ts) // its checkpoint scheduler's start
	}
	r.mu.Lock()
	r.runningAt = runningAt
	r.mu.Unlock()
	down := back - start
	r.event(results.Event{TimeS: back, Kind: results.KindReconfigured, DurationS: &down, Reason: why})
	r.logf("reconfigured in %.1f s: job %s, CI %gs, parallelism %d", down, id, ci, par)
	return nil
}

// savepointDone writes the savepoint_completed event of the savepoint at
// loc, with its id, duration and size from the job's checkpoint
// statistics when Flink still has them.
func (r *run) savepointDone(ctx context.Context, job, loc, reason string) {
	r.logf("savepoint %s", loc)
	e := results.Event{Kind: results.KindSavepoint, Reason: reason}
	if cp, err := r.env.REST.Checkpoints(ctx, job); err == nil {
		for _, h := range cp.History {
			if h.IsSavepoint && h.ExternalPath == loc {
				id, d, size := h.ID, float64(h.EndToEndDuration)/1000, float64(h.CheckpointedSize)
				e.TimeS = math.Max(float64(checkpointEnd(h)-r.start.UnixMilli())/1000, 1e-3)
				e.CheckpointID, e.DurationS, e.SizeBytes = &id, &d, &size
			}
		}
	}
	r.event(e)
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
