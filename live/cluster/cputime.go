package cluster

import "time"

// TaskManagerCPUTime is TaskManager i's (1-based) CPU time so far: user +
// system time of all its threads, dead ones included, from
// /proc/<pid>/stat (10 ms ticks), read the moment it is called, and the
// pid it belongs to (a restarted TaskManager's count starts again at 0
// under a new pid). ok is false when the process is not running.
//
// The kernel's counter is read rather than Flink's Status.JVM.CPU.Time:
// the JobManager serves that metric from a cache the TaskManagers refresh
// at their own moments, so the interval it covers is unknown to a
// sampler, while /proc is read at a known instant.
func (c *Cluster) TaskManagerCPUTime(i int) (cpu time.Duration, pid int, ok bool) {
	c.mu.Lock()
	j, err := c.taskManager(i)
	if err != nil {
		c.mu.Unlock()
		return 0, 0, false
	}
	p := c.state.Processes[j]
	c.mu.Unlock()
	if p.PID <= 0 || !alive(p.PID, c.mark(p)) {
		return 0, 0, false
	}
	return cpuTime(p.PID), p.PID, true
}

// TaskManagerCPULimit is the cores each TaskManager process is limited to
// (live up --tm-cpu, a CFS quota); 0: no limit.
func (c *Cluster) TaskManagerCPULimit() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.TaskManagerCPU
}
