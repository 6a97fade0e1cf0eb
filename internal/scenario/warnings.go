package scenario

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/sim"
)

// Warnings are the settings of the resolved scenario that are legal but
// implausible (warnings.go): a run goes ahead with them, the CLI prints
// them to standard error. Each is at its field's line of the file, like a
// Problem. One about a value a Set gave (ParseRun) has Line 0 and the
// set's path as its field, its message starting "value V: ": the caller
// knows where the value came from (a sweep: its parameter's line).
func (sc Scenario) Warnings() Problems { return sc.warnings }

// Warnings are those of every run of the file, each once; one that only
// some of the variants have names them.
func (f *File) Warnings() Problems {
	runs := f.Runs()
	var order Problems
	variants := map[Problem][]string{}
	for _, sc := range runs {
		for _, w := range sc.warnings {
			if _, ok := variants[w]; !ok {
				order = append(order, w)
			}
			variants[w] = append(variants[w], sc.Variant)
		}
	}
	out := make(Problems, 0, len(order))
	for _, w := range order {
		if vs := variants[w]; len(runs) > 1 && len(vs) < len(runs) {
			w.Msg += " (variant"
			if len(vs) > 1 {
				w.Msg += "s"
			}
			w.Msg += " " + strings.Join(vs, ", ") + ")"
		}
		out = append(out, w)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// minCheckpointInterval is the shortest checkpoint interval that is not
// suspicious: Flink jobs checkpoint every few seconds to minutes, and a
// checkpoint here takes half a second or more (sync_base + async_base).
const minCheckpointInterval = 1

// warnings finds the implausible settings of sc, decoded from file at path
// with sets applied. Every check is here: few, cheap, each saying why the
// value is implausible.
func warnings(path string, file *ast.File, sc *Scenario, sets []Set) Problems {
	var ps Problems
	// add warns about the first of fields a set gave, else the first the
	// file states, else the first
	add := func(msg string, fields ...string) {
		field := fields[0]
		for _, f := range fields {
			if present(file, f) {
				field = f
				break
			}
		}
		for _, f := range fields {
			for _, s := range sets {
				rest, under := strings.CutPrefix(f, s.Path)
				if under && (rest == "" || rest[0] == '.' || rest[0] == '[') {
					if rest != "" {
						msg = f + ": " + msg
					}
					ps = append(ps, Problem{File: path, Line: 0, Field: s.Path, Msg: fmt.Sprintf("value %s: %s", s.Value, msg)})
					return
				}
			}
		}
		ps = append(ps, Problem{File: path, Line: decode.LineOf(file, field), Field: field, Msg: msg})
	}

	ck := sc.Job.Checkpoint
	ciMsg := func(ci sim.Duration) string {
		return fmt.Sprintf("%v is below %vs: a checkpoint takes at least %v here (sync_base + async_base), so checkpoints would run back to back; Flink jobs checkpoint every few seconds to minutes (a unit typo, ms for s?)",
			ci, minCheckpointInterval, ck.SyncBase+ck.AsyncBase)
	}
	if ck.Interval > 0 && ck.Interval < minCheckpointInterval {
		add(ciMsg(ck.Interval), "job.checkpoint.interval")
	}
	for i, a := range sc.Actions {
		if a.CheckpointInterval != nil && *a.CheckpointInterval > 0 && *a.CheckpointInterval < minCheckpointInterval {
			add(ciMsg(*a.CheckpointInterval), fmt.Sprintf("actions[%d].checkpoint_interval", i))
		}
	}

	// a source subtask reads whole partitions: those beyond them read none
	if parts := sc.Kafka.Partitions; len(sc.Job.Operators) > 0 && parts > 0 {
		idle := func(p int) string {
			partitions, rest := "partitions", "of them get no partition and sit idle"
			if parts == 1 {
				partitions = "partition"
			}
			if p-parts == 1 {
				rest = "of them gets no partition and sits idle"
			}
			return fmt.Sprintf("%d source subtasks read %d Kafka %s (kafka.partitions): %d %s", p, parts, partitions, p-parts, rest)
		}
		if src := sc.Job.Operators[0]; src.Parallelism > 0 {
			if src.Parallelism > parts {
				add(idle(src.Parallelism), "job.operators[0].parallelism", "kafka.partitions")
			}
		} else {
			if sc.Job.Parallelism > parts {
				add(idle(sc.Job.Parallelism), "job.parallelism", "kafka.partitions")
			}
			for i, a := range sc.Actions {
				if a.Parallelism != nil && *a.Parallelism > parts {
					add(idle(*a.Parallelism), fmt.Sprintf("actions[%d].parallelism", i))
				}
			}
		}
	}

	// every recovery from a TaskManager failure waits for its detection
	if lo, hi, how, ok := detection(sc.Job); ok && sc.QoS.Recovery > 0 && float64(sc.QoS.Recovery) < lo {
		when := fmt.Sprintf("%v", sim.Duration(lo))
		if hi > lo {
			when = fmt.Sprintf("%v–%v", sim.Duration(lo), sim.Duration(hi))
		}
		add(fmt.Sprintf("%v is below the failure detection alone: a dead TaskManager is noticed %s after it dies (%s), so no recovery can meet the bound",
			sc.QoS.Recovery, when, how),
			"qos.recovery", "job.detection.heartbeat_timeout", "job.detection.heartbeat_interval", "job.detection.connection_loss", "job.detection.mode")
	}
	// every record's latency includes the base
	if base := sc.Job.Latency.Base; sc.QoS.Latency > 0 && sc.QoS.Latency < base {
		add(fmt.Sprintf("%v is below job.latency.base (%v), which every record's latency includes, so every second violates it", sc.QoS.Latency, base),
			"qos.latency", "job.latency.base")
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
	return slices.Clip(ps)
}

// detection is how long the JobManager takes to notice a dead TaskManager
// of the job at its initial parallelism, as models/flink's detectionDelay
// draws it (the kill falls at a uniform phase of the heartbeat interval):
// at least lo, at most hi, and how. ok is false when the job's graph
// cannot be built (validation reports that).
func detection(job flink.JobConfig) (lo, hi float64, how string, ok bool) {
	d := job.Detection
	distributed := false
	if d.Mode == "auto" {
		g, err := flink.BuildGraph(job, job.Parallelism, func(n int) []float64 {
			s := make([]float64, n)
			for i := range s {
				s[i] = 1 / float64(n)
			}
			return s
		})
		if err != nil {
			return 0, 0, "", false
		}
		distributed = g.Distributed()
	}
	iv, thr := float64(d.HeartbeatInterval), float64(d.RPCFailureThreshold)
	rpcLo, rpcHi := iv*(thr-1), iv*thr
	toLo, toHi := max(0, float64(d.HeartbeatTimeout)-iv), float64(d.HeartbeatTimeout)
	switch {
	case d.Mode == "connection" || d.Mode == "auto" && distributed:
		return float64(d.ConnectionLoss), float64(d.ConnectionLoss), "its peers see their connections reset: job.detection.connection_loss", true
	case d.Mode == "rpc":
		return rpcLo, rpcHi, "job.detection.mode rpc: rpc_failure_threshold failed heartbeat requests, heartbeat_interval apart", true
	case d.Mode == "heartbeat":
		return toLo, toHi, "job.detection.mode heartbeat: heartbeat_timeout after the last answered heartbeat", true
	}
	// auto on one TaskManager: no peer sees a connection reset
	return min(rpcLo, toLo), min(rpcHi, toHi), "no other TaskManager exchanges data with it, so failed heartbeat requests or the heartbeat timeout tell", true
}
