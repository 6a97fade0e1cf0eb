package driver

import (
	"context"
	"fmt"
	"math"

	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/results"
)

// detailer measures results.Detail for policies that read per-TaskManager
// and per-operator metrics (Daedalus, the Flink autoscaler, DS2): each
// sample it reads every vertex's subtasks (GET /jobs/{id}/vertices/{vid}:
// TaskManager, records in and out, accumulated busy time) and turns the
// differences since the previous sample into rates and busy fractions. A
// TaskManager's CPU is the busy fraction of its busiest subtask: the JVM's
// CPU load on a shared host never reaches 100 % when a TaskManager
// saturates, its bottleneck task's busy time does.
type detailer struct {
	prev map[subtaskKey]subtaskCount
}

type subtaskKey struct {
	vertex           string
	subtask, attempt int
}

type subtaskCount struct {
	read, write, busyMs float64
	atMs                int64
}

func (d *detailer) measure(ctx context.Context, r *run, m *metricNames) results.Detail {
	var out results.Detail
	if d.prev == nil {
		d.prev = map[subtaskKey]subtaskCount{}
	}
	next := map[subtaskKey]subtaskCount{}
	tmBusy, tmSource := map[int]float64{}, map[int]float64{}
	for k, vid := range m.vertices {
		v, err := r.env.REST.VertexIO(ctx, m.job, vid)
		if err != nil {
			continue
		}
		op := results.OperatorSample{Name: v.Name, Parallelism: v.Parallelism, Source: vid == m.source, MaxParallelism: v.MaxParallelism}
		if ops := r.sc.Job.Operators; len(ops) == len(m.vertices) {
			op.Keyed = ops[k].Partitioning == flink.Hash
		}
		if op.Source {
			op.Partitions = r.sc.Kafka.Partitions
		}
		for _, st := range v.Subtasks {
			key := subtaskKey{vid, st.Subtask, st.Attempt}
			now := subtaskCount{st.Metrics.ReadRecords, st.Metrics.WriteRecords, st.Metrics.BusyMs, v.Now}
			next[key] = now
			p, ok := d.prev[key]
			if !ok || st.Status != "RUNNING" || now.atMs <= p.atMs {
				continue
			}
			dt := float64(now.atMs-p.atMs) / 1000
			in, outR := math.Max(0, now.read-p.read)/dt, math.Max(0, now.write-p.write)/dt
			busy := math.Min(1, math.Max(0, now.busyMs-p.busyMs)/1000/dt)
			if op.Source {
				in = outR // a Kafka source reads what it emits
			}
			op.InputRate += in
			op.OutputRate += outR
			op.BusyMax = math.Max(op.BusyMax, busy)
			var tm int
			if _, err := fmt.Sscanf(st.TaskManager, "tm-%d", &tm); err == nil {
				tmBusy[tm-1] = math.Max(tmBusy[tm-1], busy)
				if op.Source {
					tmSource[tm-1] += outR
				}
			}
		}
		out.Operators = append(out.Operators, op)
	}
	d.prev = next
	for i := 1; i <= r.env.Cluster.TaskManagers(); i++ {
		if r.env.Cluster.Running(i) {
			out.TaskManagers = append(out.TaskManagers, results.TaskManagerSample{Index: i - 1, CPUBusy: tmBusy[i-1], SourceThroughput: tmSource[i-1]})
		}
	}
	return out
}
