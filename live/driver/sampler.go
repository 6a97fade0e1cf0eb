package driver

import (
	"maps"
	"math"
	"sort"

	"github.com/streamtwin/streamtwin/live/rest"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// reading is what the sampler read of Flink, Kafka and the run for one
// sample (read.go gathers it): the answers as they came, nothing derived
// from earlier samples. Unknown numbers are NaN, unknown offsets nil.
type reading struct {
	t   float64 // the sample's time: the end of the second it covers (run s)
	job string  // the job the run last submitted

	// the checkpoint interval (s) and parallelism the job was last
	// (re)submitted or rescaled with
	ci  float64
	par int
	// cpu is each running TaskManager's CPU utilisation by 0-based index
	// (NaN for one first seen now)
	cpu map[int]float64

	// end is the input topic's end offset per partition; nil when Kafka
	// could not be read, and the sample is unmeasured. committed is the
	// job's committed source offset per partition, nil when unknown.
	end, committed map[int32]float64

	// status is GET /jobs/{job} (answered false: the request failed);
	// jobLost: a jobmanager fault took the job with it
	status   rest.Job
	answered bool
	jobLost  bool

	// read while the job runs (seen), else unknown:
	source        string            // the source vertex; "" before the job's metric ids are known
	current       map[int32]float64 // the last offset each partition's reader consumed; nil: not asked or no answer
	sinkIn        float64           // the sink writer's records in (numRecordsIn summed over its subtasks)
	markerP99Ms   float64           // the sink's latency-marker p99 (markers.go)
	backpressured float64           // the sources' backPressuredTimeMsPerSecond, averaged over subtasks

	workers int // TaskManagers registered (GET /overview); 0 when unknown

	// reconfiguring: a savepoint reconfiguration is under way; restarts is
	// the current job's restarts as the run has counted them (restarts.go)
	reconfiguring bool
	restarts      float64

	latencies []float64 // ms, of the records that reached the sink since the last sample
}

// measured: Kafka's offsets were read, so the sample has rates and lag.
func (rd reading) measured() bool { return rd.end != nil }

// seen is the job as the samples name it. Flink calls a job RUNNING while
// its tasks still deploy and restore state; the simulator's name for that
// is RESTORING. After a jobmanager fault the JobManager, back or not,
// knows no job: FAILED.
func (rd reading) seen() rest.Job {
	st := rd.status
	if !rd.answered && rd.jobLost {
		st = rest.Job{ID: rd.job, State: "FAILED"}
	}
	if st.State == "RUNNING" && !allRunning(st) {
		st.State = "RESTORING"
	}
	return st
}

// sampler turns readings into samples: it keeps what a sample needs of the
// ones before it (the consumer positions, the job last consuming, where a
// resubmitted job resumes, Flink's last offsets that moved). It reads
// nothing itself and takes no lock.
type sampler struct {
	resume    savepointResume
	consuming string // the job whose sources last reported offsets
	prev      struct {
		t, end, consumed, out float64
		pos                   map[int32]float64
		ok                    bool
		estimated             bool // pos came from the source's record count
	}
	// the last sample whose Flink offsets moved, and for how many samples
	// they have stood still since (see staleAfter)
	fresh struct {
		current, emitted float64
		pos              map[int32]float64
		job              string
		attempt          float64 // the job's restarts then
		still            int
	}
	// stale counts samples whose positions came from the source's record
	// count because Flink's offsets stood still
	stale int
}

// step is the sample of reading rd.
func (sm *sampler) step(rd reading) results.Sample {
	if !rd.measured() {
		return unmeasured(rd)
	}
	s := results.Sample{TimeS: rd.t, Capacity: math.NaN(), LatencyMarkerP99Ms: rd.markerP99Ms,
		CheckpointIntervalS: rd.ci, Parallelism: int32(rd.par)}
	// every running TaskManager's CPU, whatever the job does: an idle
	// JVM uses CPU too, and the twin counts it (cluster.idle_cpu)
	s.CPUBusyMean, s.CPUBusyMax = measure.CPUAcross(byIndex(rd.cpu))
	st := rd.seen()
	s.JobState = st.State
	if s.JobState == "" {
		s.JobState = "UNKNOWN"
	}
	// Flink's gauge is the ms of the last second its sources waited (0
	// when unknown)
	s.Backpressure = measure.TimeFraction(rd.backpressured/1000, 1)
	s.Workers = int32(rd.workers)
	s.EndOffset, s.CommittedOffset = sumOffsets(rd.end), math.NaN()
	if rd.committed != nil {
		s.CommittedOffset = sumOffsets(rd.committed)
	}
	pos, restoreBy, estimated := sm.position(rd, st)
	prev := &sm.prev
	consumed := sumOffsets(pos)
	out := rd.sinkIn
	dt := rd.t - prev.t
	if prev.ok && dt > 0 {
		s.InputRate = measure.Rate(prev.end, s.EndOffset, dt)
		s.Throughput = consumedSince(prev.pos, pos, restoreBy) / dt
		if prev.estimated && !estimated { // back from an estimate: no restore in between
			s.Throughput = math.Max(0, sumOffsets(pos)-prev.consumed) / dt
		}
		if !math.IsNaN(out) && !math.IsNaN(prev.out) {
			s.OutputRate = measure.Rate(prev.out, out, dt) // the sink's counter restarts with the job
		}
	}
	s.Lag = measure.Lag(s.EndOffset, consumed)
	s.LatencyMeanMs, s.LatencyP50Ms, s.LatencyP99Ms = latencyStats(rd.latencies)
	prev.t, prev.end, prev.consumed, prev.out, prev.pos, prev.ok = rd.t, s.EndOffset, consumed, out, pos, true
	prev.estimated = estimated
	return s
}

// position is each partition's consumer position at rd (the job's state
// as seen: st), where a restore of rd.job resumes from, and whether the
// positions are estimated from the source's record count because Flink's
// offsets stood still.
func (sm *sampler) position(rd reading, st rest.Job) (pos, restoreBy map[int32]float64, estimated bool) {
	job, current, prev, fresh := rd.job, rd.current, &sm.prev, &sm.fresh
	// a job other than the one last consuming was resubmitted from a
	// savepoint of it (reconfigure): it resumes where that one stopped
	if sm.consuming != "" && job != sm.consuming && sm.resume.stopped != sm.consuming && prev.pos != nil {
		sm.resume.stop(sm.consuming, prev.pos)
	}
	// where a restore of this job resumes: the committed offsets, or
	// the savepoint's until this job's first checkpoint commits newer
	restoreBy = sm.resume.restore(job, rd.committed)
	emitted := sourceEmitted(st, rd.source)
	attempt := rd.restarts
	if job == fresh.job && attempt != fresh.attempt && restoreBy != nil {
		// restarted while Flink's offsets stand still: the new attempt
		// resumed from the last checkpoint's (committed) offsets, and
		// its source counts its records from 0 there
		fresh.attempt, fresh.emitted = attempt, 0
		fresh.pos = positions(rd.end, restoreBy, nil, nil, false)
	}
	switch {
	case rd.reconfiguring && len(current) == 0 && prev.pos != nil:
		// stopped at a savepoint, which a resubmission resumes from: the
		// position stays where it was (not at the last checkpoint's offsets)
		pos = positions(rd.end, nil, nil, prev.pos, false)
	case len(current) > 0 && job == fresh.job && sumOffsets(current) == fresh.current && emitted > fresh.emitted:
		fresh.still++
		if fresh.still < staleAfter {
			pos = positions(rd.end, restoreBy, current, prev.pos, true)
			break
		}
		// Flink's metric store keeps serving a restarted job's old offsets
		// (seen now and then after a second restart, for the rest of the
		// run); the source's record count in the job details, which the
		// TaskManagers' heartbeats keep fresh, advances the positions
		// from the last ones Flink gave
		pos = advance(fresh.pos, rd.end, emitted-fresh.emitted)
		sm.stale++
	default:
		pos = positions(rd.end, restoreBy, current, prev.pos, st.State == "RUNNING")
		fresh.still = 0
		if len(current) > 0 {
			fresh.current, fresh.emitted, fresh.pos, fresh.job, fresh.attempt = sumOffsets(current), emitted, pos, job, attempt
		} else {
			fresh.job = ""
		}
	}
	if len(current) > 0 {
		sm.consuming = job
	}
	return pos, restoreBy, fresh.still >= staleAfter
}

// unmeasured is the sample of a second whose Kafka offsets could not be
// read (the broker is down or has no leader yet): input, throughput, lag
// and offsets are NaN, so the recovery detector counts the second as
// anomalous (a skipped second would hide a short outage from it) and the
// summary leaves it out; the next measured sample's rates span the gap.
// The controller does not see it: a policy observes measured seconds only,
// as it would if its metrics were scraped.
func unmeasured(rd reading) results.Sample {
	nan := math.NaN()
	s := results.Sample{TimeS: rd.t, InputRate: nan, Throughput: nan, OutputRate: nan, Capacity: nan, Lag: nan,
		EndOffset: nan, CommittedOffset: nan, LatencyMeanMs: nan, LatencyP50Ms: nan, LatencyP99Ms: nan,
		LatencyMarkerP99Ms: nan, Backpressure: nan, CheckpointIntervalS: rd.ci, Parallelism: int32(rd.par), JobState: "UNKNOWN"}
	s.CPUBusyMean, s.CPUBusyMax = measure.CPUAcross(byIndex(rd.cpu))
	if rd.answered {
		s.JobState = rd.status.State
		if rd.status.State == "RUNNING" && !allRunning(rd.status) {
			s.JobState = "RESTORING"
		}
	}
	s.Workers = int32(rd.workers)
	return s
}

// sourceEmitted is the records the source vertex emitted in the current
// job attempt (write-records of GET /jobs/{id}), NaN when unknown.
func sourceEmitted(j rest.Job, source string) float64 {
	if source == "" || j.State != "RUNNING" {
		return math.NaN()
	}
	for _, v := range j.Vertices {
		if v.ID == source {
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

// latencyStats is the mean, p50 and p99 in ms of an interval's measured
// latencies (NaN for none), by statistics.Quantile: the simulator's quantile
// definition, so live and simulated percentiles are the same statistic. It
// sorts ms.
func latencyStats(ms []float64) (mean, p50, p99 float64) {
	if len(ms) == 0 {
		nan := math.NaN()
		return nan, nan, nan
	}
	mean = statistics.FiniteMean(ms)
	return mean, statistics.Quantile(ms, 0.5), statistics.Quantile(ms, 0.99)
}
