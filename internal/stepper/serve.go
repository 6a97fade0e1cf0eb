package stepper

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
)

// Protocol is the stepping protocol's version, in hello.
const Protocol = 1

// The requests of the stepping protocol: 24 bytes, little-endian: op
// (uint32), 4 bytes of zeros, an integer (uint64: reset's seed, rescale's
// parallelism) and a number (float64: set_checkpoint_interval's seconds).
const (
	OpClose    = 0
	OpReset    = 1
	OpHold     = 2
	OpInterval = 3
	OpRescale  = 4
	// RequestSize is the size of one request in bytes.
	RequestSize = 24
)

// Header names the float64s that open every observation frame; Rows of
// them follow, each with Columns.
var Header = []string{"end", "time_s", "job_state", "checkpoint_interval_s", "parallelism", "restarts", "faults",
	"latency_violation_seconds", "recovery_violations", "worker_seconds", "rows"}

// Columns are the timeseries columns of each row in a frame.
var Columns = []string{"time_s", "input_rate", "throughput", "output_rate", "lag", "latency_p50_ms", "latency_p99_ms",
	"cpu_busy_mean", "cpu_busy_max", "backpressure", "parallelism", "workers", "checkpoint_interval_s"}

// States are the job states, by the index job_state holds.
var States = []string{flink.StateRunning, flink.StateFailing, flink.StateRestarting, flink.StateRestoring,
	flink.StateStopping, flink.StateStopped, flink.StateFailed}

// Hello is the first line the server writes: JSON, describing the
// scenario and the frames.
type Hello struct {
	Type            string   `json:"type"`
	Protocol        int      `json:"protocol"`
	Scenario        string   `json:"scenario"`
	Variant         string   `json:"variant"`
	DurationS       float64  `json:"duration_s"`
	IntervalS       float64  `json:"interval_s"`
	MetricIntervalS float64  `json:"metric_interval_s"`
	Steps           int      `json:"steps"` // observations in a run: the ticks, and the end
	LatencyBoundMs  float64  `json:"latency_bound_ms"`
	RecoveryBoundS  float64  `json:"recovery_bound_s"`
	Parallelism     int      `json:"parallelism"`
	CheckpointS     float64  `json:"checkpoint_interval_s"`
	MaxParallelism  int      `json:"max_parallelism"`
	Header          []string `json:"header"`
	Columns         []string `json:"columns"`
	States          []string `json:"states"`
}

// HelloOf describes sc stepped every interval.
func HelloOf(sc scenario.Scenario, interval time.Duration) Hello {
	return Hello{Type: "hello", Protocol: Protocol, Scenario: sc.Name, Variant: sc.Variant, DurationS: float64(sc.Duration),
		IntervalS: interval.Seconds(), MetricIntervalS: float64(sc.MetricInterval),
		Steps:          int(math.Floor(float64(sc.Duration)/interval.Seconds()+1e-9)) + 1,
		LatencyBoundMs: 1000 * float64(sc.QoS.Latency), RecoveryBoundS: float64(sc.QoS.Recovery),
		Parallelism: sc.Job.Parallelism, CheckpointS: float64(sc.Job.Checkpoint.Interval), MaxParallelism: sc.Job.MaxParallelism,
		Header: Header, Columns: Columns, States: States}
}

// Serve speaks the stepping protocol on in and out for sc: hello, then a
// frame for each reset and step request, until close or the end of in. A
// request it cannot carry out is an error, and ends it.
func Serve(in io.Reader, out io.Writer, sc scenario.Scenario, interval time.Duration) error {
	w := bufio.NewWriter(out)
	hello, err := json.Marshal(HelloOf(sc, interval))
	if err != nil {
		return err
	}
	if _, err := w.Write(append(hello, '\n')); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	var ep *Episode
	defer func() {
		if ep != nil {
			ep.Close()
		}
	}()
	var req [RequestSize]byte
	var frame []byte
	for {
		if _, err := io.ReadFull(in, req[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a request: %w", err)
		}
		op := binary.LittleEndian.Uint32(req[0:])
		integer := binary.LittleEndian.Uint64(req[8:])
		number := math.Float64frombits(binary.LittleEndian.Uint64(req[16:]))
		var obs Observation
		switch op {
		case OpClose:
			return nil
		case OpReset:
			if ep != nil {
				ep.Close()
				ep = nil
			}
			run := sc
			run.Seed = integer
			if ep, obs, err = Start(run, interval); err != nil {
				return fmt.Errorf("reset (seed %d): %w", integer, err)
			}
		case OpHold, OpInterval, OpRescale:
			if ep == nil {
				return errors.New("a step before the first reset")
			}
			actions, err := actionOf(op, integer, number)
			if err != nil {
				return err
			}
			if obs, err = ep.Step(actions); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown request %d (allowed: 0 close, 1 reset, 2 hold, 3 set_checkpoint_interval, 4 rescale)", op)
		}
		frame = Frame(frame[:0], obs)
		if obs.End {
			if frame, err = withSummary(frame, obs.Summary); err != nil {
				return err
			}
		}
		if _, err := w.Write(frame); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// withSummary appends the summary of an ended run to its frame: its
// length in bytes (uint64), then summary.json's bytes.
func withSummary(frame []byte, sum results.Summary) ([]byte, error) {
	js, err := sum.Marshal()
	if err != nil {
		return nil, err
	}
	frame = binary.LittleEndian.AppendUint64(frame, uint64(len(js)))
	return append(frame, js...), nil
}

func actionOf(op uint32, integer uint64, number float64) ([]policy.Action, error) {
	switch op {
	case OpInterval:
		if !(number >= 0.001) || number > 1e9 {
			return nil, fmt.Errorf("set_checkpoint_interval: %v s is not a checkpoint interval (allowed: 0.001 s to 1e9 s)", number)
		}
		return []policy.Action{{Kind: policy.SetCheckpointInterval, Interval: time.Duration(number * float64(time.Second)), Reason: Name}}, nil
	case OpRescale:
		if integer < 1 || integer > 1<<15 {
			return nil, fmt.Errorf("rescale: parallelism %d is out of range (allowed: 1 to 32768)", integer)
		}
		return []policy.Action{{Kind: policy.Rescale, Parallelism: int(integer), Reason: Name}}, nil
	}
	return nil, nil
}

// Frame appends obs as an observation frame: the Header's float64s, then
// its rows' Columns, little-endian.
func Frame(b []byte, obs Observation) []byte {
	end := 0.0
	if obs.End {
		end = 1
	}
	state := -1.0
	for i, s := range States {
		if s == obs.Job.State {
			state = float64(i)
		}
	}
	for _, v := range []float64{end, obs.Now.Seconds(), state, obs.Job.CheckpointInterval.Seconds(), float64(obs.Job.Parallelism),
		float64(obs.Job.Restarts), float64(obs.Job.Faults), float64(obs.QoS.LatencyViolationSeconds),
		float64(obs.QoS.RecoveryViolations), obs.WorkerSeconds, float64(len(obs.Rows))} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	for _, r := range obs.Rows {
		b = row(b, r)
	}
	return b
}

func row(b []byte, s results.Sample) []byte {
	for _, v := range []float64{s.TimeS, s.InputRate, s.Throughput, s.OutputRate, s.Lag, s.LatencyP50Ms, s.LatencyP99Ms,
		s.CPUBusyMean, s.CPUBusyMax, s.Backpressure, float64(s.Parallelism), float64(s.Workers), s.CheckpointIntervalS} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}
