package external

import (
	"math"
	"strconv"
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// The messages of docs/policy-protocol.md (schema: docs/policy-protocol.schema.json).

type helloMsg struct {
	Type         string         `json:"type"`
	Protocol     int            `json:"protocol"`
	Run          runMsg         `json:"run"`
	Capabilities capsMsg        `json:"capabilities"`
	Config       map[string]any `json:"config"`
	Job          jobMsg         `json:"job"`
}

type runMsg struct {
	Scenario        string  `json:"scenario"`
	Variant         string  `json:"variant"`
	Seed            uint64  `json:"seed"`
	DurationS       float64 `json:"duration_s"`
	Backend         string  `json:"backend"`
	IntervalS       float64 `json:"interval_s"`
	Window          int     `json:"window"`
	MetricIntervalS float64 `json:"metric_interval_s"`
	Detail          bool    `json:"detail"` // observations carry detail
}

type capsMsg struct {
	Actions               []policy.ActionKind `json:"actions"`
	Detail                bool                `json:"detail"`
	MaxParallelism        int                 `json:"max_parallelism"`
	RescaleFromCheckpoint bool                `json:"rescale_from_checkpoint"`
}

type jobMsg struct {
	State               string         `json:"state"`
	UptimeS             float64        `json:"uptime_s"`
	Parallelism         int            `json:"parallelism"`
	CheckpointIntervalS float64        `json:"checkpoint_interval_s"`
	LastCheckpoint      *checkpointMsg `json:"last_checkpoint"`
	Restarts            int            `json:"restarts"`
	Faults              int            `json:"faults"`
}

type checkpointMsg struct {
	ID          int64   `json:"id"`
	CompletedAt float64 `json:"completed_at_s"`
	DurationS   float64 `json:"duration_s"`
	SizeBytes   float64 `json:"size_bytes"`
}

func jobOf(j policy.JobStatus) jobMsg {
	m := jobMsg{State: j.State, UptimeS: j.Uptime.Seconds(), Parallelism: j.Parallelism,
		CheckpointIntervalS: j.CheckpointInterval.Seconds(), Restarts: j.Restarts, Faults: j.Faults}
	if c := j.LastCheckpoint; c != nil {
		m.LastCheckpoint = &checkpointMsg{ID: c.ID, CompletedAt: c.CompletedAt.Seconds(), DurationS: c.Duration.Seconds(), SizeBytes: c.SizeBytes}
	}
	return m
}

// reply is any message of the process: ready, or actions.
type reply struct {
	Type     string      `json:"type"`
	Protocol int         `json:"protocol"`
	Name     string      `json:"name"`
	Requires []string    `json:"requires"`
	Tick     int         `json:"tick"`
	Actions  []actionMsg `json:"actions"`
}

type actionMsg struct {
	Kind        string         `json:"kind"`
	IntervalS   *float64       `json:"interval_s"`
	Parallelism *int           `json:"parallelism"`
	Vertices    map[string]int `json:"vertices"` // rescale_vertices: operator name → parallelism
	Reason      string         `json:"reason"`
}

// observation encodes one tick's message: the samples since the last one
// (written by hand, not by encoding/json: a tick must cost well under a
// millisecond, and a NaN latency is null).
func (p *Policy) observation(now time.Duration, obs policy.Observation) []byte {
	b := append(p.buf[:0], `{"type":"observation","tick":`...)
	b = strconv.AppendInt(b, int64(p.tick), 10)
	b = append(b, `,"now_s":`...)
	b = num(b, now.Seconds())
	from := policy.FirstUnseen(obs.Window, p.lastSent)
	b = append(b, `,"samples":[`...)
	for i, s := range obs.Window[from:] {
		if i > 0 {
			b = append(b, ',')
		}
		b = sample(b, s)
	}
	b = append(b, ']')
	if p.cfg.Detail && len(obs.Detail) == len(obs.Window) {
		b = append(b, `,"detail":[`...)
		for i, d := range obs.Detail[from:] {
			if i > 0 {
				b = append(b, ',')
			}
			b = detail(b, d)
		}
		b = append(b, ']')
	}
	if n := len(obs.Window); n > 0 {
		p.lastSent = obs.Window[n-1].TimeS
	}
	b = append(b, `,"job":`...)
	b = job(b, jobOf(obs.Job))
	b = append(b, "}\n"...)
	p.buf = b
	return b
}

func sample(b []byte, s results.Sample) []byte {
	b = field(b, `{"time_s":`, s.TimeS)
	b = field(b, `,"input_rate":`, s.InputRate)
	b = field(b, `,"throughput":`, s.Throughput)
	b = field(b, `,"output_rate":`, s.OutputRate)
	b = field(b, `,"capacity":`, s.Capacity)
	b = field(b, `,"lag":`, s.Lag)
	b = field(b, `,"end_offset":`, s.EndOffset)
	b = field(b, `,"committed_offset":`, s.CommittedOffset)
	b = field(b, `,"latency_mean_ms":`, s.LatencyMeanMs)
	b = field(b, `,"latency_p50_ms":`, s.LatencyP50Ms)
	b = field(b, `,"latency_p99_ms":`, s.LatencyP99Ms)
	b = field(b, `,"latency_marker_p99_ms":`, s.LatencyMarkerP99Ms)
	b = field(b, `,"checkpoint_interval_s":`, s.CheckpointIntervalS)
	b = field(b, `,"parallelism":`, float64(s.Parallelism))
	b = field(b, `,"workers":`, float64(s.Workers))
	b = field(b, `,"cpu_busy_mean":`, s.CPUBusyMean)
	b = field(b, `,"cpu_busy_max":`, s.CPUBusyMax)
	b = field(b, `,"backpressure":`, s.Backpressure)
	b = append(b, `,"job_state":`...)
	b = strconv.AppendQuote(b, s.JobState)
	b = append(b, `,"recovering":`...)
	b = strconv.AppendBool(b, s.Recovering)
	return append(b, '}')
}

func detail(b []byte, d measure.Detail) []byte {
	b = append(b, `{"taskmanagers":[`...)
	for i, t := range d.TaskManagers {
		if i > 0 {
			b = append(b, ',')
		}
		b = field(b, `{"index":`, float64(t.Index))
		b = field(b, `,"cpu_busy":`, t.CPUBusy)
		b = field(b, `,"source_throughput":`, t.SourceThroughput)
		b = append(b, '}')
	}
	b = append(b, `],"operators":[`...)
	for i, o := range d.Operators {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = strconv.AppendQuote(b, o.Name)
		b = field(b, `,"parallelism":`, float64(o.Parallelism))
		b = append(b, `,"source":`...)
		b = strconv.AppendBool(b, o.Source)
		b = field(b, `,"input_rate":`, o.InputRate)
		b = field(b, `,"output_rate":`, o.OutputRate)
		b = field(b, `,"busy_max":`, o.BusyMax)
		b = append(b, `,"keyed":`...)
		b = strconv.AppendBool(b, o.Keyed)
		b = field(b, `,"max_parallelism":`, float64(o.MaxParallelism))
		b = field(b, `,"partitions":`, float64(o.Partitions))
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func job(b []byte, j jobMsg) []byte {
	b = append(b, `{"state":`...)
	b = strconv.AppendQuote(b, j.State)
	b = field(b, `,"uptime_s":`, j.UptimeS)
	b = field(b, `,"parallelism":`, float64(j.Parallelism))
	b = field(b, `,"checkpoint_interval_s":`, j.CheckpointIntervalS)
	b = append(b, `,"last_checkpoint":`...)
	if c := j.LastCheckpoint; c == nil {
		b = append(b, "null"...)
	} else {
		b = field(b, `{"id":`, float64(c.ID))
		b = field(b, `,"completed_at_s":`, c.CompletedAt)
		b = field(b, `,"duration_s":`, c.DurationS)
		b = field(b, `,"size_bytes":`, c.SizeBytes)
		b = append(b, '}')
	}
	b = field(b, `,"restarts":`, float64(j.Restarts))
	b = field(b, `,"faults":`, float64(j.Faults))
	return append(b, '}')
}

func field(b []byte, key string, v float64) []byte { return num(append(b, key...), v) }

// num writes v as a JSON number: integers without a fraction, NaN and ±Inf
// (a latency with nothing at the sinks) as null.
func num(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return append(b, "null"...)
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
