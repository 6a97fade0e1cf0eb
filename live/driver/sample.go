package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/models/policy"
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

// metricNames are the source and sink metric ids of the current job,
// discovered once per submission (operator metric ids carry the operator's
// name as a prefix).
type metricNames struct {
	job             string
	source, sink    string // vertex ids
	offsets         []string
	sourceOut       string
	sinkIn          string
	sourceBusy      string
	sourceBackpress string
}

func (r *run) discover(ctx context.Context, jobID string) (*metricNames, error) {
	j, err := r.env.REST.Job(ctx, jobID)
	if err != nil {
		return nil, err
	}
	if len(j.Vertices) == 0 {
		return nil, fmt.Errorf("job %s has no vertices", jobID)
	}
	m := &metricNames{job: jobID, source: j.Vertices[0].ID, sink: j.Vertices[len(j.Vertices)-1].ID}
	for _, v := range j.Vertices {
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
	for _, n := range names {
		switch {
		case strings.Contains(n, "KafkaSourceReader.topic."+r.in+".partition.") && strings.HasSuffix(n, ".currentOffset"):
			m.offsets = append(m.offsets, n)
		case n == "numRecordsOut":
			m.sourceOut = n
		case n == "busyTimeMsPerSecond":
			m.sourceBusy = n
		case n == "backPressuredTimeMsPerSecond":
			m.sourceBackpress = n
		}
	}
	m.sinkIn = "numRecordsIn"
	sort.Strings(m.offsets)
	return m, nil
}

// sampleAndControl takes one sample a second and runs the policy on its
// period, through the same Controller interface as the simulator.
func (r *run) sampleAndControl(ctx context.Context, pol policy.Policy) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	period := pol.Interval()
	nextStep := period
	window := 600
	if w, ok := pol.(policy.WindowUser); ok {
		window = max(1, w.WindowSamples())
	}
	var names *metricNames
	var prev struct {
		t, end, consumed, out float64
		ok                    bool
	}
	actions := append([]forcedAction(nil), toActions(r)...)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		t := math.Round(r.now())
		job := r.currentJob()
		if names == nil || names.job != job {
			if n, err := r.discover(ctx, job); err == nil && len(n.offsets) > 0 {
				names = n
			}
		}
		s := results.Sample{TimeS: t, Capacity: math.NaN(), LatencyMarkerP99Ms: math.NaN(),
			CheckpointIntervalS: r.ci, Parallelism: int32(r.par)}
		end, err := r.endOffsets(ctx)
		if err != nil {
			return err
		}
		s.EndOffset = end
		st, _ := r.env.REST.Job(ctx, job)
		s.JobState = st.State
		if s.JobState == "" {
			s.JobState = "UNKNOWN"
		}
		r.trackState(st)
		consumed, out := math.NaN(), math.NaN()
		if m := names; m != nil && st.State == "RUNNING" {
			if v, err := r.env.REST.SubtaskMetrics(ctx, job, m.source, "max", m.offsets...); err == nil && len(v) == len(m.offsets) && len(v) > 0 {
				consumed = 0
				for _, x := range v {
					consumed += x
				}
			} else {
				names = nil // after a restart the operator metrics come back later: look again
			}
			if v, err := r.env.REST.SubtaskMetrics(ctx, job, m.sink, "sum", m.sinkIn); err == nil {
				if x, ok := v[m.sinkIn]; ok {
					out = x
				}
			}
			if v, err := r.env.REST.SubtaskMetrics(ctx, job, m.source, "avg", "busyTimeMsPerSecond", "backPressuredTimeMsPerSecond"); err == nil {
				s.CPUBusyMean = finiteOr(v["busyTimeMsPerSecond"]/1000, 0)
				s.CPUBusyMax = s.CPUBusyMean
				s.Backpressure = finiteOr(v["backPressuredTimeMsPerSecond"]/1000, 0)
			}
		}
		if o, err := r.env.REST.Overview(ctx); err == nil {
			s.Workers = int32(o.TaskManagers)
		}
		dt := t - prev.t
		if prev.ok && dt > 0 {
			s.InputRate = (end - prev.end) / dt
			if !math.IsNaN(consumed) && !math.IsNaN(prev.consumed) {
				s.Throughput = math.Max(0, consumed-prev.consumed) / dt
			}
			if !math.IsNaN(out) && !math.IsNaN(prev.out) {
				s.OutputRate = math.Max(0, out-prev.out) / dt
			}
		}
		s.CommittedOffset = r.committed(ctx)
		if math.IsNaN(consumed) && st.State == "RUNNING" && !math.IsNaN(s.CommittedOffset) && s.CommittedOffset > 0 {
			// no per-partition positions: the offsets committed on the last
			// checkpoint are a lower bound (lag is then a sawtooth of one CI)
			consumed = s.CommittedOffset
		}
		if math.IsNaN(consumed) {
			// no source metrics (job down, or not yet reporting): nothing is
			// consumed meanwhile, so the position stays where it was last seen
			consumed = prev.consumed
			if !prev.ok || math.IsNaN(consumed) {
				consumed = end
			}
		}
		s.Lag = math.Max(0, end-consumed)
		r.mu.Lock()
		lat := r.latencies
		r.latencies = nil
		r.mu.Unlock()
		s.LatencyMeanMs, s.LatencyP50Ms, s.LatencyP99Ms = latencyStats(lat)
		prev.t, prev.end, prev.consumed, prev.out, prev.ok = t, end, consumed, out, true
		r.checkpoints(ctx, job)
		r.mu.Lock()
		r.samples = append(r.samples, s)
		r.mu.Unlock()
		for len(actions) > 0 && actions[0].at <= t {
			r.apply(ctx, actions[0].action)
			actions = actions[1:]
		}
		if time.Duration(t*float64(time.Second)) >= nextStep {
			nextStep += period
			for _, a := range pol.Step(time.Duration(t*float64(time.Second)), r.observe(window)) {
				r.apply(ctx, a)
			}
		}
	}
}

type forcedAction struct {
	at     float64
	action policy.Action
}

// toActions turns the schedule's forced actions into policy actions.
func toActions(r *run) []forcedAction {
	var out []forcedAction
	for _, a := range r.sched.Actions {
		pa := policy.Action{Reason: "forced by actions in the scenario"}
		switch {
		case a.CheckpointInterval != nil:
			pa.Kind, pa.Interval = policy.SetCheckpointInterval, time.Duration(float64(*a.CheckpointInterval)*float64(time.Second))
		case a.Parallelism != nil:
			pa.Kind, pa.Parallelism = policy.Rescale, *a.Parallelism
		default:
			continue
		}
		out = append(out, forcedAction{at: float64(a.At), action: pa})
	}
	return out
}

func finiteOr(v, d float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return d
	}
	return v
}

func latencyStats(ms []float64) (mean, p50, p99 float64) {
	if len(ms) == 0 {
		nan := math.NaN()
		return nan, nan, nan
	}
	sort.Float64s(ms)
	for _, v := range ms {
		mean += v / float64(len(ms))
	}
	q := func(p float64) float64 { return ms[min(len(ms)-1, int(p*float64(len(ms)-1)+0.5))] }
	return mean, q(0.5), q(0.99)
}

func (r *run) endOffsets(ctx context.Context) (float64, error) {
	offs, err := r.adm.ListEndOffsets(ctx, r.in)
	if err != nil {
		return 0, fmt.Errorf("reading end offsets of %s: %w", r.in, err)
	}
	total := 0.0
	offs.Each(func(o kadm.ListedOffset) { total += float64(o.Offset) })
	return total, nil
}

// committed is the job's committed source offsets (Flink commits them when
// a checkpoint completes), summed over partitions; NaN when unknown.
func (r *run) committed(ctx context.Context) float64 {
	offs, err := r.adm.FetchOffsets(ctx, r.in+"-job")
	if err != nil {
		return math.NaN()
	}
	total := 0.0
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == r.in && o.At >= 0 {
			total += float64(o.At)
		}
	})
	return total
}

// trackState records restarts and the return to RUNNING.
func (r *run) trackState(j rest.Job) {
	r.mu.Lock()
	prev := r.state
	r.state = j.State
	r.mu.Unlock()
	if prev != "" && prev != "RUNNING" && j.State == "RUNNING" {
		down := 0.0
		if ts, ok := j.Timestamps["RUNNING"]; ok && ts > 0 {
			r.mu.Lock()
			r.runningAt = time.UnixMilli(ts)
			r.mu.Unlock()
		}
		r.mu.Lock()
		for i := len(r.events) - 1; i >= 0; i-- {
			if r.events[i].Kind == results.KindFault {
				down = r.now() - r.events[i].TimeS
				break
			}
		}
		r.mu.Unlock()
		r.event(results.Event{Kind: results.KindRunning, DurationS: &down})
	}
	if prev == "RUNNING" && (j.State == "RESTARTING" || j.State == "FAILING") {
		r.event(results.Event{Kind: results.KindDetected, Reason: "job " + strings.ToLower(j.State)})
	}
}

// checkpoints turns newly completed or failed checkpoints into events.
func (r *run) checkpoints(ctx context.Context, job string) {
	cp, err := r.env.REST.Checkpoints(ctx, job)
	if err != nil {
		return
	}
	sort.Slice(cp.History, func(i, j int) bool { return cp.History[i].ID < cp.History[j].ID })
	for _, h := range cp.History {
		key := int64(len(job))<<48 ^ h.ID // ids restart with each job
		if r.seenCkpt[key] || (h.Status != "COMPLETED" && h.Status != "FAILED") {
			continue
		}
		r.seenCkpt[key] = true
		id := h.ID
		at := float64(h.LatestAckTimestamp-r.start.UnixMilli()) / 1000
		d := float64(h.EndToEndDuration) / 1000
		size := float64(h.CheckpointedSize)
		kind := results.KindCheckpointCompleted
		if h.Status == "FAILED" {
			kind = results.KindCheckpointFailed
		}
		if h.IsSavepoint {
			kind = results.KindSavepoint
		}
		r.event(results.Event{TimeS: math.Max(at, 1e-3), Kind: kind, CheckpointID: &id, DurationS: &d, SizeBytes: &size})
	}
}

// observe is what the policy sees: the recent samples and the job status.
func (r *run) observe(window int) policy.Observation {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.samples[max(0, len(r.samples)-window):]
	js := policy.JobStatus{State: r.state, Parallelism: r.par, CheckpointInterval: time.Duration(r.ci * float64(time.Second)),
		Faults: r.faults}
	if r.state == "RUNNING" {
		js.Uptime = time.Since(r.runningAt)
	}
	for i := len(r.events) - 1; i >= 0; i-- {
		e := r.events[i]
		if e.Kind == results.KindCheckpointCompleted && e.DurationS != nil {
			js.LastCheckpoint = &policy.Checkpoint{ID: *e.CheckpointID, CompletedAt: time.Duration(e.TimeS * float64(time.Second)),
				Duration: time.Duration(*e.DurationS * float64(time.Second)), SizeBytes: *e.SizeBytes}
			break
		}
	}
	return policy.Observation{Window: append([]results.Sample(nil), w...), Job: js}
}

// apply carries out one policy action on the real job. A CI or parallelism
// change is a stop-with-savepoint and a resubmission from it, as Khaos does.
func (r *run) apply(ctx context.Context, a policy.Action) {
	v := 0.0
	reason := string(a.Kind) + ": " + a.Reason
	switch a.Kind {
	case policy.SetCheckpointInterval, policy.Rescale:
		ci, par := r.ci, r.par
		if a.Kind == policy.SetCheckpointInterval {
			ci, v = a.Interval.Seconds(), a.Interval.Seconds()
		} else {
			par, v = a.Parallelism, float64(a.Parallelism)
		}
		r.event(results.Event{Kind: results.KindPolicyDecision, Value: &v, Reason: reason})
		if err := r.reconfigure(ctx, ci, par, a.Reason); err != nil {
			r.event(results.Event{Kind: results.KindPolicyDecision, Reason: "reconfiguration failed: " + err.Error()})
			r.logf("reconfiguration failed: %v", err)
		}
		return
	case policy.Note:
	default:
		reason += " (not supported live)"
	}
	r.event(results.Event{Kind: results.KindPolicyDecision, Value: &v, Reason: reason})
}

func (r *run) reconfigure(ctx context.Context, ci float64, par int, why string) error {
	start := r.now()
	old := r.currentJob()
	loc, err := r.env.REST.StopWithSavepoint(ctx, old, fileURI(r.env.StateDir+"/savepoints"))
	if err != nil {
		return err
	}
	r.event(results.Event{Kind: results.KindSavepoint, Reason: loc})
	id, err := r.submit(ctx, ci, par, loc)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.jobID, r.ci, r.par = id, ci, par
	r.mu.Unlock()
	if err := r.waitRunning(ctx, id); err != nil {
		return err
	}
	r.mu.Lock()
	r.runningAt = time.Now()
	r.mu.Unlock()
	down := r.now() - start
	r.event(results.Event{Kind: results.KindReconfigured, DurationS: &down, Reason: "reconfiguration: " + why})
	r.logf("reconfigured in %.1f s: job %s, CI %gs, parallelism %d", down, id, ci, par)
	return nil
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
