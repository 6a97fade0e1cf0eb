package cluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/live/prometheus"
)

func TestPrometheusConfig(t *testing.T) {
	off := Config{TaskManagers: 3}.withDefaults()
	if off.PrometheusPorts != (PrometheusPorts{}) || len(off.PrometheusPorts.list()) != 0 {
		t.Errorf("without Prometheus: %+v", off.PrometheusPorts)
	}
	if _, ok := flinkConfig(off, layout{})["metrics.reporter.prom.factory.class"]; ok {
		t.Error("reporter configured without Prometheus")
	}
	on := Config{TaskManagers: 3, Prometheus: true}.withDefaults()
	if want := (PrometheusPorts{9090, 9100, 9249, 4}); on.PrometheusPorts != want {
		t.Errorf("ports %+v, want %+v", on.PrometheusPorts, want)
	}
	l := on.PrometheusPorts.list()
	if len(l) != 6 || l[5].num != 9252 || l[5].name != "Flink metrics (tm-3)" || l[0].flag != "--prometheus-port" {
		t.Errorf("port list %+v", l)
	}
	m := flinkConfig(on, layout{})
	if m["metrics.reporter.prom.factory.class"] != PrometheusReporterFactory || m["metrics.reporter.prom.port"] != "9249-9252" {
		t.Errorf("reporter keys: %q %q", m["metrics.reporter.prom.factory.class"], m["metrics.reporter.prom.port"])
	}
	if got := flinkMetricsPortArg(on.PrometheusPorts, 2); got != "-Dmetrics.reporter.prom.port=9251" {
		t.Errorf("tm-2's port arg %q", got)
	}
	// clashes with the other ports are refused
	bad := Config{Prometheus: true, PrometheusPorts: PrometheusPorts{Prometheus: 8081}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "REST and Prometheus ports are both 8081") {
		t.Errorf("Validate: %v", err)
	}
	bad = Config{Prometheus: true, PrometheusPorts: PrometheusPorts{FlinkMetrics: 65535}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "--flink-metrics-port") {
		t.Errorf("Validate of a range past 65535: %v", err)
	}
}

func TestPreparePrometheus(t *testing.T) {
	l, err := newLayout(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lib := t.TempDir()
	os.WriteFile(filepath.Join(lib, "flink-metrics-prometheus-2.2.1.jar"), []byte("jar"), 0o644)
	os.WriteFile(filepath.Join(lib, stampName), []byte("{}"), 0o644)
	cfg := Config{Dir: l.Dir, TaskManagers: 2, Prometheus: true}.withDefaults()
	if err := os.MkdirAll(l.Conf, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := preparePrometheus(cfg, l, Jars{FlinkPrometheusLib: lib}); err != nil {
		t.Fatal(err)
	}
	f, err := prometheus.ReadFile(l.prometheusConfig())
	if err != nil {
		t.Fatal(err)
	}
	if f.Global.ScrapeInterval != "1s" || len(f.ScrapeConfigs) != 3 || f.ScrapeConfigs[0].StaticConfigs[0].Targets[0] != "127.0.0.1:9100" ||
		f.ScrapeConfigs[1].JobName != prometheus.TruthJob || f.ScrapeConfigs[1].StaticConfigs[0].Targets[0] != "127.0.0.1:9100" {
		t.Errorf("prometheus.yml: %+v", f)
	}
	if fl := f.ScrapeConfigs[2]; fl.JobName != "flink" || len(fl.StaticConfigs) != 3 || fl.StaticConfigs[2].Targets[0] != "127.0.0.1:9251" ||
		fl.StaticConfigs[2].Labels["process"] != "tm-2" {
		t.Errorf("flink job: %+v", fl)
	}
	entries, _ := os.ReadDir(l.prometheusPlugin())
	if len(entries) != 1 || entries[0].Name() != "flink-metrics-prometheus-2.2.1.jar" {
		t.Errorf("plugin folder: %v", entries)
	}
	os.WriteFile(filepath.Join(l.prometheusData(), "chunk"), []byte("x"), 0o644)
	// a later up without Prometheus leaves no reporter, config or TSDB
	if err := preparePrometheus(Config{Dir: l.Dir}.withDefaults(), l, Jars{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{l.prometheusPlugin(), l.prometheusData(), l.prometheusConfig(), l.nodeExporterWeb()} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", p, err)
		}
	}
}

// freeRange returns a first port p with p … p+n−1 free on 127.0.0.1 a
// moment ago, away from the other ports of a test.
func freeRange(t *testing.T, n int, avoid []int) int {
	t.Helper()
	for base := 20000 + os.Getpid()%20000; base < 65000; base += 97 {
		ok := true
		for i := range n {
			for _, a := range avoid {
				if base+i == a {
					ok = false
				}
			}
			if ok && portFree(base+i) != nil {
				ok = false
			}
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free port range")
	return 0
}

// scrapeNames is the set of metric names a /metrics endpoint serves.
func scrapeNames(t *testing.T, url string) map[string]bool {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	names := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		name, _, _ := strings.Cut(line, "{")
		name, _, _ = strings.Cut(name, " ")
		names[name] = true
	}
	return names
}

// TestLiveClusterPrometheus starts a cluster with Prometheus on free ports:
// node-exporter's and Flink's metrics reach the TSDB under the names the
// docs use, a family can be turned off and on, a restarted TaskManager is
// scraped again at its port, and Down leaves no process and no port.
func TestLiveClusterPrometheus(t *testing.T) {
	needLive(t)
	if _, _, err := prometheusTools(); err != nil {
		t.Skip(err)
	}
	ctx := testContext(t)
	p := freePorts(t, 6)
	base := freeRange(t, 3, p)
	cfg := Config{
		Dir: stateDir(t), TaskManagers: 2, Slots: 1,
		Ports:           Ports{JobManagerRPC: p[0], REST: p[1], Kafka: p[2], KafkaController: p[3]},
		Prometheus:      true,
		PrometheusPorts: PrometheusPorts{Prometheus: p[4], NodeExporter: p[5], FlinkMetrics: base},
		Log:             t.Logf,
	}
	t0 := time.Now()
	c := startCluster(ctx, t, cfg)
	t.Logf("Up with Prometheus: %.1fs", time.Since(t0).Seconds())
	if run := c.running(); len(run) != 6 {
		t.Fatalf("running %v, want kafka, the jobmanager, 2 taskmanagers, node-exporter and prometheus", run)
	}
	e := c.PrometheusEndpoints()
	if len(e.Flink) != 3 {
		t.Fatalf("endpoints %+v", e)
	}

	// the names, as the processes serve them
	node := scrapeNames(t, e.NodeExporter)
	for _, name := range []string{"node_cpu_seconds_total", "node_memory_MemAvailable_bytes", "node_memory_MemTotal_bytes",
		"node_disk_read_bytes_total", "node_disk_written_bytes_total", "node_network_receive_bytes_total", "node_network_transmit_bytes_total"} {
		if !node[name] {
			t.Errorf("node-exporter serves no %s", name)
		}
	}
	for name := range node {
		if strings.HasPrefix(name, "go_") || strings.HasPrefix(name, "node_filesystem") || strings.HasPrefix(name, "node_load") {
			t.Errorf("node-exporter serves %s: a collector or the exporter metrics not disabled", name)
		}
	}
	jm := scrapeNames(t, e.Flink[0])
	tm := scrapeNames(t, e.Flink[1])
	for _, name := range []string{"flink_jobmanager_numRegisteredTaskManagers", "flink_jobmanager_Status_JVM_CPU_Load"} {
		if !jm[name] {
			t.Errorf("the JobManager's reporter serves no %s", name)
		}
	}
	for _, name := range []string{"flink_taskmanager_Status_JVM_CPU_Load", "flink_taskmanager_Status_JVM_Memory_Heap_Used"} {
		if !tm[name] {
			t.Errorf("tm-1's reporter serves no %s", name)
		}
	}

	pc, err := c.Prometheus()
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.PrometheusStatus(ctx)
	if err != nil || !st.Ready || st.TargetsUp != 5 || st.Targets != 5 || !st.NodeExporter {
		t.Fatalf("prometheus status %+v, %v", st, err)
	}
	val := func(q string) float64 {
		t.Helper()
		v, err := pc.Value(ctx, q, time.Now())
		if err != nil || len(v) != 1 {
			t.Fatalf("%s: %v, %v", q, v, err)
		}
		return v[0].V
	}
	if n := val(`flink_jobmanager_numRegisteredTaskManagers`); n != 2 {
		t.Errorf("numRegisteredTaskManagers %g", n)
	}
	if n := val(`count(flink_taskmanager_Status_JVM_CPU_Load)`); n != 2 {
		t.Errorf("%g TaskManagers' CPU load series", n)
	}

	// off for 5 s, then on: no sample while off
	if err := pc.SetScraping(ctx, "node_memory_MemAvailable_bytes", false); err != nil {
		t.Fatal(err)
	}
	offAt := time.Now()
	time.Sleep(5 * time.Second)
	if err := pc.SetScraping(ctx, "node_memory_MemAvailable_bytes", true); err != nil {
		t.Fatal(err)
	}
	onAt := time.Now()
	time.Sleep(3 * time.Second)
	gap, err := pc.Samples(ctx, "node_memory_MemAvailable_bytes", offAt.Add(time.Second), onAt)
	if err != nil || gap.Samples > 1 {
		t.Errorf("%d samples while off (%v)", gap.Samples, err)
	}
	after, err := pc.Samples(ctx, "node_memory_MemAvailable_bytes", onAt, time.Now())
	if err != nil || after.Samples < 2 {
		t.Errorf("%d samples after on (%v)", after.Samples, err)
	}
	t.Logf("MemAvailable: %d samples in the 4 s after off+1 s, %d in the 3 s after on", gap.Samples, after.Samples)

	// a restarted TaskManager is scraped at the same port
	if err := c.KillTaskManager(1); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartTaskManager(1); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	_, err = c.WaitTaskManagers(wctx, 2)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err = c.PrometheusStatus(ctx)
		if err == nil && st.TargetsUp == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after tm-1's restart: %+v, %v", st, err)
		}
		time.Sleep(500 * time.Millisecond)
	}

	var pids []int
	for _, ps := range c.Processes() {
		pids = append(pids, ps.PID)
	}
	a, err := Attach(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Down(ctx); err != nil {
		t.Fatalf("Down: %v", err)
	}
	for _, pid := range pids {
		if alive(pid, "") {
			t.Errorf("pid %d alive after Down", pid)
		}
	}
	all := append(cfg.Ports.list(), cfg.withDefaults().PrometheusPorts.list()...)
	if err := checkPortList(all); err != nil {
		t.Errorf("ports after Down: %v", err)
	}
	for _, q := range all {
		if conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", q.num), time.Second); err == nil {
			conn.Close()
			t.Errorf("%s port %d accepts connections after Down", q.name, q.num)
		}
	}
}
