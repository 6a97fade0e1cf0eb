package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// Faults beyond a crash (KillTaskManager), each with the call that undoes
// it. Down undoes whatever is left, so a run that dies between the two
// leaves no stopped process, CPU quota or read-only folder behind: it
// sends SIGCONT before SIGTERM, removes the cgroups and unmounts the
// ReadOnly folders recorded in pids.json.

// FaultLimits are the fault kinds this machine cannot inject, with why:
// a CPU quota needs the cpu cgroup controller, and a read-only bind mount
// needs root.
func (c *Cluster) FaultLimits() map[string]string {
	out := map[string]string{
		// every process of the local cluster talks over the loopback
		// interface: a qdisc there would delay them all, and the cluster
		// runs no TaskManager in a network namespace of its own yet
		"network_delay": "the local cluster cannot delay one TaskManager's traffic yet (its processes share the loopback interface; no network namespace per TaskManager)",
	}
	if os.Geteuid() != 0 {
		out["checkpoint_storage"] = "a read-only bind mount needs root"
		out["cpu_throttle"] = "a CPU quota needs root (the cpu cgroup controller)"
	} else if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err != nil {
		if _, err := os.Stat(filepath.Join(cgroupRoot, "cpu")); err != nil {
			out["cpu_throttle"] = "no cpu cgroup controller is mounted at " + cgroupRoot
		}
	}
	return out
}

// FreezeTaskManager stops TaskManager i's process group (SIGSTOP), as a
// long GC pause or a hung host: its sockets stay open and unanswered.
func (c *Cluster) FreezeTaskManager(i int) error { return c.signalTaskManager(i, syscall.SIGSTOP) }

// ThawTaskManager continues a frozen TaskManager i (SIGCONT).
func (c *Cluster) ThawTaskManager(i int) error { return c.signalTaskManager(i, syscall.SIGCONT) }

func (c *Cluster) signalTaskManager(i int, sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := c.runningTaskManager(i)
	if err != nil {
		return err
	}
	signalGroup(p.PID, sig)
	return nil
}

// runningTaskManager is TaskManager i's process, if it runs. c.mu is held.
func (c *Cluster) runningTaskManager(i int) (Process, error) {
	j, err := c.taskManager(i)
	if err != nil {
		return Process{}, err
	}
	p := c.state.Processes[j]
	if !alive(p.PID, c.mark(p)) {
		return p, fmt.Errorf("%s is not running", p.Name)
	}
	return p, nil
}

// ThrottleTaskManager limits TaskManager i to cores CPUs (its cgroup's CFS
// quota, as --tm-cpu sets it); UnthrottleTaskManager restores the
// cluster's limit, or none.
func (c *Cluster) ThrottleTaskManager(i int, cores float64) error {
	if !(cores > 0) {
		return fmt.Errorf("CPU limit must be positive, got %g cores", cores)
	}
	return c.quota(i, cores)
}

// UnthrottleTaskManager undoes ThrottleTaskManager.
func (c *Cluster) UnthrottleTaskManager(i int) error { return c.quota(i, c.state.TaskManagerCPU) }

func (c *Cluster) quota(i int, cores float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := c.runningTaskManager(i)
	if err != nil {
		return err
	}
	if cores > 0 {
		return limitCPU(c.layout.Dir, p.Name, p.PID, cores)
	}
	path, v2 := cpuCgroup(c.layout.Dir, p.Name)
	if err := setQuota(path, v2, 0); err != nil {
		return fmt.Errorf("lifting the CPU limit of %s: %w", p.Name, err)
	}
	return nil
}

// CPULimit is TaskManager i's CFS quota in cores, 0 when unlimited; an
// error when its cgroup cannot be read (no limit was ever set).
func (c *Cluster) CPULimit(i int) (float64, error) {
	path, v2 := cpuCgroup(c.layout.Dir, TaskManagerID(i))
	return readQuota(path, v2)
}

// StopKafka shuts the broker down (SIGTERM: a controlled shutdown, then
// SIGKILL after the stop grace); StartKafka starts it again on its data.
func (c *Cluster) StopKafka() error {
	grace := c.grace
	if grace == 0 {
		grace = DefaultConfig().StopGrace
	}
	return c.endNamed("kafka", sigterm, grace)
}

// StartKafka starts the broker stopped by StopKafka; it serves again once
// its log is recovered (see KafkaMetadata).
func (c *Cluster) StartKafka() error { return c.startNamed("kafka") }

// KillJobManager SIGKILLs the JobManager. Without high availability its
// jobs die with it.
func (c *Cluster) KillJobManager() error { return c.endNamed("jobmanager", sigkill, 5*time.Second) }

// StartJobManager starts the JobManager again, as Kubernetes restarts its
// pod; the TaskManagers register with it again.
func (c *Cluster) StartJobManager() error { return c.startNamed("jobmanager") }

func (c *Cluster) endNamed(name string, sig syscall.Signal, grace time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	j, err := c.process(name)
	if err != nil {
		return err
	}
	return c.end(j, sig, grace)
}

func (c *Cluster) startNamed(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	j, err := c.process(name)
	if err != nil {
		return err
	}
	return c.startAgain(j)
}

// process is the index of the process called name in the state.
func (c *Cluster) process(name string) (int, error) {
	for j, p := range c.state.Processes {
		if p.Name == name {
			return j, nil
		}
	}
	return 0, fmt.Errorf("%s is not recorded in %s", name, c.layout.pidsFile())
}

// ReadOnly makes folder dir read-only for every process, root included (a
// read-only bind mount of dir onto itself), as checkpoint storage that
// refuses writes; reading still works. Writable undoes it.
func (c *Cluster) ReadOnly(dir string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Contains(c.state.ReadOnly, dir) {
		return nil
	}
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mounting %s: %w (needs root, or CAP_SYS_ADMIN)", dir, err)
	}
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		_ = syscall.Unmount(dir, 0)
		return fmt.Errorf("making %s read-only: %w", dir, err)
	}
	c.state.ReadOnly = append(c.state.ReadOnly, dir)
	return writeState(c.layout.pidsFile(), c.state)
}

// Writable undoes ReadOnly(dir).
func (c *Cluster) Writable(dir string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(c.state.ReadOnly, dir) {
		return nil
	}
	if err := unmount(dir); err != nil {
		return err
	}
	c.state.ReadOnly = slices.DeleteFunc(c.state.ReadOnly, func(d string) bool { return d == dir })
	return writeState(c.layout.pidsFile(), c.state)
}

// undoReadOnly unmounts every folder ReadOnly left read-only. c.mu is held.
func (c *Cluster) undoReadOnly() error {
	var errs []error
	for _, dir := range c.state.ReadOnly {
		errs = append(errs, unmount(dir))
	}
	c.state.ReadOnly = nil
	return errors.Join(errs...)
}

// unmount removes the bind mount on dir; one already gone is fine. A
// writer still holding a file open there keeps it busy for a moment.
func unmount(dir string) error {
	var err error
	for try := 0; try < 50; try++ {
		if err = syscall.Unmount(dir, 0); err == nil || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("unmounting the read-only %s: %w", dir, err)
}
