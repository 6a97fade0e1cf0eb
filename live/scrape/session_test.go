package scrape

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/internal/control"
	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/hostmetrics"
	"github.com/streamtwin/streamtwin/models/monitor"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"

	"github.com/streamtwin/streamtwin/live/prometheus"
)

// truthTSDB is fakeTSDB whose metric is 10 + k at the run's second k, on
// both jobs: the ground truth and what a sampler's scrape brings.
type truthTSDB struct {
	*fakeTSDB
	start   time.Time
	queries []string
}

func (f *truthTSDB) at(t time.Time) float64 {
	return 10 + math.Round(float64(t.Sub(f.start))/float64(f.second)) - 1
}

func (f *truthTSDB) Value(_ context.Context, q string, at time.Time) ([]prometheus.Sample, error) {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	return []prometheus.Sample{{T: at, V: f.at(at)}}, nil
}

func (f *truthTSDB) Series(_ context.Context, q string, from, to time.Time, step time.Duration) ([]prometheus.Series, error) {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	var ps []prometheus.Point
	for t := from; !t.After(to); t = t.Add(step) {
		ps = append(ps, prometheus.Point{T: t, V: f.at(t)})
	}
	return []prometheus.Series{{Points: ps}}, nil
}

// TestSession runs a whole live monitoring session against a fake
// Prometheus whose metric is 10 + k at second k: 12 s, the first 4 train,
// fixed 3 s live. The live sampler scrapes seconds 4, 7 and 10 (3 of 8);
// what Prometheus held is the truth there, so the live rows must equal the
// replay's, and the TSDB's share (2 series, counted at mid-second) the
// run's.
func TestSession(t *testing.T) {
	const sec = 100 * time.Millisecond
	spec := monitor.Spec{
		Train:    4,
		Metrics:  []hostmetrics.Relation{{Name: "m", Bytes: 100, Query: `sum(m{job="$job"})`, Families: []string{"m"}}},
		Samplers: []monitor.SamplerSpec{{Kind: "fixed", Intervals: []int{1, 3}}},
		Live:     &monitor.LiveSampler{Sampler: "fixed", Param: 3},
	}
	if p := spec.Problems(12); p != nil {
		t.Fatal(p)
	}
	db := &truthTSDB{fakeTSDB: &fakeTSDB{second: sec, changes: map[string][]change{}}}
	s := &Session{Client: db, Spec: spec, Seeds: sim.Seeds{Root: 1}, Seconds: 12, Second: sec}
	db.start = time.Now()
	if err := s.Run(context.Background(), db.start); err != nil {
		t.Fatal(err)
	}
	ev, files, err := s.Evaluate(make([]float64, 12))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range ev.Truth[0] {
		if v != float64(10+i) {
			t.Fatalf("truth %v, want 10, 11, …", ev.Truth[0])
		}
	}
	rows := map[string]results.TradeoffRow{}
	for _, r := range ev.Rows {
		if r.Metric == "m" {
			rows[fmt.Sprintf("%s/%g", r.Sampler, r.Param)] = r
		}
	}
	live, replay := rows["fixed-live/3"], rows["fixed/3"]
	if live.SamplesShare != 3.0/8 || replay.SamplesShare != 3.0/8 || live.MAE != replay.MAE || live.MAPE != replay.MAPE {
		t.Errorf("live %+v, replay %+v", live, replay)
	}
	if n := len(ev.Rows); n != 3*2 {
		t.Errorf("%d rows, want fixed 1, fixed 3 and fixed-live 3, each all and m", n)
	}
	recs, err := csv.NewReader(strings.NewReader(string(files[results.MonitoringLiveCSV]))).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("%s: %v, %v", results.MonitoringLiveCSV, recs, err)
	}
	got := map[string]string{}
	for i, c := range recs[0] {
		got[c] = recs[1][i]
	}
	want := map[string]string{"metric": "m", "seconds": "8", "scraped_seconds": "3", "run_share": "0.375", "stored_share": "0.375",
		"series": "2", "samples": "6", "points": "3", "replay_share": "0.375", "decisions_agree": "1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s %s = %q, want %q", results.MonitoringLiveCSV, k, got[k], v)
		}
	}
	for _, q := range db.queries {
		if strings.Contains(q, "$job") || !(strings.Contains(q, `job="node"`) || strings.Contains(q, `job="node-truth"`)) {
			t.Errorf("query %q", q)
		}
	}
}

func TestSessionRefusesWithoutLiveRun(t *testing.T) {
	s := &Session{}
	if _, _, err := s.Evaluate(make([]float64, 3)); err == nil {
		t.Error("Evaluate before Run accepted")
	}
}

// TestSessionRunFolder: a session's outputs reach a run folder as a live
// run writes it (run.ToDir with the session's hooks, the driver replaced
// by a backend that writes 12 samples while the session runs).
func TestSessionRunFolder(t *testing.T) {
	const sec = 100 * time.Millisecond
	yaml := `name: session
duration: 12s
workload: {shape: constant, rate: 1000/s}
job: {template: traffic-monitoring, parallelism: 1}
monitoring:
  train: 4s
  metrics: [{name: m, bytes: 100, query: 'sum(m{job="$job"})', families: [m]}]
  samplers: [{kind: fixed, intervals: [1, 3]}]
  live: {sampler: fixed, param: 3}
`
	sc, err := scenario.ParseRun("session.yaml", []byte(yaml), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := &truthTSDB{fakeTSDB: &fakeTSDB{second: sec, changes: map[string][]change{}}}
	s := &Session{Client: db, Spec: *sc.Monitoring, Seeds: sim.Seeds{Root: sc.Seed}, Seconds: 12, Second: sec}
	exec := func(sink run.Sink) (results.Summary, error) {
		db.start = time.Now()
		done := make(chan error, 1)
		go func() { done <- s.Run(context.Background(), db.start) }()
		for k := 1; k <= 12; k++ {
			if err := sink.WriteSample(results.Sample{TimeS: float64(k), InputRate: 1000, Throughput: 1000}); err != nil {
				return results.Summary{}, err
			}
		}
		return results.Summary{DurationS: 12}, <-done
	}
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := run.ToDir(context.Background(), writer(exec), sc, dir, run.Output{Monitoring: s.Evaluate}); err != nil {
		t.Fatal(err)
	}
	trade, err := os.ReadFile(filepath.Join(dir, results.TradeoffCSV))
	if err != nil || !strings.Contains(string(trade), "\nfixed-live,interval_s,3,m,0.375,0.375,") {
		t.Errorf("%s: %v\n%s", results.TradeoffCSV, err, trade)
	}
	for _, name := range []string{results.MonitoringLiveCSV, results.HostMetricsFile, results.TradeoffParquet} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}

// writer is a backend that carries out everything by writing rows.
type writer func(run.Sink) (results.Summary, error)

func (writer) Name() string { return "live" }

func (writer) Capabilities(context.Context) (control.Capabilities, error) {
	return control.Everything("a fake cluster"), nil
}

func (w writer) Execute(_ context.Context, _ *run.Plan, sink run.Sink) (results.Summary, error) {
	return w(sink)
}
