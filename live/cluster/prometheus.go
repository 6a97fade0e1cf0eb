package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/streamtwin/streamtwin/live/prometheus"
)

// Monitoring with Config.Prometheus (live up --prometheus): node-exporter
// and a Prometheus server as two more processes of the cluster, and Flink's
// Prometheus reporter on the JobManager and every TaskManager. Prometheus
// scrapes node-exporter (job node) and the reporters (job flink, label
// process = jobmanager, tm-1, …) every second. Its configuration
// (conf/prometheus.yml) is rewritten by live/prometheus to turn metric
// families on and off; its TSDB is data/prometheus, wiped on every up like
// Kafka's data.

// PrometheusReporterFactory is Flink's pull reporter (flink-metrics-prometheus).
const PrometheusReporterFactory = "org.apache.flink.metrics.prometheus.PrometheusReporterFactory"

// NodeExporterCollectors are node-exporter's collectors: those of the
// monitoring reference (cpu, meminfo, diskstats), and netdev for the
// network bytes.
var NodeExporterCollectors = []string{"cpu", "meminfo", "diskstats", "netdev"}

const prometheusHint = "install Debian's prometheus and prometheus-node-exporter (apt-get install prometheus prometheus-node-exporter; their system services need not run: live up starts its own processes on its own ports)"

// prometheusTools finds the Prometheus server and node-exporter binaries:
// Debian's prometheus and prometheus-node-exporter, or upstream's
// node_exporter.
func prometheusTools() (server, nodeExporter string, err error) {
	server, err = exec.LookPath("prometheus")
	if err != nil {
		return "", "", errorOf(ErrToolMissing, "prometheus not found: %s", prometheusHint)
	}
	for _, name := range []string{"prometheus-node-exporter", "node_exporter"} {
		if nodeExporter, err = exec.LookPath(name); err == nil {
			return server, nodeExporter, nil
		}
	}
	return "", "", errorOf(ErrToolMissing, "prometheus-node-exporter (node_exporter) not found: %s", prometheusHint)
}

// flinkPrometheusConfig are the reporter's keys of config.yaml: the whole
// port range; each process gets its own port of it with a -D on its
// command line (flinkMetricsPortArg), so a restarted TaskManager is
// scraped at the same address.
func flinkPrometheusConfig(p PrometheusPorts) map[string]string {
	return map[string]string{
		"metrics.reporter.prom.factory.class": PrometheusReporterFactory,
		"metrics.reporter.prom.port":          fmt.Sprintf("%d-%d", p.FlinkMetrics, p.FlinkMetrics+p.FlinkMetricsCount-1),
	}
}

// flinkMetricsPort is the reporter port of the JobManager (i = 0) or
// TaskManager i.
func flinkMetricsPort(p PrometheusPorts, i int) int { return p.FlinkMetrics + i }

func flinkMetricsPortArg(p PrometheusPorts, i int) string {
	return "-Dmetrics.reporter.prom.port=" + strconv.Itoa(flinkMetricsPort(p, i))
}

// prometheus layout: files inside Dir.
func (l layout) prometheusConfig() string { return filepath.Join(l.Conf, "prometheus.yml") }
func (l layout) nodeExporterWeb() string  { return filepath.Join(l.Conf, "node-exporter-web.yml") }
func (l layout) prometheusData() string   { return filepath.Join(l.Dir, "data", "prometheus") }
func (l layout) prometheusPlugin() string {
	return filepath.Join(l.Dir, "plugins", "metrics-prometheus")
}
func prometheusMarker(l layout) string      { return "--config.file=" + l.prometheusConfig() }
func nodeExporterMarker(l layout) string    { return "--web.config.file=" + l.nodeExporterWeb() }
func hostPort(port int) string              { return "127.0.0.1:" + strconv.Itoa(port) }
func (c *Cluster) prometheusOn() bool       { return c.state.PrometheusPorts.Prometheus > 0 }
func (c *Cluster) nodeExporterAddr() string { return hostPort(c.state.PrometheusPorts.NodeExporter) }

// preparePrometheus wipes the TSDB and the reporter plugin, and, with
// Prometheus, writes prometheus.yml and node-exporter's web configuration
// and copies the reporter jar into plugins/metrics-prometheus (Flink 2
// loads reporters from its plugins folder, <working dir>/plugins).
func preparePrometheus(cfg Config, l layout, jars Jars) error {
	for _, d := range []string{l.prometheusData(), l.prometheusPlugin()} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	for _, f := range []string{l.prometheusConfig(), l.nodeExporterWeb()} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if !cfg.Prometheus {
		return nil
	}
	targets := []prometheus.Target{{Process: "jobmanager", Address: hostPort(flinkMetricsPort(cfg.PrometheusPorts, 0))}}
	for i := 1; i <= cfg.TaskManagers; i++ {
		targets = append(targets, prometheus.Target{Process: TaskManagerID(i), Address: hostPort(flinkMetricsPort(cfg.PrometheusPorts, i))})
	}
	if err := prometheus.HostConfig(hostPort(cfg.PrometheusPorts.NodeExporter), targets).WriteFile(l.prometheusConfig()); err != nil {
		return err
	}
	// no TLS, no authentication; the file names the cluster folder on
	// node-exporter's command line (its marker)
	if err := os.WriteFile(l.nodeExporterWeb(), []byte("# written by streamtwin live up: node-exporter serves plain HTTP on 127.0.0.1\n"), 0o644); err != nil {
		return err
	}
	for _, d := range []string{l.prometheusData(), l.prometheusPlugin()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if jars.FlinkPrometheusLib == "" {
		return errors.New("Flink's Prometheus reporter was not resolved")
	}
	entries, err := os.ReadDir(jars.FlinkPrometheusLib)
	if err != nil {
		return err
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jar") {
			if err := copyFile(filepath.Join(jars.FlinkPrometheusLib, e.Name()), filepath.Join(l.prometheusPlugin(), e.Name())); err != nil {
				return err
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no reporter jar in %s", jars.FlinkPrometheusLib)
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// startPrometheus starts node-exporter and the Prometheus server.
func (c *Cluster) startPrometheus(cfg Config, env []string) error {
	server, nodeExporter, err := prometheusTools()
	if err != nil {
		return err
	}
	l := c.layout
	cfg.Log("starting node-exporter on %s and prometheus on %s (scrape interval 1s)",
		hostPort(cfg.PrometheusPorts.NodeExporter), hostPort(cfg.PrometheusPorts.Prometheus))
	ne := []string{nodeExporter, "--web.listen-address=" + hostPort(cfg.PrometheusPorts.NodeExporter), nodeExporterMarker(l),
		"--collector.disable-defaults", "--web.disable-exporter-metrics",
		// loopback carries all of the cluster's traffic: keep lo, which
		// node-exporter excludes by default (^lo$)
		"--collector.netdev.device-exclude=^$"}
	for _, col := range NodeExporterCollectors {
		ne = append(ne, "--collector."+col)
	}
	if err := c.launchMarked("node-exporter", nodeExporterMarker(l), ne, env, cdsFiles{}); err != nil {
		return err
	}
	prom := []string{server, prometheusMarker(l), "--storage.tsdb.path=" + l.prometheusData(),
		"--web.listen-address=" + hostPort(cfg.PrometheusPorts.Prometheus), "--web.enable-lifecycle",
		"--storage.tsdb.retention.time=7d"}
	return c.launchMarked("prometheus", prometheusMarker(l), prom, env, cdsFiles{})
}

// waitPrometheus waits until Prometheus is ready and every target (node-
// exporter, the JobManager's and each TaskManager's reporter) was scraped
// up.
func (c *Cluster) waitPrometheus(ctx context.Context) error {
	cl, err := c.Prometheus()
	if err != nil {
		return err
	}
	want := 2 + c.state.PrometheusPorts.FlinkMetricsCount // node-exporter twice (jobs node and node-truth)
	up, total := 0, 0
	var lastErr error
	for {
		for _, p := range c.State().Processes {
			if (p.Name == "prometheus" || p.Name == "node-exporter") && !alive(p.PID, c.mark(p)) {
				return fmt.Errorf("%s (pid %d) exited during start; tail of %s:\n%s", p.Name, p.PID, p.Log, logTail(p.Log, 30))
			}
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if cl.Ready(rctx) {
			up, total, lastErr = cl.Targets(rctx)
		}
		cancel()
		if up >= want && total == want {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("prometheus: %d of %d targets up (%v): %w; tail of %s:\n%s", up, want, lastErr, ctx.Err(),
				c.layout.logFile("prometheus"), logTail(c.layout.logFile("prometheus"), 20))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// PrometheusEndpoints are the monitoring addresses ("" without Prometheus).
type PrometheusEndpoints struct {
	Prometheus   string   // "http://127.0.0.1:9090"
	NodeExporter string   // "http://127.0.0.1:9100/metrics"
	Flink        []string // the reporters', JobManager first: "http://127.0.0.1:9249/metrics"
	Config       string   // prometheus.yml, which live/prometheus rewrites
}

// PrometheusEndpoints returns the monitoring addresses.
func (c *Cluster) PrometheusEndpoints() PrometheusEndpoints {
	if !c.prometheusOn() {
		return PrometheusEndpoints{}
	}
	p := c.state.PrometheusPorts
	e := PrometheusEndpoints{
		Prometheus:   "http://" + hostPort(p.Prometheus),
		NodeExporter: "http://" + c.nodeExporterAddr() + "/metrics",
		Config:       c.layout.prometheusConfig(),
	}
	for i := range p.FlinkMetricsCount {
		e.Flink = append(e.Flink, "http://"+hostPort(flinkMetricsPort(p, i))+"/metrics")
	}
	return e
}

// ErrNoPrometheus: the cluster was started without --prometheus.
var ErrNoPrometheus = errors.New("the live cluster runs no Prometheus (start it with live up --prometheus)")

// Prometheus returns a client of the cluster's Prometheus server that may
// rewrite its configuration (live/prometheus).
func (c *Cluster) Prometheus() (*prometheus.Client, error) {
	if !c.prometheusOn() {
		return nil, ErrNoPrometheus
	}
	e := c.PrometheusEndpoints()
	return prometheus.New(e.Prometheus, e.Config)
}

// PrometheusStatus is what live status shows of the monitoring.
type PrometheusStatus struct {
	Ready              bool
	TargetsUp, Targets int
	Off                []string // families turned off
	NodeExporter       bool     // node-exporter answers /metrics
}

// PrometheusStatus asks Prometheus for its readiness and targets and
// node-exporter for its metrics.
func (c *Cluster) PrometheusStatus(ctx context.Context) (PrometheusStatus, error) {
	cl, err := c.Prometheus()
	if err != nil {
		return PrometheusStatus{}, err
	}
	var s PrometheusStatus
	s.Off = cl.Off()
	s.Ready = cl.Ready(ctx)
	if s.Ready {
		if s.TargetsUp, s.Targets, err = cl.Targets(ctx); err != nil {
			return s, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.PrometheusEndpoints().NodeExporter, nil)
	if err != nil {
		return s, err
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		s.NodeExporter = resp.StatusCode == http.StatusOK
	}
	return s, nil
}
