package flink

import (
	"cmp"
	"math"
	"slices"

	"github.com/streamtwin/streamtwin/results/measure"
)

// task is one subtask of a chain: the unit that owns a thread.
type task struct {
	chain int
	slot  int
	// cost is the CPU seconds this thread spends per record read by the
	// sources (all chained operators, weighted by their gain and share).
	cost float64
}

// Graph is the job graph resolved for one parallelism: chains, the slot of
// every subtask, and per-record costs. Every derived rate is linear in the
// source throughput X, so the graph is computed once per (re)deployment.
type Graph struct {
	Parallelism  int
	TaskManagers int
	// Hosting is how many of the TaskManagers offer the job's slots (slots
	// fill TaskManagers in order); the others are spares a restart can use.
	Hosting int
	opIndex map[string]int
	ops     []Operator
	par     []int // parallelism per operator
	// vertices is every operator's parallelism by name after a per-vertex
	// reconfiguration (nil: one parallelism for the job)
	vertices map[string]int
	gain     []float64   // input records of the operator per source record
	share    [][]float64 // share of the operator's input per subtask
	chainOf  []int       // chain index per operator
	chains   [][]int     // operator indices per chain, head first
	tasks    []task
	tmCost   []float64 // Σ task cost per TaskManager
	tmCores  []float64 // the cores a TaskManager's tasks can use (cluster.cores − reserved_cores)
	cores    float64   // Σ tmCores
	// reservedFactor is cluster.cores over tmCores: the CPU a TaskManager
	// spends per CPU second of its tasks, its reserved cores included
	reservedFactor float64
	outGain        float64 // sink output records per source record
	capacity       float64 // max source records/s at full CPU
	hops           []hop   // network edges, for buffer-timeout latency
	distributed    bool    // some network edge crosses TaskManagers
	// For Detail: each task's TaskManager, and each TaskManager's share of
	// the source throughput.
	taskTM         []int
	sourceShare    []float64
	maxParallelism int
}

type hop struct {
	gain       float64 // records per source record on this edge
	channels   float64 // parallel channels sharing them
	allToAll   bool
	upstreamOp int
}

// withDefaults returns c with what zero means filled in: cluster.cores 0 is
// one core per slot (in a scenario file too), and a zero CostScale, which
// only a JobConfig built in Go without DefaultJob has, is 1.
func (c JobConfig) withDefaults() JobConfig {
	c.Cluster.Cores = cmp.Or(c.Cluster.Cores, float64(c.Cluster.Slots))
	c.CostScale = cmp.Or(c.CostScale, 1)
	return c
}

// BuildGraph resolves cfg at parallelism p. sourceShares is each source
// subtask's share of the topic (from kafka.Topic.SourceShares).
func BuildGraph(cfg JobConfig, p int, sourceShares func(int) []float64) (*Graph, error) {
	cfg = cfg.withDefaults()
	n := len(cfg.Operators)
	g := &Graph{Parallelism: p, opIndex: map[string]int{}, ops: cfg.Operators,
		par: make([]int, n), gain: make([]float64, n), share: make([][]float64, n), chainOf: make([]int, n)}
	inputs, consumers := g.wire(cfg, p)
	g.routeRecords(cfg, inputs, sourceShares)
	g.chainOperators(cfg, inputs, consumers)
	g.placeTasks(cfg, p)
	g.detailRates(cfg.Cluster.Slots)
	g.maxParallelism = cfg.MaxParallelism
	// A network edge crosses TaskManagers when its channels connect subtasks
	// in different slots that live on different TaskManagers.
	g.distributed = g.Hosting > 1 && len(g.hops) > 0 && g.anyAllToAll()
	return g, nil
}

// wire sets every operator's index and parallelism and returns its inputs
// (by index) and how many operators consume it.
func (g *Graph) wire(cfg JobConfig, p int) (inputs [][]int, consumers []int) {
	n := len(cfg.Operators)
	inputs = make([][]int, n)
	consumers = make([]int, n)
	for i, op := range cfg.Operators {
		g.opIndex[op.Name] = i
		g.par[i] = p
		if op.Parallelism > 0 {
			g.par[i] = op.Parallelism
		}
		switch {
		case i == 0:
		case len(op.Inputs) == 0:
			inputs[i] = []int{i - 1}
		default:
			for _, name := range op.Inputs {
				inputs[i] = append(inputs[i], g.opIndex[name])
			}
		}
		for _, in := range inputs[i] {
			consumers[in]++
		}
	}
	return inputs, consumers
}

// routeRecords sets every operator's gain (its input records per source
// record) and how its input splits over its subtasks.
func (g *Graph) routeRecords(cfg JobConfig, inputs [][]int, sourceShares func(int) []float64) {
	for i, op := range cfg.Operators {
		if i == 0 {
			g.gain[0] = 1
			g.share[0] = sourceShares(g.par[0])
			continue
		}
		for _, in := range inputs[i] {
			g.gain[i] += g.gain[in] * cfg.Operators[in].Selectivity
		}
		g.share[i] = make([]float64, g.par[i])
		switch op.Partitioning {
		case Forward:
			for _, in := range inputs[i] {
				w := 0.0
				if g.gain[i] > 0 {
					w = g.gain[in] * cfg.Operators[in].Selectivity / g.gain[i]
				}
				for j, sh := range pointwise(g.share[in], g.par[i]) {
					g.share[i][j] += w * sh
				}
			}
			if g.gain[i] == 0 {
				copy(g.share[i], g.share[inputs[i][0]])
			}
		case Rebalance:
			for j := range g.share[i] {
				g.share[i][j] = 1 / float64(g.par[i])
			}
		case Hash:
			// keys spread evenly over the key groups, and a subtask gets a
			// contiguous range of them; the hot key's group is subtask 0's
			h := op.HotKeyShare
			for j, kg := range KeyGroups(g.par[i], cfg.MaxParallelism) {
				g.share[i][j] = (1 - h) * float64(kg) / float64(cfg.MaxParallelism)
			}
			g.share[i][0] += h
		}
	}
}

// chainOperators groups the operators into chains, notes the network
// edges between the chains, and sets the sinks' output per source record.
func (g *Graph) chainOperators(cfg JobConfig, inputs [][]int, consumers []int) {
	// Chain an operator into its single forward input of equal parallelism
	// when that input feeds nobody else (Flink's chaining conditions, minus
	// slot-sharing groups and explicit chain breaks).
	for i := range cfg.Operators {
		chainable := cfg.Chaining && i > 0 && len(inputs[i]) == 1 && cfg.Operators[i].Partitioning == Forward &&
			consumers[inputs[i][0]] == 1 && g.par[inputs[i][0]] == g.par[i]
		if chainable {
			g.chainOf[i] = g.chainOf[inputs[i][0]]
			g.chains[g.chainOf[i]] = append(g.chains[g.chainOf[i]], i)
			continue
		}
		g.chainOf[i] = len(g.chains)
		g.chains = append(g.chains, []int{i})
		for _, in := range inputs[i] {
			ch := float64(g.par[i])
			allToAll := cfg.Operators[i].Partitioning != Forward
			if allToAll {
				ch *= float64(g.par[in])
			}
			g.hops = append(g.hops, hop{gain: g.gain[in] * cfg.Operators[in].Selectivity, channels: ch, allToAll: allToAll, upstreamOp: in})
		}
	}
	for i := range cfg.Operators {
		if consumers[i] == 0 {
			g.outGain += g.gain[i] * cfg.Operators[i].Selectivity
		}
	}
}

// placeTasks puts the chains' subtasks in slots on TaskManagers, with
// their per-record costs at job parallelism p, and sets the capacity: the
// source rate at which a thread or a TaskManager runs out of cores.
func (g *Graph) placeTasks(cfg JobConfig, p int) {
	maxPar := 0
	for _, q := range g.par {
		maxPar = max(maxPar, q)
	}
	slots := cfg.Cluster.Slots
	g.TaskManagers = cfg.Cluster.TaskManagers
	g.Hosting = (maxPar + slots - 1) / slots
	g.TaskManagers = max(g.TaskManagers, g.Hosting)
	// the tasks' share of a TaskManager's cores; the reserved rest grows
	// with their work (cpuUtilisation counts it)
	cores := cfg.Cluster.Cores - cfg.Cluster.ReservedCores
	g.tmCost = make([]float64, g.TaskManagers)
	g.tmCores = make([]float64, g.TaskManagers)
	for i := range g.tmCores {
		g.tmCores[i] = cores
	}
	g.cores = cores * float64(len(g.tmCores))
	scale := cfg.CostScale * cfg.Scaling.costFactor(p)
	g.capacity = math.Inf(1)
	for c, ops := range g.chains {
		head := ops[0]
		for j := 0; j < g.par[head]; j++ {
			t := task{chain: c, slot: j}
			for _, o := range ops {
				t.cost += g.gain[o] * g.share[head][j] * float64(cfg.Operators[o].Cost) * scale
			}
			g.tasks = append(g.tasks, t)
			g.tmCost[g.TaskManagerOfSlot(j, slots)] += t.cost
			if t.cost > 0 {
				g.capacity = math.Min(g.capacity, 1/t.cost) // a thread uses at most one core
			}
		}
	}
	for tm, c := range g.tmCost {
		if c > 0 {
			g.capacity = math.Min(g.capacity, g.tmCores[tm]/c)
		}
	}
}

// detailRates fills sourceShare and each task's TaskManager, for Detail.
func (g *Graph) detailRates(slots int) {
	g.taskTM = make([]int, len(g.tasks))
	g.sourceShare = make([]float64, g.TaskManagers)
	for k, t := range g.tasks {
		g.taskTM[k] = g.TaskManagerOfSlot(t.slot, slots)
	}
	for j, sh := range g.share[0] {
		g.sourceShare[g.TaskManagerOfSlot(j, slots)] += sh
	}
}

// OperatorDetail is the operators' metrics at mean source throughput x
// (records/s) while the tasks are busy with the work of source rate busyX
// (x, unless a checkpoint stalled the sources while the tasks drained
// in-flight records). A subtask's thread counts as busy while it works or waits
// for a core (Flink's busy time is what is neither idle nor
// backpressured), and it gets what its TaskManager's other threads leave,
// at most one core: busy = x·cost / min(1, cores − x·(TaskManager cost −
// cost)). Without contention that is x·cost; once the TaskManager
// saturates, every thread on it reads 1.
func (g *Graph) OperatorDetail(x, busyX float64) []measure.OperatorSample {
	busy := make([]float64, len(g.ops))
	for k, t := range g.tasks {
		tm := g.taskTM[k]
		b := 1.0
		if free := math.Min(1, g.tmCores[tm]-busyX*(g.tmCost[tm]-t.cost)); busyX*t.cost < free {
			b = busyX * t.cost / free
		}
		for _, o := range g.chains[t.chain] {
			busy[o] = math.Max(busy[o], b)
		}
	}
	out := make([]measure.OperatorSample, len(g.ops))
	for i, op := range g.ops {
		in := x * g.gain[i]
		out[i] = measure.OperatorSample{Name: op.Name, Parallelism: g.par[i], Source: i == 0, InputRate: in,
			OutputRate: in * op.Selectivity, BusyMax: busy[i], Keyed: op.Partitioning == Hash, MaxParallelism: g.maxParallelism}
	}
	return out
}

// Vertices is every operator's parallelism by name once a reconfiguration
// gave vertices their own (Job.Reconfigure); nil when none did.
func (g *Graph) Vertices() map[string]int { return g.vertices }

// OperatorNames are the operators' names in graph order.
func (g *Graph) OperatorNames() []string {
	out := make([]string, len(g.ops))
	for i, op := range g.ops {
		out[i] = op.Name
	}
	return out
}

// sameParallelism says whether g runs every operator at h's parallelism.
func (g *Graph) sameParallelism(h *Graph) bool { return slices.Equal(g.par, h.par) }

// SourceShare is the share of the source throughput that graph TaskManager
// tm's source subtasks read.
func (g *Graph) SourceShare(tm int) float64 { return g.sourceShare[tm] }

// KeyGroups is how many of maxParallelism key groups each of p subtasks
// owns: Flink's KeyGroupRangeAssignment gives subtask i the range
// [⌈i·max/p⌉, ⌊((i+1)·max − 1)/p⌋], so when p does not divide max some
// subtasks own one more group, and more of the keys.
func KeyGroups(p, maxParallelism int) []int {
	out := make([]int, p)
	for i := range out {
		start := (i*maxParallelism + p - 1) / p
		end := ((i+1)*maxParallelism - 1) / p
		out[i] = end - start + 1
	}
	return out
}

func (g *Graph) anyAllToAll() bool {
	for _, h := range g.hops {
		if h.allToAll {
			return true
		}
	}
	return false
}

// TaskManagerOfSlot maps a slot (= subtask index under slot sharing) to the
// TaskManager that offers it: slots fill TaskManagers in order.
func (g *Graph) TaskManagerOfSlot(slot, slotsPerTM int) int {
	return min(slot/slotsPerTM, g.TaskManagers-1)
}

// Capacity is the highest source rate (records/s) the bottleneck allows when
// a fraction cpu of every core is available.
func (g *Graph) Capacity(cpu float64) float64 { return g.capacity * cpu }

// Distributed tells a job some of whose network edges cross TaskManagers:
// then a dead TaskManager's peers see their channels reset, and detection
// mode auto takes the connection-loss path.
func (g *Graph) Distributed() bool { return g.distributed }

// Cores is the CPU cores of the TaskManagers the job needs.
func (g *Graph) Cores() float64 { return g.cores }

// OutputGain is sink records per source record.
func (g *Graph) OutputGain() float64 { return g.outGain }

// TaskManagerBusy returns the CPU busy fraction of TaskManager tm at source
// throughput x (records/s), before checkpoint overhead. It is linear in x.
func (g *Graph) TaskManagerBusy(tm int, x float64) float64 {
	return x * g.tmCost[tm] / g.tmCores[tm]
}

// Operator returns the index of the named operator, or -1.
func (g *Graph) Operator(name string) int {
	if i, ok := g.opIndex[name]; ok {
		return i
	}
	return -1
}

// StateSize is the total state the job checkpoints in full (bytes) when
// records arrive at the sources at rate records/s: the operators' fixed
// state plus what their retention keeps of the rate.
func (g *Graph) StateSize(rate float64) float64 {
	var s float64
	for i, op := range g.ops {
		s += float64(op.StateSize) + g.gain[i]*rate*float64(op.StateRetention)*float64(op.StatePerRecord)
	}
	return s
}

// DeltaPerRecord is the incremental-checkpoint state written per source
// record (bytes).
func (g *Graph) DeltaPerRecord() float64 {
	var s float64
	for i, op := range g.ops {
		s += g.gain[i] * float64(op.StatePerRecord)
	}
	return s
}

// BufferDelay is the time a record waits in a network buffer summed over
// the hops at source throughput x: each hop flushes a buffer when it is full
// or when the buffer timeout fires (timeout < 0: only when full).
func (g *Graph) BufferDelay(x float64, lc LatencyConfig) float64 {
	if x <= 0 {
		return 0
	}
	var d float64
	for _, h := range g.hops {
		perChannel := x * h.gain / h.channels
		if perChannel <= 0 {
			continue
		}
		fill := float64(lc.BufferSize) / (float64(lc.RecordSize) * perChannel)
		if lc.BufferTimeout >= 0 {
			fill = math.Min(fill, float64(lc.BufferTimeout))
		}
		d += fill
	}
	return d
}

// buffersPerChannel is the network buffers a channel can fill before the
// sender blocks (2 exclusive plus a share of the 8 floating per gate).
const buffersPerChannel = 4

// InflightDelay is the longest a record can wait in full network buffers at
// source throughput x: once every buffer of a hop is full, a record queues
// behind them. It bounds the utilisation-driven waiting time.
func (g *Graph) InflightDelay(x float64, lc LatencyConfig) float64 {
	if x <= 0 {
		return 0
	}
	var d float64
	perBuffer := float64(lc.BufferSize) / float64(lc.RecordSize)
	for _, h := range g.hops {
		if h.gain > 0 {
			d += h.channels * buffersPerChannel * perBuffer / (x * h.gain)
		}
	}
	return d
}

// pointwise is the shares of p downstream subtasks fed by upstream
// subtasks with shares up over a forward edge: at equal parallelism one to
// one, else Flink's POINTWISE pattern (a forward edge whose ends a
// parallelism override made unequal): with more upstream subtasks,
// downstream j reads upstream ⌊j·n/p⌋ up to ⌊(j+1)·n/p⌋; with fewer,
// upstream k spreads its records evenly over downstream ⌊k·p/n⌋ up to
// ⌊(k+1)·p/n⌋ (EdgeManagerBuildUtil.connectPointwise).
func pointwise(up []float64, p int) []float64 {
	n := len(up)
	out := make([]float64, p)
	switch {
	case n == p:
		copy(out, up)
	case n > p:
		for j := range p {
			for k := j * n / p; k < (j+1)*n/p; k++ {
				out[j] += up[k]
			}
		}
	default:
		for k, sh := range up {
			from, to := k*p/n, (k+1)*p/n
			for j := from; j < to; j++ {
				out[j] += sh / float64(to-from)
			}
		}
	}
	return out
}
