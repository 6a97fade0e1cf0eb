package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dataset writes a dataset folder: a protocol, and a scenario and a table
// for it to name.
func dataset(t *testing.T, protocol string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		ProtocolFile:    protocol,
		"scenario.yaml": "name: s\nduration: 10m\nworkload: {shape: constant, rate: 1000/s}\n",
		"measured.csv":  "throughput,checkpoint_interval_s,recovery_s,experiment\n1000,10,20,1\n1000,30,25,2\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const goodProtocol = "title: t\nscenario: scenario.yaml\nmeasured: measured.csv\nfit: [cost_scale]\n"

func TestLoad(t *testing.T) {
	p, err := Load(dataset(t, goodProtocol+"mechanisms: [warmup]\nholdout: {column: experiment, values: [\"2\"]}\ncv: experiment\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "ds" || p.Holdout.Column != "experiment" || p.CV != "experiment" || p.intervals() != 10 || p.replications() != 3 {
		t.Errorf("loaded %+v", p)
	}
}

// TestLoadErrors: every refusal names the protocol file, the line and the
// field.
func TestLoadErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"no scenario", "title: t\nmeasured: measured.csv\nfit: [cost_scale]\n", "protocol.yaml:1: scenario: missing"},
		{"missing file", "title: t\nscenario: nope.yaml\nmeasured: measured.csv\nfit: [cost_scale]\n", "protocol.yaml:2: scenario: "},
		{"unknown parameter", goodProtocol + "mechanisms: [warmpu]\n", `protocol.yaml:4: fit: unknown parameter "warmpu"`},
		{"no fit", "title: t\nscenario: scenario.yaml\nmeasured: measured.csv\n", "protocol.yaml:1: fit: missing"},
		{"holdout column", goodProtocol + "holdout: {column: experment, values: [\"1\"]}\n", `protocol.yaml:5: holdout.column: "experment" is no column of a measured table`},
		{"holdout values", goodProtocol + "holdout: {column: experiment}\n", "protocol.yaml:5: holdout.values: missing"},
		{"cv", goodProtocol + "cv: leave-one-out\n", `protocol.yaml:5: cv: want ci`},
		{"intervals", goodProtocol + "intervals: 1\n", "protocol.yaml:5: intervals: must be 0 (default 10) or at least 2"},
		{"unknown key", goodProtocol + "holdot: {column: experiment}\n", "protocol.yaml:5"},
		{"not yaml", "title: [\n", "protocol.yaml:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(dataset(t, c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant one containing %q", err, c.want)
			}
		})
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no protocol.yaml") {
		t.Errorf("a folder without a protocol: %v", err)
	}
}

func TestLoadAutoscaler(t *testing.T) {
	dir := dataset(t, "title: t\nkind: autoscaler\nscenario: scenario.yaml\nautoscaler:\n  calibrate: {variant: a, cpu: cpu.csv, throughput: thr.csv, task_managers: tm.csv}\n  predict: {variant: b, runs: [tm.csv]}\n")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "protocol.yaml:5: autoscaler.calibrate.cpu: ") {
		t.Errorf("missing CPU series: %v", err)
	}
	for _, f := range []string{"cpu.csv", "thr.csv", "tm.csv"} {
		os.WriteFile(filepath.Join(dir, f), []byte("timestamp,value\n"), 0o644)
	}
	if p, err := Load(dir); err != nil || p.Kind != KindAutoscaler || p.Autoscaler.Predict.Runs[0] != "tm.csv" {
		t.Errorf("%+v, %v", p, err)
	}
	withUpgrades := dataset(t, "title: t\nkind: autoscaler\nscenario: scenario.yaml\nautoscaler:\n  calibrate: {variant: a, cpu: scenario.yaml, throughput: scenario.yaml, task_managers: scenario.yaml,\n    upgrades: [{task_managers: tm.csv, throughput: thr.csv}]}\n  predict: {variant: b, runs: [scenario.yaml]}\n")
	if _, err := Load(withUpgrades); err == nil || !strings.Contains(err.Error(), "autoscaler.calibrate.upgrades[0].task_managers: ") ||
		!strings.Contains(err.Error(), "autoscaler.calibrate.upgrades[0].throughput: ") {
		t.Errorf("missing upgrade series: %v", err)
	}
	bad := dataset(t, "title: t\nkind: scaling\nscenario: scenario.yaml\nmeasured: measured.csv\nfit: [cost_scale]\n")
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "protocol.yaml:2: kind: must be recovery, autoscaler or rescale") {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestLoadRescale: a rescale dataset names its scenario and its measured
// rescales and needs no fit.
func TestLoadRescale(t *testing.T) {
	dir := dataset(t, "title: t\nkind: rescale\nscenario: scenario.yaml\nmeasured: rescales.csv\n")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "protocol.yaml:4: measured: ") {
		t.Errorf("missing rescales table: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "rescales.csv"), []byte("at_s,from,to,input_rate,delay_s,downtime_s,recovery_s\n"), 0o644)
	if p, err := Load(dir); err != nil || p.Kind != KindRescale {
		t.Errorf("%+v, %v", p, err)
	}
}

// TestReadSeries: a measured export with a duplicated boundary second,
// segments out of order and a NaN: sorted, deduplicated, NaN dropped,
// unix times kept.
func TestReadSeries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	os.WriteFile(path, []byte("timestamp,value\n1000,24\n1001,24\n1001,24\n998,23\n999,NaN\n"), 0o644)
	pts, err := readSeries(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []point{{998, 23}, {1000, 24}, {1001, 24}}
	if len(pts) != len(want) {
		t.Fatalf("%v, want %v", pts, want)
	}
	for i := range want {
		if pts[i] != want[i] {
			t.Errorf("%v, want %v", pts, want)
		}
	}
}

// TestLoadOneRun: a one-run protocol names the static run's scenario and
// its three series; one missing is named.
func TestLoadOneRun(t *testing.T) {
	dir := dataset(t, goodProtocol+"one_run: {scenario: scenario.yaml, variant: v, cpu: measured.csv, throughput: measured.csv}\n")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "one_run.task_managers: missing") {
		t.Errorf("one_run without its TaskManager series: %v", err)
	}
}

// TestMerge: series of one run line up on their unix times, from the
// earliest; a count holds between its readings, a rate is NaN where it
// has none.
func TestMerge(t *testing.T) {
	got := merge(column{[]point{{100, 24}, {103, 23}}, setWorkers, true}, column{[]point{{101, 5}, {103, 7}}, setThroughput, false})
	want := []string{"0 24 NaN", "1 24 5", "3 23 7"}
	for i, s := range got {
		if i >= len(want) || fmt.Sprintf("%g %d %g", s.TimeS, s.Workers, s.Throughput) != want[i] {
			t.Fatalf("got %+v, want %v", got, want)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d samples, want %d", len(got), len(want))
	}
}

// TestLoadSpread: spread names spread parameters only, and needs more
// than one seed per point.
func TestLoadSpread(t *testing.T) {
	for _, k := range []struct{ extra, want string }{
		{"spread: [cost_scale]\n", "spread: cost_scale is no spread parameter"},
		{"spread: [catchup_cv]\nreplications: 1\n", "replications: the spread parameters need at least 2 seeds"},
		{"spread: [catchup_cv]\n", ""},
	} {
		_, err := Load(dataset(t, goodProtocol+k.extra))
		if (k.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), k.want)) {
			t.Errorf("%q: got %v, want %q", k.extra, err, k.want)
		}
	}
}
