package results

import (
	"encoding/json"
	"math"
)

// Summary is summary.json: the headline figures of one run. All durations are
// in seconds, latencies in milliseconds, rates in records/s.
type Summary struct {
	Scenario string `json:"scenario"`
	Variant  string `json:"variant"`
	Seed     uint64 `json:"seed"`
	Backend  string `json:"backend"` // "sim" or "live"

	DurationS float64 `json:"duration_s"` // simulated (or replayed) time
	// WallTimeS is how long the run took. It is printed, not written:
	// summary.json stays byte-identical across runs of the same scenario
	// and seed (comparisons ignore the field in older files).
	WallTimeS float64 `json:"-"`

	RecordsIn        Count `json:"records_in"`        // appended to Kafka
	RecordsProcessed Count `json:"records_processed"` // consumed by the sources, reprocessing included
	// RecordsReplayed were read again after restores from a checkpoint, so
	// records_processed = records_in − final_lag + records_replayed (within
	// the rounding of each to whole records). The simulator counts them at
	// each restore; live mode derives them from that identity.
	RecordsReplayed Count   `json:"records_replayed"`
	ThroughputMean  float64 `json:"throughput_mean"`
	FinalLag        Count   `json:"final_lag"`
	LagMax          Count   `json:"lag_max"`

	LatencyMeanMs       float64 `json:"latency_mean_ms"`        // over all intervals with output
	LatencyP50Ms        float64 `json:"latency_p50_ms"`         // median of the per-interval p50
	LatencyP99Ms        float64 `json:"latency_p99_ms"`         // 99th percentile of the per-interval p99
	LatencySteadyMeanMs float64 `json:"latency_steady_mean_ms"` // mean outside fault/reconfiguration recovery periods
	// LatencyMarkerMeanMs is the mean over intervals with output of the
	// latency-marker p99: the "mean latency" of Khaos's 24 h series.
	LatencyMarkerMeanMs float64 `json:"latency_marker_mean_ms"`

	// LatencyCoverage is the fraction of the run's time whose intervals had
	// output: the latency figures describe only those. Time the job was
	// down, and records still in Kafka at the end (final_lag), are in no
	// latency figure; throughput_mean counts down time as 0 records/s.
	LatencyCoverage float64 `json:"latency_coverage"`

	Faults     int `json:"faults"`
	Recoveries int `json:"recoveries"` // faults whose recovery finished
	// UnrecoveredFaults are faults whose recovery had not finished when the
	// run ended (the job still catching up, or down for good). Each counts
	// as a recovery violation and enters the recovery mean, median and max
	// with its censored time (fault → end of run), so with any unrecovered
	// fault those three are lower bounds.
	UnrecoveredFaults int       `json:"unrecovered_faults"`
	RecoveryTimesS    []float64 `json:"recovery_times_s"` // finished recoveries only
	RecoveryMeanS     float64   `json:"recovery_mean_s"`
	RecoveryMedianS   float64   `json:"recovery_median_s"`
	RecoveryMaxS      float64   `json:"recovery_max_s"`
	DowntimeS         float64   `json:"downtime_s"`  // time with no source consuming, including a job down at the end
	FinalState        string    `json:"final_state"` // the job's state when the run ended: RUNNING, FAILED, …

	CheckpointsCompleted int     `json:"checkpoints_completed"`
	CheckpointsFailed    int     `json:"checkpoints_failed"`
	CheckpointMeanS      float64 `json:"checkpoint_duration_mean_s"`
	// CheckpointTimeS is the checkpoint overhead: the seconds completed
	// checkpoints were in flight, summed (trigger to completion).
	CheckpointTimeS         float64 `json:"checkpoint_time_s"`
	CheckpointIntervalMeanS float64 `json:"checkpoint_interval_mean_s"` // time-weighted

	Reconfigurations int     `json:"reconfigurations"`
	WorkerSeconds    float64 `json:"worker_seconds"` // TaskManager-seconds alive
	CPUBusyMean      float64 `json:"cpu_busy_mean"`

	QoS QoSSummary `json:"qos"`

	// SinkAudit is set by live runs with an exactly-once sink
	// (live run --exactly-once): the sink topic checked against the input.
	SinkAudit *SinkAudit `json:"sink_audit,omitempty"`
}

// SinkAudit is what a live run's sink held against what its input asked
// for, in YSB views counted per (campaign, 10 s window): RecordsIn views
// in the input topic, RecordsOut views counted by the committed output,
// RecordsLost views of the input no output counted, RecordsDuplicated views
// counted more than once (RecordsOut = RecordsIn − lost + duplicated).
type SinkAudit struct {
	InputRecords      int64 `json:"input_records"` // every record of the input topic
	RecordsIn         int64 `json:"views_in"`
	RecordsOut        int64 `json:"views_out"`
	RecordsLost       int64 `json:"views_lost"`
	RecordsDuplicated int64 `json:"views_duplicated"`
	Windows           int   `json:"windows"` // (campaign, window) pairs the input fills and the watermark closed
	// WindowsOpen were still open when the run ended (not audited), with
	// RecordsOpen views
	WindowsOpen       int   `json:"windows_open"`
	RecordsOpen       int64 `json:"views_open"`
	WindowsMissing    int   `json:"windows_missing"`
	WindowsDuplicated int   `json:"windows_duplicated"` // pairs the output holds more than once
	// the window ends (epoch ms) of the first and last missing window, 0 if none
	FirstMissingEndMs int64 `json:"first_missing_window_end_ms"`
	LastMissingEndMs  int64 `json:"last_missing_window_end_ms"`
}

// QoSSummary counts violations of the scenario's QoS bounds.
type QoSSummary struct {
	LatencyBoundMs          float64 `json:"latency_bound_ms"`
	RecoveryBoundS          float64 `json:"recovery_bound_s"`
	LatencyViolationSeconds int     `json:"latency_violation_seconds"` // intervals whose p99 exceeded the bound
	RecoveryViolations      int     `json:"recovery_violations"`       // recoveries longer than the bound, and unrecovered faults
}

// Count is a whole number of records. The twin's fluid model computes
// expected counts, which are rounded to whole records once, when the
// summary is made (CountOf); summary.json then holds integers. It reads the
// fractional counts of files written before that, rounded the same way.
type Count int64

// CountOf rounds an expected number of records to a Count.
func CountOf(records float64) Count { return Count(math.Round(records)) }

// UnmarshalJSON reads an integer or, from older files, a fractional count.
func (c *Count) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*c = CountOf(f)
	return nil
}
