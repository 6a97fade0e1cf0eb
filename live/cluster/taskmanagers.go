package cluster

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// Stopping and starting single TaskManagers of the running cluster, as a
// crash, a scale-down and a restart do.

// taskManager is the index in the state's processes of TaskManager i
// (1-based).
func (c *Cluster) taskManager(i int) (int, error) {
	if i < 1 || i > c.state.TaskManagers {
		return 0, fmt.Errorf("taskmanager %d: want 1..%d", i, c.state.TaskManagers)
	}
	name := TaskManagerID(i)
	for j, p := range c.state.Processes {
		if p.Name == name {
			return j, nil
		}
	}
	return 0, fmt.Errorf("%s is not recorded in %s", name, c.layout.pidsFile())
}

// KillTaskManager SIGKILLs TaskManager i (1-based, resource id tm-<i>) and
// its process group, as a crash: no shutdown hooks, the kernel closes its
// sockets. It returns once the process is gone.
func (c *Cluster) KillTaskManager(i int) error { return c.endTaskManager(i, sigkill, 5*time.Second) }

// StopTaskManager shuts TaskManager i down gracefully (SIGTERM: it
// deregisters from the JobManager; SIGKILL after the stop grace), as a
// scale-down of a Kubernetes Deployment does. RestartTaskManager starts it
// again.
func (c *Cluster) StopTaskManager(i int) error {
	grace := c.grace
	if grace == 0 {
		grace = DefaultConfig().StopGrace
	}
	return c.endTaskManager(i, sigterm, grace)
}

// endTaskManager sends sig to TaskManager i's process group, waits up to
// grace for it to die, then SIGKILLs it.
func (c *Cluster) endTaskManager(i int, sig syscall.Signal, grace time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	j, err := c.taskManager(i)
	if err != nil {
		return err
	}
	return c.end(j, sig, grace)
}

// end sends sig to process j's group (an index into the state's
// processes), waits up to grace for it to die, then SIGKILLs it. c.mu is
// held.
func (c *Cluster) end(j int, sig syscall.Signal, grace time.Duration) error {
	p := &c.state.Processes[j]
	m := c.mark(*p)
	if !alive(p.PID, m) {
		return fmt.Errorf("%s is not running", p.Name)
	}
	signalGroup(p.PID, syscall.SIGCONT) // a frozen process acts on no other signal
	signalGroup(p.PID, sig)
	left := waitDead(map[int]string{p.PID: m}, grace)
	if len(left) > 0 && sig != sigkill {
		signalGroup(p.PID, sigkill)
		left = waitDead(left, 5*time.Second)
	}
	if len(left) > 0 {
		return fmt.Errorf("%s (pid %d) survives SIGKILL", p.Name, p.PID)
	}
	p.PID = 0
	return writeState(c.layout.pidsFile(), c.state)
}

// Running reports whether TaskManager i's process is alive.
func (c *Cluster) Running(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	j, err := c.taskManager(i)
	if err != nil {
		return false
	}
	p := c.state.Processes[j]
	return alive(p.PID, c.mark(p))
}

// RestartTaskManager starts TaskManager i again with the same command line,
// hence the same resource id; its log is appended to. It does not wait for
// the registration: see WaitTaskManagers.
func (c *Cluster) RestartTaskManager(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	j, err := c.taskManager(i)
	if err != nil {
		return err
	}
	return c.startAgain(j)
}

// startAgain starts process j (an index into the state's processes) again
// with its command line, appending to its log. c.mu is held.
func (c *Cluster) startAgain(j int) error {
	p := &c.state.Processes[j]
	if alive(p.PID, c.mark(*p)) {
		return fmt.Errorf("%s still runs (pid %d)", p.Name, p.PID)
	}
	pid, err := start(p.Args, c.layout.Dir, p.Log, true, os.Environ())
	if err != nil {
		return fmt.Errorf("restarting %s: %w", p.Name, err)
	}
	p.PID, p.Started = pid, time.Now().UTC()
	if c.state.TaskManagerCPU > 0 && strings.HasPrefix(p.Name, "tm-") {
		if err := limitCPU(c.layout.Dir, p.Name, pid, c.state.TaskManagerCPU); err != nil {
			return err
		}
	}
	return writeState(c.layout.pidsFile(), c.state)
}
