package evaluation

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/resultstest"
)

// in reports whether t lies in the sample range (lo, hi].
func in(t, lo, hi float64) bool { return t > lo && t <= hi }

// writeEvalRun commits a run folder of n 1-s samples (t = 1..n) whose
// throughput, latency p99 and CI come from series.
func writeEvalRun(t *testing.T, dir string, n int, series func(t float64) (thr, lat, ci float64), events []results.Event, sum results.Summary, scenarioYAML string) {
	t.Helper()
	w, err := results.CreateRun(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for i := 1; i <= n; i++ {
		ts := float64(i)
		thr, lat, ci := series(ts)
		if err := w.WriteSample(results.Sample{TimeS: ts, InputRate: thr, Throughput: thr, OutputRate: thr,
			LatencyMeanMs: lat, LatencyP50Ms: lat, LatencyP99Ms: lat, LatencyMarkerP99Ms: lat, CheckpointIntervalS: ci, Workers: 4, JobState: "RUNNING"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range events {
		if err := w.WriteEvent(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(sum, []byte(scenarioYAML)); err != nil {
		t.Fatal(err)
	}
}

// evalRuns writes two variants with known answers (worked out in the
// comments) into dir and returns their folders, in evaluation order.
//
// khaos (policy khaos, submitted CI 30 s, CI 20 s from t = 1605):
//   - fault 1 at 600: pre-failure window (300, 600]: throughput 150 s at
//     8000 and 150 s at 10000 → 9000; latency NaN for 10 s, 140 s at 300 and
//     150 s at 500 → 117000/290; recovered at 650 → 50 s.
//   - fault 2 at 1200.5: window (900.5, 1200.5] = samples 901..1200:
//     throughput 11000, latency 700; recovered at 1450.5 → 250 s.
//   - a reconfiguration at 1600–1605 whose recovery (1625, 20 s, reason
//     "reconfiguration: …") is no failure; the reconfigured event's Value
//     (backlog) is no CI.
//   - latency series: 65 NaN, 1735 values: 300 ×140, 500 ×1045, 700 ×300,
//     1500 ×30, 2000 ×220; 300-sample windows (5 full): means 500, 440,
//     586.67, 830, 1450.
//
// ci30 (static, 30 s):
//   - fault 1 at 500.25: window samples 201..500: throughput 100 s at
//     17000, 200 s at 20000 → 19000, latency 400; recovered at 560.25 → 60 s.
//     A reconfiguration recovery that also started at 500.25 comes first
//     in the events and must not be taken.
//   - fault 2 at 1100: window 801..1100: throughput 20000, latency 600;
//     recovered at 1200 → 100 s.
//   - latency series: 30 NaN, 1770 values: 400 ×1390, 600 ×300, 1200 ×80;
//     windows: 400, 506.67, 480, 626.67, 400.
func evalRuns(t *testing.T, dir string) []string {
	t.Helper()
	nan := math.NaN()
	khaos := func(ts float64) (thr, lat, ci float64) {
		thr, lat, ci = 10000, 500, 30
		if ts > 1605 {
			ci = 20
		}
		switch {
		case in(ts, 300, 310):
			thr, lat = 8000, nan
		case in(ts, 310, 450):
			thr, lat = 8000, 300
		case in(ts, 600, 620), in(ts, 1200, 1230), in(ts, 1600, 1605):
			thr, lat = 0, nan
		case in(ts, 620, 650):
			thr, lat = 15000, 1500
		case in(ts, 900, 1200):
			thr, lat = 11000, 700
		case in(ts, 1230, 1450):
			thr, lat = 12000, 2000
		}
		return
	}
	reason := "khaos: recovery violation → CI 20s"
	khaosEvents := []results.Event{
		{TimeS: 600, Kind: results.KindFault, TaskManager: resultstest.Ptr[int32](0), Reason: "faults[0]"},
		{TimeS: 601, Kind: results.KindDetected, Reason: "TaskManager 0 lost"},
		{TimeS: 620, Kind: results.KindRunning, DurationS: resultstest.Ptr(20.0), Value: resultstest.Ptr(2e5)},
		{TimeS: 650, Kind: results.KindRecovered, DurationS: resultstest.Ptr(50.0), Reason: "TaskManager 0 lost"},
		{TimeS: 1200.5, Kind: results.KindFault, TaskManager: resultstest.Ptr[int32](0), Reason: "faults[1]"},
		{TimeS: 1450.5, Kind: results.KindRecovered, DurationS: resultstest.Ptr(250.0), Reason: "TaskManager 0 lost"},
		{TimeS: 1500, Kind: results.KindPolicyDecision, Value: resultstest.Ptr(0.0), Reason: "note: khaos: no feasible CI"},
		{TimeS: 1600, Kind: results.KindPolicyDecision, Value: resultstest.Ptr(20.0), Reason: "set_checkpoint_interval: " + reason},
		{TimeS: 1600.5, Kind: results.KindSavepoint, DurationS: resultstest.Ptr(0.5), Reason: reason},
		{TimeS: 1605, Kind: results.KindReconfigured, DurationS: resultstest.Ptr(5.0), Value: resultstest.Ptr(12345.0), Reason: reason},
		{TimeS: 1625, Kind: results.KindRecovered, DurationS: resultstest.Ptr(20.0), Reason: "reconfiguration: " + reason},
		{TimeS: 1700, Kind: results.KindPolicyDecision, Value: resultstest.Ptr(15.0), Reason: "set_checkpoint_interval: again (rejected: a reconfiguration is running)"},
	}
	ci30 := func(ts float64) (thr, lat, ci float64) {
		thr, lat, ci = 20000, 400, 30
		switch {
		case in(ts, 200, 300):
			thr = 17000
		case in(ts, 500, 520), in(ts, 1100, 1110):
			thr, lat = 0, nan
		case in(ts, 520, 560), in(ts, 1110, 1150):
			thr, lat = 30000, 1200
		case in(ts, 800, 1100):
			lat = 600
		}
		return
	}
	ci30Events := []results.Event{
		{TimeS: 500.25, Kind: results.KindFault, TaskManager: resultstest.Ptr[int32](1), Reason: "faults[0]"},
		{TimeS: 510.25, Kind: results.KindRecovered, DurationS: resultstest.Ptr(10.0), Reason: "reconfiguration: forced by actions in the scenario"},
		{TimeS: 560.25, Kind: results.KindRecovered, DurationS: resultstest.Ptr(60.0), Reason: "TaskManager 1 lost"},
		{TimeS: 1100, Kind: results.KindFault, TaskManager: resultstest.Ptr[int32](1), Reason: "faults[1]"},
		{TimeS: 1200, Kind: results.KindRecovered, DurationS: resultstest.Ptr(100.0), Reason: "TaskManager 1 lost"},
	}
	qos := results.QoSSummary{LatencyBoundMs: 1000, RecoveryBoundS: 240}
	dirs := []string{filepath.Join(dir, "khaos"), filepath.Join(dir, "ci30")}
	writeEvalRun(t, dirs[0], 1800, khaos, khaosEvents,
		results.Summary{Scenario: "eval", Variant: "khaos", DurationS: 1800, QoS: qos, LatencySteadyMeanMs: 512.5,
			Reconfigurations: 1, CheckpointIntervalMeanS: 29.5, WorkerSeconds: 7190},
		"name: eval\nvariant: khaos\njob:\n  checkpoint:\n    interval: 30s\npolicy:\n  name: khaos\n  latency_bound: 1s\n")
	writeEvalRun(t, dirs[1], 1800, ci30, ci30Events,
		results.Summary{Scenario: "eval", Variant: "ci30", DurationS: 1800, QoS: qos, LatencySteadyMeanMs: 410,
			CheckpointIntervalMeanS: 30, WorkerSeconds: 7200},
		"name: eval\nvariant: ci30\njob:\n  checkpoint:\n    interval: 30s\npolicy:\n  name: static\n")
	return dirs
}

func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

func checkFloat(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !near(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func checkInt(t *testing.T, what string, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %d, want %d", what, got, want)
	}
}

func TestEvaluateKnownAnswers(t *testing.T) {
	dir := t.TempDir()
	runsDirs := evalRuns(t, dir)
	dirs, labels, err := Runs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(labels, []string{"khaos", "ci30"}) || !slices.Equal(dirs, runsDirs) {
		t.Fatalf("Runs = %v %v, want khaos first", dirs, labels)
	}
	ev, err := Evaluate(dirs, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Scenario != "eval" || len(ev.Variants) != 2 {
		t.Fatalf("scenario %q, %d variants", ev.Scenario, len(ev.Variants))
	}
	k, c := ev.Variants[0], ev.Variants[1]

	wantFailures := map[string][]FailureEvaluation{
		"khaos": {
			{Index: 1, FaultAtS: 600, ThroughputMean: 9000, LatencyMeanMs: 117000.0 / 290, CIS: 30, RecoveryS: 50},
			{Index: 2, FaultAtS: 1200.5, ThroughputMean: 11000, LatencyMeanMs: 700, CIS: 30, RecoveryS: 250},
		},
		"ci30": {
			{Index: 1, FaultAtS: 500.25, ThroughputMean: 19000, LatencyMeanMs: 400, CIS: 30, RecoveryS: 60},
			{Index: 2, FaultAtS: 1100, ThroughputMean: 20000, LatencyMeanMs: 600, CIS: 30, RecoveryS: 100},
		},
	}
	for _, v := range ev.Variants {
		want := wantFailures[v.Label]
		if len(v.Failures) != len(want) {
			t.Fatalf("%s: %d failures, want %d (the reconfiguration recovery is no failure)", v.Label, len(v.Failures), len(want))
		}
		for i, f := range v.Failures {
			w := want[i]
			if f.Index != w.Index || !near(f.FaultAtS, w.FaultAtS) || !near(f.ThroughputMean, w.ThroughputMean) ||
				!near(f.LatencyMeanMs, w.LatencyMeanMs) || !near(f.CIS, w.CIS) || !near(f.RecoveryS, w.RecoveryS) {
				t.Errorf("%s failure %d = %+v, want %+v", v.Label, i+1, f, w)
			}
		}
	}

	// khaos
	if k.Policy != "khaos" || !near(k.CheckpointIntervalS, 30) || !math.IsNaN(k.StaticCIS) || !k.DynamicCI {
		t.Errorf("khaos: policy %q, CI %v, static CI %v, dynamic %v", k.Policy, k.CheckpointIntervalS, k.StaticCIS, k.DynamicCI)
	}
	checkInt(t, "khaos recovered", k.Recovered, 2)
	checkFloat(t, "khaos recovery median", k.RecoveryMedianS, 150)
	checkFloat(t, "khaos recovery mean", k.RecoveryMeanS, 150)
	checkFloat(t, "khaos recovery max", k.RecoveryMaxS, 250)
	checkFloat(t, "khaos R", k.RecoveryBoundS, 240)
	checkInt(t, "khaos violations", k.RecoveryViolations, 1)
	checkFloat(t, "khaos latency mean", k.LatencyMeanMs, (300*140+500*1045+700*300+1500*30+2000*220)/1735.0)
	checkFloat(t, "khaos latency median", k.LatencyMedianMs, 500)
	checkFloat(t, "khaos % > L", k.LatencyOverPct, 100*250/1735.0)
	checkInt(t, "khaos windows", k.LatencyWindows, 5)
	checkInt(t, "khaos windows > L", k.LatencyWindowsOver, 1)
	checkFloat(t, "khaos steady latency", k.LatencySteadyMeanMs, 512.5)
	checkInt(t, "khaos reconfigurations", k.Reconfigurations, 1)
	checkFloat(t, "khaos CI mean", k.CheckpointIntervalMeanS, 29.5)
	checkFloat(t, "khaos worker-seconds", k.WorkerSeconds, 7190)
	if want := []CIChange{{AtS: 1600, InForceAtS: 1605, CheckpointIntervalS: 20}}; !reflect.DeepEqual(k.CIChanges, want) {
		t.Errorf("khaos CI changes = %+v, want %+v (notes, rejected decisions and the reconfigured backlog are no CI)", k.CIChanges, want)
	}

	// ci30
	if c.Policy != "static" || !near(c.StaticCIS, 30) || c.DynamicCI {
		t.Errorf("ci30: policy %q, static CI %v, dynamic %v", c.Policy, c.StaticCIS, c.DynamicCI)
	}
	checkInt(t, "ci30 recovered", c.Recovered, 2)
	checkFloat(t, "ci30 recovery median", c.RecoveryMedianS, 80)
	checkFloat(t, "ci30 recovery mean", c.RecoveryMeanS, 80)
	checkFloat(t, "ci30 recovery max", c.RecoveryMaxS, 100)
	checkInt(t, "ci30 violations", c.RecoveryViolations, 0)
	checkFloat(t, "ci30 latency mean", c.LatencyMeanMs, (400*1390+600*300+1200*80)/1770.0)
	checkFloat(t, "ci30 latency median", c.LatencyMedianMs, 400)
	checkFloat(t, "ci30 % > L", c.LatencyOverPct, 100*80/1770.0)
	checkInt(t, "ci30 windows", c.LatencyWindows, 5)
	checkInt(t, "ci30 windows > L", c.LatencyWindowsOver, 0)
	checkFloat(t, "ci30 steady latency", c.LatencySteadyMeanMs, 410)
	checkInt(t, "ci30 reconfigurations", c.Reconfigurations, 0)
	if len(c.CIChanges) != 0 {
		t.Errorf("ci30 CI changes = %+v, want none", c.CIChanges)
	}

	// Given bounds replace the runs' own.
	ev2, err := Evaluate(dirs, labels, Options{RecoveryBoundS: 55, LatencyBoundMs: 500})
	if err != nil {
		t.Fatal(err)
	}
	k, c = ev2.Variants[0], ev2.Variants[1]
	checkInt(t, "khaos violations of R=55", k.RecoveryViolations, 1)
	checkInt(t, "ci30 violations of R=55", c.RecoveryViolations, 2)
	checkFloat(t, "khaos % > 500 ms", k.LatencyOverPct, 100*550/1735.0)
	checkInt(t, "khaos windows > 500 ms", k.LatencyWindowsOver, 3) // 586.67, 830, 1450
	checkFloat(t, "ci30 % > 500 ms", c.LatencyOverPct, 100*380/1770.0)
	checkInt(t, "ci30 windows > 500 ms", c.LatencyWindowsOver, 2) // 506.67, 626.67
	if !ev2.RecoveryBoundGiven || !ev2.LatencyBoundGiven {
		t.Error("given bounds not flagged")
	}

	// Another latency column; one the files lack is a ColumnError.
	ev3, err := Evaluate(dirs, labels, Options{LatencyColumn: "latency_p50_ms"})
	if err != nil {
		t.Fatal(err)
	}
	checkFloat(t, "khaos p50 median", ev3.Variants[0].LatencyMedianMs, 500)
	var ce *results.ColumnError
	if _, err := Evaluate(dirs, labels, Options{LatencyColumn: "latency_p95_ms"}); !errors.As(err, &ce) {
		t.Errorf("missing latency column: %v, want a ColumnError", err)
	}
}

func TestEvaluateMeasured(t *testing.T) {
	dir := t.TempDir()
	dirs := evalRuns(t, dir)
	// the 300 s at CI 30 is censored (the measurement stopped there): the
	// measured statistics of CI 30 are lower bounds, marked ≥
	table := "# measured failures\nthroughput,checkpoint_interval_s,recovery_s,latency_ms,label,censored\n" +
		"19000,30,50,450,p30,false\n20000,30,70,,p30,false\n21000,30,300,550,p30,true\n15000,10,20,300,p10,false\n"
	path := filepath.Join(dir, "measured.csv")
	if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := ingest.ReadMeasured(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 4 || ms[1].Line != 4 || !math.IsNaN(ms[1].LatencyMs) || ms[0].Label != "p30" {
		t.Fatalf("measured = %+v", ms)
	}
	ev, err := Evaluate(dirs, []string{"khaos", "ci30"}, Options{Measured: ms, MeasuredSource: "measured.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Measured) != 2 {
		t.Fatalf("%d comparisons, want 2 (CI 10 unmatched, CI 30 → ci30 only: khaos is no static policy): %+v", len(ev.Measured), ev.Measured)
	}
	m10, m30 := ev.Measured[0], ev.Measured[1]
	if m10.Variant != "" || m10.MeasuredN != 1 || !near(m10.MeasuredMedianS, 20) || !near(m10.MeasuredMeanS, 20) ||
		m10.MeasuredOver != 0 || !near(m10.MeasuredLatencyMs, 300) || m10.SimN != 0 || !math.IsNaN(m10.SimMeanS) {
		t.Errorf("CI 10 = %+v", m10)
	}
	if m30.Variant != "ci30" || m30.MeasuredN != 3 || m30.MeasuredCensored != 1 || !near(m30.MeasuredMedianS, 70) || !near(m30.MeasuredMeanS, 140) ||
		m30.MeasuredOver != 1 || !near(m30.MeasuredLatencyMs, 500) || m30.SimN != 2 || !near(m30.SimMedianS, 80) ||
		!near(m30.SimMeanS, 80) || m30.SimOver != 0 || !near(m30.SimLatencyMs, 500) || !near(m30.RecoveryBoundS, 240) {
		t.Errorf("CI 30 = %+v", m30)
	}
	var md strings.Builder
	if err := ev.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## Measured vs simulated",
		"| 10 | – | 1 | 20.00 | 20.00 | 0 | – | – | – | – | 300.0 | – |",
		"| 30 | ci30 | 3 (1 censored) | ≥ 70.00 | ≥ 140.0 | ≥ 1 | 2 | 80.00 | 80.00 | 0 | 500.0 | 500.0 |",
		"No measured CI for: khaos.",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("evaluation.md lacks %q:\n%s", want, md.String())
		}
	}
}

func TestEvaluationWrite(t *testing.T) {
	dir := t.TempDir()
	dirs := evalRuns(t, filepath.Join(dir, "runs"))
	ev, err := Evaluate(dirs, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.LatencyColumn != DefaultLatencyColumn || DefaultLatencyColumn != "latency_marker_p99_ms" {
		t.Errorf("default latency column %q (DefaultLatencyColumn %q), want latency_marker_p99_ms, what evaluate reads by default", ev.LatencyColumn, DefaultLatencyColumn)
	}
	out := filepath.Join(dir, "out")
	paths, err := ev.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range []string{MarkdownFile, FailuresCSV, VariantsCSV} {
		want = append(want, filepath.Join(out, f))
	}
	for _, base := range []string{RecoveryFigure, LatencyFigure, PanelsFigure, FaultsFigure} {
		for _, ext := range []string{".png", ".svg", ".pdf"} {
			want = append(want, filepath.Join(out, base+ext))
		}
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("paths = %v, want %v", paths, want)
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}

	md, _ := os.ReadFile(filepath.Join(out, MarkdownFile))
	for _, line := range []string{
		"# Evaluation: eval",
		"| # | at | khaos | ci30 |",
		"| 1 | 0:10:00 | 9.000/403.4/50.00 (CI 30 s) | 19.00/400.0/60.00 |",
		"| 2 | 0:20:01 | 11.00/700.0/250.0 (CI 30 s) | 20.00/600.0/100.0 |",
		"| median rec (s) |  | 150.0 | 80.00 |",
		"| mean rec (s) |  | 150.0 | 80.00 |",
		"| # rec > 240 s |  | 1 | 0 |",
		"## Latency series (30 min): latency-marker p99",
		"| latency-marker p99, mean over intervals (ms) | 725.9 | 470.1 |",
		"| latency-marker p99, median over intervals (ms) | 500.0 | 400.0 |",
		"| latency-marker p99, % of intervals > 1000 ms | 14.41 % | 4.520 % |",
		"| latency-marker p99, 300-s windows with mean > 1000 ms | 1/5 | 0/5 |",
		"| event-time mean outside recoveries, record-weighted (ms) | 512.5 | 410.0 |",
		"| CI changes (h:mm:ss → new CI s) | 0:26:40 → 20 | – |",
		"| worker-seconds (TaskManager-s) | 7,190 | 7,200 |",
	} {
		if !strings.Contains(string(md), line+"\n") {
			t.Errorf("evaluation.md lacks the line %q:\n%s", line, md)
		}
	}

	rows := readCSVFile(t, filepath.Join(out, FailuresCSV))
	wantRows := [][]string{
		{"variant", "failure", "fault_at_s", "throughput", "latency_ms", "recovery_s", "checkpoint_interval_s", "latency_column"},
		{"khaos", "1", "600", "9000", csvNum(117000.0 / 290), "50", "30", "latency_marker_p99_ms"},
		{"khaos", "2", "1200.5", "11000", "700", "250", "30", "latency_marker_p99_ms"},
		{"ci30", "1", "500.25", "19000", "400", "60", "30", "latency_marker_p99_ms"},
		{"ci30", "2", "1100", "20000", "600", "100", "30", "latency_marker_p99_ms"},
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("failures.csv = %v, want %v", rows, wantRows)
	}
	rows = readCSVFile(t, filepath.Join(out, VariantsCSV))
	if len(rows) != 3 {
		t.Fatalf("variants.csv has %d rows, want header + 2", len(rows))
	}
	got := map[string]string{}
	for i, col := range rows[0] {
		got[col] = rows[1][i]
	}
	for col, want := range map[string]string{
		"variant": "khaos", "policy": "khaos", "checkpoint_interval_s": "30", "failures": "2", "recovered": "2",
		"recovery_median_s": "150", "recovery_mean_s": "150", "recovery_max_s": "250", "recovery_bound_s": "240",
		"recovery_violations": "1", "latency_bound_ms": "1000", "latency_median_ms": "500", "latency_windows_over": "1",
		"latency_windows": "5", "latency_steady_mean_ms": "512.5", "reconfigurations": "1", "ci_changes": "1600:20",
		"checkpoint_interval_mean_s": "29.5", "worker_seconds": "7190", "latency_column": "latency_marker_p99_ms",
	} {
		if got[col] != want {
			t.Errorf("variants.csv khaos %s = %q, want %q", col, got[col], want)
		}
	}

	var table strings.Builder
	if err := ev.WriteSummaryTable(&table); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(table.String()), "\n"); len(lines) != 3 ||
		!strings.HasPrefix(lines[1], "khaos") || !strings.HasPrefix(lines[2], "ci30") {
		t.Errorf("summary table:\n%s", table.String())
	}
}

func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestEvaluationRunsOrder(t *testing.T) {
	mk := func(t *testing.T, dir, scenarioYAML string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		js, _ := (results.Summary{Scenario: "s", Variant: filepath.Base(dir)}).Marshal()
		if err := os.WriteFile(filepath.Join(dir, results.SummaryFile), js, 0o644); err != nil {
			t.Fatal(err)
		}
		if scenarioYAML != "" {
			if err := os.WriteFile(filepath.Join(dir, results.ScenarioFile), []byte(scenarioYAML), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Natural order, khaos first; hidden and summary-less folders skipped.
	dir := t.TempDir()
	for _, n := range []string{"ci120", "ci30", "young", "khaos", "ci9", ".tmp-1"} {
		mk(t, filepath.Join(dir, n), "")
	}
	if err := os.MkdirAll(filepath.Join(dir, "profile"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, labels, err := Runs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"khaos", "ci9", "ci30", "ci120", "young"}; !slices.Equal(labels, want) {
		t.Errorf("labels = %v, want %v", labels, want)
	}

	// The scenario's order when the first run's scenario.yaml lists it.
	dir = t.TempDir()
	mk(t, filepath.Join(dir, "a"), "name: s\nvariants:\n  - {name: c}\n  - {name: a}\n")
	mk(t, filepath.Join(dir, "b"), "")
	mk(t, filepath.Join(dir, "c"), "")
	if _, labels, err = Runs(dir); err != nil {
		t.Fatal(err)
	}
	if want := []string{"c", "a", "b"}; !slices.Equal(labels, want) {
		t.Errorf("labels = %v, want %v", labels, want)
	}

	// A run folder is one run.
	dirs, labels, err := Runs(filepath.Join(dir, "b"))
	if err != nil || len(dirs) != 1 || labels[0] != "b" {
		t.Errorf("single run: %v %v %v", dirs, labels, err)
	}

	// No run folders.
	if _, _, err := Runs(t.TempDir()); !errors.Is(err, ErrNoRunFolders) {
		t.Errorf("empty folder: %v, want ErrNoRunFolders", err)
	}
}

// TestEvaluationLabelsNameTheirLatency: every latency row and column of
// evaluation.md and of the terminal table names its definition (the
// latency-marker p99 is not the event-time mean beside it), and the share
// of intervals over L is a percentage with its sign, for every latency
// column evaluate takes.
func TestEvaluationLabelsNameTheirLatency(t *testing.T) {
	dirs := evalRuns(t, t.TempDir())
	for col, def := range map[string]string{
		"latency_marker_p99_ms": "latency-marker p99", "latency_p99_ms": "event-time p99",
		"latency_p50_ms": "event-time p50", "latency_mean_ms": "event-time mean",
	} {
		ev, err := Evaluate(dirs, nil, Options{LatencyColumn: col})
		if err != nil {
			t.Fatal(err)
		}
		var md strings.Builder
		if err := ev.WriteMarkdown(&md); err != nil {
			t.Fatal(err)
		}
		text := md.String()
		section := text[strings.Index(text, "## Latency series"):strings.Index(text, "## Variants")]
		if !strings.Contains(section, "): "+def+"\n") || !strings.Contains(section, "`"+col+"`") {
			t.Errorf("%s: the latency series heading and text do not name %q (`%s`):\n%s", col, def, col, section)
		}
		for _, line := range strings.Split(section, "\n") {
			cells := strings.Split(line, " | ")
			if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Metric") {
				continue
			}
			label := strings.TrimPrefix(cells[0], "| ")
			if !strings.HasPrefix(label, def+", ") && label != steadyLatencyLabel {
				t.Errorf("%s: latency row %q does not begin with its definition %q", col, label, def)
			}
			if strings.Contains(label, "%") {
				for _, c := range cells[1:] {
					if c = strings.TrimSuffix(c, " |"); !strings.HasSuffix(c, " %") {
						t.Errorf("%s: share %q of row %q has no %% sign", col, c, label)
					}
				}
			}
		}
		if !strings.Contains(section, "| event-time mean outside recoveries, record-weighted (ms) | 512.5 | 410.0 |") {
			t.Errorf("%s: the steady latency row does not say it is the event-time mean:\n%s", col, section)
		}
		if want := "/ " + def + " before failure (ms: the mean of `" + col + "`"; !strings.Contains(text, want) {
			t.Errorf("%s: the per-failure cells are not explained as %q", col, want)
		}

		var table strings.Builder
		if err := ev.WriteSummaryTable(&table); err != nil {
			t.Fatal(err)
		}
		head := strings.Fields(strings.SplitN(table.String(), "\n", 2)[0])
		short := latencyShortName(col)
		for _, want := range []string{short + "_mean_ms", short + "_median_ms", short + ">L", "steady_event_mean_ms"} {
			if !slices.Contains(head, want) {
				t.Errorf("%s: summary table header %v lacks %q", col, head, want)
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(table.String()), "\n")[1:] {
			if !strings.Contains(line, " %") {
				t.Errorf("%s: the share over L is not a percentage in the summary line %q", col, line)
			}
		}
		for _, h := range head {
			if strings.HasPrefix(h, "lat") {
				t.Errorf("%s: header %q says latency without its definition", col, h)
			}
		}
	}
}

// TestFigureTitlesNameTheBackend: the evaluation's figures are titled by
// the scenario and the runs' backends, as plot's are
// (figures.BackendTag), so a live evaluation's figures and a twin one's
// of the same scenario tell themselves apart.
func TestFigureTitlesNameTheBackend(t *testing.T) {
	dirs := evalRuns(t, t.TempDir())
	setBackend := func(dir, backend string) {
		s, err := results.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		s.Backend = backend
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, results.SummaryFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ a, b, want string }{
		{"", "", "eval"}, {"sim", "sim", "eval (twin)"}, {"live", "live", "eval (live)"}, {"sim", "live", "eval (twin vs live)"},
	} {
		setBackend(dirs[0], c.a)
		setBackend(dirs[1], c.b)
		ev, err := Evaluate(dirs, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ev.figureTitle(); got != c.want {
			t.Errorf("backends %q, %q: figure title %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestCompareNatural(t *testing.T) {
	got := []string{"runs/ci120/x", "runs/ci30/x", "runs/ci10/x", "runs/b", "runs/a2", "runs/a10", "runs/ci060/x"}
	slices.SortStableFunc(got, compareNatural)
	want := []string{"runs/a2", "runs/a10", "runs/b", "runs/ci10/x", "runs/ci30/x", "runs/ci060/x", "runs/ci120/x"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %v, want %v", got, want)
	}
}
