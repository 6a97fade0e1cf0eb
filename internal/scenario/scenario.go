package scenario

import (
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/kafka"
	"github.com/streamtwin/streamtwin/models/monitor"
	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
)

// Scenario is one scenario file, resolved with defaults.
type Scenario struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description,omitempty"`
	// Variant is set on the resolved scenario of one variant.
	Variant string `yaml:"variant,omitempty"`
	// Seed is the root of every random stream of the run (--seed overrides).
	Seed uint64 `yaml:"seed"`
	// Duration is the simulated (or replayed) time.
	Duration sim.Duration `yaml:"duration"`
	// MetricInterval is the length of one timeseries row (default 1s).
	MetricInterval sim.Duration      `yaml:"metric_interval"`
	Workload       *workloads.Config `yaml:"workload"`
	Kafka          kafka.Config      `yaml:"kafka"`
	Job            flink.JobConfig   `yaml:"job"`
	Faults         []Fault           `yaml:"faults,omitempty"`
	Actions        []Action          `yaml:"actions,omitempty"`
	Policy         PolicySpec        `yaml:"policy"`
	QoS            QoS               `yaml:"qos"`
	// Monitoring derives host metrics from the job's load and replays
	// adaptive-monitoring samplers on them (docs/monitoring.md).
	Monitoring *monitor.Spec `yaml:"monitoring,omitempty"`
	Variants   []Variant     `yaml:"variants,omitempty"`

	// built is the workload schedule rendered during validation, reused by
	// Resolve when the seed is unchanged (--seed and sweep replications
	// change it).
	built *builtRates
	// warnings are the implausible settings found when it was decoded
	// (Warnings).
	warnings Problems
}

type builtRates struct {
	seed  uint64
	rates *workloads.Schedule
}

// The fault kinds (Fault.Kind; docs/scenarios.md, "Faults").
const (
	// FaultTaskManager crashes a TaskManager (SIGKILL); it comes back after
	// job.cluster.restart_delay. The default kind.
	FaultTaskManager = "taskmanager"
	// FaultFreeze stops a TaskManager for Duration (a long GC pause, a hung
	// host; live: SIGSTOP, then SIGCONT). Shorter than the heartbeat
	// timeout, the job stalls and catches up; longer, Flink fails over.
	FaultFreeze = "freeze"
	// FaultCPUThrottle leaves a TaskManager Share of its CPU for Duration
	// (live: the CFS quota of its cgroup).
	FaultCPUThrottle = "cpu_throttle"
	// FaultKafkaBroker stops the Kafka broker for Duration and starts it
	// again: the sources and sinks stall, then the job catches up.
	FaultKafkaBroker = "kafka_broker"
	// FaultJobManager crashes the JobManager. Without high availability
	// (the only setup modelled) the job is lost: it fails for good.
	FaultJobManager = "jobmanager"
	// FaultCheckpointStorage makes checkpoint storage refuse writes for
	// Duration (live: a read-only bind mount): checkpoints fail, and more
	// than job.checkpoint.tolerable_failures in a row fail the job.
	FaultCheckpointStorage = "checkpoint_storage"
	// FaultNetworkDelay delays every packet a TaskManager sends by Delay,
	// for Duration (Demeter's Chaos Mesh fault, on egress). Its peers and
	// the JobManager hear nothing from it for Delay, then everything late:
	// a Delay beyond the heartbeat timeout fails the job over.
	FaultNetworkDelay = "network_delay"
)

// FaultKinds lists the fault kinds in the order the docs give them.
var FaultKinds = []string{FaultTaskManager, FaultFreeze, FaultCPUThrottle, FaultKafkaBroker, FaultJobManager, FaultCheckpointStorage, FaultNetworkDelay}

// TargetsTaskManager reports whether faults of kind hit one TaskManager
// (and take taskmanager or operator).
func TargetsTaskManager(kind string) bool {
	return kind == FaultTaskManager || kind == FaultFreeze || kind == FaultCPUThrottle || kind == FaultNetworkDelay
}

// HasDuration reports whether faults of kind last Duration and then undo
// themselves.
func HasDuration(kind string) bool {
	return kind == FaultFreeze || kind == FaultCPUThrottle || kind == FaultKafkaBroker || kind == FaultCheckpointStorage || kind == FaultNetworkDelay
}

// MaxNetworkDelay bounds a network_delay fault's Delay (10 min): Demeter's
// is 60 s; far longer, TCP and Kafka's own timeouts, which the twin does not
// model, end the connections.
const MaxNetworkDelay = 600

// MaxBrokerDown bounds a kafka_broker fault's Duration: a Kafka producer
// gives up on a record after delivery.timeout.ms (2 min), failing the job's
// sinks, which the twin does not model; half of that stays clear of it.
const MaxBrokerDown = 60

// Fault is one entry of the fault schedule. Exactly one of At (with or
// without BeforeCheckpoint) and Random is set.
type Fault struct {
	// Kind is what the fault does (FaultKinds; default taskmanager).
	Kind string `yaml:"kind,omitempty"`
	// Duration is how long a freeze, cpu_throttle, kafka_broker or
	// checkpoint_storage fault lasts before it is undone.
	Duration *sim.Duration `yaml:"duration,omitempty"`
	// Share is the part of its CPU a cpu_throttle fault leaves the
	// TaskManager, in (0, 1).
	Share *float64 `yaml:"share,omitempty"`
	// Delay is how late a network_delay fault delivers each packet the
	// TaskManager sends, in (0, MaxNetworkDelay].
	Delay *sim.Duration `yaml:"delay,omitempty"`
	// At is when the fault fires, or, with BeforeCheckpoint, when it is armed.
	At *sim.Duration `yaml:"at,omitempty"`
	// BeforeCheckpoint aligns the fault as Khaos does: it fires this long
	// before the next checkpoint is due, at the first such moment after At.
	BeforeCheckpoint *sim.Duration `yaml:"before_checkpoint,omitempty"`
	// Random draws faults with exponential inter-arrival times.
	Random *RandomFaults `yaml:"random,omitempty"`
	// TaskManager is the index of the TaskManager a taskmanager, freeze,
	// cpu_throttle or network_delay fault hits; Operator picks the one hosting subtask 0 of
	// that operator (Khaos: the sink). Neither: 0, or a uniformly drawn one
	// for random faults.
	TaskManager *int   `yaml:"taskmanager,omitempty"`
	Operator    string `yaml:"operator,omitempty"`
	// Target picks the TaskManager when the fault fires, as Chaos Mesh's
	// selectors do: TargetRandom a seeded uniform pick, TargetBusiest the
	// one with the highest CPU utilisation in the latest sample.
	Target string `yaml:"target,omitempty"`
	// Every repeats a fault given At from then on, until Until (default:
	// the run's end); Jitter delays each firing (the first too) by a
	// seeded uniform draw in [0, Jitter), as a schedule's jitter does.
	Every  *sim.Duration `yaml:"every,omitempty"`
	Until  *sim.Duration `yaml:"until,omitempty"`
	Jitter *sim.Duration `yaml:"jitter,omitempty"`
}

// The fault targets (Fault.Target).
const (
	TargetRandom  = "random"
	TargetBusiest = "busiest"
)

// RandomFaults is a Poisson fault process.
type RandomFaults struct {
	MTBF  sim.Duration `yaml:"mtbf"`            // mean time between faults
	Start sim.Duration `yaml:"start,omitempty"` // first possible fault (default 0)
	End   sim.Duration `yaml:"end,omitempty"`   // last possible fault (default: run end)
}

// Action is a reconfiguration forced at a point in time, regardless of the
// policy. Exactly one of the fields after At is set.
type Action struct {
	At                 sim.Duration  `yaml:"at"`
	CheckpointInterval *sim.Duration `yaml:"checkpoint_interval,omitempty"`
	Parallelism        *int          `yaml:"parallelism,omitempty"`
	// Vertices gives job vertices (by operator name) their own
	// parallelism; the others run at the job's (its largest vertex's).
	Vertices  map[string]int `yaml:"vertices,omitempty"`
	Savepoint bool           `yaml:"savepoint,omitempty"`
}

// QoS are the bounds violations are counted against (Khaos: L = 1 s,
// R = 240 s in the logged runs).
type QoS struct {
	Latency  sim.Duration `yaml:"latency"`
	Recovery sim.Duration `yaml:"recovery"`
}

// PolicySpec is the policy section: a name plus the policy's own keys,
// decoded strictly by the policy itself. A section with an `external` key
// and no name is the external-process policy (ExternalPolicy).
type PolicySpec struct {
	Name string
	Node ast.Node
}

// ExternalPolicy is the name of the policy that runs a child process
// (models/policy/external): `policy: {external: {command: [...]}}`.
const ExternalPolicy = "external"

func (p *PolicySpec) UnmarshalYAML(node ast.Node) error {
	var head struct {
		Name     string `yaml:"name"`
		External any    `yaml:"external"`
	}
	if err := yaml.NodeToValue(node, &head); err != nil {
		return err
	}
	tk := node.GetToken()
	switch {
	case head.Name == "" && head.External != nil:
		head.Name = ExternalPolicy
	case head.Name == "":
		return &decode.PosError{Line: tk.Position.Line, Column: tk.Position.Column, Path: "$.policy.name", Msg: "missing; e.g. policy: {name: static}, or policy: {external: {command: [python3, my_policy.py]}}"}
	case head.External != nil && head.Name != ExternalPolicy:
		return &decode.PosError{Line: tk.Position.Line, Column: tk.Position.Column, Path: "$.policy.external", Msg: fmt.Sprintf("an external policy has no name (the process is the policy); drop name: %s, or external", head.Name)}
	}
	p.Name, p.Node = head.Name, node
	return nil
}

func (p PolicySpec) MarshalYAML() (any, error) {
	if p.Node == nil {
		return map[string]any{"name": p.Name}, nil
	}
	var v yaml.MapSlice
	if err := yaml.NodeToValue(p.Node, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// Variant is one entry of variants: a name and keys that overlay the base
// scenario (deep-merged mappings; lists and values replace).
type Variant struct {
	Name string
	node *ast.MappingNode
}

func (v *Variant) UnmarshalYAML(node ast.Node) error {
	m, ok := node.(*ast.MappingNode)
	if !ok {
		tk := node.GetToken()
		return &decode.PosError{Line: tk.Position.Line, Column: tk.Position.Column, Path: node.GetPath(), Msg: "a variant is a mapping with a name and the keys it overrides"}
	}
	for _, kv := range m.Values {
		if decode.Text(kv.Key) == "name" {
			v.Name = decode.Text(kv.Value)
		}
	}
	v.node = m
	return nil
}

func (v Variant) MarshalYAML() (any, error) {
	var out yaml.MapSlice
	if err := yaml.NodeToValue(v.node, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Default returns a scenario with every default filled in except the parts
// a scenario must state (duration, workload).
func Default() Scenario {
	return Scenario{
		Seed:           1,
		MetricInterval: 1,
		Kafka:          kafka.DefaultConfig(),
		Job:            flink.DefaultJob(),
		Policy:         PolicySpec{Name: "static"},
		QoS:            QoS{Latency: 1, Recovery: 240},
	}
}
