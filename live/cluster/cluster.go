package cluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/streamtwin/streamtwin/live"
)

// Main classes (flink-dist's flink-console.sh and Kafka's scripts).
const (
	jobManagerClass   = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint"
	taskManagerClass  = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner"
	bashJavaUtilClass = "org.apache.flink.runtime.util.bash.BashJavaUtils"
	kafkaClass        = "kafka.Kafka"
	storageToolClass  = "kafka.tools.StorageTool"
)

// ErrNoCluster: the folder has no pids.json.
var ErrNoCluster = errors.New("no live cluster")

// ErrAlreadyRunning: Up found processes of an earlier Up in the folder.
var ErrAlreadyRunning = errors.New("a live cluster already runs")

// Cluster is a running (or partly running) live cluster.
type Cluster struct {
	mu     sync.Mutex
	layout layout
	state  State
	grace  time.Duration
	http   *http.Client
}

// Endpoints are the addresses clients use.
type Endpoints struct {
	REST  string // Flink REST API and web UI, "http://127.0.0.1:8081"
	Kafka string // Kafka bootstrap servers, "127.0.0.1:9092"
}

// Endpoints returns the REST URL and the Kafka bootstrap address.
func (c *Cluster) Endpoints() Endpoints {
	return Endpoints{
		REST:  fmt.Sprintf("http://127.0.0.1:%d", c.state.Ports.REST),
		Kafka: fmt.Sprintf("127.0.0.1:%d", c.state.Ports.Kafka),
	}
}

// TaskManagers is how many TaskManagers the cluster was started with.
func (c *Cluster) TaskManagers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.TaskManagers
}

// Dir is the absolute state folder.
func (c *Cluster) Dir() string { return c.layout.Dir }

// State returns a copy of what pids.json records.
func (c *Cluster) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.state
	s.Processes = append([]Process(nil), c.state.Processes...)
	return s
}

// TaskManagerID is the resource id of TaskManager i (1-based): "tm-<i>",
// the "id" of GET /taskmanagers.
func TaskManagerID(i int) string { return fmt.Sprintf("tm-%d", i) }

// Up starts Kafka, the JobManager and cfg.TaskManagers TaskManagers and
// waits until /overview shows them all and Kafka answers a metadata
// request. Whatever it started is stopped again if a step fails. The
// processes outlive the caller: stop them with Down (or Attach + Down).
func Up(ctx context.Context, cfg Config) (*Cluster, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	java, javaVersion, err := checkJavaVersion(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Prometheus {
		if _, _, err := prometheusTools(); err != nil {
			return nil, err
		}
	}
	l, err := newLayout(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if s, err := readState(l.pidsFile()); err == nil {
		old := &Cluster{layout: l, state: s}
		if run := old.running(); len(run) > 0 {
			return nil, fmt.Errorf("%w in %s (%s): stop it with `streamtwin live down --dir %s`",
				ErrAlreadyRunning, l.Dir, strings.Join(run, ", "), cfg.Dir)
		}
		_ = os.Remove(l.pidsFile()) // stale: nothing of it runs
	}
	if err := checkPortList(append(cfg.Ports.list(), cfg.PrometheusPorts.list()...)); err != nil {
		return nil, err
	}
	jars, err := resolve(ctx, cfg.CacheDir, live.Pinned(), cfg.Prometheus, cfg.Log)
	if err != nil {
		return nil, err
	}
	if err := prepareDir(cfg, l); err != nil {
		return nil, err
	}
	if err := preparePrometheus(cfg, l, jars); err != nil {
		return nil, err
	}

	c := &Cluster{
		layout: l,
		grace:  cfg.StopGrace,
		http:   &http.Client{Timeout: 3 * time.Second},
		state: State{
			Dir: l.Dir, Flink: jars.Versions.Flink, Kafka: jars.Versions.Kafka,
			Ports: cfg.Ports, PrometheusPorts: cfg.PrometheusPorts, TaskManagers: cfg.TaskManagers, Slots: cfg.Slots, TaskManagerCPU: cfg.TaskManagerCPU,
			Created: time.Now().UTC(),
		},
	}
	if err := c.boot(ctx, cfg, java, javaVersion, jars); err != nil {
		cfg.Log("start failed, stopping what was started")
		stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if derr := c.Down(stopCtx); derr != nil {
			err = fmt.Errorf("%w\n(cleanup: %v)", err, derr)
		}
		return nil, err
	}
	return c, nil
}

// prepareDir creates the folders and writes the configuration files. Kafka
// data and tmp are wiped: every Up is a fresh cluster. Logs are truncated
// when their process starts.
func prepareDir(cfg Config, l layout) error {
	for _, d := range []string{l.KafkaData, l.Tmp} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	// plugins/: Flink looks for it in the working directory (= Dir); empty
	// unless a metric reporter is put there
	for _, d := range []string{l.Conf, l.Log, l.KafkaData, l.Checkpoints, l.Savepoints, filepath.Join(l.Dir, "plugins"),
		filepath.Join(l.Tmp, "io"), filepath.Join(l.Tmp, "jvm"), filepath.Join(l.Tmp, "web"), filepath.Join(l.Tmp, "web-upload")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		"config.yaml": renderYAML(flinkConfig(cfg, l),
			"# written by streamtwin live up; regenerated on every up\n"),
		"log4j-console.properties": flinkLog4j,
		"server.properties": renderProperties(kafkaProperties(cfg, l),
			"# written by streamtwin live up: one Kafka node, KRaft combined mode\n"),
		"kafka-log4j2.properties": kafkaLog4j2,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(l.Conf, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// boot starts the processes in order and waits for health.
func (c *Cluster) boot(ctx context.Context, cfg Config, java, javaVersion string, jars Jars) error {
	l := c.layout
	env := os.Environ()
	t0 := time.Now()
	cds := func(lib, role string, dump bool) ([]string, cdsFiles) {
		if cfg.DisableCDS {
			return nil, cdsFiles{}
		}
		flags, archive, dumpPath := cdsPlan(filepath.Join(filepath.Dir(lib), "cds"), role, cdsKey(javaVersion, lib), dump)
		return flags, cdsFiles{archive, dumpPath}
	}

	// JobManager first: it takes longest, and the rest starts beside it.
	cfg.Log("starting jobmanager (Flink %s)", jars.Versions.Flink)
	jmCDS, jmFiles := cds(jars.FlinkLib, "jobmanager", true)
	jm := append([]string{java}, javaModuleFlags...)
	jm = append(jm, jmCDS...)
	// C1 only: the JobManager coordinates and serves REST, its peak speed
	// does not matter, and C2 compiles cost a third of its start CPU
	jm = append(jm, "-XX:TieredStopAtLevel=1")
	jm = append(jm, "-Xmx"+cfg.JobManagerHeap, "-XX:MaxMetaspaceSize=256m", "-XX:+UseG1GC",
		"-Djava.io.tmpdir="+filepath.Join(l.Tmp, "jvm"),
		"-Dlog.file="+l.logFile("jobmanager"),
		"-Dlog4j.configurationFile="+fileURI(filepath.Join(l.Conf, "log4j-console.properties")),
		marker(l.Dir, "jobmanager"),
		"-cp", jars.FlinkClasspath(), jobManagerClass, "--configDir", l.Conf)
	if cfg.Prometheus {
		jm = append(jm, flinkMetricsPortArg(cfg.PrometheusPorts, 0))
	}
	if err := c.launch("jobmanager", jm, env, jmFiles); err != nil {
		return err
	}

	cfg.Log("formatting kafka storage (KRaft, --standalone)")
	props := filepath.Join(l.Conf, "server.properties")
	k4j := "-Dlog4j2.configurationFile=" + fileURI(filepath.Join(l.Conf, "kafka-log4j2.properties"))
	if err := runShort(ctx, 90*time.Second, l.logFile("kafka-format"), env,
		java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", k4j, "-cp", jars.KafkaClasspath(), storageToolClass,
		"format", "--cluster-id", newClusterID(), "--config", props, "--standalone"); err != nil {
		return fmt.Errorf("formatting kafka storage: %w", err)
	}
	cfg.Log("starting kafka %s", jars.Versions.Kafka)
	kCDS, kFiles := cds(jars.KafkaLib, "kafka", true)
	kafka := append([]string{java}, kCDS...)
	kafka = append(kafka, "-Xmx"+cfg.KafkaHeap, "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
		"-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
		"-Djava.awt.headless=true", "-Djava.io.tmpdir="+filepath.Join(l.Tmp, "jvm"), k4j, "-Dkafka.logs.dir="+l.Log,
		marker(l.Dir, "kafka"), "-cp", jars.KafkaClasspath(), kafkaClass, props)
	if err := c.launch("kafka", kafka, env, kFiles); err != nil {
		return err
	}

	jvm, dyn, err := taskManagerParams(ctx, java, jars, l, env)
	if err != nil {
		return err
	}
	cfg.Log("starting %d taskmanagers × %d slots (%s each)", cfg.TaskManagers, cfg.Slots, cfg.TaskManagerMemory)
	for i := 1; i <= cfg.TaskManagers; i++ {
		name := TaskManagerID(i)
		tmCDS, tmFiles := cds(jars.FlinkLib, "taskmanager", i == 1)
		tm := append([]string{java}, javaModuleFlags...)
		tm = append(tm, tmCDS...)
		tm = append(tm, "-XX:+UseG1GC")
		tm = append(tm, processorCount(cfg.TaskManagerCPU)...)
		tm = append(tm, jvm...)
		tm = append(tm, "-Djava.io.tmpdir="+filepath.Join(l.Tmp, "jvm"), "-Dlog.file="+l.logFile(name),
			"-Dlog4j.configurationFile="+fileURI(filepath.Join(l.Conf, "log4j-console.properties")),
			marker(l.Dir, name),
			"-cp", jars.FlinkClasspath(), taskManagerClass, "--configDir", l.Conf,
			"-Dtaskmanager.resource-id="+name)
		tm = append(tm, dyn...)
		if cfg.Prometheus {
			tm = append(tm, flinkMetricsPortArg(cfg.PrometheusPorts, i))
		}
		if err := c.launch(name, tm, env, tmFiles); err != nil {
			return err
		}
		if err := c.limit(name); err != nil {
			return err
		}
	}
	if cfg.Prometheus {
		if err := c.startPrometheus(cfg, env); err != nil {
			return err
		}
	}

	ctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	if err := c.waitHealthy(ctx, cfg.TaskManagers, cfg.Slots); err != nil {
		return err
	}
	if cfg.Prometheus {
		if err := c.waitPrometheus(ctx); err != nil {
			return err
		}
	}
	cfg.Log("healthy after %.1fs", time.Since(t0).Seconds())
	return nil
}

// launch starts one process and records it in pids.json at once, so that
// `live down` finds it even if this process dies during Up.
type cdsFiles struct{ archive, dump string }

func (c *Cluster) launch(name string, argv, env []string, cds cdsFiles) error {
	return c.launchMarked(name, "", argv, env, cds)
}

// launchMarked is launch for a process whose command line cannot carry
// -Dstreamtwin.live (not a JVM): mark is one of its arguments that names
// this cluster's folder ("" = the -D marker).
func (c *Cluster) launchMarked(name, mark string, argv, env []string, cds cdsFiles) error {
	pid, err := start(argv, c.layout.Dir, c.layout.logFile(name), false, env)
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state.Processes = append(c.state.Processes, Process{
		Name: name, PID: pid, Args: argv, Log: c.layout.logFile(name), Started: time.Now().UTC(),
		CDSDump: cds.dump, CDSArchive: cds.archive, Marker: mark,
	})
	return writeState(c.layout.pidsFile(), c.state)
}

// mark is the command-line argument that makes p's pid ours.
func (c *Cluster) mark(p Process) string {
	if p.Marker != "" {
		return p.Marker
	}
	return marker(c.layout.Dir, p.Name)
}

// limit applies the TaskManagers' CPU limit to process name, if any.
func (c *Cluster) limit(name string) error {
	if c.state.TaskManagerCPU <= 0 {
		return nil
	}
	for _, p := range c.state.Processes {
		if p.Name == name && p.PID > 0 {
			return limitCPU(c.layout.Dir, name, p.PID, c.state.TaskManagerCPU)
		}
	}
	return nil
}

// runShort runs a short-lived command with its output in logPath.
func runShort(ctx context.Context, timeout time.Duration, logPath string, env []string, argv ...string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.Env = f, f, env
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v; tail of %s:\n%s", err, logPath, logTail(logPath, 20))
	}
	return nil
}

// newClusterID is a Kafka Uuid: 16 random bytes, URL-safe base64 without
// padding, not starting with '-' (as kafka-storage random-uuid makes them).
func newClusterID() string {
	for {
		var b [16]byte
		_, _ = rand.Read(b[:])
		id := base64.RawURLEncoding.EncodeToString(b[:])
		if id[0] != '-' {
			return id
		}
	}
}

// taskManagerParams runs BashJavaUtils GET_TM_RESOURCE_PARAMS once (all
// TaskManagers share config.yaml): JVM flags and -D memory settings.
func taskManagerParams(ctx context.Context, java string, jars Jars, l layout, env []string) (jvm, dyn []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	args := append([]string{}, javaModuleFlags...)
	args = append(args, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
		"-Dlog4j.configurationFile="+fileURI(filepath.Join(l.Conf, "log4j-console.properties")),
		"-cp", jars.FlinkClasspath(), bashJavaUtilClass, "GET_TM_RESOURCE_PARAMS", "--configDir", l.Conf)
	cmd := exec.CommandContext(ctx, java, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	_ = os.WriteFile(l.logFile("bash-java-utils"), out, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("BashJavaUtils GET_TM_RESOURCE_PARAMS (TaskManager memory settings): %v\n%s", err, javaErrors(string(out), 20))
	}
	return parseBashJavaUtils(string(out))
}

// javaErrors picks the exception lines of a JVM's output, or its tail.
func javaErrors(out string, n int) string {
	var picked []string
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "Exception in thread") || strings.HasPrefix(t, "Caused by:") {
			picked = append(picked, t)
		}
	}
	if len(picked) == 0 {
		return tail(out, n)
	}
	return strings.Join(picked, "\n")
}

// parseBashJavaUtils takes the last two BASH_JAVA_UTILS_EXEC_RESULT: lines:
// JVM parameters, then dynamic configs ("-D k=v -D k=v …"), as
// taskmanager.sh does.
func parseBashJavaUtils(out string) (jvm, dyn []string, err error) {
	const prefix = "BASH_JAVA_UTILS_EXEC_RESULT:"
	var res []string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			res = append(res, rest)
		}
	}
	if len(res) < 2 {
		return nil, nil, fmt.Errorf("BashJavaUtils printed %d result lines, want 2:\n%s", len(res), tail(out, 20))
	}
	jvm = strings.Fields(res[len(res)-2])
	dyn = strings.Fields(res[len(res)-1])
	if len(jvm) == 0 || !strings.HasPrefix(jvm[0], "-X") {
		return nil, nil, fmt.Errorf("BashJavaUtils: unexpected JVM parameters %q", res[len(res)-2])
	}
	return jvm, dyn, nil
}

// Attach reopens the cluster recorded in dir/pids.json. It does not check
// health: see Status.
func Attach(dir string) (*Cluster, error) {
	l, err := newLayout(dir)
	if err != nil {
		return nil, err
	}
	s, err := readState(l.pidsFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s (no pids.json)", ErrNoCluster, l.Dir)
	}
	if err != nil {
		return nil, err
	}
	return &Cluster{layout: l, state: s, grace: DefaultConfig().StopGrace,
		http: &http.Client{Timeout: 3 * time.Second}}, nil
}

// ProcessStatus is a Process with what /proc says now.
type ProcessStatus struct {
	Process
	Alive  bool
	RSSKiB int64         // resident memory, 0 when not alive
	CPU    time.Duration // user+system CPU time so far
}

// Processes lists the recorded processes with liveness and RSS.
func (c *Cluster) Processes() []ProcessStatus {
	var out []ProcessStatus
	for _, p := range c.State().Processes {
		ps := ProcessStatus{Process: p, Alive: alive(p.PID, c.mark(p))}
		if ps.Alive {
			ps.RSSKiB = rssKiB(p.PID)
			ps.CPU = cpuTime(p.PID)
		}
		out = append(out, ps)
	}
	return out
}

// running names the recorded processes still alive ("tm-1 pid 123").
func (c *Cluster) running() []string {
	var run []string
	for _, p := range c.Processes() {
		if p.Alive {
			run = append(run, fmt.Sprintf("%s pid %d", p.Name, p.PID))
		}
	}
	return run
}

// Down stops every recorded process (SIGTERM to its process group, SIGKILL
// after the grace period or when ctx ends), checks that the fixed ports are
// free again and removes pids.json.
func (c *Cluster) Down(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	grace := c.grace
	if grace == 0 {
		grace = DefaultConfig().StopGrace
	}
	procs := map[int]string{}
	for _, p := range c.state.Processes {
		if m := c.mark(p); alive(p.PID, m) {
			procs[p.PID] = m
			signalGroup(p.PID, syscall.SIGCONT) // a frozen process acts on no other signal
			signalGroup(p.PID, sigterm)
			if p.CDSDump != "" {
				// writing a class-data archive at exit takes ~8 s of CPU
				// per JVM (once per jar set and JDK)
				grace = max(grace, cdsDumpGrace)
			}
		}
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < grace+5*time.Second {
		grace = max(time.Until(dl)-5*time.Second, time.Second)
	}
	left := waitDead(procs, grace)
	killed := left
	for pid := range left {
		signalGroup(pid, sigkill)
	}
	if left = waitDead(left, 5*time.Second); len(left) > 0 {
		var pids []string
		for pid := range left {
			pids = append(pids, fmt.Sprint(pid))
		}
		return fmt.Errorf("pids %s survive SIGKILL", strings.Join(pids, ", "))
	}
	for i, p := range c.state.Processes {
		if p.PID > 0 {
			_, sigkilled := killed[p.PID]
			keepArchive(p, !sigkilled)
		}
		c.state.Processes[i].PID = 0
	}
	// also without --tm-cpu: a cpu_throttle fault makes the cgroups
	var names []string
	for i := 1; i <= c.state.TaskManagers; i++ {
		names = append(names, TaskManagerID(i))
	}
	removeCPULimits(c.layout.Dir, names)
	if err := c.undoReadOnly(); err != nil {
		return err
	}
	if err := os.Remove(c.layout.pidsFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := waitPortsFree(ctx, append(c.state.Ports.list(), c.state.PrometheusPorts.list()...), 10*time.Second); err != nil {
		return fmt.Errorf("processes stopped but %w", err)
	}
	return nil
}
