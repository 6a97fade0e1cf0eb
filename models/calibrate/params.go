package calibrate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/scenario"
	"github.com/streamtwin/streamtwin/sim"
)

// Param is one scenario parameter calibration can fit. Values are in Unit;
// Lo and Hi bound the search (the optimiser works on a logistic transform,
// so it never leaves them).
type Param struct {
	Name   string // what --fit calls it
	Path   string // where it lives in a scenario file
	Unit   string // "s", "ms", "MiB/s" or "" for factors and fractions
	Doc    string
	Lo, Hi float64
	// Latency marks parameters that move only latency: they are fitted on
	// the latency column, which then must be in the measured table.
	Latency bool
	field   func(*flink.JobConfig) *float64
	scale   float64 // Unit per stored unit (1000 for ms of a Duration)
}

// durationField adapts a *sim.Duration (seconds) to the *float64 the
// setters use; sim.Duration is a float64 of seconds.
func durationField(f func(*flink.JobConfig) *sim.Duration) func(*flink.JobConfig) *float64 {
	return func(c *flink.JobConfig) *float64 { return (*float64)(f(c)) }
}

func bandwidthField(f func(*flink.JobConfig) *sim.Bandwidth) func(*flink.JobConfig) *float64 {
	return func(c *flink.JobConfig) *float64 { return (*float64)(f(c)) }
}

const mib = 1 << 20

// Params is every parameter calibration knows, in a stable order.
var Params = []Param{
	{Name: "cost_scale", Path: "job.cost_scale", Lo: 0.05, Hi: 20, scale: 1,
		Doc:   "multiplies every operator cost: the job's capacity is the template's divided by it",
		field: func(c *flink.JobConfig) *float64 { return &c.CostScale }},
	{Name: "restart_delay", Path: "job.cluster.restart_delay", Unit: "s", Lo: 0, Hi: 600, scale: 1,
		Doc:   "a killed TaskManager's time to come back and register",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Cluster.RestartDelay })},
	{Name: "deploy", Path: "job.cluster.deploy", Unit: "s", Lo: 0, Hi: 300, scale: 1,
		Doc:   "time to deploy and initialise the tasks once slots are free",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Cluster.Deploy })},
	{Name: "restore_base", Path: "job.cluster.restore_base", Unit: "s", Lo: 0, Hi: 300, scale: 1,
		Doc:   "fixed part of a state restore",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Cluster.RestoreBase })},
	{Name: "restore_bandwidth", Path: "job.cluster.restore_bandwidth", Unit: "MiB/s", Lo: 0.1, Hi: 10000, scale: 1.0 / mib,
		Doc:   "state download rate on restore",
		field: bandwidthField(func(c *flink.JobConfig) *sim.Bandwidth { return &c.Cluster.RestoreBandwidth })},
	{Name: "warmup", Path: "job.cluster.warmup", Unit: "s", Lo: 0, Hi: 600, scale: 1,
		Doc:   "ramp from zero to full capacity after a restore",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Cluster.Warmup })},
	{Name: "connection_loss", Path: "job.detection.connection_loss", Unit: "s", Lo: 0, Hi: 120, scale: 1,
		Doc:   "time for peers of a dead TaskManager to fail their tasks",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Detection.ConnectionLoss })},
	{Name: "heartbeat_timeout", Path: "job.detection.heartbeat_timeout", Unit: "s", Lo: 1, Hi: 300, scale: 1,
		Doc:   "heartbeat.timeout, the detection path of a TaskManager without peers",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Detection.HeartbeatTimeout })},
	{Name: "cpu_overhead", Path: "job.checkpoint.cpu_overhead", Lo: 0, Hi: 0.9, scale: 1,
		Doc:   "fraction of CPU the asynchronous checkpoint phase takes",
		field: func(c *flink.JobConfig) *float64 { return &c.Checkpoint.CPUOverhead }},
	{Name: "alignment", Path: "job.checkpoint.alignment", Unit: "s", Lo: 0, Hi: 30, scale: 1,
		Doc:   "barrier alignment stall without backpressure",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Checkpoint.Alignment })},
	{Name: "inflight_drain", Path: "job.checkpoint.inflight_drain", Unit: "s", Lo: 0, Hi: 60, scale: 1,
		Doc:   "extra alignment stall under backpressure (in-flight buffers drain first)",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Checkpoint.InflightDrain })},
	{Name: "sync_base", Path: "job.checkpoint.sync_base", Unit: "s", Lo: 0, Hi: 30, scale: 1,
		Doc:   "fixed part of the synchronous snapshot (task threads blocked)",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Checkpoint.SyncBase })},
	{Name: "async_base", Path: "job.checkpoint.async_base", Unit: "s", Lo: 0, Hi: 120, scale: 1,
		Doc:   "fixed part of the asynchronous checkpoint phase",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Checkpoint.AsyncBase })},
	{Name: "upload_bandwidth", Path: "job.checkpoint.upload_bandwidth", Unit: "MiB/s", Lo: 0.1, Hi: 10000, scale: 1.0 / mib,
		Doc:   "checkpoint upload rate",
		field: bandwidthField(func(c *flink.JobConfig) *sim.Bandwidth { return &c.Checkpoint.UploadBandwidth })},
	{Name: "latency_base", Path: "job.latency.base", Unit: "ms", Lo: 0, Hi: 10000, scale: 1000, Latency: true,
		Doc:   "fixed processing and network time through the pipeline",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Latency.Base })},
	{Name: "queueing", Path: "job.latency.queueing", Unit: "ms", Lo: 0, Hi: 10000, scale: 1000, Latency: true,
		Doc:   "mean wait in task input queues at 50 % utilisation",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Latency.Queueing })},
	{Name: "buffer_timeout", Path: "job.latency.buffer_timeout", Unit: "ms", Lo: 0, Hi: 10000, scale: 1000, Latency: true,
		Doc:   "execution.buffer-timeout: how long a network buffer waits to fill",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Latency.BufferTimeout })},
}

// ParamNames lists the names --fit accepts.
func ParamNames() []string {
	var n []string
	for _, p := range Params {
		n = append(n, p.Name)
	}
	sort.Strings(n)
	return n
}

// LookupParams resolves --fit names, rejecting unknown and repeated ones.
func LookupParams(names []string) ([]Param, error) {
	var out []Param
	seen := map[string]bool{}
	for _, raw := range names {
		name := strings.TrimSpace(raw)
		if name == "" {
			continue
		}
		if seen[name] {
			return nil, fmt.Errorf("--fit names %s twice", name)
		}
		seen[name] = true
		found := false
		for _, p := range Params {
			if p.Name == name {
				out = append(out, p)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("--fit: unknown parameter %q; choose from %s", name, strings.Join(ParamNames(), ", "))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--fit names no parameter; choose from %s", strings.Join(ParamNames(), ", "))
	}
	return out, nil
}

// Get reads the parameter from a scenario, in Unit.
func (p Param) Get(sc *scenario.Scenario) float64 { return *p.field(&sc.Job) * p.scale }

// Set writes the parameter, given in Unit, into a scenario.
func (p Param) Set(sc *scenario.Scenario, v float64) { *p.field(&sc.Job) = v / p.scale }

// Text is v as scenario-file text (e.g. 12.5s, 80MiB/s, 0.07), to six
// significant digits and never in exponent form, which durations reject.
func (p Param) Text(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64) + p.Unit
}
