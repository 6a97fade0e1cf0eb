package cluster

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/streamtwin/streamtwin/live"
)

// Unit tests: no JVM, no Maven.

func TestPinnedVersions(t *testing.T) {
	v := live.Pinned()
	if v.Flink != "2.2.1" || v.FlinkKafkaConnector != "5.0.0-2.2" || v.Kafka != "4.2.0" {
		t.Errorf("versions.env: %+v", v)
	}
	if !strings.HasSuffix(v.FlinkKafkaConnector, "-"+v.Flink[:strings.LastIndexByte(v.Flink, '.')]) {
		t.Errorf("connector %s is not built for Flink %s", v.FlinkKafkaConnector, v.Flink)
	}
	// the poms' defaults equal versions.env, so `mvn -f live/cluster/maven/…`
	// without -D resolves the same jars
	for _, c := range components(v) {
		pom, err := poms.ReadFile(c.pom)
		if err != nil {
			t.Fatal(err)
		}
		for k, val := range c.props {
			if want := "<" + k + ">" + val + "</" + k + ">"; !strings.Contains(string(pom), want) {
				t.Errorf("%s: default %s differs from versions.env (want %s)", c.pom, k, want)
			}
		}
	}
}

func TestParseVersions(t *testing.T) {
	full := "FLINK_VERSION=2.2.1\nFLINK_KAFKA_CONNECTOR_VERSION=5.0.0-2.2\nKAFKA_VERSION=4.2.0\n" +
		"FLINK_LOG4J_VERSION=2.24.3\nKAFKA_LOG4J_VERSION=2.25.3\nMAVEN_DEPENDENCY_PLUGIN_VERSION=3.8.1\n"
	cases := []struct {
		name, in, err string
	}{
		{"full", full, ""},
		{"comments and blanks", "# c\n\n" + full + "  # trailing comment line\n", ""},
		{"missing key", strings.Replace(full, "KAFKA_VERSION=4.2.0\n", "", 1), "KAFKA_VERSION is not set"},
		{"empty value", strings.Replace(full, "KAFKA_VERSION=4.2.0", "KAFKA_VERSION=", 1), "KAFKA_VERSION is not set"},
		{"spaces", strings.Replace(full, "KAFKA_VERSION=4.2.0", "KAFKA_VERSION = 4.2.0", 1), "line 3"},
		{"quotes", strings.Replace(full, "KAFKA_VERSION=4.2.0", `KAFKA_VERSION="4.2.0"`, 1), "without spaces, quotes"},
		{"inline comment", strings.Replace(full, "KAFKA_VERSION=4.2.0", "KAFKA_VERSION=4.2.0#x", 1), "comments"},
		{"no equals", full + "JUNK\n", "line 7"},
		{"duplicate", full + "FLINK_VERSION=2.1.0\n", "set twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := live.ParseVersions(tc.in)
			if tc.err == "" {
				if err != nil || v.Kafka != "4.2.0" || v.FlinkLog4j != "2.24.3" {
					t.Fatalf("got %+v, %v", v, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Config)
		err  string
	}{
		{"defaults", func(*Config) {}, ""},
		{"negative taskmanagers", func(c *Config) { c.TaskManagers = -1 }, "taskmanagers must be in 1..16"},
		{"too many taskmanagers", func(c *Config) { c.TaskManagers = 17 }, "taskmanagers"},
		{"negative slots", func(c *Config) { c.Slots = -2 }, "slots must be"},
		{"port too high", func(c *Config) { c.Ports.REST = 70000 }, "REST port must be in 1..65535, got 70000 (--rest-port)"},
		{"duplicate port", func(c *Config) { c.Ports.Kafka = 8081 }, "REST and Kafka ports are both 8081"},
		{"memory unit", func(c *Config) { c.TaskManagerMemory = "1GB" }, `TaskManager memory "1GB"`},
		{"memory ok g", func(c *Config) { c.TaskManagerMemory = "2g" }, ""},
		{"heap", func(c *Config) { c.KafkaHeap = "512" }, "Kafka heap"},
		{"state backend", func(c *Config) { c.StateBackend = "forst" }, `state backend "forst"`},
		{"rocksdb", func(c *Config) { c.StateBackend = "rocksdb" }, ""},
		{"managed fraction", func(c *Config) { c.ManagedMemoryFraction = 1 }, "managed memory fraction"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			tc.mod(&c)
			err := c.Validate()
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ce *ConfigError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ce) {
				t.Fatalf("err = %v, want ConfigError with %q", err, tc.err)
			}
		})
	}
}

func TestFlinkConfigYAML(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		cfg   Config
		check map[string]any
	}{
		{"defaults", Config{Dir: dir}, map[string]any{
			"jobmanager.rpc.address":                "127.0.0.1",
			"jobmanager.rpc.port":                   6123,
			"rest.port":                             8081,
			"rest.bind-address":                     "127.0.0.1",
			"jobmanager.bind-host":                  "127.0.0.1",
			"taskmanager.bind-host":                 "127.0.0.1",
			"taskmanager.host":                      "127.0.0.1",
			"taskmanager.numberOfTaskSlots":         2,
			"taskmanager.memory.process.size":       "1024m",
			"taskmanager.memory.managed.fraction":   "0.1",
			"metrics.fetcher.update-interval":       200,
			"web.refresh-interval":                  200,
			"web.timeout":                           10000,
			"metrics.latency.interval":              1000,
			"metrics.latency.granularity":           "operator",
			"metrics.latency.history-size":          10,
			"heartbeat.interval":                    2000,
			"heartbeat.timeout":                     10000,
			"restart-strategy.type":                 "fixed-delay",
			"restart-strategy.fixed-delay.delay":    "2 s",
			"restart-strategy.fixed-delay.attempts": 2147483647,
			"state.backend.type":                    "hashmap",
			"execution.checkpointing.dir":           "file://" + filepath.Join(dir, "checkpoints"),
			"execution.checkpointing.savepoint-dir": "file://" + filepath.Join(dir, "savepoints"),
			"web.submit.enable":                     true,
		}},
		{"custom", Config{Dir: dir, Slots: 3, TaskManagerMemory: "1536m", StateBackend: "rocksdb",
			Ports:       Ports{JobManagerRPC: 16123, REST: 18081},
			FlinkConfig: map[string]string{"jobmanager.scheduler": "adaptive", "heartbeat.timeout": "20000"}},
			map[string]any{
				"jobmanager.rpc.port":             16123,
				"rest.port":                       18081,
				"taskmanager.numberOfTaskSlots":   3,
				"taskmanager.memory.process.size": "1536m",
				"state.backend.type":              "rocksdb",
				"jobmanager.scheduler":            "adaptive",
				"heartbeat.timeout":               20000,
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg.withDefaults()
			l, err := newLayout(cfg.Dir)
			if err != nil {
				t.Fatal(err)
			}
			text := renderYAML(flinkConfig(cfg, l), "# header\n")
			var got map[string]any
			if err := yaml.Unmarshal([]byte(text), &got); err != nil {
				t.Fatalf("config.yaml does not parse: %v\n%s", err, text)
			}
			for k, want := range tc.check {
				g, ok := got[k]
				if !ok {
					t.Errorf("%s missing", k)
					continue
				}
				if norm(g) != norm(want) {
					t.Errorf("%s = %v (%T), want %v", k, g, g, want)
				}
			}
			if _, ok := got["taskmanager.resource-id"]; ok {
				t.Error("taskmanager.resource-id belongs on each TaskManager's command line, not in the shared config")
			}
		})
	}
}

// norm compares YAML-decoded numbers and strings by their text.
func norm(v any) string {
	switch x := v.(type) {
	case uint64:
		return strconv.FormatUint(x, 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return "?"
}

func TestYAMLScalar(t *testing.T) {
	for in, want := range map[string]string{
		"8081": "8081", "-1": "-1", "true": "true", "127.0.0.1": `"127.0.0.1"`,
		"2 s": `"2 s"`, "file:///a b/c": `"file:///a b/c"`, `say "x"`: `"say \"x\""`, "0.1": `"0.1"`,
	} {
		if got := yamlScalar(in); got != want {
			t.Errorf("yamlScalar(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestKafkaProperties(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Ports: Ports{Kafka: 19092, KafkaController: 19093}, KafkaPartitions: 3}.withDefaults()
	l, _ := newLayout(cfg.Dir)
	text := renderProperties(kafkaProperties(cfg, l), "# h\n")
	for _, line := range []string{
		"process.roles=broker,controller",
		"node.id=1",
		"controller.quorum.bootstrap.servers=127.0.0.1:19093",
		"listeners=PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
		"advertised.listeners=PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
		"controller.listener.names=CONTROLLER",
		"log.dirs=" + l.KafkaData,
		"num.partitions=3",
		"offsets.topic.replication.factor=1",
		"transaction.state.log.min.isr=1",
		"transaction.max.timeout.ms=3600000",
		"group.initial.rebalance.delay.ms=0",
	} {
		if !strings.Contains(text, "\n"+line+"\n") {
			t.Errorf("server.properties lacks %q:\n%s", line, text)
		}
	}
	if strings.Contains(text, "controller.quorum.voters") {
		t.Error("static voters and --standalone do not mix")
	}
}

func TestParseBashJavaUtils(t *testing.T) {
	out := `INFO  [] - Loading configuration property: taskmanager.memory.process.size, 1024m
BASH_JAVA_UTILS_EXEC_RESULT:-Xmx161061270 -Xms161061270 -XX:MaxDirectMemorySize=201326592 -XX:MaxMetaspaceSize=268435456
BASH_JAVA_UTILS_EXEC_RESULT:-D taskmanager.memory.network.min=67108864b -D taskmanager.cpu.cores=2.0 -D taskmanager.memory.network.max=67108864b
`
	jvm, dyn, err := parseBashJavaUtils(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(jvm) != 4 || jvm[0] != "-Xmx161061270" || jvm[3] != "-XX:MaxMetaspaceSize=268435456" {
		t.Errorf("jvm = %q", jvm)
	}
	if strings.Join(dyn, " ") != "-D taskmanager.memory.network.min=67108864b -D taskmanager.cpu.cores=2.0 -D taskmanager.memory.network.max=67108864b" {
		t.Errorf("dyn = %q", dyn)
	}
	for _, bad := range []string{"", "BASH_JAVA_UTILS_EXEC_RESULT:-Xmx1\n", "BASH_JAVA_UTILS_EXEC_RESULT:junk\nBASH_JAVA_UTILS_EXEC_RESULT:-D a=b\n"} {
		if _, _, err := parseBashJavaUtils(bad); err == nil {
			t.Errorf("parseBashJavaUtils(%q) succeeded", bad)
		}
	}
}

func TestJavaMajor(t *testing.T) {
	cases := []struct {
		out  string
		want int
		ok   bool
	}{
		{`openjdk version "17.0.15" 2025-04-15`, 17, true},
		{`openjdk version "21" 2023-09-19`, 21, true},
		{`java version "1.8.0_392"`, 8, true},
		{`openjdk version "11.0.2" 2019-01-15`, 11, true},
		{`Picked up JAVA_TOOL_OPTIONS: -Xss1m` + "\n" + `openjdk version "25.0.1" 2025-10-21`, 25, true},
		{"command not found", 0, false},
	}
	for _, tc := range cases {
		got, ok := javaMajor(tc.out)
		if got != tc.want || ok != tc.ok {
			t.Errorf("javaMajor(%q) = %d, %v; want %d, %v", tc.out, got, ok, tc.want, tc.ok)
		}
	}
}

// fakeJava puts a `java` script printing version on PATH (only it).
func fakeJava(t *testing.T, version string) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho 'openjdk version \"" + version + "\" 2024-01-01' >&2\n"
	if err := os.WriteFile(filepath.Join(dir, "java"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
}

func TestCheckJava(t *testing.T) {
	cases := []struct {
		name, version string // "" = no java on PATH
		err           string
	}{
		{"missing", "", "java not found: install a JDK 17 (apt-get install openjdk-17-jdk-headless) or put it on PATH"},
		{"too old", "11.0.2", "is Java 11, Flink 2 and Kafka 4 need 17 or newer"},
		{"java 8", "1.8.0_392", "is Java 8"},
		{"17", "17.0.15", ""},
		{"21", "21.0.1", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.version == "" {
				t.Setenv("PATH", t.TempDir())
			} else {
				fakeJava(t, tc.version)
			}
			t0 := time.Now()
			_, err := checkJava(context.Background())
			if d := time.Since(t0); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrToolMissing) {
				t.Fatalf("err = %v, want ErrToolMissing with %q", err, tc.err)
			}
		})
	}
}

// Up fails fast, before touching the folder, when java is missing.
func TestUpWithoutJava(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := filepath.Join(t.TempDir(), "state")
	t0 := time.Now()
	_, err := Up(context.Background(), Config{Dir: dir})
	if !errors.Is(err, ErrToolMissing) || time.Since(t0) > 10*time.Second {
		t.Fatalf("Up without java: %v after %v", err, time.Since(t0))
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Up without java created %s", dir)
	}
}

func TestCheckMaven(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := checkMaven()
	if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "mvn not found") {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckPorts(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	taken := busy.Addr().(*net.TCPAddr).Port
	free := freePorts(t, 4)
	cases := []struct {
		name  string
		ports Ports
		err   []string
	}{
		{"all free", Ports{free[0], free[1], free[2], free[3]}, nil},
		{"rest taken", Ports{free[0], taken, free[2], free[3]},
			[]string{"port " + itoa(taken) + " (REST) is in use (by ", "stop it or pass --rest-port"}},
		{"kafka taken", Ports{free[0], free[1], taken, free[3]}, []string{"pass --kafka-port"}},
		{"rpc taken", Ports{taken, free[1], free[2], free[3]}, []string{"pass --jm-rpc-port"}},
		{"controller taken", Ports{free[0], free[1], free[2], taken}, []string{"pass --controller-port"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := checkPorts(tc.ports)
			if tc.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrPortInUse) {
				t.Fatalf("err = %v, want ErrPortInUse", err)
			}
			for _, s := range tc.err {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err = %v, want %q", err, s)
				}
			}
		})
	}
	// /proc names this test binary as the holder
	if owner := portOwner(taken); !strings.Contains(owner, "pid "+itoa(os.Getpid())) {
		t.Errorf("portOwner = %q, want this process (pid %d)", owner, os.Getpid())
	}
}

func TestParseListenInodes(t *testing.T) {
	const procNetTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F91 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 0 1 0000000000000000 20 4 30 10 -1
   2: 00000000:2384 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 100 0 0 10 0
`
	sc := func() *bufio.Scanner { return bufio.NewScanner(strings.NewReader(procNetTCP)) }
	if got := parseListenInodes(sc(), 8081); len(got) != 1 || got[0] != "12345" {
		t.Errorf("8081: %v", got)
	}
	if got := parseListenInodes(sc(), 9092); len(got) != 1 || got[0] != "777" {
		t.Errorf("9092: %v", got)
	}
	if got := parseListenInodes(sc(), 6123); len(got) != 0 {
		t.Errorf("6123: %v", got)
	}
}

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pids.json")
	s := State{Dir: dir, Flink: "2.2.1", Kafka: "4.2.0", Ports: DefaultPorts, TaskManagers: 2, Slots: 2,
		Processes: []Process{{Name: "tm-1", PID: 42, Args: []string{"java", "-Dx=y"}, Log: "/l/tm-1.log"}}}
	if err := writeState(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := readState(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Ports != DefaultPorts || len(got.Processes) != 1 || got.Processes[0].Args[1] != "-Dx=y" {
		t.Errorf("round trip: %+v", got)
	}
	c, err := Attach(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ep := c.Endpoints(); ep.REST != "http://127.0.0.1:8081" || ep.Kafka != "127.0.0.1:9092" {
		t.Errorf("endpoints %+v", ep)
	}
	// pid 42 without our marker on its command line is not ours
	if run := c.running(); len(run) != 0 {
		t.Errorf("running = %v", run)
	}
	if err := c.KillTaskManager(3); err == nil || !strings.Contains(err.Error(), "want 1..2") {
		t.Errorf("KillTaskManager(3): %v", err)
	}
	if err := c.KillTaskManager(1); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("KillTaskManager(1) of a dead process: %v", err)
	}
	if _, err := Attach(t.TempDir()); !errors.Is(err, ErrNoCluster) {
		t.Errorf("Attach of an empty folder: %v", err)
	}
}

// The marker check: a live process counts only with our marker.
func TestAliveMarker(t *testing.T) {
	if !alive(os.Getpid(), "") {
		t.Fatal("this process is not alive")
	}
	if alive(os.Getpid(), "-Dstreamtwin.live=/nowhere/tm-1") {
		t.Error("this process carries no marker")
	}
	if alive(0, "") || alive(-1, "") {
		t.Error("pid ≤ 0 alive")
	}
}

func TestResolveCache(t *testing.T) {
	v := live.Pinned()
	c := components(v)[0]
	pom, _ := poms.ReadFile(c.pom)
	lib := filepath.Join(t.TempDir(), "flink-lib")
	if complete(lib, c.hash(pom)) {
		t.Fatal("a missing folder is complete")
	}
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(lib, "a.jar"), []byte("abc"), 0o644)
	os.WriteFile(filepath.Join(lib, stampName), []byte(`{"hash":"`+c.hash(pom)+`","files":{"a.jar":3}}`), 0o644)
	if !complete(lib, c.hash(pom)) {
		t.Fatal("stamped folder incomplete")
	}
	if complete(lib, "other") {
		t.Error("another pom or version counts as complete")
	}
	os.WriteFile(filepath.Join(lib, "a.jar"), []byte("ab"), 0o644)
	if complete(lib, c.hash(pom)) {
		t.Error("a truncated jar counts as complete")
	}
	// another version changes the hash
	c2 := components(live.Versions{Flink: "2.1.0", FlinkLog4j: v.FlinkLog4j, MavenDependency: v.MavenDependency})[0]
	if c2.hash(pom) == c.hash(pom) {
		t.Error("hash ignores the version")
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv(CacheEnv, "/tmp/x-live-cache")
	if d, _ := DefaultCacheDir(); d != "/tmp/x-live-cache" {
		t.Errorf("%s: %s", CacheEnv, d)
	}
	t.Setenv(CacheEnv, "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if d, _ := DefaultCacheDir(); d != "/home/someone/.cache/streamtwin/live" {
		t.Errorf("default: %s", d)
	}
}

func TestCDSPlan(t *testing.T) {
	dir := t.TempDir()
	flags, archive, dump := cdsPlan(dir, "jobmanager", "k1", true)
	if len(flags) == 0 || !strings.HasPrefix(flags[0], "-XX:ArchiveClassesAtExit="+filepath.Join(dir, "jobmanager-k1.jsa.dump-")) || dump == "" {
		t.Fatalf("no archive yet: %v %s %s", flags, archive, dump)
	}
	if flags, _, _ := cdsPlan(dir, "taskmanager", "k1", false); flags != nil {
		t.Errorf("a non-dumping JVM without archive gets %v", flags)
	}
	// a clean exit keeps the dump, a SIGKILLed one does not
	os.WriteFile(dump, []byte("jsa"), 0o644)
	keepArchive(Process{CDSDump: dump, CDSArchive: archive}, false)
	if _, err := os.Stat(archive); err == nil {
		t.Fatal("archive kept from a killed JVM")
	}
	os.WriteFile(dump, []byte("jsa"), 0o644)
	keepArchive(Process{CDSDump: dump, CDSArchive: archive}, true)
	if _, err := os.Stat(archive); err != nil {
		t.Fatal("archive not kept")
	}
	flags, _, dump = cdsPlan(dir, "jobmanager", "k1", true)
	if len(flags) == 0 || flags[0] != "-XX:SharedArchiveFile="+archive || dump != "" {
		t.Errorf("with archive: %v %s", flags, dump)
	}
	if _, _, d := cdsPlan(dir, "jobmanager", "k2", true); d == "" {
		t.Error("another JDK or jar set reuses the archive")
	}
}

func TestNewClusterID(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := newClusterID()
		if len(id) != 22 || id[0] == '-' || strings.ContainsAny(id, "+/=") || seen[id] {
			t.Fatalf("cluster id %q", id)
		}
		seen[id] = true
	}
}
