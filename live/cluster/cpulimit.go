package cluster

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CPU limits for TaskManagers, as a Kubernetes pod's resources.limits.cpu:
// each TaskManager process runs in its own cgroup of the cpu controller
// with a CFS quota of limit × period, so a TaskManager limited to 0.5 gets
// half a core however many the host has (the Daedalus chart's 500m). Both
// cgroup v1 (/sys/fs/cgroup/cpu) and v2 (cpu.max) are handled; it needs
// root, or a delegated hierarchy.

// cgroupRoot is where the cpu controller is mounted; a test may move it.
var cgroupRoot = "/sys/fs/cgroup"

const cfsPeriodUs = 100000

// cpuCgroup is the cgroup folder of process name of the cluster in dir.
func cpuCgroup(dir, name string) (path string, v2 bool) {
	h := sha256.Sum256([]byte(dir))
	leaf := filepath.Join(fmt.Sprintf("streamtwin-%x", h[:6]), name)
	if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil {
		return filepath.Join(cgroupRoot, leaf), true
	}
	return filepath.Join(cgroupRoot, "cpu", leaf), false
}

// limitCPU puts process pid (all its threads) into its cgroup limited to
// cores CPUs.
func limitCPU(dir, name string, pid int, cores float64) error {
	path, v2 := cpuCgroup(dir, name)
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("CPU limit of %s: %w (the cpu cgroup controller needs root; drop --tm-cpu)", name, err)
	}
	err := setQuota(path, v2, cores)
	if err == nil {
		err = os.WriteFile(filepath.Join(path, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644)
	}
	if err != nil {
		return fmt.Errorf("CPU limit of %s in %s: %w", name, path, err)
	}
	return nil
}

// setQuota sets the CFS quota of cgroup path to cores CPUs; cores ≤ 0
// lifts it.
func setQuota(path string, v2 bool, cores float64) error {
	quota := int64(cores * cfsPeriodUs)
	if v2 {
		if werr := os.WriteFile(filepath.Join(filepath.Dir(path), "cgroup.subtree_control"), []byte("+cpu"), 0o644); werr != nil && !errors.Is(werr, os.ErrExist) {
			_ = werr // already enabled, or enabled by the parent: cpu.max tells
		}
		q := "max"
		if cores > 0 {
			q = strconv.FormatInt(quota, 10)
		}
		return os.WriteFile(filepath.Join(path, "cpu.max"), []byte(fmt.Sprintf("%s %d", q, cfsPeriodUs)), 0o644)
	}
	if cores <= 0 {
		quota = -1
	}
	if err := os.WriteFile(filepath.Join(path, "cpu.cfs_period_us"), []byte(strconv.Itoa(cfsPeriodUs)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(path, "cpu.cfs_quota_us"), []byte(strconv.FormatInt(quota, 10)), 0o644)
}

// processorCount is the JVM flag that makes a TaskManager limited to cores
// CPUs size itself as a container's JVM does: inside a pod the JVM reads
// its CPU quota and counts ceil(quota/period) processors, and sizes its
// GC, JIT and common-pool threads by that count; moved into its cgroup
// after it started, it would count the host's cores. (On the 2-core host
// of 2026-12-05 the count did not change what a quarter-core TaskManager
// sustains: make live-capacity read 2,533 and 2,479 records/s past
// capacity without and with it.) No limit: no flag.
func processorCount(cores float64) []string {
	if cores <= 0 {
		return nil
	}
	return []string{fmt.Sprintf("-XX:ActiveProcessorCount=%d", int(math.Ceil(cores)))}
}

// removeCPULimits deletes the cluster's cgroups. A cgroup stays busy until
// its last process is reaped, a moment after it died: it retries for up
// to 5 s.
func removeCPULimits(dir string, names []string) {
	var paths []string
	for _, n := range names {
		path, _ := cpuCgroup(dir, n)
		paths = append(paths, path)
	}
	if len(paths) > 0 {
		paths = append(paths, filepath.Dir(paths[0]))
	}
	for try := 0; try < 50; try++ {
		left := paths[:0]
		for _, p := range paths {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				left = append(left, p)
			}
		}
		if paths = left; len(paths) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// readQuota is the CFS quota of cgroup path in cores, 0 when unlimited.
func readQuota(path string, v2 bool) (float64, error) {
	if v2 {
		b, err := os.ReadFile(filepath.Join(path, "cpu.max"))
		if err != nil {
			return 0, err
		}
		var q string
		var period float64
		if _, err := fmt.Sscan(string(b), &q, &period); err != nil || period <= 0 {
			return 0, fmt.Errorf("%s/cpu.max: cannot read %q", path, b)
		}
		if q == "max" {
			return 0, nil
		}
		n, err := strconv.ParseFloat(q, 64)
		return n / period, err
	}
	b, err := os.ReadFile(filepath.Join(path, "cpu.cfs_quota_us"))
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil || n < 0 {
		return 0, err
	}
	return n / cfsPeriodUs, nil
}
