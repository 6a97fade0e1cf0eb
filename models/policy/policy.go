package policy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// Policy steers a job: the controller (internal/control) calls Step every
// Interval. Step must be deterministic given its inputs and
// the random stream it was built with.
type Policy interface {
	Name() string
	Interval() time.Duration                          // how often the controller calls Step
	Step(now time.Duration, obs Observation) []Action // now: time since the run started
}

// Observation is what a policy sees: the recent per-second metrics (the
// same rows as timeseries.parquet, oldest first; 10 minutes unless the
// policy is a WindowUser) and the job's status. Window is only valid during
// the Step call: a policy that keeps history copies what it needs.
type Observation struct {
	Window []results.Sample
	// Detail holds the per-TaskManager and per-operator metrics of each
	// sample of Window (Detail[i] goes with Window[i]); nil unless the policy
	// is a DetailUser.
	Detail []measure.Detail
	Job    JobStatus
}

// DetailUser is implemented by a policy that reads per-TaskManager or
// per-operator metrics (Observation.Detail). A backend that cannot measure
// them refuses the policy before the run starts.
type DetailUser interface {
	UsesDetail() bool
}

// JobStatus is the controller's view of the job.
type JobStatus struct {
	State       string        // RUNNING, RESTARTING, …
	Uptime      time.Duration // since the job last became RUNNING (resets on restart and reconfiguration)
	Parallelism int
	// Vertices is each job vertex's parallelism (by operator name) after a
	// RescaleVertices; nil while every vertex runs at Parallelism.
	Vertices           map[string]int
	CheckpointInterval time.Duration
	LastCheckpoint     *Checkpoint // nil before the first completed checkpoint
	Restarts           int
	Faults             int
}

// Checkpoint describes the last completed checkpoint.
type Checkpoint struct {
	ID          int64
	CompletedAt time.Duration
	Duration    time.Duration
	SizeBytes   float64
}

// FirstUnseen is the index in window of the first sample newer than seen
// (the time_s of the newest sample already handed out; math.Inf(-1)
// before any): an observation hands out window[FirstUnseen(window, seen):],
// to an external policy and to a learner alike, so both see the same rows.
func FirstUnseen(window []results.Sample, seen float64) int {
	i := 0
	for i < len(window) && window[i].TimeS <= seen {
		i++
	}
	return i
}

// WindowUser is implemented by a policy that needs more than the default
// 10 minutes of samples in Observation.Window.
type WindowUser interface {
	WindowSamples() int
}

// Session is implemented by a policy that holds something for the length
// of a run (an external process). The controller calls Begin once before
// the first Step, with what the run is and what its backend can do; an
// error refuses the run before it starts. It calls End once after the last
// Step, also when the run failed (reason says why).
type Session interface {
	Begin(run RunInfo) error
	End(reason string)
}

// RunInfo is what a Session learns at the start of a run.
type RunInfo struct {
	Scenario, Variant string
	Seed              uint64 // the run's root seed
	Duration          time.Duration
	MetricInterval    time.Duration
	Backend           string // "sim" or "live"
	// BackendName names the backend in messages ("the simulator").
	BackendName string
	// Actions are the kinds the backend carries out, sorted; Note always.
	Actions []ActionKind
	// Detail: Observation.Detail can be had (for a DetailUser).
	Detail bool
	// MaxParallelism bounds a Rescale (0: only the job's max_parallelism).
	MaxParallelism        int
	RescaleFromCheckpoint bool
	Job                   JobStatus // at the start
}

// Can reports whether the backend carries out actions of kind k.
func (r RunInfo) Can(k ActionKind) bool {
	for _, a := range r.Actions {
		if a == k {
			return true
		}
	}
	return false
}

// Fallible is implemented by a policy whose step can fail for reasons
// outside its logic (an external process that crashed, hung or sent
// nonsense). The controller calls StepErr instead of Step: an error ends
// the run, unless it is a *HoldError, which the controller records as a
// policy_error event before going on with the job as it is.
type Fallible interface {
	StepErr(now time.Duration, obs Observation) ([]Action, error)
}

// HoldError is a step failure the policy chose to survive (on_error: hold):
// no action this tick, and the error on record.
type HoldError struct{ Err error }

func (e *HoldError) Error() string { return e.Err.Error() + " (holding the current configuration)" }
func (e *HoldError) Unwrap() error { return e.Err }

// ActionKind names what an Action asks the backend to do.
type ActionKind string

const (
	SetCheckpointInterval ActionKind = "set_checkpoint_interval" // stop-with-savepoint + resubmit with a new CI
	Rescale               ActionKind = "rescale"                 // change the parallelism
	// RescaleVertices gives each job vertex its own parallelism, as the
	// Kubernetes operator's autoscaler does (its parallelism overrides).
	RescaleVertices  ActionKind = "rescale_vertices"
	TriggerSavepoint ActionKind = "trigger_savepoint" // savepoint while running
	// Note changes nothing: the backend records the decision and its reason
	// (e.g. a violation whose optimum is too close to act on).
	Note ActionKind = "note"
)

// ActionKinds are every kind of action, in the order the docs list them.
var ActionKinds = []ActionKind{SetCheckpointInterval, Rescale, RescaleVertices, TriggerSavepoint, Note}

// Action is one request of a policy, with the reason it is taken.
type Action struct {
	Kind     ActionKind
	Interval time.Duration // for SetCheckpointInterval
	// Parallelism is Rescale's; for RescaleVertices that of the vertices
	// Vertices does not name (0: the job's current parallelism).
	Parallelism int
	// Vertices is RescaleVertices' parallelism per job vertex, by operator
	// name.
	Vertices map[string]int
	Reason   string
}

// ErrNeedsProfile is returned (wrapped) by a policy that cannot act before
// a profiling phase has produced its models (Khaos). Scenario validation
// accepts it, since `streamtwin run` profiles first.
var ErrNeedsProfile = errors.New("the policy needs a profile")

// Factory builds a policy from its scenario section (a YAML mapping with a
// name key) and a random stream derived from the run's root seed.
type Factory func(node ast.Node, rng *rand.Rand) (Policy, error)

var registry = map[string]Factory{}

// Register makes a policy available to scenarios under name.
func Register(name string, f Factory) { registry[name] = f }

// Names lists the registered policies.
func Names() []string {
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Validate checks a policy section's settings (the named policy decodes
// them strictly and validates them) without building it for a run: a
// scenario's validation. A policy that needs a profile to be built answers
// ErrNeedsProfile.
func Validate(name string, node ast.Node) error {
	_, err := New(name, node, nil)
	return err
}

// New builds the named policy for a run (internal/run.NewPolicy, the one
// caller, hands it the run's policy stream).
func New(name string, node ast.Node, rng *rand.Rand) (Policy, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q; choose one of %v", name, Names())
	}
	return f(node, rng)
}

// Decode strictly decodes a policy section into cfg (which must have a
// `name` field so the key is accepted).
func Decode(node ast.Node, cfg any) error {
	if node == nil {
		return nil
	}
	return decode.Strict(node, cfg) // an unknown key suggests the nearest known one
}
