package results

import "math"

// Sample is one row of timeseries.parquet: the state of the job over one
// metric interval (default 1 s) that ends at TimeS. Rates are averages over
// the interval; levels (lag, offsets, state) are taken at its end. A latency
// is NaN when no record reached the sink in the interval (job down).
type Sample struct {
	TimeS           float64 `parquet:"time_s"`           // end of the interval, s since run start
	InputRate       float64 `parquet:"input_rate"`       // records/s appended to the Kafka topic
	Throughput      float64 `parquet:"throughput"`       // records/s consumed by the sources
	OutputRate      float64 `parquet:"output_rate"`      // records/s written by the sinks
	Capacity        float64 `parquet:"capacity"`         // records/s the sources could sustain now (bottleneck-bound)
	Lag             float64 `parquet:"lag"`              // records: log-end minus consumed offsets, summed over partitions
	EndOffset       float64 `parquet:"end_offset"`       // records: log-end offsets summed over partitions
	CommittedOffset float64 `parquet:"committed_offset"` // records: offsets committed on the last completed checkpoint
	LatencyMeanMs   float64 `parquet:"latency_mean_ms"`  // ms, end-to-end event latency, record-weighted mean
	LatencyP50Ms    float64 `parquet:"latency_p50_ms"`   // ms
	LatencyP99Ms    float64 `parquet:"latency_p99_ms"`   // ms
	// LatencyMarkerP99Ms is what Flink's latency markers report at the
	// sinks (p99): source-to-sink transit without the wait in Kafka, so it
	// stays bounded during a catch-up. Khaos recorded this one.
	LatencyMarkerP99Ms  float64 `parquet:"latency_marker_p99_ms"` // ms
	CheckpointIntervalS float64 `parquet:"checkpoint_interval_s"` // s, the CI in force
	Parallelism         int32   `parquet:"parallelism"`           // job parallelism in force
	Workers             int32   `parquet:"workers"`               // TaskManager processes alive at the end of the interval
	CPUBusyMean         float64 `parquet:"cpu_busy_mean"`         // CPU utilisation of the allotment (measure.CPUUtilisation; > 1 possible without a CPU limit), mean over running TaskManagers
	CPUBusyMax          float64 `parquet:"cpu_busy_max"`          // the same, the busiest TaskManager
	Backpressure        float64 `parquet:"backpressure"`          // fraction of the interval the sources were throttled by a bottleneck
	JobState            string  `parquet:"job_state,dict"`        // RUNNING, FAILING, RESTARTING, RESTORING, STOPPING, STOPPED, FAILED
	Recovering          bool    `parquet:"recovering"`            // a fault or reconfiguration is not yet caught up
}

// LatencyKinds name the latency columns of a Sample, for Sample.Latency:
// the latency-marker p99 (what Khaos recorded), and the event-time p99, p50
// and mean.
var LatencyKinds = []string{"marker", "p99", "p50", "mean"}

// Latency returns the latency column named by kind (one of LatencyKinds) in
// ms; NaN for an unknown kind.
func (s Sample) Latency(kind string) float64 {
	switch kind {
	case "marker":
		return s.LatencyMarkerP99Ms
	case "p99":
		return s.LatencyP99Ms
	case "p50":
		return s.LatencyP50Ms
	case "mean":
		return s.LatencyMeanMs
	}
	return math.NaN()
}

// Event is one row of events.parquet. Columns that do not apply to a kind are
// null (NaN / None in pandas).
type Event struct {
	TimeS        float64  `parquet:"time_s"`                 // s since run start
	Kind         string   `parquet:"kind,dict"`              // see the Kind* constants
	TaskManager  *int32   `parquet:"taskmanager,optional"`   // TaskManager index, for faults and TM starts
	CheckpointID *int64   `parquet:"checkpoint_id,optional"` // for checkpoint events
	DurationS    *float64 `parquet:"duration_s,optional"`    // checkpoint duration, downtime, recovery time
	SizeBytes    *float64 `parquet:"size_bytes,optional"`    // checkpoint/savepoint upload size
	Value        *float64 `parquet:"value,optional"`         // new CI (s) or parallelism for policy decisions; backlog (records) at running and reconfigured
	Reason       string   `parquet:"reason"`                 // free text: why (policy reason, fault source, failure cause)
}

// Event kinds written to events.parquet.
const (
	KindFault               = "fault"                // a fault began (a TaskManager killed, frozen, …); DurationS = how long it lasts, for the kinds that last
	KindDetected            = "failure_detected"     // the JobManager noticed; job goes to RESTARTING
	KindRestart             = "restart"              // the restart strategy's delay elapsed; tasks are (re)scheduled
	KindTaskManagerUp       = "taskmanager_started"  // a (replacement) TaskManager registered
	KindRunning             = "running"              // state restored, sources consuming again; Value = backlog (records)
	KindRecovered           = "recovered"            // lag and throughput back to pre-fault behaviour (measure.DetectRecovery's rule on the samples); DurationS = recovery time
	KindCheckpointCompleted = "checkpoint_completed" // DurationS = end-to-end duration, SizeBytes = uploaded bytes
	KindCheckpointFailed    = "checkpoint_failed"    // timeout, or aborted by a failure
	KindSavepoint           = "savepoint_completed"  // stop-with-savepoint finished; job STOPPED
	KindReconfigured        = "reconfigured"         // resubmitted job is RUNNING again; DurationS = downtime
	KindPolicyDecision      = "policy_decision"      // a policy asked for an action; Reason says why
	KindPolicyError         = "policy_error"         // a policy's step failed and the run held on (on_error: hold); Reason is the error
	// KindUnrecovered closes, at the end of the run, a fault (or
	// reconfiguration) whose recovery had not finished: DurationS is the
	// time since it began, a lower bound of its recovery time (censored).
	KindUnrecovered = "unrecovered"
	// KindRunEnd is the last event of every run: Reason is the job's state
	// then (RUNNING, FAILED, RESTARTING, …), DurationS how long the job had
	// been down by then (0 when RUNNING).
	KindRunEnd = "run_end"
	// KindModelRecovered is the simulator's diagnostic of a recovered
	// event: the exact model time its fluid lag was back at the level of
	// the fault's instant (models/flink); DurationS is the time since the
	// fault or reconfiguration began, Reason the model's cause. The
	// recovery itself is the recovered event, the same detector as live.
	KindModelRecovered = "model_recovered"
)

// IsReconfiguration reports whether a recovered or unrecovered event's
// reason marks it as closing a reconfiguration ("reconfiguration: …"), not
// a fault.
func (e Event) IsReconfiguration() bool {
	return len(e.Reason) >= 16 && e.Reason[:16] == "reconfiguration:"
}
