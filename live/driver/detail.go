package driver

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/streamtwin/streamtwin/results/measure"
)

// detailing: useDetail, the policy (or a fault picking the busiest
// TaskManager) reads per-TaskManager and per-operator metrics; det
// measures them in the sampler, detail is the latest (clock loop).
type detailing struct {
	useDetail bool
	det       detailer
	detail    measure.Detail
}

// detailer measures measure.Detail for policies that read per-TaskManager
// and per-operator metrics (Daedalus, the Flink autoscaler, DS2): each
// sample it reads every vertex's subtasks (GET /jobs/{id}/vertices/{vid}:
// TaskManager, records in and out, accumulated busy time) and turns the
// differences since the previous sample into rates and busy fractions
// (measure.Rate, measure.TimeFraction). A TaskManager's CPUBusy is its
// CPU utilisation (cpuMeter), the sample's cpu_busy_mean/max statistic.
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

func (d *detailer) measure(ctx context.Context, r *run, m *metricNames, cpu map[int]float64) measure.Detail {
	var out measure.Detail
	if d.prev == nil {
		d.prev = map[subtaskKey]subtaskCount{}
	}
	next := map[subtaskKey]subtaskCount{}
	tmSource := map[int]float64{}
	for k, vid := range m.vertices {
		v, err := r.env.REST.VertexIO(ctx, m.job, vid)
		if err != nil {
			continue
		}
		op := measure.OperatorSample{Name: v.Name, Parallelism: v.Parallelism, Source: vid == m.source, MaxParallelism: v.MaxParallelism}
		if ops := r.sc.Job.Operators; len(ops) == len(m.vertices) {
			op.Keyed = ops[k].Keyed()
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
			in, outR := measure.Rate(p.read, now.read, dt), measure.Rate(p.write, now.write, dt)
			busy := measure.TimeFraction((now.busyMs-p.busyMs)/1000, dt)
			if op.Source {
				in = outR // a Kafka source reads what it emits
			}
			op.InputRate += in
			op.OutputRate += outR
			op.BusyMax = math.Max(op.BusyMax, busy)
			var tm int
			if _, err := fmt.Sscanf(st.TaskManager, "tm-%d", &tm); err == nil {
				if op.Source {
					tmSource[tm-1] += outR
				}
			}
		}
		if isCommitter(v.Name) {
			// DS2 and the operator autoscaler would take the writer's
			// records as the committer's target and find it saturated
			continue
		}
		out.Operators = append(out.Operators, op)
	}
	d.prev = next
	// a TaskManager without a CPU reading yet (its first second) is left
	// out: a policy fitting CPU against throughput gets no made-up point
	for i := 1; i <= r.env.Cluster.TaskManagers(); i++ {
		if u, ok := cpu[i-1]; ok && !math.IsNaN(u) && r.env.Cluster.Running(i) {
			out.TaskManagers = append(out.TaskManagers, measure.TaskManagerSample{Index: i - 1, CPUBusy: u, SourceThroughput: tmSource[i-1]})
		}
	}
	return out
}

// cpuClock is what the sampler reads of a local cluster (live/cluster)
// for CPU utilisation: each TaskManager's cumulative CPU time from /proc,
// read at a known instant, and its CPU limit.
type cpuClock interface {
	TaskManagerCPUTime(i int) (cpu time.Duration, pid int, ok bool)
	TaskManagerCPULimit() float64
}

// cpuReading is one TaskManager's cumulative CPU time when it was read.
type cpuReading struct {
	pid int       // the process it belongs to (0: Flink's REST, no pid)
	cpu float64   // CPU seconds since the process started
	at  time.Time // when it was read
}

// cpuMeter measures each TaskManager's CPU utilisation between two
// samples: the CPU seconds its process used since the last reading over
// the wall time between the two readings and its allotment
// (measure.CPUUtilisation).
type cpuMeter struct {
	prev map[int]cpuReading // by 0-based TaskManager index
}

// measure reads the running TaskManagers' CPU times now and returns their
// utilisation by 0-based index (NaN for one first seen now). On a local
// cluster it reads /proc (cpuClock); on any other it asks Flink for
// Status.JVM.CPU.Time (ns), whose cached value lags the moment of the
// request by up to the TaskManagers' metric refresh.
func (c *cpuMeter) measure(ctx context.Context, r *run, allot float64) map[int]float64 {
	now := map[int]cpuReading{}
	if cl, ok := r.env.Cluster.(cpuClock); ok && r.env.Cluster != nil {
		for i := 1; i <= r.env.Cluster.TaskManagers(); i++ {
			if t, pid, ok := cl.TaskManagerCPUTime(i); ok {
				now[i-1] = cpuReading{pid: pid, cpu: t.Seconds(), at: time.Now()}
			}
		}
	} else if tms, err := r.env.REST.TaskManagers(ctx); err == nil {
		sort.Slice(tms, func(a, b int) bool { return tms[a].ID < tms[b].ID })
		for i, tm := range tms {
			if v, err := r.env.REST.TaskManagerMetrics(ctx, tm.ID, "Status.JVM.CPU.Time"); err == nil {
				if ns, ok := v["Status.JVM.CPU.Time"]; ok {
					now[i] = cpuReading{cpu: ns / 1e9, at: time.Now()}
				}
			}
		}
	}
	u := cpuUtilisations(c.prev, now, allot)
	c.prev = now
	return u
}

// cpuUtilisations is the utilisation of each TaskManager read now, from
// its reading before: NaN when it has none, or when its process changed
// (a restarted TaskManager counts from 0 again).
func cpuUtilisations(prev, now map[int]cpuReading, allot float64) map[int]float64 {
	out := map[int]float64{}
	for i, n := range now {
		p, ok := prev[i]
		if !ok || p.pid != n.pid || n.cpu < p.cpu {
			out[i] = math.NaN()
			continue
		}
		out[i] = measure.CPUUtilisation(n.cpu-p.cpu, n.at.Sub(p.at).Seconds(), allot)
	}
	return out
}

// allotment is the cores a TaskManager is allotted, the denominator of its
// CPU utilisation: the cluster's CPU limit (live up --tm-cpu) when it has
// one, else the scenario's job.cluster.cores (0: one per slot), as a pod's
// CPU request.
func (r *run) allotment() float64 {
	if cl, ok := r.env.Cluster.(cpuClock); ok && r.env.Cluster != nil {
		if l := cl.TaskManagerCPULimit(); l > 0 {
			return l
		}
	}
	c := r.sc.Job.Cluster
	return cmp.Or(c.Cores, float64(c.Slots))
}
