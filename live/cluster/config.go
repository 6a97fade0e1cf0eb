package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Ports are the fixed ports of the cluster on 127.0.0.1. TaskManager RPC,
// data and blob ports are random (0), so several TaskManagers share the host.
type Ports struct {
	JobManagerRPC   int `json:"jobManagerRPC"`   // jobmanager.rpc.port, default 6123
	REST            int `json:"rest"`            // rest.port (web UI and REST API), default 8081
	Kafka           int `json:"kafka"`           // Kafka PLAINTEXT listener, default 9092
	KafkaController int `json:"kafkaController"` // Kafka KRaft CONTROLLER listener, default 9093
}

// PrometheusPorts are the ports of Config.Prometheus (all 0 without): the
// Prometheus server (default 9090), node-exporter (9100), and Flink's
// Prometheus reporters: the JobManager on FlinkMetrics (9249), TaskManager
// i on FlinkMetrics+i, FlinkMetricsCount ports in all (1 + TaskManagers).
type PrometheusPorts struct {
	Prometheus        int `json:"prometheus"`
	NodeExporter      int `json:"nodeExporter"`
	FlinkMetrics      int `json:"flinkMetrics"`
	FlinkMetricsCount int `json:"flinkMetricsCount"`
}

// DefaultPorts are the ports of a default Flink and Kafka installation.
var DefaultPorts = Ports{JobManagerRPC: 6123, REST: 8081, Kafka: 9092, KafkaController: 9093}

// port is one fixed port with the CLI flag that changes it (for messages).
type port struct {
	name string
	flag string
	num  int
}

func (p Ports) list() []port {
	return []port{
		{"JobManager RPC", "--jm-rpc-port", p.JobManagerRPC},
		{"REST", "--rest-port", p.REST},
		{"Kafka", "--kafka-port", p.Kafka},
		{"Kafka controller", "--controller-port", p.KafkaController},
	}
}

// list is empty without Prometheus.
func (p PrometheusPorts) list() []port {
	if p == (PrometheusPorts{}) {
		return nil
	}
	l := []port{{"Prometheus", "--prometheus-port", p.Prometheus}, {"node-exporter", "--node-exporter-port", p.NodeExporter}}
	for i := range p.FlinkMetricsCount {
		name := "Flink metrics (jobmanager)"
		if i > 0 {
			name = "Flink metrics (" + TaskManagerID(i) + ")"
		}
		l = append(l, port{name, "--flink-metrics-port", p.FlinkMetrics + i})
	}
	return l
}

// DefaultPrometheusPorts are the ports of `live up --prometheus`: each
// program's own default (Flink's reporter: 9249 for the JobManager, the
// TaskManagers after it).
var DefaultPrometheusPorts = PrometheusPorts{Prometheus: 9090, NodeExporter: 9100, FlinkMetrics: 9249}

// Config describes a live cluster. The zero value of a field means its
// default (see withDefaults); DefaultConfig shows them all.
type Config struct {
	// Dir is the state folder: conf/ (config.yaml, server.properties, log4j),
	// log/<name>.log, data/kafka, checkpoints/, savepoints/, tmp/ and
	// pids.json. Default ".streamtwin-live".
	Dir string

	TaskManagers int // number of TaskManager processes, default 2
	// TaskManagerCPU limits each TaskManager process to this many cores
	// (a cgroup CFS quota, as a pod's resources.limits.cpu); 0: no limit.
	TaskManagerCPU float64
	Slots          int // taskmanager.numberOfTaskSlots, default 2
	Ports          Ports

	// TaskManagerMemory is taskmanager.memory.process.size of each
	// TaskManager JVM (default "1024m"); BashJavaUtils derives -Xmx etc.
	TaskManagerMemory string
	// ManagedMemoryFraction is taskmanager.memory.managed.fraction (default
	// 0.1, Flink's is 0.4). With the default hashmap state backend managed
	// memory lies idle, and at 1024m Flink's 0.4 leaves 25 MiB of task heap;
	// 0.1 leaves about 200 MiB. Raise it for RocksDB.
	ManagedMemoryFraction float64
	JobManagerHeap        string // -Xmx of the JobManager, default "512m"
	KafkaHeap             string // -Xmx of the broker, default "512m"

	// StateBackend is state.backend.type: "hashmap" (default) or "rocksdb".
	StateBackend string
	// KafkaPartitions is the broker's num.partitions for auto-created
	// topics, default 4.
	KafkaPartitions int

	// FlinkConfig adds or overrides keys of config.yaml (e.g.
	// "jobmanager.scheduler": "adaptive").
	FlinkConfig map[string]string

	// Prometheus also starts node-exporter (collectors cpu, meminfo,
	// diskstats, netdev) and a Prometheus server scraping it and Flink's
	// Prometheus reporter (on the JobManager and every TaskManager) every
	// second: see prometheus.go. Needs Debian's prometheus and
	// prometheus-node-exporter (or prometheus and node_exporter on PATH).
	Prometheus bool
	// PrometheusPorts are its ports; zero fields get
	// DefaultPrometheusPorts, FlinkMetricsCount is 1 + TaskManagers.
	PrometheusPorts PrometheusPorts

	// DisableCDS turns off the class-data-sharing archives (see cds.go).
	DisableCDS bool

	// CacheDir holds the resolved jars; "" means DefaultCacheDir().
	CacheDir string
	// StartTimeout bounds the wait for a healthy cluster, default 3 min.
	StartTimeout time.Duration
	// StopGrace is how long Down waits after SIGTERM before SIGKILL,
	// default 15 s.
	StopGrace time.Duration

	// Log receives one line per step ("starting kafka", …); nil discards.
	Log func(format string, args ...any)
}

// The failure-detection settings written to config.yaml. Flink's defaults
// (heartbeat 10 s / 50 s) make a killed TaskManager vanish from /overview
// only after ~50 s when nothing talks to it. A SIGKILLed JVM's sockets are
// closed by the kernel, so heartbeat RPCs fail at once and the JobManager
// gives up after heartbeat.rpc-failure-threshold (2) failed RPCs, i.e.
// within about 2 × heartbeat.interval = 4 s; the 10 s timeout covers a TM
// that hangs without closing its sockets (stopped, network loss). 10 s is
// still far above the GC pauses of these small heaps.
const (
	HeartbeatInterval = 2 * time.Second
	HeartbeatTimeout  = 10 * time.Second
	// RestartDelay is restart-strategy.fixed-delay.delay; attempts are
	// unbounded (Integer.MAX_VALUE) so a job survives any number of
	// injected failures.
	RestartDelay = 2 * time.Second
)

// LatencyMarkerInterval is metrics.latency.interval: how often each source
// subtask emits a latency marker (Flink's default, 0, disables them). Once
// a second matches the driver's once-a-second samples, and a marker a
// second per source subtask is no load beside thousands of records a
// second (Flink's warning about the cost of latency tracking is about the
// number of histograms at "subtask" granularity, not the markers).
//
// LatencyHistorySize is metrics.latency.history-size: the markers each
// histogram (one per source operator and sink subtask) keeps. A marker
// takes one random channel at every hop, so each of a sink's subtasks sees
// about interval × sink parallelism / source parallelism between markers,
// and a histogram spans history × that: ≈ 10 s on the live jobs (equal
// parallelism everywhere). Flink's default, 128, spans about 2 minutes:
// measured live, the p99 was still at the ≈ 3 s of the catch-up 45 s after
// a TaskManager kill's restart, long after the median had come back to
// ≈ 0.3 s, while the simulator's marker p99 describes each second; with
// 10 it was back at its steady ≈ 0.4 s about 10 s after the catch-up.
// The p99 of fewer than 100 values is their maximum (Flink's percentile
// estimate; seen live: p99 = max), so a sample's latency_marker_p99_ms is
// the slowest marker of the last ≈ 10 s.
const (
	LatencyMarkerInterval = time.Second
	LatencyHistorySize    = 10
)

// DefaultConfig returns the defaults that a zero Config gets.
func DefaultConfig() Config {
	return Config{}.withDefaults()
}

func (c Config) withDefaults() Config {
	c.Dir = cmp.Or(c.Dir, ".streamtwin-live")
	c.TaskManagers = cmp.Or(c.TaskManagers, 2)
	c.Slots = cmp.Or(c.Slots, 2)
	c.Ports.JobManagerRPC = cmp.Or(c.Ports.JobManagerRPC, DefaultPorts.JobManagerRPC)
	c.Ports.REST = cmp.Or(c.Ports.REST, DefaultPorts.REST)
	c.Ports.Kafka = cmp.Or(c.Ports.Kafka, DefaultPorts.Kafka)
	c.Ports.KafkaController = cmp.Or(c.Ports.KafkaController, DefaultPorts.KafkaController)
	if c.Prometheus {
		pp := &c.PrometheusPorts
		pp.Prometheus = cmp.Or(pp.Prometheus, DefaultPrometheusPorts.Prometheus)
		pp.NodeExporter = cmp.Or(pp.NodeExporter, DefaultPrometheusPorts.NodeExporter)
		pp.FlinkMetrics = cmp.Or(pp.FlinkMetrics, DefaultPrometheusPorts.FlinkMetrics)
		pp.FlinkMetricsCount = 1 + c.TaskManagers
	} else {
		c.PrometheusPorts = PrometheusPorts{}
	}
	c.TaskManagerMemory = cmp.Or(c.TaskManagerMemory, "1024m")
	c.ManagedMemoryFraction = cmp.Or(c.ManagedMemoryFraction, 0.1)
	c.JobManagerHeap = cmp.Or(c.JobManagerHeap, "512m")
	c.KafkaHeap = cmp.Or(c.KafkaHeap, "512m")
	c.StateBackend = cmp.Or(c.StateBackend, "hashmap")
	c.KafkaPartitions = cmp.Or(c.KafkaPartitions, 4)
	c.StartTimeout = cmp.Or(c.StartTimeout, 3*time.Minute)
	c.StopGrace = cmp.Or(c.StopGrace, 15*time.Second)
	if c.Log == nil { // a func is not comparable: no cmp.Or
		c.Log = func(string, ...any) {}
	}
	return c
}

// ConfigError is an invalid Config (the CLI exits 2 on it).
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

func configErr(format string, args ...any) error {
	return &ConfigError{fmt.Sprintf(format, args...)}
}

var memSize = regexp.MustCompile(`^[1-9][0-9]*[kmg]$`)

// Validate checks a Config after defaults.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.TaskManagers < 1 || c.TaskManagers > 16 {
		errs = append(errs, configErr("taskmanagers must be in 1..16, got %d", c.TaskManagers))
	}
	if !(c.TaskManagerCPU >= 0 && c.TaskManagerCPU <= 64) {
		errs = append(errs, configErr("tm-cpu must be in 0..64 cores (0: no limit), got %g", c.TaskManagerCPU))
	}
	if c.Slots < 1 || c.Slots > 64 {
		errs = append(errs, configErr("slots must be in 1..64, got %d", c.Slots))
	}
	seen := map[int]string{}
	for _, p := range append(c.Ports.list(), c.PrometheusPorts.list()...) {
		if p.num < 1 || p.num > 65535 {
			errs = append(errs, configErr("%s port must be in 1..65535, got %d (%s)", p.name, p.num, p.flag))
			continue
		}
		if other, dup := seen[p.num]; dup {
			errs = append(errs, configErr("%s and %s ports are both %d", other, p.name, p.num))
		}
		seen[p.num] = p.name
	}
	for _, m := range []struct{ name, v string }{
		{"TaskManager memory", c.TaskManagerMemory},
		{"JobManager heap", c.JobManagerHeap},
		{"Kafka heap", c.KafkaHeap},
	} {
		if !memSize.MatchString(strings.ToLower(m.v)) {
			errs = append(errs, configErr("%s %q: want a size like 512m or 1g", m.name, m.v))
		}
	}
	if c.ManagedMemoryFraction < 0 || c.ManagedMemoryFraction >= 1 {
		errs = append(errs, configErr("managed memory fraction must be in [0, 1), got %g", c.ManagedMemoryFraction))
	}
	if c.StateBackend != "hashmap" && c.StateBackend != "rocksdb" {
		errs = append(errs, configErr("state backend %q: want hashmap or rocksdb", c.StateBackend))
	}
	if c.KafkaPartitions < 1 {
		errs = append(errs, configErr("kafka partitions must be ≥ 1, got %d", c.KafkaPartitions))
	}
	return errors.Join(errs...)
}

// layout is where things go inside Config.Dir (absolute paths).
type layout struct {
	Dir, Conf, Log, KafkaData, Checkpoints, Savepoints, Tmp string
}

func newLayout(dir string) (layout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return layout{}, err
	}
	return layout{
		Dir:         abs,
		Conf:        filepath.Join(abs, "conf"),
		Log:         filepath.Join(abs, "log"),
		KafkaData:   filepath.Join(abs, "data", "kafka"),
		Checkpoints: filepath.Join(abs, "checkpoints"),
		Savepoints:  filepath.Join(abs, "savepoints"),
		Tmp:         filepath.Join(abs, "tmp"),
	}, nil
}

func (l layout) logFile(name string) string { return filepath.Join(l.Log, name+".log") }
func (l layout) pidsFile() string           { return filepath.Join(l.Dir, "pids.json") }

// fileURI turns an absolute path into a file:// URI.
func fileURI(path string) string { return "file://" + filepath.ToSlash(path) }

// flinkConfig is the content of conf/config.yaml as flat keys.
func flinkConfig(c Config, l layout) map[string]string {
	m := map[string]string{
		// everything on loopback
		"jobmanager.rpc.address": "127.0.0.1",
		"jobmanager.rpc.port":    strconv.Itoa(c.Ports.JobManagerRPC),
		"jobmanager.bind-host":   "127.0.0.1",
		"taskmanager.bind-host":  "127.0.0.1",
		"taskmanager.host":       "127.0.0.1",
		"rest.address":           "127.0.0.1",
		"rest.bind-address":      "127.0.0.1",
		"rest.port":              strconv.Itoa(c.Ports.REST),
		"taskmanager.rpc.port":   "0",
		"blob.server.port":       "0",

		"taskmanager.numberOfTaskSlots":       strconv.Itoa(c.Slots),
		"taskmanager.memory.process.size":     c.TaskManagerMemory,
		"taskmanager.memory.managed.fraction": strconv.FormatFloat(c.ManagedMemoryFraction, 'g', -1, 64),
		"jobmanager.memory.heap.size":         c.JobManagerHeap,
		"web.submit.enable":                   "true",
		"web.cancel.enable":                   "true",

		// the driver samples once a second and primes a fetch 300 ms
		// before it reads (Flink's default refresh is 10 s)
		"metrics.fetcher.update-interval": "200",
		// the job details (state, timestamps) are cached this long (default
		// 3 s): a sample must not see RUNNING while numRestarts already
		// counts the restart
		"web.refresh-interval": "200",
		// the JobManager's metric fetcher starts no fetch while one is in
		// flight, and waits web.timeout (default 10 min) for each
		// TaskManager's answer: a query sent to a TaskManager just killed
		// is dropped, and every metric served by REST then stood still
		// for the rest of a run (seen after a second kill). A TaskManager
		// that has not answered in a heartbeat timeout is gone anyway.
		"web.timeout": strconv.FormatInt(HeartbeatTimeout.Milliseconds(), 10),

		// latency markers (LatencyMarkerInterval): every source subtask
		// emits one a second; each operator subtask keeps a histogram of
		// the last LatencyHistorySize markers per source operator
		// ("operator" granularity, Flink's default; "single" would merge
		// the sources, "subtask" multiply the histograms by the source's
		// parallelism). The driver reads the sink writer's p99
		// (live/driver/markers.go) as latency_marker_p99_ms, the
		// simulator's figure.
		"metrics.latency.interval":     strconv.FormatInt(LatencyMarkerInterval.Milliseconds(), 10),
		"metrics.latency.granularity":  "operator",
		"metrics.latency.history-size": strconv.Itoa(LatencyHistorySize),

		// fast failure detection (see HeartbeatInterval)
		"heartbeat.interval": strconv.FormatInt(HeartbeatInterval.Milliseconds(), 10),
		"heartbeat.timeout":  strconv.FormatInt(HeartbeatTimeout.Milliseconds(), 10),

		// TaskManagers started beside the JobManager, or restarted, retry
		// their registration after 1 s instead of 10 s (error-delay) / 30 s
		// (refused-registration-delay)
		"cluster.registration.error-delay":                "1000",
		"cluster.registration.refused-registration-delay": "2000",

		// a job restarts every time, 2 s after a failure
		"restart-strategy.type":                 "fixed-delay",
		"restart-strategy.fixed-delay.attempts": "2147483647",
		"restart-strategy.fixed-delay.delay":    fmt.Sprintf("%d s", int(RestartDelay.Seconds())),

		"state.backend.type":                    c.StateBackend,
		"execution.checkpointing.dir":           fileURI(l.Checkpoints),
		"execution.checkpointing.savepoint-dir": fileURI(l.Savepoints),

		"io.tmp.dirs":    filepath.Join(l.Tmp, "io"),
		"web.tmpdir":     filepath.Join(l.Tmp, "web"),
		"web.upload.dir": filepath.Join(l.Tmp, "web-upload"),
	}
	if c.Prometheus {
		for k, v := range flinkPrometheusConfig(c.PrometheusPorts) {
			m[k] = v
		}
	}
	for k, v := range c.FlinkConfig {
		m[k] = v
	}
	return m
}

// renderYAML writes flat keys sorted, values as YAML scalars: integers and
// booleans plain, everything else double-quoted.
func renderYAML(m map[string]string, header string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(header)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, yamlScalar(m[k]))
	}
	return b.String()
}

var plainScalar = regexp.MustCompile(`^(-?[0-9]+|true|false)$`)

func yamlScalar(v string) string {
	if plainScalar.MatchString(v) {
		return v
	}
	return strconv.Quote(v) // JSON-style escapes are valid YAML double-quoted
}

// kafkaProperties is conf/server.properties: one node in KRaft combined
// mode with a dynamic quorum (formatted with --standalone).
func kafkaProperties(c Config, l layout) map[string]string {
	broker := fmt.Sprintf("127.0.0.1:%d", c.Ports.Kafka)
	ctrl := fmt.Sprintf("127.0.0.1:%d", c.Ports.KafkaController)
	return map[string]string{
		"process.roles":                                    "broker,controller",
		"node.id":                                          "1",
		"controller.quorum.bootstrap.servers":              ctrl,
		"listeners":                                        "PLAINTEXT://" + broker + ",CONTROLLER://" + ctrl,
		"advertised.listeners":                             "PLAINTEXT://" + broker + ",CONTROLLER://" + ctrl,
		"controller.listener.names":                        "CONTROLLER",
		"inter.broker.listener.name":                       "PLAINTEXT",
		"listener.security.protocol.map":                   "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
		"log.dirs":                                         l.KafkaData,
		"num.partitions":                                   strconv.Itoa(c.KafkaPartitions),
		"offsets.topic.replication.factor":                 "1",
		"offsets.topic.num.partitions":                     "4",
		"transaction.state.log.replication.factor":         "1",
		"transaction.state.log.min.isr":                    "1",
		"transaction.state.log.num.partitions":             "4",
		"share.coordinator.state.topic.replication.factor": "1",
		"share.coordinator.state.topic.min.isr":            "1",
		"group.initial.rebalance.delay.ms":                 "0",
		// KafkaSink exactly-once producers (Khaos used 1 h) need
		// transaction.timeout.ms ≤ this; Kafka's default is 15 min.
		"transaction.max.timeout.ms": "3600000",
	}
}

func renderProperties(m map[string]string, header string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(header)
	for _, k := range keys {
		// java.util.Properties: backslash escapes; none of our values has one
		fmt.Fprintf(&b, "%s=%s\n", k, strings.ReplaceAll(m[k], `\`, `\\`))
	}
	return b.String()
}

// flinkLog4j logs to the console, which is the process's log file.
const flinkLog4j = `# written by streamtwin live: Flink logs to stdout = log/<name>.log
monitorInterval = 0
rootLogger.level = INFO
rootLogger.appenderRef.console.ref = ConsoleAppender
appender.console.name = ConsoleAppender
appender.console.type = CONSOLE
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
logger.pekko.name = org.apache.pekko
logger.pekko.level = INFO
logger.kafka.name = org.apache.kafka
logger.kafka.level = INFO
logger.netty.name = org.jboss.netty.channel.DefaultChannelPipeline
logger.netty.level = OFF
logger.shaded_zookeeper.name = org.apache.flink.shaded.zookeeper3
logger.shaded_zookeeper.level = INFO
`

// kafkaLog4j2 is the broker's Log4j 2 configuration (Kafka 4 reads
// log4j2.configurationFile; KIP-653).
const kafkaLog4j2 = `# written by streamtwin live: the broker logs to stdout = log/kafka.log
rootLogger.level = INFO
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.controller.name = kafka.controller
logger.controller.level = INFO
logger.statechange.name = state.change.logger
logger.statechange.level = INFO
`

// javaModuleFlags are the --add-exports/--add-opens that Flink's scripts
// pass on Java 17 (flink-dist config.yaml env.java.default-opts.all).
var javaModuleFlags = func() []string {
	var f []string
	for _, e := range []string{
		"java.base/sun.net.util",
		"java.rmi/sun.rmi.registry",
		"jdk.compiler/com.sun.tools.javac.api",
		"jdk.compiler/com.sun.tools.javac.file",
		"jdk.compiler/com.sun.tools.javac.parser",
		"jdk.compiler/com.sun.tools.javac.tree",
		"jdk.compiler/com.sun.tools.javac.util",
		"java.security.jgss/sun.security.krb5",
	} {
		f = append(f, "--add-exports="+e+"=ALL-UNNAMED")
	}
	for _, p := range []string{
		"java.lang", "java.net", "java.io", "java.nio", "sun.nio.ch", "java.lang.reflect",
		"java.text", "java.time", "java.util", "java.util.concurrent",
		"java.util.concurrent.atomic", "java.util.concurrent.locks",
	} {
		f = append(f, "--add-opens=java.base/"+p+"=ALL-UNNAMED")
	}
	return f
}()

// AdaptiveScheduler is the Flink configuration of a cluster that rescales
// jobs in place: the adaptive scheduler, which restarts a job from its
// latest checkpoint when its resource requirements change (PUT
// /jobs/{id}/resource-requirements) or slots come and go, as reactive mode
// does. Its pacing keys keep Flink 2.2's defaults (cooldown 30 s after a
// rescale, resource stabilisation 60 s while executing), so what live runs
// measure is what a deployment gets.
func AdaptiveScheduler() map[string]string {
	return map[string]string{"jobmanager.scheduler": "adaptive"}
}
