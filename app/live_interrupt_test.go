package app

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/live/cluster"
	"github.com/streamtwin/streamtwin/live/rest"
)

// interruptScenario is live-traffic's schedule, shortened: a TaskManager
// kill at 25 s and a CI change by stop-with-savepoint at 50 s; then, from
// 62 s, a freeze, read-only checkpoint storage, a CPU quota and a stopped
// broker in force at once.
const interruptScenario = `name: live-interrupt
seed: 7
duration: 100s
workload: {shape: constant, rate: 2000/s}
kafka: {partitions: 2}
job:
  template: traffic-monitoring
  parallelism: 2
  checkpoint: {interval: 10s, incremental: false}
  restart: {strategy: fixed-delay, delay: 2s, attempts: 0}
  detection: {heartbeat_interval: 2s, heartbeat_timeout: 10s}
  cluster: {taskmanagers: 2, slots: 2}
faults:
  - {at: 25s, operator: sink}
  - {at: 62s, kind: freeze, duration: 30s, taskmanager: 0}
  - {at: 63s, kind: checkpoint_storage, duration: 30s}
  - {at: 64s, kind: cpu_throttle, share: 0.25, duration: 30s, taskmanager: 1}
  - {at: 65s, kind: kafka_broker, duration: 30s}
actions:
  - {at: 50s, checkpoint_interval: 20s}
`

// TestLiveInterrupt interrupts a live run (SIGINT, as Ctrl-C) in each of
// its phases: while it sets up, while the job runs, just after it killed a
// TaskManager, just after the savepoint of a reconfiguration, before the
// job is resubmitted, and with four faults in force. After each the
// cluster must be as the run found it: every process running (live status
// exits 0) and none stopped, no CPU quota and no read-only mount, no job
// running and no topic of the run left.
func TestLiveInterrupt(t *testing.T) {
	if os.Getenv("STREAMTWIN_LIVE") == "" {
		t.Skip("set STREAMTWIN_LIVE=1 to start a real Flink and Kafka (make live-test)")
	}
	dir := t.TempDir()
	cl := liveClusterDir(dir)
	startLiveCluster(t, cl)
	sc := filepath.Join(dir, "live-interrupt.yaml")
	if err := os.WriteFile(sc, []byte(interruptScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	topics := regexp.MustCompile(`kafka .*, (\d+) topics?\n`)
	status := func() (string, string) {
		out, stderr, code, _ := runCLI(t, "live", "status", "--dir", cl)
		if code != 0 {
			t.Fatalf("live status: exit %d\n%s%s", code, out, stderr)
		}
		m := topics.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("live status names no topic count:\n%s", out)
		}
		return out, m[1]
	}
	_, before := status()
	c, err := cluster.Attach(cl)
	if err != nil {
		t.Fatal(err)
	}
	flink := rest.New(c.Endpoints().REST)
	for _, phase := range []struct {
		name string
		// after this stderr line (a prefix), wait, then interrupt; 300 ms
		// after the savepoint line the resubmission runs on the JobManager
		line string
		wait time.Duration
	}{
		{"setup", "", 300 * time.Millisecond},
		{"steady state", "live: job ", 5 * time.Second},
		{"fault", "live: killed TaskManager", 0},
		{"savepoint reconfiguration", "live: savepoint ", 300 * time.Millisecond},
		{"faults in force", "live: Kafka broker down", 500 * time.Millisecond},
	} {
		t.Run(strings.ReplaceAll(phase.name, " ", "-"), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "live", "run", sc, "--dir", cl, "--out", filepath.Join(dir, "run-"+strings.ReplaceAll(phase.name, " ", "-")), "--jar", "../"+defaultJobJar)
			cmd.Env = append(os.Environ(), "STREAMTWIN_MAIN=1")
			pipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var log []string
			seen := phase.line == ""
			sc := bufio.NewScanner(pipe)
			for !seen && sc.Scan() {
				log = append(log, sc.Text())
				seen = strings.HasPrefix(sc.Text(), phase.line)
			}
			if !seen {
				_ = cmd.Wait()
				t.Fatalf("the run ended before a line %q:\n%s", phase.line, strings.Join(log, "\n"))
			}
			time.Sleep(phase.wait)
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			for sc.Scan() {
				log = append(log, sc.Text())
			}
			err = cmd.Wait()
			t.Log(strings.Join(log, "\n"))
			if err == nil {
				t.Error("an interrupted live run exits 0")
			}
			// a submission the run gave up on would show up within seconds
			time.Sleep(10 * time.Second)
			out, after := status()
			if !strings.Contains(out, " 0 jobs running") {
				t.Errorf("a job still runs after the interrupt:\n%s", out)
			}
			jobs, err := flink.Jobs(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range jobs {
				t.Logf("job %s %s %s", j.ID, j.Name, j.State)
				if j.State != "CANCELED" && j.State != "FINISHED" && j.State != "FAILED" {
					t.Errorf("job %s (%s) is %s after the interrupt", j.ID, j.Name, j.State)
				}
			}
			if after != before {
				t.Errorf("%s topics after the interrupt, %s before:\n%s", after, before, out)
			}
			checkFaultsUndone(t, cl)
		})
	}
}
