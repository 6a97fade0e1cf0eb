package cluster

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLimitCPU writes a quarter core as a CFS quota of 25,000 µs per
// 100,000 µs, and the pid into the TaskManager's own cgroup, in a v1 and a
// v2 hierarchy (a temporary folder standing in for /sys/fs/cgroup).
func TestLimitCPU(t *testing.T) {
	for _, v2 := range []bool{false, true} {
		root := t.TempDir()
		if v2 {
			os.WriteFile(filepath.Join(root, "cgroup.controllers"), []byte("cpu memory"), 0o644)
		} else {
			os.Mkdir(filepath.Join(root, "cpu"), 0o755)
		}
		old := cgroupRoot
		cgroupRoot = root
		if err := limitCPU("/state/dir", "tm-2", 4242, 0.25); err != nil {
			t.Fatal(err)
		}
		path, isV2 := cpuCgroup("/state/dir", "tm-2")
		if isV2 != v2 {
			t.Fatalf("v2 %v, want %v", isV2, v2)
		}
		read := func(f string) string { b, _ := os.ReadFile(filepath.Join(path, f)); return string(b) }
		if v2 && read("cpu.max") != "25000 100000" || !v2 && (read("cpu.cfs_quota_us") != "25000" || read("cpu.cfs_period_us") != "100000") {
			t.Errorf("v2 %v: quota not written", v2)
		}
		if read("cgroup.procs") != "4242" {
			t.Errorf("v2 %v: cgroup.procs %q", v2, read("cgroup.procs"))
		}
		for _, f := range []string{"cpu.max", "cpu.cfs_quota_us", "cpu.cfs_period_us", "cgroup.procs"} {
			os.Remove(filepath.Join(path, f)) // the kernel's files go with the cgroup
		}
		os.Remove(filepath.Join(filepath.Dir(path), "cgroup.subtree_control"))
		removeCPULimits("/state/dir", []string{"tm-2"})
		if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
			t.Errorf("v2 %v: %s left: %v", v2, filepath.Dir(path), err)
		}
		cgroupRoot = old
	}
}

// TestProcessorCount: a TaskManager's JVM counts the processors a pod's
// JVM would read from the same CPU limit, ceil(limit).
func TestProcessorCount(t *testing.T) {
	for _, tc := range []struct {
		cores float64
		want  []string
	}{
		{0, nil},
		{0.25, []string{"-XX:ActiveProcessorCount=1"}},
		{1, []string{"-XX:ActiveProcessorCount=1"}},
		{1.5, []string{"-XX:ActiveProcessorCount=2"}},
	} {
		if got := processorCount(tc.cores); !slices.Equal(got, tc.want) {
			t.Errorf("processorCount(%g) = %q, want %q", tc.cores, got, tc.want)
		}
	}
}
