package flink

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/streamtwin/streamtwin/models/kafka"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/sim"
)

// Arrivals is the input side: how fast records are appended to the topic.
type Arrivals interface {
	RateAt(t float64) float64      // records/s in force at t
	Arrived(t float64) float64     // records appended by t
	ArrivalTime(c float64) float64 // when the c-th record was appended
}

// Recorder receives the model's outputs in time order.
type Recorder interface {
	Sample(results.Sample)
	Event(results.Event)
}

// Job states, as written to the job_state column.
const (
	StateRunning    = "RUNNING"    // sources consuming
	StateFailing    = "FAILING"    // a TaskManager died; not yet detected
	StateRestarting = "RESTARTING" // restart-strategy delay, then waiting for slots
	StateRestoring  = "RESTORING"  // deploying tasks and downloading state
	StateStopping   = "STOPPING"   // stop-with-savepoint in progress, sources stopped
	StateStopped    = "STOPPED"    // savepoint taken; resubmitting
	StateFailed     = "FAILED"     // restart strategy exhausted: terminal
)

// Options are run-level settings of a job model.
type Options struct {
	MetricInterval float64 // s between samples (default 1)
	Duration       float64 // s; the job stops sampling here
}

// withDefaults returns o with a zero (or negative) MetricInterval at its
// default, 1 s.
func (o Options) withDefaults() Options {
	o.MetricInterval = cmp.Or(max(o.MetricInterval, 0), 1)
	return o
}

type checkpoint struct {
	id        int64
	savepoint bool
	trigger   float64
	offset    float64 // source position when the barrier was injected
	lagState  float64 // bytes of it the consumer lag held (JobConfig.LagState)
	size      float64
	duration  float64
	done      *sim.Timer
	asyncOn   bool
}

type taskManager struct {
	alive   bool
	restart *sim.Timer
	// hosts is the graph TaskManager (Graph.TaskManagerOfSlot) whose slots
	// this process offers the job, or -1 for a spare: a restart deploys on
	// whichever TaskManagers have free slots, as Flink's slot pool does.
	hosts int
	// jitting: this JVM has run the job's tasks, first at jitSince, and its
	// JIT compiles their code from then on (cluster.jit_cpu; a fresh JVM
	// has not). jitDt is ∫ dt of the JIT's share of its cores over the
	// metric interval.
	jitSince float64
	jitting  bool
	jitDt    float64
	// holdsJob: the job holds slots on it and it keeps the job's class
	// loader, since the job last ran there; a restart onto it is in place
	// (cluster.in_place_share). Flink's TaskExecutor closes the job
	// (JobTable.Job.close releases the class-loader lease) once it has no
	// slot of the job left: when the JobManager declares it lost or stops
	// using it. Its JVM, JIT and all, may stay (jitting).
	holdsJob bool
	// share is the CPU share a cpu_throttle fault leaves it while
	// throttled > 0 (the faults in force)
	share     float64
	throttled int
}

type pendingRecovery struct {
	start  float64
	preLag float64
	reason string
}

// CheckpointInfo describes the last completed checkpoint.
type CheckpointInfo struct {
	ID          int64
	TriggeredAt float64
	CompletedAt float64
	Duration    float64
	Size        float64
}

// Status is what a controller may see of the job.
type Status struct {
	State              string
	RunningSince       float64 // s; start of the current RUNNING period
	Parallelism        int
	Vertices           map[string]int // per operator name after a per-vertex reconfiguration; nil: all at Parallelism
	CheckpointInterval float64        // s
	NextCheckpointDue  float64        // s; NaN when no checkpoint is scheduled
	LastCheckpoint     *CheckpointInfo
	Restarts           int
	Faults             int
	TaskManagers       int
}

// Job is the fluid model of one Flink job on its session cluster, reading
// one Kafka topic.
type Job struct {
	env   *sim.Env
	cfg   JobConfig
	opt   Options
	topic *kafka.Topic
	in    Arrivals
	rec   Recorder
	rng   *rand.Rand // restart jitter
	ckRng *rand.Rand // checkpoint initial delays
	// hbPhases (s, in [0, heartbeat_interval)) are when the two heartbeat
	// loops that watch a TaskManager send their requests, at phase +
	// k·interval: the JobMaster's and the ResourceManager's
	hbPhases  [2]float64
	deployRng *rand.Rand // each deployment's duration (cluster.deploy_cv)
	tmRng     *rand.Rand // each killed TaskManager's restart (cluster.restart_delay_cv)
	cpuRng    *rand.Rand // the CPU readings' noise (cluster.cpu_noise)
	catchRng  *rand.Rand // each restore's catch-up time (cluster.catchup_cv)
	cpu       cpuMemo    // the last sample's CPU readings
	extras    extrasMemo // the last segment's latency extras
	lat       latencyMemo
	// catchup multiplies the capacity from a restore until the backlog is
	// back (cluster.catchup_cv); 1 otherwise
	catchup float64

	graph *Graph
	par   int
	ci    float64
	state string
	epoch int // bumps on every failure/stop, so stale timers do nothing
	tms   []taskManager

	// fluid state
	t0      float64
	lambda  float64
	scaleUp *scaleUp // a rescale from a checkpoint waiting to restart
	// afterCheckpoint runs once after the next completed checkpoint (a
	// rescale's restart, rescale.on_checkpoint)
	afterCheckpoint func()
	// deployTime is the next deployment's time when a rescale sets it
	// (rescale.up_deploy, down_deploy); −1: cluster.deploy
	deployTime float64
	stallEnd   float64 // processing stops until then (alignment, sync snapshot)
	slowEnd    float64 // after stallEnd, runs at 1 − InflightBlock until then
	warm       float64 // fraction of capacity reached since the last restore (1: warm)
	scaledUp   bool    // the restart under way is a scale-up's (rescale.up_warmup)
	asyncOn    int
	processed  float64
	replayed   float64 // records read again after restores (rewinds to a checkpoint)
	restoreAt  float64 // source offset a restart resumes from
	restoreLag float64 // bytes of the restored checkpoint's state held by the lag

	// checkpoints
	nextID       int64
	nextTrigger  *sim.Timer
	triggerDue   bool // a trigger was held back by max-concurrent/min-pause
	inflight     []*checkpoint
	lastComplete float64
	lastCkpt     *CheckpointInfo
	lastTrigger  float64
	onTrigger    []func()
	// processed-record counts at checkpoint triggers: the delta an
	// incremental checkpoint uploads is what was processed since the last
	// completed one was triggered.
	processedAtTrigger  map[int64]float64
	processedAtLastCkpt float64
	savepointReason     string
	onSavepoint         func(*checkpoint)

	// faults beyond a crash (faults.go): the stall of a frozen TaskManager
	// hosting tasks and of a stopped broker end at freezeUntil and
	// brokerUntil; checkpoint storage refuses writes until storageUntil;
	// ckFailures counts the checkpoints failed in a row
	freezeUntil, brokerUntil, storageUntil float64
	brokerStart                            float64 // kafka.broker_start
	ckFailures                             int
	throttles                              int // cpu_throttle faults in force

	// recovery
	pending      []pendingRecovery
	downSince    float64
	resumeKind   string
	resumeReason string
	waitSlots    bool
	runningSince float64
	restarts     int
	faults       int
	failureTimes []float64
	backoffN     int
	queued       *reconfig
	stopStart    float64

	// interval accumulators
	sStart, sArrived, sConsumed, sOutput, sBackpressure float64
	// ∫ dt over the interval of the source rate the tasks are busy with (x,
	// or the capacity while a backpressured checkpoint stalls the sources)
	// and of the checkpoint overhead
	sBusyXdt, sOverheadDt float64
	// ∫ dt of the source rate weighted by its CPU per record: x at
	// capacity, cluster.part_load_cpu·x while the job keeps up
	sCPUXdt          float64
	partLoadCPU      float64 // cluster.part_load_cpu, 1 when unset
	lastX, lastBusyX float64 // the last closed interval's mean x and busy rate, for Detail
	// lastCPU is the last closed interval's CPU utilisation per TaskManager
	// (index; NaN for a dead one): the Sample's CPU columns and Detail's
	lastCPU []float64
	// live TaskManagers, counted again when tmDirty
	tmAlive int
	tmDirty bool
	segs    []latencySegment
	parts   []uniformPart // mixtureQuantile's buffer
}

type reconfig struct {
	ci       float64
	par      int
	vertices map[string]int
	reason   string
}

// NewJob builds the model at time 0 with the job RUNNING on a fresh cluster.
func NewJob(env *sim.Env, cfg JobConfig, topicCfg kafka.Config, in Arrivals, seeds sim.Seeds, rec Recorder, opt Options) (*Job, error) {
	opt = opt.withDefaults()
	j := &Job{env: env, cfg: cfg, opt: opt, topic: kafka.New(topicCfg), in: in, rec: rec,
		rng: seeds.Stream("flink.restart-jitter"), par: cfg.Parallelism, ci: float64(cfg.Checkpoint.Interval),
		state: StateRunning, warm: 1, deployTime: -1, processedAtTrigger: map[int64]float64{},
		brokerStart: float64(topicCfg.BrokerStart)}
	g, err := BuildGraph(cfg, j.par, j.topic.SourceShares)
	if err != nil {
		return nil, err
	}
	j.graph = g
	if j.partLoadCPU = cfg.Cluster.PartLoadCPU; j.partLoadCPU == 0 {
		j.partLoadCPU = 1
	}
	j.setTaskManagers(g.TaskManagers)
	for i := range j.tms {
		j.tms[i].alive = true
	}
	j.place()
	j.startJIT(0)
	// Separate streams, so restart jitter and checkpoint start delays never
	// shift each other's numbers.
	j.ckRng = seeds.Stream("flink.checkpoint-initial-delay")
	j.hbPhases = [2]float64{
		seeds.Stream("flink.heartbeat-phase").Float64() * float64(cfg.Detection.HeartbeatInterval),
		seeds.Stream("flink.rm-heartbeat-phase").Float64() * float64(cfg.Detection.HeartbeatInterval),
	}
	j.cpuRng = seeds.Stream("flink.cpu-noise")
	j.deployRng = seeds.Stream("flink.deploy-time")
	j.tmRng = seeds.Stream("flink.taskmanager-start")
	j.catchRng = seeds.Stream("flink.catchup")
	j.catchup = 1
	return j, nil
}

// Start schedules the rate ticks, metric samples and the first checkpoint.
func (j *Job) Start() {
	j.lambda = j.in.RateAt(0)
	// One clock ticks every simulated second: it applies the new rate and
	// closes a metric interval when one is due. It batches its ticks between
	// other events: every simgo event costs a heap entry and a finalizer.
	every := max(1, int(math.Round(j.opt.MetricInterval)))
	var k int
	j.env.Clock(1, 1, func() {
		k++
		j.tick()
		if k%every == 0 {
			j.sample()
		}
	})
	j.runningSince = 0
	j.scheduleFirstCheckpoint()
	j.releaseIdle() // checkpoint mode: the cluster starts on the TaskManagers the job needs
}

// OnCheckpointTrigger registers fn to run after every checkpoint trigger
// (after the next one has been scheduled); aligned fault injection uses it.
func (j *Job) OnCheckpointTrigger(fn func()) { j.onTrigger = append(j.onTrigger, fn) }

// NextCheckpointDue is the time of the next scheduled trigger.
func (j *Job) NextCheckpointDue() (float64, bool) {
	if j.nextTrigger.Active() {
		return j.nextTrigger.At(), true
	}
	return math.NaN(), false
}

// TaskManagerOf returns the TaskManager hosting subtask 0 of the named
// operator (Khaos kills the first TaskManager of the sink vertex).
func (j *Job) TaskManagerOf(op string) (int, error) {
	if j.graph.Operator(op) < 0 {
		return 0, fmt.Errorf("no operator named %q", op)
	}
	return j.hostOf(j.graph.TaskManagerOfSlot(0, j.cfg.Cluster.Slots)), nil
}

// hostOf is the TaskManager process that offers graph TaskManager g's slots
// (g itself before the first placement).
func (j *Job) hostOf(g int) int {
	for tm := range j.tms {
		if j.tms[tm].hosts == g {
			return tm
		}
	}
	return g
}

// place gives each of the graph's hosting TaskManagers a live process:
// the one it had if alive, else the first live spare. It reports whether
// every one found a process (else the job waits for slots).
func (j *Job) place() bool {
	j.tmDirty = true
	taken := make([]bool, len(j.tms))
	need := make([]bool, j.graph.Hosting)
	for tm := range j.tms {
		h := j.tms[tm].hosts
		if h >= 0 && h < len(need) && j.tms[tm].alive && !need[h] {
			need[h], taken[tm] = true, true
		} else {
			j.tms[tm].hosts, j.tms[tm].holdsJob = -1, false
		}
	}
	for g, placed := range need {
		for tm := 0; !placed && tm < len(j.tms); tm++ {
			if j.tms[tm].alive && !taken[tm] {
				j.tms[tm].hosts, taken[tm], placed = g, true, true
			}
		}
		if !placed {
			return false
		}
	}
	return true
}

// TaskManagers is the number of TaskManager processes of the cluster.
func (j *Job) TaskManagers() int { return len(j.tms) }

// Replayed is how many records the sources have read twice: at every
// restore, those read since the restored checkpoint.
func (j *Job) Replayed() float64 { return j.replayed }

// Status is the job as a controller sees it now.
func (j *Job) Status() Status {
	due, _ := j.NextCheckpointDue()
	alive := 0
	for _, tm := range j.tms {
		if tm.alive {
			alive++
		}
	}
	return Status{State: j.state, RunningSince: j.runningSince, Parallelism: j.par, Vertices: j.graph.Vertices(), CheckpointInterval: j.ci,
		NextCheckpointDue: due, LastCheckpoint: j.lastCkpt, Restarts: j.restarts, Faults: j.faults, TaskManagers: alive}
}

// Detail is the per-TaskManager and per-operator metrics of the last closed
// metric interval (the one of the latest Sample), on the same model as the
// Sample's CPU columns.
func (j *Job) Detail() measure.Detail {
	var d measure.Detail
	for tm := range j.tms {
		if !j.tms[tm].alive {
			continue
		}
		ts := measure.TaskManagerSample{Index: tm}
		if tm < len(j.lastCPU) && !math.IsNaN(j.lastCPU[tm]) {
			ts.CPUBusy = j.lastCPU[tm]
		}
		if g := j.tms[tm].hosts; g >= 0 && j.graph != nil {
			ts.SourceThroughput = j.lastX * j.graph.SourceShare(g)
		}
		d.TaskManagers = append(d.TaskManagers, ts)
	}
	if j.graph != nil {
		d.Operators = j.graph.OperatorDetail(j.lastX, j.lastBusyX)
		d.Operators[0].Partitions = len(j.topic.Shares)
	}
	return d
}

// refreshTaskManagers counts the live TaskManagers (the Workers column).
func (j *Job) refreshTaskManagers() {
	j.tmAlive = 0
	for tm := range j.tms {
		if j.tms[tm].alive {
			j.tmAlive++
		}
	}
	j.tmDirty = false
}

func (j *Job) setTaskManagers(n int) {
	j.tmDirty = true
	for len(j.tms) < n {
		j.tms = append(j.tms, taskManager{hosts: -1})
	}
	for len(j.tms) > n {
		j.tms[len(j.tms)-1].restart.Cancel()
		j.tms = j.tms[:len(j.tms)-1]
	}
}

// startJIT starts the JIT of the fresh JVMs that host tasks as they run
// from now on; every TaskManager that hosts them holds the job.
func (j *Job) startJIT(now float64) {
	for i := range j.tms {
		tm := &j.tms[i]
		if !tm.alive || tm.hosts < 0 {
			continue
		}
		tm.holdsJob = true
		if !tm.jitting {
			tm.jitting, tm.jitSince = true, now
		}
	}
}

// ---- fluid integration ----

func (j *Job) consuming() bool { return j.state == StateRunning }

// capacity is the source rate the job can sustain right now.
func (j *Job) capacity() float64 {
	now := j.env.Now()
	if !j.consuming() || now < j.stallEnd || now < j.haltEnd() {
		return 0
	}
	return j.speed() * j.drainShare(now)
}

// speed is the rate the tasks can process at now: the capacity at their
// CPU share, through the warm-up ramp and a restore's catch-up speed.
func (j *Job) speed() float64 { return j.graph.Capacity(j.cpuShare()) * j.warm * j.catchup }

// drainShare is the share of capacity left at t while in-flight buffers
// drain ahead of a backpressured checkpoint's barriers.
func (j *Job) drainShare(t float64) float64 {
	if t < j.slowEnd {
		return 1 - j.cfg.Checkpoint.InflightBlock
	}
	return 1
}

// advance integrates the fluid state from t0 to now under the rates in
// force, splitting where the backlog drains or a recovery completes.
func (j *Job) advance() {
	now := j.env.Now()
	if a := j.cfg.Cluster.JITCPU; a > 0 && now > j.t0 {
		// a TaskManager's JIT compiles from its JVM's first deployment on,
		// whether the job runs or not (every change of state advances first)
		tau := float64(j.cfg.Cluster.JITTime)
		for i := range j.tms {
			if tm := &j.tms[i]; tm.alive && tm.jitting {
				tm.jitDt += a * tau * (math.Exp(-(j.t0-tm.jitSince)/tau) - math.Exp(-(now-tm.jitSince)/tau))
			}
		}
	}
	for j.t0 < now {
		t0 := j.t0
		arrived := j.in.Arrived(t0)
		lag := arrived - j.topic.Consumed
		if lag < lagEpsilon(arrived) {
			lag = 0
		}
		mu, stallBusy := 0.0, 0.0
		x, end := 0.0, now
		if j.consuming() {
			if h := j.haltEnd(); t0 < h {
				// a frozen TaskManager or a stopped broker: nothing moves,
				// and nothing is busy
				end = math.Min(now, h)
			} else if t0 < j.stallEnd {
				end = math.Min(now, j.stallEnd)
				if lag > 0 {
					// backpressured: the sources wait, but the tasks stay
					// busy with the in-flight records ahead of the barriers
					stallBusy = j.speed()
				}
			} else {
				mu = j.speed() * j.drainShare(t0)
				if t0 < j.slowEnd {
					end = math.Min(now, j.slowEnd)
					if lag > 0 { // the blocked share drains in-flight records
						stallBusy = j.speed() * j.cfg.Checkpoint.InflightBlock
					}
				}
			}
		}
		switch {
		case mu == 0:
		case lag > 0 && mu > j.lambda:
			x = mu
			end = math.Min(end, t0+lag/(mu-j.lambda))
			if len(j.pending) > 0 {
				if target := j.pending[0].preLag; lag > target {
					end = math.Min(end, t0+(lag-target)/(mu-j.lambda))
				}
			}
		case lag > 0 || j.lambda > mu:
			x = mu
		default:
			x = j.lambda
		}
		if end <= t0 {
			// the drain point is within float resolution: the backlog is gone
			j.topic.Consumed = arrived
			end = math.Min(now, math.Nextafter(t0, math.Inf(1)))
			if x == mu && lag > 0 {
				x = j.lambda
			}
		}
		j.segment(t0, end, x, mu, lag > 0 || j.lambda > mu && x == mu)
		j.sBusyXdt += stallBusy * (end - t0)
		j.sCPUXdt += stallBusy * (end - t0)
		j.t0 = end
		if j.consuming() && (len(j.pending) > 0 || j.catchup != 1) {
			arrivedEnd := j.in.Arrived(end)
			backlog := arrivedEnd - j.topic.Consumed - lagEpsilon(arrivedEnd)
			if len(j.pending) > 0 && backlog <= j.pending[0].preLag {
				j.recovered(end)
				j.catchup = 1
			} else if len(j.pending) == 0 && backlog <= 0 {
				j.catchup = 1 // a reconfiguration's backlog is gone
			}
		}
	}
}

// lagEpsilon is the lag below which the backlog counts as drained: a
// billionth of the offsets, so float rounding at a day of 1 M records/s
// (offsets near 10¹¹) cannot leave a phantom backlog.
func lagEpsilon(offset float64) float64 { return math.Max(1e-6, 1e-10*offset) }

// segment books [a, b) at source throughput x against capacity mu.
func (j *Job) segment(a, b, x, mu float64, throttled bool) {
	dt := b - a
	if dt <= 0 {
		return
	}
	c0 := j.topic.Consumed
	j.topic.Consumed += x * dt
	j.processed += x * dt
	j.sConsumed += x * dt
	j.sOutput += x * dt * j.graph.OutputGain()
	if throttled && x > 0 {
		j.sBackpressure += dt
	}
	// Busy time is linear in x (x never exceeds the capacity, so no
	// TaskManager passes 100 %): integrate x and the checkpoint overhead once
	// and split them over TaskManagers when the interval closes.
	j.sBusyXdt += x * dt
	if throttled {
		j.sCPUXdt += x * dt
	} else {
		j.sCPUXdt += j.partLoadCPU * x * dt
	}
	if j.asyncOn > 0 && x > 0 {
		j.sOverheadDt += j.cfg.Checkpoint.CPUOverhead * dt
	}
	if x <= 0 {
		return
	}
	s := j.latencyExtras(x, mu)
	s.w = x * dt
	if lagged := j.in.Arrived(a)-c0 > lagEpsilon(c0) || j.in.Arrived(b)-j.topic.Consumed > lagEpsilon(c0); lagged {
		s.lo = math.Max(0, a-j.in.ArrivalTime(c0))
		s.hi = math.Max(0, b-j.in.ArrivalTime(j.topic.Consumed))
	}
	j.segs = append(j.segs, s)
}

// tick applies the new second's input rate.
func (j *Job) tick() {
	j.advance()
	j.lambda = j.in.RateAt(j.env.Now())
}

// sample closes the metric interval ending now.
func (j *Job) sample() {
	j.advance()
	now := j.env.Now()
	if now > j.opt.Duration+1e-9 {
		return
	}
	dt := now - j.sStart
	arrived := j.in.Arrived(now)
	s := results.Sample{
		TimeS:               now,
		InputRate:           (arrived - j.sArrived) / dt,
		Throughput:          j.sConsumed / dt,
		OutputRate:          j.sOutput / dt,
		Capacity:            j.capacity(),
		Lag:                 math.Max(0, arrived-j.topic.Consumed),
		EndOffset:           arrived,
		CommittedOffset:     j.topic.Committed,
		CheckpointIntervalS: j.ci,
		Parallelism:         int32(j.par),
		Backpressure:        j.sBackpressure / dt,
		JobState:            j.state,
		Recovering:          len(j.pending) > 0,
	}
	s.LatencyMeanMs, s.LatencyP50Ms, s.LatencyP99Ms, s.LatencyMarkerP99Ms = j.latency()
	tmsChanged := j.tmDirty
	if tmsChanged {
		j.refreshTaskManagers()
	}
	s.Workers = int32(j.tmAlive)
	s.CPUBusyMean, s.CPUBusyMax = j.cpuAcross(dt, tmsChanged)
	j.lastX, j.lastBusyX = j.sConsumed/dt, j.sBusyXdt/dt
	j.sBusyXdt, j.sCPUXdt, j.sOverheadDt = 0, 0, 0
	if j.cfg.Cluster.JITCPU > 0 { // only then does advance add to it
		for i := range j.tms {
			j.tms[i].jitDt = 0
		}
	}
	j.rec.Sample(s)
	j.sStart, j.sArrived, j.sConsumed, j.sOutput, j.sBackpressure = now, arrived, 0, 0, 0
	j.segs = j.segs[:0]
}

type uniformPart struct{ w, a, b float64 }

func (j *Job) event(e results.Event) {
	e.TimeS = j.env.Now()
	j.rec.Event(e)
}

func f64(v float64) *float64 { return &v }
func i32(v int) *int32       { x := int32(v); return &x }
func i64(v int64) *int64     { return &v }
