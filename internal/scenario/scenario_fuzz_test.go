package scenario

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"
)

// FuzzParse feeds arbitrary bytes to the scenario decoder (make fuzz; plain
// go test replays the seeds and testdata/fuzz/). It must not panic; its
// errors are Problems naming the file and a line. A scenario it accepts
// holds its invariants in the base and every variant, and prints (as
// `streamtwin scenario print` does) to a file that parses to the same print.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		base,
		base + "variants:\n  - {name: a, job: {checkpoint: {interval: 10s}}}\n  - name: b\n    job: {parallelism: 4}\n    faults: []\n",
		base + "variants:\n  - {name: a}\n  - {name: a}\n",
		"name: t\nduration: 30m\nworkload: {shape: daily, period: 10m, peak: 5k/s, min: 1k/s}\njob: {template: traffic-monitoring, parallelism: 2}\n" +
			"actions:\n  - {at: 5m, parallelism: 3}\n  - {at: 10m, savepoint: true}\nqos: {latency: 2s, recovery: 1m}\n",
		"duration: 1h\nworkload: {shape: constant, rate: 10/s}\nfaults: [{at: 1h}]\n",
		"duration: 1d\nworkload: {name: ysb}\npolicy: {name: magic}\n",
		"duration: 0s\nworkload: {shape: constant, rate: 1/s}\n",
		"scenario: x.yaml\nparameters: {job.parallelism: [1, 2]}\n",
		"name: [unclosed\n",
		"- a\n- b\n",
		"a: &x [*x]\n",
		"",
	} {
		f.Add([]byte(s))
	}
	paths, _ := filepath.Glob("../../scenarios/*.yaml")
	if len(paths) == 0 {
		f.Fatal("no scenarios in ../../scenarios")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// named as a file in scenarios/, so traces and profiles resolve; the
	// path is absolute, so that a printed scenario keeps them resolved
	dir, err := filepath.Abs("../../scenarios")
	if err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(dir, "fuzz.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(path, data)
		if err != nil {
			checkProblems(t, path, err)
			return
		}
		if file.Path != path {
			t.Fatalf("Path %q, want %q", file.Path, path)
		}
		seen := map[string]bool{}
		for _, v := range file.Variants {
			if v.Variant == "" || seen[v.Variant] {
				t.Fatalf("variant name %q empty or repeated", v.Variant)
			}
			seen[v.Variant] = true
		}
		checkScenario(t, file.Base)
		for _, v := range file.Variants {
			checkScenario(t, v)
		}
		// print → parse → print is a fixed point
		printed, err := yaml.Marshal(file.Base)
		if err != nil {
			t.Fatalf("the accepted scenario does not print: %v", err)
		}
		again, err := Parse(path, printed)
		if err != nil {
			t.Fatalf("the printed scenario does not parse: %v\n%s", err, printed)
		}
		if len(again.Variants) != len(file.Variants) {
			t.Fatalf("printed: %d variants, want %d", len(again.Variants), len(file.Variants))
		}
		reprinted, err := yaml.Marshal(again.Base)
		if err != nil {
			t.Fatal(err)
		}
		if string(reprinted) != string(printed) {
			t.Fatalf("printing is not stable:\n%s\n--- printed again:\n%s", printed, reprinted)
		}
	})
}

// checkProblems: a decoding error is a list of Problems of this file, each
// at a line, or (SetError, I/O) something else that is not empty.
func checkProblems(t *testing.T, path string, err error) {
	t.Helper()
	var ps Problems
	if !errors.As(err, &ps) {
		if err.Error() == "" {
			t.Fatalf("empty error %#v", err)
		}
		return
	}
	if len(ps) == 0 {
		t.Fatal("an empty Problems error")
	}
	for _, p := range ps {
		if p.File != path || p.Line < 1 || p.Msg == "" {
			t.Fatalf("problem without file, line or message: %+v", p)
		}
	}
}

// checkScenario checks what validation promises of an accepted scenario.
func checkScenario(t *testing.T, sc Scenario) {
	t.Helper()
	dur := float64(sc.Duration)
	switch {
	case sc.Name == "":
		t.Fatal("no name")
	case !(dur > 0 && dur <= 366*86400):
		t.Fatalf("duration %v accepted", dur)
	case !(sc.MetricInterval > 0 && float64(sc.MetricInterval) <= dur):
		t.Fatalf("metric_interval %v accepted (duration %v)", float64(sc.MetricInterval), dur)
	case sc.Workload == nil:
		t.Fatal("no workload")
	case sc.Job.Parallelism < 1 || sc.Job.MaxParallelism < 1:
		t.Fatalf("parallelism %d, max %d accepted", sc.Job.Parallelism, sc.Job.MaxParallelism)
	case !(sc.QoS.Latency > 0 && sc.QoS.Recovery > 0):
		t.Fatalf("qos %+v accepted", sc.QoS)
	case sc.Policy.Name == "":
		t.Fatal("no policy")
	}
	for what, errs := range map[string]map[string]string{"job": sc.Job.Validate(), "kafka": sc.Kafka.Validate(), "workload": sc.Workload.Validate()} {
		if len(errs) > 0 {
			t.Fatalf("%s accepted with problems %v", what, errs)
		}
	}
	for i, fl := range sc.Faults {
		if (fl.At == nil) == (fl.Random == nil) {
			t.Fatalf("fault %d: at %v, random %v", i, fl.At, fl.Random)
		}
		if fl.At != nil && !(*fl.At >= 0 && float64(*fl.At) < dur) {
			t.Fatalf("fault %d at %v outside the run (%v)", i, float64(*fl.At), dur)
		}
		if r := fl.Random; r != nil && !(r.MTBF > 0) {
			t.Fatalf("fault %d: mtbf %v", i, float64(r.MTBF))
		}
	}
	for i, a := range sc.Actions {
		if !(a.At >= 0 && float64(a.At) < dur) || math.IsNaN(float64(a.At)) {
			t.Fatalf("action %d at %v outside the run (%v)", i, float64(a.At), dur)
		}
		if a.Parallelism != nil && (*a.Parallelism < 1 || *a.Parallelism > sc.Job.MaxParallelism) {
			t.Fatalf("action %d: parallelism %d", i, *a.Parallelism)
		}
	}
}
