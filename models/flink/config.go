package flink

import (
	"cmp"
	"math"
	"slices"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/streamtwin/streamtwin/sim"
)

// Partitioning is how records travel from an operator's inputs to it.
type Partitioning string

const (
	Forward   Partitioning = "forward"   // subtask i to subtask i; chainable
	Rebalance Partitioning = "rebalance" // round-robin: even shares
	Hash      Partitioning = "hash"      // keyBy: shares follow the key distribution
)

// Operator is one vertex of the job graph, before chaining.
type Operator struct {
	Name string `yaml:"name"`
	// Inputs names the upstream operators; empty means the previous operator
	// in the list (the first operator is the Kafka source).
	Inputs []string `yaml:"inputs,omitempty"`
	// Parallelism overrides the job parallelism for this operator (0: job's).
	Parallelism int `yaml:"parallelism,omitempty"`
	// Cost is the CPU time one input record takes on one core, e.g. 10µs.
	Cost sim.Duration `yaml:"cost"`
	// Selectivity is output records per input record (filter < 1, flatMap > 1).
	Selectivity float64 `yaml:"selectivity"`
	// Partitioning of the edge from the inputs: forward, rebalance or hash.
	Partitioning Partitioning `yaml:"partitioning"`
	// HotKeyShare is the fraction of a hash-partitioned operator's records
	// that carry its single hottest key; that key's subtask receives
	// HotKeyShare + (1−HotKeyShare)/p of the records. 0: uniform keys.
	HotKeyShare float64 `yaml:"hot_key_share,omitempty"`
	// StateSize is the operator's keyed/window state at steady state, summed
	// over its subtasks (what a full checkpoint or savepoint uploads and a
	// restore downloads).
	StateSize sim.Bytes `yaml:"state_size,omitempty"`
	// StatePerRecord is the state written per input record, the size of an
	// incremental checkpoint's delta (bounded by StateSize).
	StatePerRecord sim.Bytes `yaml:"state_per_record,omitempty"`
	// StateRetention is how long a window operator keeps each input
	// record's StatePerRecord bytes: the window size times the windows a
	// record is in (25 s for 5 s windows sliding by 1 s, which keep one
	// copy per window). Its state then grows with the input rate, by
	// rate × StateRetention × StatePerRecord on top of StateSize, and so do
	// full checkpoints and the restore after a failure. 0: the state does
	// not depend on the rate (an aggregate per key).
	StateRetention sim.Duration `yaml:"state_retention,omitempty"`
}

// CheckpointConfig mirrors execution.checkpointing.* plus the costs of a
// checkpoint that the model needs.
type CheckpointConfig struct {
	Interval      sim.Duration `yaml:"interval"`       // execution.checkpointing.interval
	MinPause      sim.Duration `yaml:"min_pause"`      // …min-pause (Flink default 0)
	Timeout       sim.Duration `yaml:"timeout"`        // …timeout (Flink default 10 min; Khaos jobs 1 h)
	MaxConcurrent int          `yaml:"max_concurrent"` // …max-concurrent-checkpoints (Flink default 1)
	// TolerableFailures is …tolerable-failed-checkpoints (Flink default 0):
	// one more checkpoint failure in a row than this fails the job. Only
	// failures of the checkpoint itself count (storage refusing writes, a
	// timeout), not checkpoints aborted because the job failed.
	TolerableFailures int `yaml:"tolerable_failures"`
	// InitialDelay: "random" draws the first trigger after a (re)start
	// uniformly in [min_pause, interval], as Flink's CheckpointCoordinator
	// does; "interval" waits exactly one interval.
	InitialDelay string `yaml:"initial_delay"`
	Incremental  bool   `yaml:"incremental"` // RocksDB incremental checkpoints (Khaos: true)
	// Alignment is how long barriers take to align when channels are not
	// backpressured; under backpressure the in-flight buffers must drain
	// first, which adds InflightDrain. Processing stalls while aligning;
	// while the in-flight buffers drain, InflightBlock of it stops (1, a
	// full stall; an aligning subtask blocks only the input channels whose
	// barrier has arrived, so with n channels about (n−1)/n of its input).
	Alignment     sim.Duration `yaml:"alignment"`
	InflightDrain sim.Duration `yaml:"inflight_drain"`
	InflightBlock float64      `yaml:"inflight_block"`
	// SyncBase + state/SyncBandwidth is the synchronous snapshot phase, during
	// which the task threads are blocked.
	SyncBase      sim.Duration  `yaml:"sync_base"`
	SyncBandwidth sim.Bandwidth `yaml:"sync_bandwidth"`
	// AsyncBase + upload/UploadBandwidth is the asynchronous phase.
	AsyncBase       sim.Duration  `yaml:"async_base"`
	UploadBandwidth sim.Bandwidth `yaml:"upload_bandwidth"`
	// CPUOverhead is the fraction of every TaskManager's CPU the async phase
	// takes (serialisation, compaction, upload), lowering capacity while it
	// runs: the reason short intervals cost throughput and latency.
	CPUOverhead float64 `yaml:"cpu_overhead"`
}

// RestartConfig mirrors restart-strategy.* (Flink ≥ 1.19 defaults).
type RestartConfig struct {
	// Strategy: exponential-delay (default with checkpointing), fixed-delay,
	// failure-rate or none.
	Strategy string `yaml:"strategy"`
	// exponential-delay
	InitialBackoff    sim.Duration `yaml:"initial_backoff"`     // 1 s
	MaxBackoff        sim.Duration `yaml:"max_backoff"`         // 1 min
	BackoffMultiplier float64      `yaml:"backoff_multiplier"`  // 1.5
	JitterFactor      float64      `yaml:"jitter_factor"`       // 0.1
	ResetBackoffAfter sim.Duration `yaml:"reset_backoff_after"` // 1 h of stable running
	// fixed-delay / failure-rate
	Delay    sim.Duration `yaml:"delay"`    // 1 s
	Attempts int          `yaml:"attempts"` // fixed-delay attempts (Flink default 1); 0 = unlimited
	// failure-rate: at most MaxFailures within FailureRateInterval.
	MaxFailures         int          `yaml:"max_failures"`          // 1
	FailureRateInterval sim.Duration `yaml:"failure_rate_interval"` // 1 min
}

// DetectionConfig is how the JobManager learns that a TaskManager died.
type DetectionConfig struct {
	// Mode: "auto" uses ConnectionLoss when the dead TaskManager exchanged
	// data with tasks on another TaskManager (their channels fail at once)
	// and the heartbeat RPC-failure path (the threshold-th failed request,
	// at a random phase of HeartbeatInterval) when it ran alone;
	// "connection", "rpc" and "heartbeat" (HeartbeatTimeout) force one path.
	Mode                string       `yaml:"mode"`
	ConnectionLoss      sim.Duration `yaml:"connection_loss"`       // time for peers to see the RST and fail their tasks
	HeartbeatInterval   sim.Duration `yaml:"heartbeat_interval"`    // heartbeat.interval 10 s
	HeartbeatTimeout    sim.Duration `yaml:"heartbeat_timeout"`     // heartbeat.timeout 50 s
	RPCFailureThreshold int          `yaml:"rpc_failure_threshold"` // heartbeat.rpc-failure-threshold 2
}

// ClusterConfig is the session cluster.
type ClusterConfig struct {
	// TaskManagers is the number of TaskManager processes (0: just enough
	// slots for the job parallelism).
	TaskManagers int `yaml:"taskmanagers"`
	// Slots per TaskManager (taskmanager.numberOfTaskSlots, Flink default 1).
	Slots int `yaml:"slots"`
	// Cores per TaskManager (taskmanager.cpu.cores; 0: one per slot).
	Cores float64 `yaml:"cores"`
	// RestartDelay is how long a killed TaskManager takes to come back and
	// register (a pod restart: container restart, JVM start, registration).
	RestartDelay sim.Duration `yaml:"restart_delay"`
	// Deploy is the time to deploy and initialise the tasks once slots are
	// available (also on resubmit).
	Deploy sim.Duration `yaml:"deploy"`
	// InPlaceShare is the share of a deployment's time (deploy plus the
	// state restore) that a restart in place takes: one where every
	// TaskManager the tasks go to still holds the job, having run its tasks
	// with the job's slots kept there since (failed checkpoints; a
	// resubmission from a savepoint on the same TaskManagers). Live, such
	// a JVM has the job's classes loaded and compiled and its state files
	// in the page cache. A TaskManager declared lost (a freeze past the
	// heartbeat timeout) frees the job's slots and class loader, and a
	// crashed one comes back as a fresh JVM: both take the whole time.
	// 0: 1, as a fresh JVM (default).
	InPlaceShare float64 `yaml:"in_place_share,omitempty"`
	// DeployCV is the coefficient of variation of a deployment's duration
	// (deploy, or a rescale's up_deploy or down_deploy, plus the state
	// restore): each deployment takes its nominal time times a gamma
	// variate with mean 1 and standard deviation DeployCV, drawn from the
	// seed stream "flink.deploy-time". Live, the same restart takes a
	// different time each run (scheduling, class loading, RocksDB opening,
	// the disk). 0: every deployment takes its nominal time (default).
	DeployCV float64 `yaml:"deploy_cv,omitempty"`
	// RestartDelayCV is the coefficient of variation of a killed
	// TaskManager's time to come back (restart_delay): each restart takes
	// restart_delay times a gamma variate of mean 1 and this standard
	// deviation, from the seed stream "flink.taskmanager-start" (a pod's
	// scheduling, image and JVM start vary). 0: always restart_delay
	// (default).
	RestartDelayCV float64 `yaml:"restart_delay_cv,omitempty"`
	// CatchupCV is the coefficient of variation of a restored job's
	// catch-up: each restore (after a failure or a reconfiguration) takes a
	// gamma variate of mean 1 and this standard deviation, from the seed
	// stream "flink.catchup", times its nominal time to bring the backlog
	// back to its pre-fault level (the headroom of capacity over the input
	// rate at the restore is divided by it until then). Live, the same
	// catch-up runs faster or slower from one restart to the next (cold
	// caches, GC, what else runs on the hosts), so the recoveries of one
	// load scatter the more the longer the catch-up. 0: every catch-up at
	// the job's capacity (default).
	CatchupCV float64 `yaml:"catchup_cv,omitempty"`
	// RestoreBase + state/RestoreBandwidth is the state download on restore.
	RestoreBase      sim.Duration  `yaml:"restore_base"`
	RestoreBandwidth sim.Bandwidth `yaml:"restore_bandwidth"`
	// Submit is the time from a resubmit request until the JobManager has run
	// the job's main() and created the job graph.
	Submit sim.Duration `yaml:"submit"`
	// Warmup is how long a restored job takes to reach full capacity: it
	// ramps linearly from WarmupStart of it (cold RocksDB block cache, the
	// JIT of a restarted TaskManager JVM, Kafka fetch sessions), so it costs
	// Warmup·(1 − WarmupStart)/2 of full-speed catch-up. 0: full capacity as
	// soon as the tasks run (default).
	Warmup sim.Duration `yaml:"warmup"`
	// HostCPUPerRecord is the CPU that processes sharing the TaskManagers'
	// hosts spend per input record: a load generator and a Kafka broker on
	// the same machine, as on a laptop or the local live cluster. At input
	// rate λ they take λ·HostCPUPerRecord of the TaskManagers' cores (the
	// job keeps at least 5 % of them). 0: dedicated hosts (default).
	HostCPUPerRecord sim.Duration `yaml:"host_cpu_per_record"`
	// WarmupStart is the share of full capacity at the start of the ramp,
	// in [0, 1) (default 0). A killed TaskManager comes back as a cold JVM
	// while the others stay warm, so a job restarts well above zero.
	WarmupStart float64 `yaml:"warmup_start"`
	// UpgradeWarmup and UpgradeWarmupStart are the ramp after a
	// reconfiguration in savepoint rescale mode (a rescale or a CI change by
	// stop-with-savepoint and resubmission), in place of
	// Warmup and WarmupStart: where an upgrade recreates every TaskManager
	// (the Kubernetes operator's savepoint upgrade brings new pods), the
	// whole job starts cold, while a failure restarts it on the JVMs that
	// ran it. A scale-up's rescale.up_warmup, when set, still comes first.
	// 0: Warmup applies (default).
	UpgradeWarmup      sim.Duration `yaml:"upgrade_warmup,omitempty"`
	UpgradeWarmupStart float64      `yaml:"upgrade_warmup_start,omitempty"`
	// ReservedCores is the cores of each TaskManager that its tasks cannot
	// use at capacity: the JVM's own work beside them (garbage collection,
	// RocksDB compaction and flushes, network and metric threads), which
	// grows with theirs and takes all of ReservedCores when they saturate.
	// Capacity is then (cores − ReservedCores)/cost per TaskManager, not
	// cores/cost: a one-core TaskManager gives far less than half of what
	// a two-core one does, as Demeter's profiles of the same job show
	// (docs/validation.md). With one configuration, cost_scale absorbs it;
	// across TaskManager sizes it is its own parameter. 0 (default): the
	// tasks get every core.
	ReservedCores float64 `yaml:"reserved_cores,omitempty"`
	// IdleCPU is the cores a TaskManager's JVM uses with no record to
	// process (GC, JIT, heartbeats, metric reporting, Kafka fetch polls): it
	// is part of the CPU utilisation the twin reports (cpu_busy_mean,
	// Detail's CPUBusy) and does not lower capacity, whose calibration
	// already includes it. Measured on the live cluster with `live run` at
	// zero input (docs/model.md, "Observed quantities"). 0 (default): no
	// idle CPU.
	IdleCPU float64 `yaml:"idle_cpu,omitempty"`
	// PartLoadCPU is the CPU a record costs while the job keeps up with its
	// input, as a share of what it costs at capacity, in (0, 1]; 0
	// (default): 1, every record costs the same. Live, a quarter-core
	// TaskManager at 9,000/s (91 % of the 9,850/s it drains past capacity)
	// uses 0.64 of its core, not 0.93: with a backlog, the sources fetch
	// and the windows hold more than they do at the input's pace, so the
	// CPU seconds per record rise (make live-capacity, docs/autoscaling.md
	// "Live capacity"). It changes the CPU utilisation only: capacity is
	// what cost_scale gives.
	PartLoadCPU float64 `yaml:"part_load_cpu,omitempty"`
	// JITCPU is the share of a TaskManager's cores that its JIT compiler
	// takes when its JVM first runs the job's tasks (a TaskManager at the
	// start, one a scale-up starts, one back from a crash), in [0, 1]; it
	// decays as e^(−t/JITTime). A JVM that has run the job's code keeps it
	// compiled across restarts and rescales. It changes the CPU utilisation
	// only (capacity's ramp is warmup and warmup_start). Fitted with make
	// live-capacity (docs/autoscaling.md, "Live capacity"). 0 (default):
	// none.
	JITCPU  float64      `yaml:"jit_cpu,omitempty"`
	JITTime sim.Duration `yaml:"jit_time,omitempty"`
	// CPUNoise scales the noise of one TaskManager's per-second CPU
	// utilisation reading around what the model gives, in [0, 1]: a
	// reading u gets a standard deviation of CPUNoise·√(u(1 − u)). A live
	// reading is a difference of /proc CPU times in 10 ms ticks of a JVM
	// whose use comes in bursts (CPU quota periods of 100 ms, garbage
	// collection, window firings): the share of a second it is busy varies
	// as a share of trials does, most at half use and not at all when it
	// is idle or uses its whole quota. A policy that regresses on
	// per-second CPU (Daedalus) reads this noise live, and decides
	// differently without it. Each reading gets an independent normal draw
	// from the root seed's "flink.cpu-noise" stream, clipped to [0, 1].
	// Fitted with make live-capacity (docs/autoscaling.md, "Live
	// capacity"). 0 (default): exact readings.
	CPUNoise float64 `yaml:"cpu_noise,omitempty"`
}

// LatencyConfig adds the parts of end-to-end latency that are not queueing
// in Kafka (which the model integrates exactly).
type LatencyConfig struct {
	// Base is the fixed processing and network time of a record through the
	// pipeline at low load.
	Base sim.Duration `yaml:"base"`
	// BufferTimeout is execution.buffer-timeout (Flink default 100 ms; −1 s
	// means flush only full buffers). A network hop holds a record until its
	// buffer is full or the timeout fires.
	BufferTimeout sim.Duration `yaml:"buffer_timeout"`
	BufferSize    sim.Bytes    `yaml:"buffer_size"` // taskmanager.memory.segment-size, 32 KiB
	RecordSize    sim.Bytes    `yaml:"record_size"` // serialised record size on the wire
	// Window is the extra event-time delay before a windowed result leaves:
	// the watermark's out-of-orderness bound plus any wait to window end that
	// the latency definition counts.
	Window sim.Duration `yaml:"window"`
	// Queueing is the mean waiting time in task input queues at 50 %
	// utilisation; it grows as ρ/(1−ρ) and has an exponential tail, which
	// separates p99 from p50.
	Queueing sim.Duration `yaml:"queueing"`
	// WatermarkInterval is pipeline.auto-watermark-interval (Flink default
	// 200 ms): a windowed result waits up to one interval for the watermark
	// that fires it. It counts only when Window or Staleness is set.
	WatermarkInterval sim.Duration `yaml:"watermark_interval"`
	// Staleness is how old a windowed result's event time is at its
	// window's end, as a distribution (the rest of the results: 0 s). An
	// event-time latency counts it: a key that stops reporting still
	// appears in the next sliding windows, each one slide staler. The
	// traffic-monitoring template carries the distribution that its
	// generator and windows give (workloads/iot ResultStaleness).
	Staleness []StalenessLevel `yaml:"staleness"`
}

// StalenessLevel is one value of LatencyConfig.Staleness: Share of the
// results are Gap old at their window's end.
type StalenessLevel struct {
	Gap   sim.Duration `yaml:"gap"`
	Share float64      `yaml:"share"`
}

// JobConfig is the whole job: graph, parallelism, checkpointing, recovery.
type JobConfig struct {
	// Template names the job template the rest overrides (ysb,
	// traffic-monitoring); the resolved scenario keeps it for reference.
	Template       string `yaml:"template,omitempty"`
	Parallelism    int    `yaml:"parallelism"`
	MaxParallelism int    `yaml:"max_parallelism"` // pipeline.max-parallelism (Flink default 128 for p ≤ 128)
	Chaining       bool   `yaml:"chaining"`        // pipeline.operator-chaining (Flink default true; Khaos jobs false)
	// CostScale multiplies every operator's cost: the one knob that moves
	// a template's costs to your hardware (calibration fits it). 1: as listed.
	CostScale float64 `yaml:"cost_scale"`
	// StatePerLag is the state (bytes) the job holds per record of consumer
	// lag, on top of its operators' state: behind, a Kafka source reads its
	// partitions unevenly, its watermark follows the slowest, and a window
	// keeps the records between it and the fastest. Full checkpoints and
	// savepoints carry it, and the restore from them reads it (at
	// cluster.restore_bandwidth). 0 (default): the state does not depend on
	// the lag. make live-warmup measures it (docs/autoscaling.md, "Live
	// warm-up").
	StatePerLag sim.Bytes `yaml:"state_per_lag,omitempty"`
	// StateLagScale bends the lag's state: with it, a lag of ℓ records
	// holds state_per_lag·L·ln(1 + ℓ/L) bytes (L = StateLagScale, records),
	// state_per_lag per record while ℓ ≪ L and ever less per record
	// beyond: the skew between the partitions a source reads, which
	// decides how far the fastest runs ahead of the watermark, grows far
	// slower than the backlog (live, a checkpoint at 800,000 records of lag
	// is not ten times one at 80,000). 0 (default): linear, state_per_lag·ℓ.
	StateLagScale float64          `yaml:"state_lag_scale,omitempty"`
	Scaling       ScalingConfig    `yaml:"scaling"`
	Rescale       RescaleConfig    `yaml:"rescale"`
	Operators     []Operator       `yaml:"operators"`
	Checkpoint    CheckpointConfig `yaml:"checkpoint"`
	Restart       RestartConfig    `yaml:"restart"`
	Detection     DetectionConfig  `yaml:"detection"`
	Cluster       ClusterConfig    `yaml:"cluster"`
	Latency       LatencyConfig    `yaml:"latency"`
}

// LagState is the state (bytes) a consumer lag of lag records holds
// (job.state_per_lag, job.state_lag_scale).
func (c JobConfig) LagState(lag float64) float64 {
	if lag <= 0 {
		return 0
	}
	if l := c.StateLagScale; l > 0 {
		return float64(c.StatePerLag) * l * math.Log1p(lag/l)
	}
	return float64(c.StatePerLag) * lag
}

// ScalingConfig makes a job scale sublinearly with its parallelism p, by
// Gunther's Universal Scalability Law: every record costs
// 1 + Contention·(p − 1) + Coherency·p·(p − 1) times its cost at p = 1
// (shuffles, serialisation, coordination), so the capacity is
// p/(that) × the one-subtask capacity. Both 0: linear (default). The YSB
// job of the Daedalus evaluation reached 40.7 k/s per TaskManager at 12
// against 62 k/s at 1 (reference/autoscaling.md §3): Contention 0.0476.
type ScalingConfig struct {
	Contention float64 `yaml:"contention"`
	Coherency  float64 `yaml:"coherency"`
}

// RescaleConfig is how a change of parallelism alone is carried out.
type RescaleConfig struct {
	// Mode "savepoint" (default): stop-with-savepoint and resubmit, as a
	// CI change is; nothing is reprocessed. "checkpoint": the adaptive
	// scheduler (reactive mode, or PUT /jobs/{id}/resource-requirements)
	// restarts the job at the new parallelism from its latest completed
	// checkpoint, so the input since then is read again.
	Mode string `yaml:"mode"`
	// In checkpoint mode: UpDelay is how long a scale-up waits from the
	// request to the restart, the job running meanwhile: the new
	// TaskManagers start and register within it, and the scheduler waits
	// for resources to settle and for a checkpoint to restart from;
	// DownDelay the same for a scale-down. UpDeploy and DownDeploy are how
	// long the restarted job takes to deploy its tasks, in place of
	// cluster.deploy; the state restore (restore_base, restore_bandwidth)
	// follows.
	UpDelay    sim.Duration `yaml:"up_delay"`
	DownDelay  sim.Duration `yaml:"down_delay"`
	UpDeploy   sim.Duration `yaml:"up_deploy"`
	DownDeploy sim.Duration `yaml:"down_deploy"`
	// Release, in checkpoint mode: how long after a rescaled job runs
	// again the TaskManagers left without a task are stopped, as the
	// live driver stops them (one poll of the job's subtasks, then the
	// process's SIGTERM and exit) and as a Deployment scaled down removes
	// pods. In checkpoint mode cluster.taskmanagers is the pool the
	// cluster may use: the job starts on the TaskManagers it needs, a
	// scale-up starts more (registered after up_delay), a scale-down
	// releases the idle ones. Savepoint mode keeps the whole pool.
	Release sim.Duration `yaml:"release"`
	// UpWarmup and UpWarmupStart: the ramp after a scale-up, in place of
	// cluster.warmup and warmup_start (which stay for every other
	// restore): the job restarts at UpWarmupStart of its capacity and
	// ramps to full over UpWarmup. A scale-up starts new TaskManagers whose
	// JVMs are cold (they load and JIT-compile the job's code on the CPU
	// they are given) and the keyed exchange paces every subtask to the
	// slowest; the job it restarts has a backlog to drain. On quarter-core
	// TaskManagers live this lasts minutes, and shows only under load
	// (make live-warmup measures it; docs/autoscaling.md, "Live
	// warm-up"). 0 (default): cluster.warmup applies.
	UpWarmup      sim.Duration `yaml:"up_warmup,omitempty"`
	UpWarmupStart float64      `yaml:"up_warmup_start,omitempty"`
	// OnCheckpoint: after its delay the restart waits for the next
	// completed checkpoint, so little is read twice (Flink ≥ 2.0's rescale
	// trigger, FLIP-461), or at most three checkpoint intervals
	// (rescale-trigger.max-delay with 2 tolerated checkpoint failures).
	// Default true; false is Flink 1.x's reactive mode.
	OnCheckpoint bool `yaml:"on_checkpoint"`
}

// Rescale modes.
const (
	RescaleSavepoint  = "savepoint"
	RescaleCheckpoint = "checkpoint"
)

// costFactor is the USL's per-record cost multiplier at parallelism p.
func (s ScalingConfig) costFactor(p int) float64 {
	q := float64(p)
	return 1 + s.Contention*(q-1) + s.Coherency*q*(q-1)
}

// DefaultOperators is a generic keyed-window job: source → map → window →
// sink, able to take about 40 000 records/s per slot.
func DefaultOperators() []Operator {
	return []Operator{
		{Name: "source", Cost: 4e-6, Selectivity: 1, Partitioning: Forward},
		{Name: "map", Cost: 2e-6, Selectivity: 1, Partitioning: Forward},
		{Name: "window", Cost: 15e-6, Selectivity: 0.01, Partitioning: Hash, StateSize: 64 << 20, StatePerRecord: 16},
		{Name: "sink", Cost: 4e-6, Selectivity: 1, Partitioning: Forward},
	}
}

// DefaultJob returns Flink's defaults (1.19+/2.x) and the Khaos job settings
// where Flink has none: parallelism 4, CI 30 s, exponential-delay restarts,
// 50 s heartbeat timeout.
func DefaultJob() JobConfig {
	return JobConfig{
		Parallelism:    4,
		MaxParallelism: 128,
		CostScale:      1,
		Chaining:       true,
		Operators:      DefaultOperators(),
		Checkpoint: CheckpointConfig{
			Interval: 30, MinPause: 0, Timeout: 600, MaxConcurrent: 1,
			InitialDelay: "random", Incremental: true,
			Alignment: 0.05, InflightDrain: 1, InflightBlock: 1,
			SyncBase: 0.02, SyncBandwidth: 1 << 30,
			AsyncBase: 0.5, UploadBandwidth: 100 << 20,
			CPUOverhead: 0.05,
		},
		Rescale: RescaleConfig{Mode: RescaleSavepoint, UpDelay: 10, DownDelay: 0, UpDeploy: 2, DownDeploy: 2, OnCheckpoint: true},
		Restart: RestartConfig{
			Strategy:       "exponential-delay",
			InitialBackoff: 1, MaxBackoff: 60, BackoffMultiplier: 1.5, JitterFactor: 0.1,
			ResetBackoffAfter: 3600,
			Delay:             1, Attempts: 1,
			MaxFailures: 1, FailureRateInterval: 60,
		},
		Detection: DetectionConfig{
			Mode: "auto", ConnectionLoss: 1,
			HeartbeatInterval: 10, HeartbeatTimeout: 50, RPCFailureThreshold: 2,
		},
		Cluster: ClusterConfig{
			Slots: 1, RestartDelay: 10, Deploy: 2,
			RestoreBase: 1, RestoreBandwidth: 200 << 20, Submit: 2,
		},
		Latency: LatencyConfig{
			Base: 0.05, BufferTimeout: 0.1, BufferSize: 32 << 10, RecordSize: 100,
			Window: 0, Queueing: 0.01, WatermarkInterval: 0.2,
		},
	}
}

// inputsOf is operator i's inputs by index: those it names that are
// listed before it, else the operator before it.
func (c JobConfig) inputsOf(i int) []int {
	if i == 0 {
		return nil
	}
	if len(c.Operators[i].Inputs) == 0 {
		return []int{i - 1}
	}
	var out []int
	for _, name := range c.Operators[i].Inputs {
		if k := slices.IndexFunc(c.Operators[:i], func(o Operator) bool { return o.Name == name }); k >= 0 {
			out = append(out, k)
		}
	}
	return out
}

// parallelismOf is operator i's parallelism: its own, or the job's.
func (c JobConfig) parallelismOf(i int) int { return cmp.Or(c.Operators[i].Parallelism, c.Parallelism) }

// UnmarshalYAML fills an operator's defaults (selectivity 1, forward
// partitioning) before decoding it strictly, since list elements start empty.
func (o *Operator) UnmarshalYAML(node ast.Node) error {
	type plain Operator
	p := plain{Selectivity: 1, Partitioning: Forward}
	if err := yaml.NodeToValue(node, &p, yaml.Strict()); err != nil {
		return err
	}
	*o = Operator(p)
	return nil
}
