package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// liveEnv gates the tests that start JVMs (and, on a first run, download
// ~160 MB of jars with Maven).
const liveEnv = "STREAMTWIN_LIVE"

func needLive(t *testing.T) {
	t.Helper()
	if os.Getenv(liveEnv) == "" {
		t.Skip("set STREAMTWIN_LIVE=1 to start a real Kafka + Flink cluster (needs java 17 and mvn; first run downloads jars)")
	}
}

// testContext ends a minute before the test binary's deadline, so that a
// hanging start fails through Up's own cleanup instead of the panic of
// `go test -timeout`, which runs no t.Cleanup.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	if dl, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(context.Background(), dl.Add(-time.Minute))
	}
	t.Cleanup(cancel)
	return ctx
}

// freePorts returns n distinct ports that were free on 127.0.0.1 a moment
// ago (the tests do not take the default ports a developer's cluster uses).
// They come from below the kernel's ephemeral range (32768 and up on
// Linux): a port the kernel handed out as ephemeral could be handed again
// to one of the cluster's own JVMs (their RPC and blob servers bind port
// 0) between this call and the process meant to bind it, as happened to a
// Prometheus port once.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000 {
			t.Fatalf("no %d free ports in 20000–32767", n)
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", 20000+rng.IntN(12768)))
		if err != nil {
			continue // taken
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// stateDir is a fresh state folder, kept after the test (and logged) when
// STREAMTWIN_LIVE_KEEP is set, for reading the logs of a failure.
func stateDir(t *testing.T) string {
	t.Helper()
	if os.Getenv("STREAMTWIN_LIVE_KEEP") == "" {
		return t.TempDir()
	}
	d, err := os.MkdirTemp("", "streamtwin-live-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("state folder kept: %s", d)
	return d
}

// startCluster runs Up and registers Down with t.Cleanup, so the processes
// stop whatever the test does after.
func startCluster(ctx context.Context, t *testing.T, cfg Config) *Cluster {
	t.Helper()
	c, err := Up(ctx, cfg)
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Cleanup(func() {
		if len(c.running()) == 0 {
			return
		}
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Down(dctx); err != nil {
			t.Errorf("cleanup Down: %v", err)
		}
	})
	return c
}

func TestLiveClusterEndToEnd(t *testing.T) {
	needLive(t)
	ctx := testContext(t)

	t0 := time.Now()
	jars, err := Resolve(ctx, "")
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	t.Logf("Resolve: %.2fs (Flink %s in %s, Kafka %s in %s)", time.Since(t0).Seconds(),
		jars.Versions.Flink, jars.FlinkLib, jars.Versions.Kafka, jars.KafkaLib)

	p := freePorts(t, 4)
	cfg := Config{
		Dir:          stateDir(t),
		TaskManagers: 2,
		Slots:        2,
		Ports:        Ports{JobManagerRPC: p[0], REST: p[1], Kafka: p[2], KafkaController: p[3]},
		Log:          t.Logf,
	}
	t0 = time.Now()
	c := startCluster(ctx, t, cfg)
	t.Logf("Up: healthy with 2 taskmanagers after %.1fs; endpoints %+v", time.Since(t0).Seconds(), c.Endpoints())

	o, err := c.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.TaskManagers != 2 || o.SlotsTotal != 4 || o.FlinkVersion != jars.Versions.Flink {
		t.Fatalf("overview = %+v, want 2 taskmanagers, 4 slots, Flink %s", o, jars.Versions.Flink)
	}
	ids, err := c.TaskManagerIDs(ctx)
	if err != nil || len(ids) != 2 {
		t.Fatalf("taskmanager ids %v, %v", ids, err)
	}
	for _, id := range ids {
		if id != "tm-1" && id != "tm-2" {
			t.Errorf("taskmanager id %q, want tm-1/tm-2 (taskmanager.resource-id)", id)
		}
	}
	md, err := c.KafkaMetadata(ctx)
	if err != nil || len(md.Brokers) != 1 || md.Controller != 1 {
		t.Fatalf("kafka metadata %+v, %v: want 1 broker, controller 1", md, err)
	}
	// flink-runtime-web is on the classpath: the jar upload API exists
	resp, err := http.Get(c.Endpoints().REST + "/jars")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /jars: %s (flink-runtime-web missing?)", resp.Status)
	}
	for _, ps := range c.Processes() {
		t.Logf("%-10s pid %-7d RSS %4d MiB, CPU %.1fs", ps.Name, ps.PID, ps.RSSKiB/1024, ps.CPU.Seconds())
	}

	// pids.json round trip
	a, err := Attach(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(a.running()), 4; got != want {
		t.Fatalf("attached cluster runs %d processes, want %d", got, want)
	}

	// crash tm-1: /overview drops to 1 well within the heartbeat timeout
	if err := c.KillTaskManager(1); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, HeartbeatTimeout+5*time.Second)
	lost, err := c.WaitTaskManagers(wctx, 1)
	cancel()
	if err != nil {
		t.Fatalf("after SIGKILL of tm-1: %v", err)
	}
	t.Logf("tm-1 SIGKILLed: /overview shows 1 taskmanager after %.2fs (heartbeat interval %v, timeout %v)",
		lost.Seconds(), HeartbeatInterval, HeartbeatTimeout)
	if err := c.KillTaskManager(1); err == nil {
		t.Error("killing a dead taskmanager succeeded")
	}

	if err := c.RestartTaskManager(1); err != nil {
		t.Fatal(err)
	}
	wctx, cancel = context.WithTimeout(ctx, time.Minute)
	back, err := c.WaitTaskManagers(wctx, 2)
	cancel()
	if err != nil {
		t.Fatalf("after restart of tm-1: %v", err)
	}
	t.Logf("tm-1 restarted: /overview shows 2 taskmanagers after %.2fs", back.Seconds())
	if ids, _ := c.TaskManagerIDs(ctx); len(ids) != 2 {
		t.Fatalf("ids after restart %v", ids)
	}

	// Down through the attached handle (what `live down` does)
	var pids []int
	for _, p := range c.Processes() {
		pids = append(pids, p.PID)
	}
	a, err = Attach(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	if err := a.Down(ctx); err != nil {
		t.Fatalf("Down: %v", err)
	}
	t.Logf("Down: %.1fs", time.Since(t0).Seconds())
	for _, pid := range pids {
		if alive(pid, "") {
			t.Errorf("pid %d still alive after Down", pid)
		}
	}
	if err := checkPorts(cfg.Ports); err != nil {
		t.Errorf("ports after Down: %v", err)
	}
	if _, err := os.Stat(cfg.Dir + "/pids.json"); !os.IsNotExist(err) {
		t.Errorf("pids.json after Down: %v", err)
	}
	if _, err := Attach(cfg.Dir); err == nil {
		t.Error("Attach after Down succeeded")
	}
}

// A second Up in the same folder refuses while the first runs, and Up
// refuses a port that is taken — both before starting anything.
func TestLiveUpRefuses(t *testing.T) {
	needLive(t)
	ctx := testContext(t)
	p := freePorts(t, 4)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", itoa(p[1])))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := Config{Dir: t.TempDir(), TaskManagers: 1, Slots: 1,
		Ports: Ports{JobManagerRPC: p[0], REST: p[1], Kafka: p[2], KafkaController: p[3]}}
	t0 := time.Now()
	_, err = Up(ctx, cfg)
	if err == nil || !contains(err.Error(), "--rest-port") {
		t.Fatalf("Up with REST port taken: %v", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("port check took %v", d)
	}
	if _, err := os.Stat(cfg.Dir + "/pids.json"); !os.IsNotExist(err) {
		t.Errorf("pids.json written by a refused Up")
	}
}

// A step that fails after Kafka and the JobManager run (TaskManager memory
// too small for BashJavaUtils) leaves nothing running: Up stops what it
// started, removes pids.json and frees the ports.
func TestLiveUpCleansUpOnFailure(t *testing.T) {
	needLive(t)
	ctx := testContext(t)
	p := freePorts(t, 4)
	cfg := Config{Dir: stateDir(t), TaskManagers: 1, Slots: 1, TaskManagerMemory: "256m",
		Ports: Ports{JobManagerRPC: p[0], REST: p[1], Kafka: p[2], KafkaController: p[3]}, Log: t.Logf}
	_, err := Up(ctx, cfg)
	if err == nil {
		t.Fatal("Up with 256m TaskManagers succeeded")
	}
	t.Logf("Up failed as expected: %s", err)
	if !contains(err.Error(), "BashJavaUtils") {
		t.Errorf("error does not name the failing step: %v", err)
	}
	if _, err := os.Stat(cfg.Dir + "/pids.json"); !os.IsNotExist(err) {
		t.Errorf("pids.json left behind: %v", err)
	}
	if err := checkPorts(cfg.Ports); err != nil {
		t.Errorf("ports after failed Up: %v", err)
	}
	// start creates a process's log file as it launches it; the process
	// may not have written to it yet (a JVM under load takes seconds).
	for _, name := range []string{"jobmanager", "kafka"} {
		if _, err := os.Stat(cfg.Dir + "/log/" + name + ".log"); err != nil {
			t.Errorf("%s never started, the cleanup path was not exercised: %v", name, err)
		}
	}
}
