package flink

import (
	"cmp"
	"math"

	"github.com/streamtwin/streamtwin/results/measure"
)

// The CPU of the TaskManagers: the share of it the job's tasks get, and
// what each TaskManager reports per sample.

// cpuShare is the share of the TaskManagers' CPU the job's tasks get: less
// the asynchronous checkpoint phase's overhead, and less what co-located
// processes take for the input (cluster.host_cpu_per_record).
func (j *Job) cpuShare() float64 {
	s := 1.0
	if j.asyncOn > 0 {
		s = 1 - j.cfg.Checkpoint.CPUOverhead
	}
	if h := float64(j.cfg.Cluster.HostCPUPerRecord); h > 0 {
		s *= math.Max(minHostShare, 1-j.lambda*h/j.graph.Cores())
	}
	return s * j.throttleShare()
}

// minHostShare is the least CPU share co-located processes leave the job.
const minHostShare = 0.05

// cpuMemo is the last sample's CPU readings' mean and peak, and what they
// were computed from.
type cpuMemo struct {
	dt, cpuXdt, overheadDt float64
	mean, peak             float64
	ok                     bool // no noise, no JIT: the same inputs give the same readings
}

// cpuAcross is measure.CPUAcross of cpuUtilisation(dt). A sample whose
// TaskManagers are as they were (no process, placement or throttle
// changed) and whose work is the same as the last one's, as in a steady
// state, has the same readings: they are kept (lastCPU too), which saves a
// loop over every TaskManager per second of a long run.
func (j *Job) cpuAcross(dt float64, tmsChanged bool) (mean, peak float64) {
	m := &j.cpu
	if m.ok && !tmsChanged && m.dt == dt && m.cpuXdt == j.sCPUXdt && m.overheadDt == j.sOverheadDt {
		return m.mean, m.peak
	}
	mean, peak = measure.CPUAcross(j.cpuUtilisation(dt))
	*m = cpuMemo{dt: dt, cpuXdt: j.sCPUXdt, overheadDt: j.sOverheadDt, mean: mean, peak: peak,
		ok: j.cfg.Cluster.CPUNoise == 0 && j.cfg.Cluster.JITCPU == 0}
	return mean, peak
}

// cpuUtilisation is each TaskManager's CPU utilisation over the interval
// of dt seconds ending now (NaN for a dead one), by the one definition
// (measure.CPUUtilisation) from the CPU seconds the model gives it: its
// tasks' work (∫x dt × its CPU seconds per source record, times
// cluster.part_load_cpu while the job keeps up with its input), its JIT
// compiler's cluster.jit_cpu from its JVM's first deployment, the async
// checkpoint phase's share of its cores while it hosts tasks, the JVM's
// own work beside the tasks' (cluster.reserved_cores at capacity, in
// proportion below), and the JVM's idle CPU (cluster.idle_cpu). Its allotment is cluster.cores; its
// threads cannot use more (the live cluster's --tm-cpu limit), so the CPU
// seconds stop there. Each reading u then gets the sampler's noise, of
// standard deviation cluster.cpu_noise·√(u(1 − u)), within [0, 1].
func (j *Job) cpuUtilisation(dt float64) []float64 {
	cores := cmp.Or(j.cfg.Cluster.Cores, float64(j.cfg.Cluster.Slots)) // withDefaults', without copying the config
	j.lastCPU = j.lastCPU[:0]
	for tm := range j.tms {
		if !j.tms[tm].alive {
			j.lastCPU = append(j.lastCPU, math.NaN())
			continue
		}
		cpu := j.cfg.Cluster.IdleCPU * dt
		if g := j.tms[tm].hosts; g >= 0 && j.graph != nil {
			cpu += j.sCPUXdt*j.graph.tmCost[g]*(1+j.cfg.Cluster.ReservedCores/j.graph.tmCores[g]) + j.sOverheadDt*j.graph.tmCores[g]
		}
		if j.tms[tm].jitting {
			cpu += j.tms[tm].jitDt * cores
		}
		most := cores * dt
		if j.tms[tm].throttled > 0 { // a cpu_throttle fault's quota
			most *= j.tms[tm].share
		}
		u := measure.CPUUtilisation(min(cpu, most), dt, cores) // the builtin: math.Min is a call on amd64, and this runs per TaskManager and sample
		if k := j.cfg.Cluster.CPUNoise; k > 0 && u < 1 {
			u = min(1, max(0, u+k*math.Sqrt(u*(1-u))*j.cpuRng.NormFloat64()))
		}
		j.lastCPU = append(j.lastCPU, u)
	}
	return j.lastCPU
}
