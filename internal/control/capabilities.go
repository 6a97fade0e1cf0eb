package control

import (
	"fmt"
	"sort"
	"strings"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/models/policy"
)

// Capabilities is what a backend can carry out. Check compares a scenario
// with it before a run starts, so nothing is silently dropped.
type Capabilities struct {
	Backend string // named in refusals: "the simulator", "this live cluster"
	// Actions the backend carries out (policy.Note always works).
	Actions map[policy.ActionKind]bool
	// Faults: the backend can kill TaskManagers; Why says why not.
	Faults      bool
	NoFaultsWhy string
	// NoFaultKinds are the fault kinds the backend cannot inject, with why.
	NoFaultKinds map[string]string
	// TaskManagers bounds a fault's taskmanager index (0: any).
	TaskManagers int
	// MaxParallelism bounds a rescale (0: only the job's max_parallelism).
	MaxParallelism int
	// RescaleFromCheckpoint: the backend can rescale the adaptive
	// scheduler's way (job.rescale.mode: checkpoint), not only by
	// stop-with-savepoint and resubmission.
	RescaleFromCheckpoint bool
	// VerticesBySavepoint: the backend can resubmit a job whose vertices
	// have their own parallelism (policy.RescaleVertices with
	// job.rescale.mode savepoint), not only rescale it from a checkpoint.
	VerticesBySavepoint bool
	// Detail: the backend measures per-TaskManager and per-operator metrics
	// (measure.Detail) for a policy.DetailUser.
	Detail bool
}

// Everything is the simulator's capabilities: every action and fault.
func Everything(backend string) Capabilities {
	return Capabilities{Backend: backend, Faults: true, RescaleFromCheckpoint: true, VerticesBySavepoint: true, Detail: true, Actions: map[policy.ActionKind]bool{
		policy.SetCheckpointInterval: true, policy.Rescale: true, policy.RescaleVertices: true, policy.TriggerSavepoint: true}}
}

// Requirer is implemented by a policy that needs actions beyond Note; Check
// refuses it on a backend that lacks one.
type Requirer interface {
	Requires() []policy.ActionKind
}

// Check lists what sc asks of a backend with caps that it cannot do, as
// field → message (the scenario's field paths: faults[0], actions[1],
// policy.name); nil when everything can run.
func Check(sc scenario.Scenario, pol policy.Policy, caps Capabilities) map[string]string {
	out := map[string]string{}
	for i, f := range sc.Faults {
		field := fmt.Sprintf("faults[%d]", i)
		switch {
		case !caps.Faults:
			out[field] = fmt.Sprintf("%s cannot inject faults: %s", caps.Backend, caps.NoFaultsWhy)
		case f.Target == scenario.TargetBusiest && !caps.Detail:
			out[field+".target"] = fmt.Sprintf("%s does not measure per-TaskManager CPU, which target: busiest needs", caps.Backend)
		case caps.NoFaultKinds[f.FaultKind()] != "":
			out[field+".kind"] = fmt.Sprintf("%s cannot inject a %s fault: %s", caps.Backend, f.FaultKind(), caps.NoFaultKinds[f.FaultKind()])
		case f.TaskManager != nil && caps.TaskManagers > 0 && *f.TaskManager >= caps.TaskManagers:
			out[field+".taskmanager"] = fmt.Sprintf("%d is beyond %s's TaskManagers (allowed 0..%d)", *f.TaskManager, caps.Backend, caps.TaskManagers-1)
		}
	}
	for i, a := range sc.Actions {
		pa, ok := ForcedAction(a)
		if !ok {
			continue
		}
		field := fmt.Sprintf("actions[%d]", i)
		if !caps.Actions[pa.Kind] {
			out[field] = fmt.Sprintf("%s cannot %s (it can: %s)", caps.Backend, describe(pa.Kind), caps.list())
			continue
		}
		if pa.Kind == policy.RescaleVertices && sc.Job.Rescale.Mode != flink.RescaleCheckpoint && !caps.VerticesBySavepoint {
			out[field+".vertices"] = fmt.Sprintf("%s gives job vertices their own parallelism only in a rescale from a checkpoint: set job.rescale.mode: %s", caps.Backend, flink.RescaleCheckpoint)
		}
		if pa.Kind == policy.Rescale && caps.MaxParallelism > 0 && pa.Parallelism > caps.MaxParallelism {
			out[field+".parallelism"] = fmt.Sprintf("%d is beyond %s's %d slots (allowed 1..%d)", pa.Parallelism, caps.Backend, caps.MaxParallelism, caps.MaxParallelism)
		}
		for name, p := range pa.Vertices {
			if caps.MaxParallelism > 0 && p > caps.MaxParallelism {
				out[field+".vertices."+name] = fmt.Sprintf("%d is beyond %s's %d slots (allowed 1..%d)", p, caps.Backend, caps.MaxParallelism, caps.MaxParallelism)
			}
		}
	}
	if sc.Job.Rescale.Mode == flink.RescaleCheckpoint && !caps.RescaleFromCheckpoint {
		out["job.rescale.mode"] = fmt.Sprintf("%s cannot rescale from a checkpoint (the adaptive scheduler's way); use mode %s, or a local cluster with the adaptive scheduler (streamtwin live up --scheduler adaptive)", caps.Backend, flink.RescaleSavepoint)
	}
	if caps.MaxParallelism > 0 && sc.Job.Parallelism > caps.MaxParallelism {
		out["job.parallelism"] = fmt.Sprintf("%d is beyond %s's %d slots (allowed 1..%d)", sc.Job.Parallelism, caps.Backend, caps.MaxParallelism, caps.MaxParallelism)
	}
	if r, ok := pol.(Requirer); ok {
		for _, k := range r.Requires() {
			switch {
			case k != policy.Note && !caps.Actions[k]:
				out["policy.name"] = fmt.Sprintf("policy %s needs to %s, which %s cannot", pol.Name(), describe(k), caps.Backend)
			case k == policy.RescaleVertices && sc.Job.Rescale.Mode != flink.RescaleCheckpoint && !caps.VerticesBySavepoint:
				out["job.rescale.mode"] = fmt.Sprintf("policy %s gives each job vertex its own parallelism, which %s does only in a rescale from a checkpoint: use mode %s", pol.Name(), caps.Backend, flink.RescaleCheckpoint)
			}
		}
	}
	if d, ok := pol.(policy.DetailUser); ok && d.UsesDetail() && !caps.Detail {
		out["policy.name"] = fmt.Sprintf("policy %s reads per-TaskManager and per-operator metrics, which %s does not measure", pol.Name(), caps.Backend)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func describe(k policy.ActionKind) string {
	switch k {
	case policy.SetCheckpointInterval:
		return "change the checkpoint interval"
	case policy.Rescale:
		return "rescale"
	case policy.RescaleVertices:
		return "give each job vertex its own parallelism"
	case policy.TriggerSavepoint:
		return "take a savepoint"
	}
	return string(k)
}

func (c Capabilities) list() string {
	var ks []string
	for k, ok := range c.Actions {
		if ok {
			ks = append(ks, string(k))
		}
	}
	sort.Strings(ks)
	if len(ks) == 0 {
		return "nothing"
	}
	return strings.Join(ks, ", ")
}
