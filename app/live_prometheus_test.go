package app

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/live/cluster"
	"github.com/streamtwin/streamtwin/live/prometheus"
	"github.com/streamtwin/streamtwin/live/scrape"
	"github.com/streamtwin/streamtwin/models/hostmetrics"
	"github.com/streamtwin/streamtwin/models/monitor"
	"github.com/streamtwin/streamtwin/results"
)

// promPlan is a test Sampler: its Steps in turn, the last one forever.
type promPlan struct {
	steps []monitor.Step
	i     int
}

func (p *promPlan) Next(int, []monitor.Point) monitor.Step {
	s := p.steps[min(p.i, len(p.steps)-1)]
	p.i++
	return s
}

// startPrometheusCluster starts `live up --prometheus` in cl with the
// extra flags and checks, after live down (startLiveCluster's cleanup),
// that no process names cl and that the Prometheus ports are closed.
func startPrometheusCluster(t *testing.T, cl string, upFlags ...string) *cluster.Cluster {
	t.Helper()
	def := cluster.DefaultPrometheusPorts
	tms := 2
	for i, f := range upFlags {
		if f == "--taskmanagers" && i+1 < len(upFlags) {
			fmt.Sscan(upFlags[i+1], &tms)
		}
	}
	// registered first, so it runs after startLiveCluster's live down
	t.Cleanup(func() {
		if left := processesNaming(cl + "/"); len(left) > 0 {
			t.Errorf("processes naming %s left after live down: %v", cl, left)
		}
		ports := []int{def.Prometheus, def.NodeExporter}
		for i := 0; i <= tms; i++ {
			ports = append(ports, def.FlinkMetrics+i)
		}
		for _, p := range ports {
			if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), time.Second); err == nil {
				c.Close()
				t.Errorf("port %d still accepts connections after live down", p)
			}
		}
	})
	startLiveCluster(t, cl, append([]string{"--prometheus"}, upFlags...)...)
	c, err := cluster.Attach(cl)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLivePrometheus: `live up --prometheus`, then a sampler run of 80 s
// against its Prometheus: node_cpu_seconds_total scraped 20 s, off 40 s,
// on 20 s; node_memory_MemAvailable_bytes always. The share of samples the
// TSDB stored must match the run's own accounting within 10 % (issue 23's
// acceptance). Then `live run scenarios/live-monitoring.yaml` on the same
// cluster (about 5 min): tradeoff.csv from the host's real metrics, and the
// live sampler's stored shares against its books. live down must leave
// nothing running.
func TestLivePrometheus(t *testing.T) {
	if os.Getenv("STREAMTWIN_LIVE") == "" {
		t.Skip("set STREAMTWIN_LIVE=1 to start a real Flink, Kafka and Prometheus (make live-test)")
	}
	cl := filepath.Join(t.TempDir(), "cluster")
	if d := os.Getenv("STREAMTWIN_LIVE_DIR"); d != "" {
		cl = d
	}
	c := startPrometheusCluster(t, cl, "--taskmanagers", "2", "--slots", "2")
	out, stderr, code, _ := runCLI(t, "live", "status", "--dir", cl)
	if code != 0 || !strings.Contains(out, "prometheus  http://127.0.0.1:9090: 5/5 targets up") {
		t.Fatalf("live status: exit %d\n%s%s", code, out, stderr)
	}
	pc, err := c.Prometheus()
	if err != nil {
		t.Fatal(err)
	}
	const toggled, always = "node_cpu_seconds_total", "node_memory_MemAvailable_bytes"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	acc, err := scrape.Run{
		Client: pc,
		Samplers: map[string]monitor.Sampler{
			toggled: &promPlan{steps: []monitor.Step{{Scrape: 20, Skip: 40}, {Scrape: 20}}},
			always:  &promPlan{steps: []monitor.Step{{Scrape: 1}}},
		},
		Duration: 80 * time.Second,
		Log:      t.Logf,
	}.Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sampler run in %.1fs:\n%s", time.Since(t0).Seconds(), acc)
	cpu, _ := acc.Family(toggled)
	mem, _ := acc.Family(always)
	if cpu.ScrapedSeconds != 40 || cpu.Toggles != 2 || mem.ScrapedSeconds != 80 || mem.Toggles != 0 {
		t.Errorf("the run's books: %+v, %+v", cpu, mem)
	}
	if cpu.Series < 2 || mem.Series != 1 || len(mem.Points) < 75 {
		t.Errorf("series: cpu %d, mem %d (points %d)", cpu.Series, mem.Series, len(mem.Points))
	}
	if err := acc.Check(0.10); err != nil {
		t.Error(err)
	}
	if p := os.Getenv("STREAMTWIN_LIVE_PROMETHEUS_OUT"); p != "" {
		writeSamplerBooks(t, p, acc)
	}
	if off := pc.Off(); len(off) != 0 {
		t.Errorf("families still off after the run: %v", off)
	}
	// a family the run did not touch was scraped every second meanwhile
	n, err := pc.Samples(ctx, "node_memory_MemTotal_bytes", acc.Start, acc.End)
	if err != nil || math.Abs(n.Share(80)-1) > 0.05 {
		t.Errorf("MemTotal over the run: %+v (share %.3f), %v", n, n.Share(80), err)
	}
	checkLiveMonitoring(t, cl)
}

// writeSamplerBooks writes a sampler run's accounting as CSV (make
// live-test → runs/test/live-prometheus/sampler-run.csv; make
// live-test-reference commits it for docs/live.md): per metric its
// families, the run's seconds, the seconds scraped, the toggles, and what
// the TSDB stored (series, samples) beside the run's own share.
func writeSamplerBooks(t *testing.T, path string, acc scrape.Accounting) {
	t.Helper()
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write([]string{"metric", "families", "seconds", "scraped_seconds", "toggles", "series", "samples", "run_share", "stored_share"})
	for _, f := range acc.Families {
		w.Write([]string{f.Name, strings.Join(f.Families, "|"), fmt.Sprint(acc.Seconds), fmt.Sprint(f.ScrapedSeconds), fmt.Sprint(f.Toggles),
			fmt.Sprint(f.Series), fmt.Sprint(f.Samples), fmt.Sprint(f.RunShare), fmt.Sprint(f.StoredShare)})
	}
	w.Flush()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkLiveMonitoring runs scenarios/live-monitoring.yaml on the cluster
// in cl: every sampler at every parameter is replayed on the real metrics,
// the live sampler's rows are there, and what the TSDB stored of each
// metric matches the live sampler's own books within 10 %.
func checkLiveMonitoring(t *testing.T, cl string) {
	run := liveRunInto(t, cl, "live-monitoring", "STREAMTWIN_LIVE_MONITORING_OUT")
	rows, err := results.ReadTradeoff(filepath.Join(run, results.TradeoffParquet))
	if err != nil {
		t.Fatal(err)
	}
	// 3 metrics and "all": fixed 4, adam 3, forecast 4 and the live one
	count := map[string]int{}
	for _, r := range rows {
		count[r.Sampler]++
		if r.Metric != "all" && (math.IsNaN(r.MAE) || r.SamplesShare < 0 || r.SamplesShare > 1) {
			t.Errorf("row %+v", r)
		}
	}
	if count["fixed"] != 16 || count["adam"] != 12 || count["forecast-seasonal"] != 16 || count["forecast-seasonal-live"] != 4 {
		t.Errorf("rows per sampler %v", count)
	}
	f, err := os.Open(filepath.Join(run, results.MonitoringLiveCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 4 {
		t.Fatalf("%s: %d lines, %v", results.MonitoringLiveCSV, len(recs), err)
	}
	col := map[string]int{}
	for i, c := range recs[0] {
		col[c] = i
	}
	for _, rec := range recs[1:] {
		var runShare, stored, agree float64
		fmt.Sscan(rec[col["run_share"]], &runShare)
		fmt.Sscan(rec[col["stored_share"]], &stored)
		fmt.Sscan(rec[col["decisions_agree"]], &agree)
		ok := math.Abs(stored-runShare) <= 0.1*runShare || (runShare == 0 && stored == 0)
		if !ok || agree < 0 || agree > 1 {
			t.Errorf("%s: run share %g, stored %g, decisions agreeing %g", rec[col["metric"]], runShare, stored, agree)
		}
	}
	host, err := results.ReadHostSamples(filepath.Join(run, results.HostMetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range host {
		if h.Metric == "cpu_pct" && !(h.Value >= 0 && h.Value <= 100) {
			t.Fatalf("cpu_pct %g at %g s", h.Value, h.TimeS)
		}
	}
}

// TestLiveHostProfile (make live-host-profile, about 7 min; not part of
// make test): scenarios/live-host-profile/stepped.yaml on `live up
// --prometheus` with 2 TaskManagers, then the run's input rate and
// throughput joined second by second with node-exporter's CPU, memory, disk
// and network from Prometheus into STREAMTWIN_LIVE_HOST_PROFILE (the CSV).
func TestLiveHostProfile(t *testing.T) {
	csvPath := os.Getenv("STREAMTWIN_LIVE_HOST_PROFILE")
	if csvPath == "" {
		t.Skip("set STREAMTWIN_LIVE_HOST_PROFILE=<csv> to measure the host profile (make live-host-profile)")
	}
	dir := t.TempDir()
	cl := liveClusterDir(dir)
	c := startPrometheusCluster(t, cl, "--taskmanagers", "2", "--slots", "2")
	run := filepath.Join(dir, "run")
	if d := os.Getenv("STREAMTWIN_LIVE_OUT"); d != "" {
		run = d
		if err := os.RemoveAll(run); err != nil {
			t.Fatal(err)
		}
	}
	before := time.Now()
	stdout, stderr, code, _ := runCLI(t, "live", "run", "../scenarios/live-host-profile/stepped.yaml", "--dir", cl, "--out", run, "--jar", "../"+defaultJobJar)
	t.Log(stdout, stderr)
	if code != 0 {
		t.Fatalf("live run: exit %d", code)
	}
	after := time.Now()
	samples, err := results.ReadSamples(filepath.Join(run, results.TimeseriesFile))
	if err != nil {
		t.Fatal(err)
	}
	pc, err := c.Prometheus()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	time.Sleep(3 * time.Second) // the last scrapes
	start, err := tasksRunning(ctx, c.Endpoints().REST)
	if err != nil {
		t.Fatal(err)
	}
	// the driver starts its clock at its first poll that sees every task
	// running (every 200 ms, through a 200 ms REST cache)
	start = start.Add(200 * time.Millisecond)
	jobRunning, err := jobRunningAt(ctx, pc, before, after)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the run started at %s: %.1f s after live run was called, %.2f s after the job switched to RUNNING (flink_jobmanager_job_uptime)",
		start.UTC().Format(time.RFC3339Nano), start.Sub(before).Seconds(), start.Sub(jobRunning).Seconds())
	table, err := hostTable(ctx, pc, start, samples)
	if err != nil {
		t.Fatal(err)
	}
	header := fmt.Sprintf("# live host metrics at 1 s: make live-host-profile (scenarios/live-host-profile/stepped.yaml on live up --prometheus, "+
		"2 TaskManagers x 2 slots), measured %s; see scenarios/measured/live-host-metrics.md\n", start.UTC().Format("2006-01-02"))
	if err := os.WriteFile(csvPath, []byte(header+table), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d rows", csvPath, strings.Count(table, "\n")-1)
}

// tasksRunning is when the last subtask of the newest job switched to
// RUNNING (GET /jobs/{id}/vertices/{vid}/subtasktimes; a finished job stays
// queryable): the driver starts the run's clock right after.
func tasksRunning(ctx context.Context, restURL string) (time.Time, error) {
	get := func(path string, v any) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, restURL+path, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", path, resp.Status)
		}
		return json.NewDecoder(resp.Body).Decode(v)
	}
	var ov struct {
		Jobs []struct {
			ID    string `json:"jid"`
			Start int64  `json:"start-time"`
		} `json:"jobs"`
	}
	if err := get("/jobs/overview", &ov); err != nil {
		return time.Time{}, err
	}
	if len(ov.Jobs) == 0 {
		return time.Time{}, fmt.Errorf("no job in %s/jobs/overview", restURL)
	}
	id, newest := "", int64(0)
	for _, j := range ov.Jobs {
		if j.Start > newest {
			id, newest = j.ID, j.Start
		}
	}
	var job struct {
		Vertices []struct {
			ID string `json:"id"`
		} `json:"vertices"`
	}
	if err := get("/jobs/"+id, &job); err != nil {
		return time.Time{}, err
	}
	last := int64(0)
	for _, v := range job.Vertices {
		var st struct {
			Subtasks []struct {
				Timestamps map[string]int64 `json:"timestamps"`
			} `json:"subtasks"`
		}
		if err := get("/jobs/"+id+"/vertices/"+v.ID+"/subtasktimes", &st); err != nil {
			return time.Time{}, err
		}
		for _, s := range st.Subtasks {
			last = max(last, s.Timestamps["RUNNING"])
		}
	}
	if last == 0 {
		return time.Time{}, fmt.Errorf("job %s: no subtask RUNNING timestamp", id)
	}
	return time.UnixMilli(last), nil
}

// jobRunningAt is when the job switched to RUNNING, from Prometheus: the
// JobManager reports the job's uptime (ms since then); each scrape gives
// one estimate (scrape time − uptime), the median is returned.
func jobRunningAt(ctx context.Context, pc *prometheus.Client, from, to time.Time) (time.Time, error) {
	ss, err := pc.Series(ctx, "max(flink_jobmanager_job_uptime)", from, to, time.Second)
	if err != nil {
		return time.Time{}, err
	}
	var est []float64
	for _, s := range ss {
		for _, p := range s.Points {
			if p.V > 0 {
				est = append(est, float64(p.T.UnixMilli())-p.V)
			}
		}
	}
	if len(est) == 0 {
		return time.Time{}, fmt.Errorf("no flink_jobmanager_job_uptime between %v and %v", from, to)
	}
	sort.Float64s(est)
	return time.UnixMilli(int64(est[len(est)/2])), nil
}

// hostTable is the CSV: one row per sample of the run. Row time_s = k is
// the run's interval (k−1, k]; its host values are PromQL evaluated at
// start + k + 0.999 s, i.e. over the last two scrapes before then (the
// second scrape at most 1 s after the interval's end).
func hostTable(ctx context.Context, pc *prometheus.Client, start time.Time, samples []results.Sample) (string, error) {
	if len(samples) == 0 {
		return "", fmt.Errorf("no samples")
	}
	at := func(ts float64) time.Time {
		return start.Add(time.Duration(ts*float64(time.Second)) + 999*time.Millisecond)
	}
	from, to := at(samples[0].TimeS), at(samples[len(samples)-1].TimeS)
	// the measured columns' queries on the ground truth's job
	cols := make([]map[int64]float64, len(hostmetrics.Measured))
	for i, m := range hostmetrics.Measured {
		q := strings.ReplaceAll(m.Query, "$job", prometheus.TruthJob)
		ss, err := pc.Series(ctx, q, from, to.Add(time.Millisecond), time.Second)
		if err != nil {
			return "", err
		}
		if len(ss) != 1 {
			return "", fmt.Errorf("%s: %d series, want 1", q, len(ss))
		}
		cols[i] = map[int64]float64{}
		for _, p := range ss[0].Points {
			cols[i][int64(math.Round(p.T.Sub(from).Seconds()))] = p.V
		}
	}
	var b strings.Builder
	b.WriteString("time_s,input_rate,throughput")
	for _, m := range hostmetrics.Measured {
		b.WriteString("," + m.Name)
	}
	b.WriteString("\n")
	missing := 0
	for _, s := range samples {
		fmt.Fprintf(&b, "%g,%.1f,%.1f", s.TimeS, s.InputRate, s.Throughput)
		key := int64(math.Round(s.TimeS - samples[0].TimeS))
		for i := range hostmetrics.Measured {
			v, ok := cols[i][key]
			if !ok {
				missing++
				b.WriteString(",")
				continue
			}
			fmt.Fprintf(&b, ",%.3f", v)
		}
		b.WriteString("\n")
	}
	if missing > len(samples)/20 {
		return "", fmt.Errorf("%d host values missing of %d", missing, len(samples)*len(hostmetrics.Measured))
	}
	return b.String(), nil
}
