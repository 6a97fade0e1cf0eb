package cluster

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// procState is the state letter of pid in /proc (R, S, T for stopped, …).
func procState(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0]
}

// TestLiveFaultInjectors: each fault's mechanism on a real cluster, its
// effect and its undoing: a frozen TaskManager is stopped (T) and runs
// again; a throttled one has a CFS quota that is lifted; a stopped broker
// refuses connections and serves again (its start time is logged: the
// twin's kafka.broker_start); a killed JobManager comes back with both
// TaskManagers; a read-only folder refuses writes and takes them again;
// and Down undoes a freeze, a quota and a read-only folder left behind.
func TestLiveFaultInjectors(t *testing.T) {
	needLive(t)
	ctx := testContext(t)
	p := freePorts(t, 4)
	dir := stateDir(t)
	c := startCluster(ctx, t, Config{Dir: dir, TaskManagers: 2, Slots: 1,
		Ports: Ports{JobManagerRPC: p[0], REST: p[1], Kafka: p[2], KafkaController: p[3]}, Log: t.Logf})
	pid := func(name string) int {
		j, err := c.process(name)
		if err != nil {
			t.Fatal(err)
		}
		return c.state.Processes[j].PID
	}

	if err := c.FreezeTaskManager(1); err != nil {
		t.Fatal(err)
	}
	// a signal is delivered asynchronously: the state follows within moments
	settles := func(stopped bool) string {
		var s string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if s = procState(t, pid("tm-1")); (s == "T") == stopped {
				break
			}
		}
		return s
	}
	if s := settles(true); s != "T" {
		t.Errorf("frozen tm-1 is in state %s, want T", s)
	}
	if err := c.ThawTaskManager(1); err != nil {
		t.Fatal(err)
	}
	if s := settles(false); s == "T" {
		t.Error("thawed tm-1 is still stopped")
	}

	if err := c.ThrottleTaskManager(2, 0.25); err != nil {
		t.Fatal(err)
	}
	if q, err := c.CPULimit(2); err != nil || q != 0.25 {
		t.Errorf("throttled tm-2's quota: %g cores (%v), want 0.25", q, err)
	}
	if err := c.UnthrottleTaskManager(2); err != nil {
		t.Fatal(err)
	}
	if q, err := c.CPULimit(2); err != nil || q != 0 {
		t.Errorf("unthrottled tm-2's quota: %g cores (%v), want none", q, err)
	}

	if err := c.StopKafka(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.KafkaMetadata(ctx); err == nil {
		t.Error("the stopped broker still serves metadata")
	}
	t0 := time.Now()
	if err := c.StartKafka(); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := c.KafkaMetadata(ctx); err == nil {
			break
		}
		if time.Since(t0) > time.Minute {
			t.Fatal("the broker does not serve a minute after its start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("broker serving %.2f s after its start (kafka.broker_start)", time.Since(t0).Seconds())

	if err := c.KillJobManager(); err != nil {
		t.Fatal(err)
	}
	if err := c.StartJobManager(); err != nil {
		t.Fatal(err)
	}
	if d, err := c.WaitTaskManagers(ctx, 2); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("JobManager back with both TaskManagers %.1f s after its start", d.Seconds())
	}

	folder := filepath.Join(dir, "ckpt")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := c.ReadOnly(folder); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "x"), nil, 0o644); err == nil {
		t.Error("a read-only folder took a write")
	}
	if err := c.Writable(folder); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "x"), nil, 0o644); err != nil {
		t.Errorf("writable again: %v", err)
	}

	// left behind: Down undoes them all
	tm1 := pid("tm-1")
	for _, err := range []error{c.FreezeTaskManager(1), c.ThrottleTaskManager(2, 0.5), c.ReadOnly(folder)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Down(ctx); err != nil {
		t.Fatalf("Down with a frozen TaskManager, a quota and a read-only folder: %v", err)
	}
	if alive(tm1, "") {
		t.Error("the frozen tm-1 survived Down")
	}
	if b, _ := os.ReadFile("/proc/mounts"); strings.Contains(string(b), folder) {
		t.Errorf("%s is still mounted after Down", folder)
	}
	if _, err := c.CPULimit(2); err == nil {
		t.Error("tm-2's cgroup survived Down")
	}
}

// TestFaultLimitsRefuseNetworkDelay: the local cluster's processes share
// the loopback interface, so a network_delay fault is refused before a run
// starts (control.Check), never silently dropped.
func TestFaultLimitsRefuseNetworkDelay(t *testing.T) {
	if why := (&Cluster{}).FaultLimits()["network_delay"]; !strings.Contains(why, "loopback") {
		t.Errorf("FaultLimits()[network_delay] = %q, want the reason it cannot be injected", why)
	}
}
