package calibrate

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/sim"
)

// Param is one scenario parameter calibration can fit. Values are in Unit;
// Lo and Hi bound the search (the optimiser works on a logistic transform,
// so it never leaves them): the physical range, so that no fit can land on
// an absurd value. Typical is the range seen in Flink deployments and the
// papers (docs/calibration.md cites them); a fitted value outside it, or at
// a bound, is flagged in the report.
type Param struct {
	Name    string // what --fit calls it
	Path    string // where it lives in a scenario file
	Unit    string // "s", "ms", "MiB/s" or "" for factors and fractions
	Doc     string
	Lo, Hi  float64
	Typical [2]float64
	// Latency marks parameters that move only latency: they are fitted on
	// the latency column, which then must be in the measured table.
	Latency bool
	// LatencyStage marks the parameters fitted in the second, latency
	// stage when latency was measured: the latency ones and the checkpoint
	// costs, which move latency through utilisation and stalls. Fitted on
	// the latency loss with the recovery parameters fixed, they cannot buy
	// recovery accuracy with an absurd checkpoint overhead.
	LatencyStage bool
	// Spread marks the parameters that set how much the twin's runs of one
	// point differ, not their centre: they are fitted last, in their own
	// stage, on the interval score of the replications' prediction
	// intervals (needs --replications ≥ 2).
	Spread bool
	field  func(*flink.JobConfig) *float64
	scale  float64 // Unit per stored unit (1000 for ms of a Duration)
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
	{Name: "cost_scale", Path: "job.cost_scale", Lo: 0.05, Hi: 20, Typical: [2]float64{0.5, 2}, scale: 1,
		Doc:   "multiplies every operator cost: the job's capacity is the template's divided by it",
		field: func(c *flink.JobConfig) *float64 { return &c.CostScale }},
	{Name: "restart_delay", Path: "job.cluster.restart_delay", Unit: "s", Lo: 0, Hi: 300, Typical: [2]float64{5, 60}, scale: 1,
		Doc:   "a killed TaskManager's time to come back and register",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Cluster.RestartDelay })},
	{Name: "deploy", Path: "job.cluster.deploy", Unit: "s", Lo: 0, Hi: 300, Typical: [2]float64{0, 30}, scale: 1,
		Doc:   "time to deploy and initialise the tasks once slots are free",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Cluster.Deploy })},
	{Name: "restore_base", Path: "job.cluster.restore_base", Unit: "s", Lo: 0, Hi: 300, Typical: [2]float64{0, 30}, scale: 1,
		Doc:   "fixed part of a state restore",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Cluster.RestoreBase })},
	{Name: "restore_bandwidth", Path: "job.cluster.restore_bandwidth", Unit: "MiB/s", Lo: 0.1, Hi: 10000, Typical: [2]float64{10, 2000}, scale: 1.0 / mib,
		Doc:   "state download rate on restore",
		field: bandwidthField(func(c *flink.JobConfig) *sim.Bandwidth { return &c.Cluster.RestoreBandwidth })},
	{Name: "deploy_cv", Path: "job.cluster.deploy_cv", Lo: 0, Hi: 2, Typical: [2]float64{0, 0.5}, Spread: true, scale: 1,
		Doc:   "coefficient of variation of a deployment's duration (deploy and restore): the spread of restarts",
		field: func(c *flink.JobConfig) *float64 { return &c.Cluster.DeployCV }},
	{Name: "restart_delay_cv", Path: "job.cluster.restart_delay_cv", Lo: 0, Hi: 2, Typical: [2]float64{0, 0.5}, Spread: true, scale: 1,
		Doc:   "coefficient of variation of a killed TaskManager's restart: the spread of its return",
		field: func(c *flink.JobConfig) *float64 { return &c.Cluster.RestartDelayCV }},
	{Name: "catchup_cv", Path: "job.cluster.catchup_cv", Lo: 0, Hi: 1, Typical: [2]float64{0, 0.3}, Spread: true, scale: 1,
		Doc:   "coefficient of variation of a restored job's catch-up time: the spread of catch-ups",
		field: func(c *flink.JobConfig) *float64 { return &c.Cluster.CatchupCV }},
	{Name: "reserved_cores", Path: "job.cluster.reserved_cores", Lo: 0, Hi: 0.9, Typical: [2]float64{0, 0.5}, scale: 1,
		Doc:   "cores of each TaskManager its tasks cannot use at capacity (GC, RocksDB compaction, network threads)",
		field: func(c *flink.JobConfig) *float64 { return &c.Cluster.ReservedCores }},
	{Name: "host_cpu_per_record", Path: "job.cluster.host_cpu_per_record", Unit: "µs", Lo: 0, Hi: 1000, Typical: [2]float64{0, 200}, scale: 1e6,
		Doc:   "CPU that co-located processes (load generator, broker) take per input record from the TaskManagers' cores",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Cluster.HostCPUPerRecord })},
	{Name: "warmup", Path: "job.cluster.warmup", Unit: "s", Lo: 0, Hi: 300, Typical: [2]float64{0, 60}, scale: 1,
		Doc:   "ramp to full capacity after a restore (from warmup_start of it)",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Cluster.Warmup })},
	{Name: "warmup_start", Path: "job.cluster.warmup_start", Lo: 0, Hi: 0.95, Typical: [2]float64{0, 0.9}, scale: 1,
		Doc:   "share of full capacity a restored job starts its warm-up ramp at (a restarted TaskManager's JVM is cold, the others warm)",
		field: func(c *flink.JobConfig) *float64 { return &c.Cluster.WarmupStart }},
	{Name: "connection_loss", Path: "job.detection.connection_loss", Unit: "s", Lo: 0, Hi: 120, Typical: [2]float64{0, 10}, scale: 1,
		Doc:   "time for peers of a dead TaskManager to fail their tasks",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Detection.ConnectionLoss })},
	{Name: "heartbeat_timeout", Path: "job.detection.heartbeat_timeout", Unit: "s", Lo: 1, Hi: 300, Typical: [2]float64{5, 60}, scale: 1,
		Doc:   "heartbeat.timeout, the detection path of a TaskManager without peers",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Detection.HeartbeatTimeout })},
	{Name: "cpu_overhead", Path: "job.checkpoint.cpu_overhead", Lo: 0, Hi: 0.3, Typical: [2]float64{0, 0.15}, LatencyStage: true, scale: 1,
		Doc:   "fraction of CPU the asynchronous checkpoint phase takes",
		field: func(c *flink.JobConfig) *float64 { return &c.Checkpoint.CPUOverhead }},
	{Name: "alignment", Path: "job.checkpoint.alignment", Unit: "s", Lo: 0, Hi: 30, Typical: [2]float64{0, 5}, LatencyStage: true, scale: 1,
		Doc:   "barrier alignment stall without backpressure",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Checkpoint.Alignment })},
	// A recovery parameter although a checkpoint cost: it stalls only
	// backpressured checkpoints, i.e. those during a catch-up, so steady
	// latency cannot see it.
	{Name: "inflight_drain", Path: "job.checkpoint.inflight_drain", Unit: "s", Lo: 0, Hi: 60, Typical: [2]float64{0, 30}, scale: 1,
		Doc:   "extra alignment stall under backpressure (in-flight buffers drain first): checkpoints during a catch-up",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Checkpoint.InflightDrain })},
	{Name: "inflight_block", Path: "job.checkpoint.inflight_block", Lo: 0, Hi: 1, Typical: [2]float64{0.3, 1}, scale: 1,
		Doc:   "share of processing blocked while in-flight buffers drain (1, a full stall; about (n−1)/n for n input channels)",
		field: func(c *flink.JobConfig) *float64 { return &c.Checkpoint.InflightBlock }},
	{Name: "sync_base", Path: "job.checkpoint.sync_base", Unit: "s", Lo: 0, Hi: 30, Typical: [2]float64{0, 5}, LatencyStage: true, scale: 1,
		Doc:   "fixed part of the synchronous snapshot (task threads blocked)",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Checkpoint.SyncBase })},
	{Name: "async_base", Path: "job.checkpoint.async_base", Unit: "s", Lo: 0, Hi: 120, Typical: [2]float64{0, 60}, LatencyStage: true, scale: 1,
		Doc:   "fixed part of the asynchronous checkpoint phase",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Checkpoint.AsyncBase })},
	{Name: "upload_bandwidth", Path: "job.checkpoint.upload_bandwidth", Unit: "MiB/s", Lo: 0.1, Hi: 10000, Typical: [2]float64{10, 2000}, LatencyStage: true, scale: 1.0 / mib,
		Doc:   "checkpoint upload rate",
		field: bandwidthField(func(c *flink.JobConfig) *sim.Bandwidth { return &c.Checkpoint.UploadBandwidth })},
	{Name: "latency_base", Path: "job.latency.base", Unit: "ms", Lo: 0, Hi: 10000, Typical: [2]float64{1, 500}, scale: 1000, Latency: true, LatencyStage: true,
		Doc:   "fixed processing and network time through the pipeline",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Latency.Base })},
	{Name: "queueing", Path: "job.latency.queueing", Unit: "ms", Lo: 0, Hi: 10000, Typical: [2]float64{0, 500}, scale: 1000, Latency: true, LatencyStage: true,
		Doc:   "mean wait in task input queues at 50 % utilisation",
		field: durationField(func(c *flink.JobConfig) *sim.Duration { return &c.Latency.Queueing })},
	{Name: "buffer_timeout", Path: "job.latency.buffer_timeout", Unit: "ms", Lo: 0, Hi: 10000, Typical: [2]float64{0, 200}, scale: 1000, Latency: true, LatencyStage: true,
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
// A value within 1e-9 of the search range from a bound is the bound: an
// optimiser's 4.8e-19 ms is 0ms.
func (p Param) Text(v float64) string {
	for _, b := range []float64{p.Lo, p.Hi} {
		if math.Abs(v-b) < 1e-9*(p.Hi-p.Lo) {
			v = b
		}
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64) + p.Unit
}

// boundShare is how close to a bound a fitted value counts as at the
// bound, as a share of the search range or of the typical range, whichever
// is narrower: the logistic transform only approaches a bound, and a wide
// search range (0–10 s of latency) must not flag 17 ms as "at 0".
const boundShare = 0.01

// Flags say what is doubtful about a fitted value v: at (near) a search
// bound, where the data wanted to go further than physics allows, or
// outside the typical range of Flink deployments and the papers.
func (p Param) Flags(v float64) []string {
	var out []string
	tol := boundShare * math.Min(p.Hi-p.Lo, p.Typical[1]-p.Typical[0])
	switch {
	case v-p.Lo <= tol:
		out = append(out, "at its lower bound "+p.Text(p.Lo))
	case p.Hi-v <= tol:
		out = append(out, "at its upper bound "+p.Text(p.Hi))
	}
	if v < p.Typical[0] || v > p.Typical[1] {
		out = append(out, fmt.Sprintf("outside the typical range %s–%s", p.Text(p.Typical[0]), p.Text(p.Typical[1])))
	}
	return out
}

// priorWeight is the weight in the loss of a value's distance outside its
// typical range, in typical-range widths, squared: a soft wall that costs
// nothing inside the range and, a whole width beyond it, as much as 10
// points of MAPE. It keeps a parameter the data hardly constrain (as
// cpu_overhead is by latency) from drifting to an unphysical value, while
// one the data need outside the range can still go there (and is flagged).
const priorWeight = 0.1

// priorPenalty is the prior's part of the loss for values of ps.
func priorPenalty(ps []Param, values []float64) float64 {
	pen := 0.0
	for i, p := range ps {
		width := p.Typical[1] - p.Typical[0]
		out := math.Max(0, math.Max(p.Typical[0]-values[i], values[i]-p.Typical[1])) / width
		pen += priorWeight * out * out
	}
	return pen
}
