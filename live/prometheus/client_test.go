package prometheus

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestHostConfigRoundTrip(t *testing.T) {
	f := HostConfig("127.0.0.1:9100", []Target{{"jobmanager", "127.0.0.1:9250"}, {"tm-1", "127.0.0.1:9251"}})
	b, err := f.Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scrape_interval: 1s", "job_name: node", "job_name: node-truth", "job_name: flink", "127.0.0.1:9251", "process: tm-1"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config lacks %q:\n%s", want, b)
		}
	}
	path := filepath.Join(t.TempDir(), "prometheus.yml")
	if err := f.WithOff([]string{"node_cpu_seconds_total", "node_memory_MemFree_bytes", "node_cpu_seconds_total"}).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Off(); !slices.Equal(got, []string{"node_cpu_seconds_total", "node_memory_MemFree_bytes"}) {
		t.Errorf("off = %v", got)
	}
	for _, sc := range g.ScrapeConfigs {
		if sc.JobName == TruthJob {
			if len(sc.MetricRelabelConfigs) != 0 {
				t.Errorf("the ground truth's job drops %+v", sc.MetricRelabelConfigs)
			}
			continue
		}
		if len(sc.MetricRelabelConfigs) != 1 || sc.MetricRelabelConfigs[0].Regex != "node_cpu_seconds_total|node_memory_MemFree_bytes" {
			t.Errorf("job %s rules %+v", sc.JobName, sc.MetricRelabelConfigs)
		}
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), "source_labels: [__name__]") || !strings.Contains(string(raw), "action: drop") {
		t.Errorf("drop rule not as Prometheus reads it:\n%s", raw)
	}
	if h := g.WithOff(nil); len(h.Off()) != 0 || h.ScrapeConfigs[0].MetricRelabelConfigs != nil {
		t.Errorf("all on: %+v", h.ScrapeConfigs[0])
	}
	// a rule of the job's own survives
	g.ScrapeConfigs[0].MetricRelabelConfigs = append(g.ScrapeConfigs[0].MetricRelabelConfigs, RelabelConfig{SourceLabels: []string{"mode"}, Regex: "steal", Action: "drop"})
	if h := g.WithOff([]string{"x"}); len(h.ScrapeConfigs[0].MetricRelabelConfigs) != 2 || !slices.Equal(h.Off(), []string{"x"}) {
		t.Errorf("own rule lost: %+v", h.ScrapeConfigs[0].MetricRelabelConfigs)
	}
	if CheckFamily("node_cpu_seconds_total") != nil || CheckFamily(`x"}`) == nil || CheckFamily("a|b") == nil {
		t.Error("CheckFamily")
	}
}

// fakeServer answers /-/reload (recording the config it saw), runtimeinfo
// and instant queries.
type fakeServer struct {
	mu       sync.Mutex
	config   string
	seen     []string // drop regexes at each reload
	reloaded time.Time
	queries  []string
	fail     bool
}

func (s *fakeServer) handler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/-/reload", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.fail {
			http.Error(w, "failed to reload config: bad", http.StatusInternalServerError)
			return
		}
		f, err := ReadFile(s.config)
		if err != nil {
			t.Error(err)
		}
		s.seen = append(s.seen, strings.Join(f.Off(), "|"))
		s.reloaded = time.Now()
	})
	mux.HandleFunc("/api/v1/status/runtimeinfo", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{
			"reloadConfigSuccess": !s.fail, "lastConfigTime": s.reloaded.Truncate(time.Second).UTC().Format(time.RFC3339)}})
	})
	mux.HandleFunc("/api/v1/query", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		q := r.Form.Get("query")
		s.mu.Lock()
		s.queries = append(s.queries, q)
		s.mu.Unlock()
		v := "40"
		if strings.HasPrefix(q, "count(") {
			v = "2"
		}
		json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{
			"resultType": "vector", "result": []any{map[string]any{"metric": map[string]string{}, "value": []any{1.0, v}}}}})
	})
	return mux
}

func TestClientScrapeAndSamples(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prometheus.yml")
	if err := HostConfig("127.0.0.1:9100", nil).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	fs := &fakeServer{config: path}
	srv := httptest.NewServer(fs.handler(t))
	defer srv.Close()
	c, err := New(srv.URL, path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.SetScraping(ctx, "node_cpu_seconds_total", false); err != nil {
		t.Fatal(err)
	}
	if err := c.SetScraping(ctx, "node_cpu_seconds_total", false); err != nil { // no change: no reload
		t.Fatal(err)
	}
	if err := c.Scrape(ctx, map[string]bool{"node_memory_MemFree_bytes": false, "node_cpu_seconds_total": true}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetScraping(ctx, "node_memory_MemFree_bytes", true); err != nil {
		t.Fatal(err)
	}
	if want := []string{"node_cpu_seconds_total", "node_memory_MemFree_bytes", ""}; !slices.Equal(fs.seen, want) {
		t.Errorf("reloads saw off = %q, want %q", fs.seen, want)
	}
	if len(c.Off()) != 0 {
		t.Errorf("off after all on: %v", c.Off())
	}
	// a new client reads the state from the file
	if err := c.SetScraping(ctx, "node_netstat_Tcp_InSegs", false); err != nil {
		t.Fatal(err)
	}
	c2, err := New(srv.URL, path)
	if err != nil || !slices.Equal(c2.Off(), []string{"node_netstat_Tcp_InSegs"}) {
		t.Errorf("new client: off %v, %v", c2.Off(), err)
	}
	if err := c.SetScraping(ctx, "a|b", false); err == nil {
		t.Error("a regex accepted as a family")
	}

	fs.mu.Lock()
	fs.fail = true
	fs.mu.Unlock()
	if err := c.SetScraping(ctx, "node_cpu_seconds_total", false); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("failed reload: %v", err)
	}
	if slices.Contains(c.Off(), "node_cpu_seconds_total") {
		t.Error("state changed although the reload failed")
	}

	to := time.Unix(1000, 0)
	n, err := c.Samples(ctx, "node_cpu_seconds_total", to.Add(-20*time.Second), to)
	if err != nil {
		t.Fatal(err)
	}
	if n.Samples != 40 || n.Series != 2 || n.Share(20) != 1 || !math.IsNaN(Count{}.Share(20)) {
		t.Errorf("count %+v share %g", n, n.Share(20))
	}
	want := `sum(count_over_time({__name__="node_cpu_seconds_total",job!="node-truth"}[20000ms]))`
	if !slices.Contains(fs.queries, want) {
		t.Errorf("queries %q lack %q", fs.queries, want)
	}
}
