package scenario

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

const base = `name: s
duration: 1h
workload: {shape: constant, rate: 1000/s}
job:
  parallelism: 2
  checkpoint: {interval: 30s, timeout: 5m}
faults:
  - {at: 10m}
  - random: {mtbf: 20m}
`

func TestVariantsOverlayTheBase(t *testing.T) {
	f, err := Parse("s.yaml", []byte(base+`variants:
  - {name: a, job: {checkpoint: {interval: 10s}}}
  - name: b
    job: {parallelism: 4}
    faults: []
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Variants) != 2 {
		t.Fatalf("%d variants", len(f.Variants))
	}
	a, b := f.Variants[0], f.Variants[1]
	if a.Job.Checkpoint.Interval != 10 || a.Job.Checkpoint.Timeout != 300 || a.Job.Parallelism != 2 {
		t.Errorf("variant a: merged checkpoint %+v, parallelism %d", a.Job.Checkpoint, a.Job.Parallelism)
	}
	if b.Job.Parallelism != 4 || b.Job.Checkpoint.Interval != 30 || len(b.Faults) != 0 || len(a.Faults) != 2 {
		t.Errorf("variant b: parallelism %d CI %v faults %d (a has %d)", b.Job.Parallelism, b.Job.Checkpoint.Interval, len(b.Faults), len(a.Faults))
	}
	if a.Variant != "a" || a.Name != "s" || a.Variants != nil {
		t.Errorf("variant identity: %q %q %v", a.Name, a.Variant, a.Variants)
	}
	// the same timeline for every variant that does not change it
	sa, _ := a.Resolve()
	sb, _ := f.Base.Resolve()
	if len(sa.Faults) != len(sb.Faults) || sa.Faults[1].At != sb.Faults[1].At {
		t.Error("variants do not share the resolved fault schedule")
	}
}

func TestProblemsNameFileLineField(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"error inside a variant", base + "variants:\n  - {name: a, job: {checkpoint: {interval: -1s}}}\n",
			"s.yaml:11: job.checkpoint.interval: must be positive"},
		{"duplicate variant", base + "variants:\n  - {name: a}\n  - {name: a}\n", "s.yaml:12: variants[1].name: duplicate"},
		{"unknown policy", base + "policy: {name: magic}\n", `s.yaml:10: policy: unknown policy "magic"`},
		{"bad policy key", base + "policy: {name: static, intervall: 5s}\n", `s.yaml:10: policy.intervall: unknown field "intervall"`},
		{"bad operator reference", base + "  - {at: 5m, operator: nope}\n", `s.yaml:10: faults[2].operator: no operator named "nope"`},
		{"bad partitioning", strings.Replace(base, "  parallelism: 2\n", "  parallelism: 2\n  operators:\n    - {name: src, cost: 1us, partitioning: shuffle}\n", 1),
			`s.yaml:7: job.operators[0].partitioning: must be forward, rebalance or hash`},
		{"syntax", "name: [unclosed\n", "s.yaml:1:"},
	}
	for _, c := range cases {
		_, err := Parse("s.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestResolveRandomFaults(t *testing.T) {
	f, err := Parse("s.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := f.Base.Resolve()
	if s.Rates.Duration() != 3600 || s.Rates.Stats().Mean != 1000 {
		t.Errorf("rates %v s, mean %v", s.Rates.Duration(), s.Rates.Stats().Mean)
	}
	var fixed, random int
	for i, x := range s.Faults {
		if i > 0 && x.At < s.Faults[i-1].At {
			t.Error("faults out of time order")
		}
		if x.Pick >= 0 {
			random++
		} else if x.At == 600 && math.IsNaN(x.BeforeCheckpoint.Seconds()) {
			fixed++
		}
	}
	if fixed != 1 || random == 0 {
		t.Errorf("%d fixed, %d random faults", fixed, random)
	}
}

func TestJobTemplates(t *testing.T) {
	f, err := Parse("t.yaml", []byte(`duration: 10m
workload: {name: ysb-day}
job:
  template: ysb
  parallelism: 8
  operators:
    - {name: window, cost: 30us}
    - {name: audit, cost: 1us, inputs: [sink]}
  checkpoint: {interval: 10s}
`))
	if err != nil {
		t.Fatal(err)
	}
	j := f.Base.Job
	if j.Parallelism != 8 || j.Chaining || j.Checkpoint.Interval != 10 || j.Checkpoint.Timeout != 3600 {
		t.Errorf("template settings not merged: %+v", j)
	}
	byName := map[string]int{}
	for i, op := range j.Operators {
		byName[op.Name] = i
	}
	w := j.Operators[byName["window"]]
	if float64(w.Cost) != 30e-6 || w.Partitioning != "hash" || w.Selectivity != 0.00043 {
		t.Errorf("window override lost template fields: %+v", w)
	}
	if j.Operators[byName["filter"]].Selectivity != 1.0/3 {
		t.Errorf("YSB filter keeps %v, want 1/3 (views)", j.Operators[byName["filter"]].Selectivity)
	}
	if _, ok := byName["audit"]; !ok || len(j.Operators) != 8 {
		t.Errorf("new operator not appended: %d operators", len(j.Operators))
	}
	tm, err := Parse("t.yaml", []byte("duration: 10m\nworkload: {name: iot-day}\njob: {template: traffic-monitoring}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var keyed bool
	for _, op := range tm.Base.Job.Operators {
		keyed = keyed || op.Name == "window" && op.Partitioning == "hash"
	}
	if !keyed {
		t.Error("traffic-monitoring window is not keyed (per vehicle)")
	}
	if _, err := Parse("t.yaml", []byte("duration: 10m\nworkload: {name: iot-day}\njob:\n  template: nope\n")); err == nil ||
		!strings.Contains(err.Error(), `t.yaml:4: job.template: unknown job template "nope"`) {
		t.Errorf("unknown template: %v", err)
	}
}

func TestParseRunSets(t *testing.T) {
	src := []byte(base + "variants:\n  - {name: a, job: {checkpoint: {interval: 10s}}}\n")
	sc, err := ParseRun("s.yaml", src, "a", []Set{
		{"job.parallelism", "8"}, {"faults[0].at", "20m"}, {"job.restart.delay", "3s"}, {"qos.recovery", "2m"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Job.Parallelism != 8 || float64(*sc.Faults[0].At) != 1200 || sc.Job.Restart.Delay != 3 || sc.QoS.Recovery != 120 ||
		sc.Job.Checkpoint.Interval != 10 || sc.Variant != "a" {
		t.Errorf("sets not applied: %+v", sc)
	}
	for _, c := range []struct{ path, value, want string }{
		{"job.checkpoint.intervall", "5s", `unknown field "intervall"`},
		{"faults[5].at", "1m", "faults has no element 5"},
		{"job.parallelism", "many", "cannot unmarshal"},
		{"job..x", "1", "not a field name"},
	} {
		_, err := ParseRun("s.yaml", src, "", []Set{{c.path, c.value}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("set %s=%s: %v, want %q", c.path, c.value, err, c.want)
		}
	}
}

func TestPatchKeepsTheFileAndAddsKeysInLine(t *testing.T) {
	src := "# head comment\nname: p\nduration: 1h\nworkload: {shape: constant, rate: 1000/s}\njob:\n  parallelism: 2   # two slots\n  latency: {window: 0s}\n"
	cases := []struct {
		name string
		sets []Set
		want []string // lines the patched file must contain
		err  string
	}{
		{"replace and add", []Set{{"job.parallelism", "3"}, {"job.cost_scale", "0.5"}, {"job.latency.base", "80ms"}, {"job.cluster.warmup", "12s"}},
			[]string{"# head comment", "  parallelism: 3", "  cost_scale: 0.5", "  latency: {window: 0s, base: 80ms}", "  cluster: {warmup: 12s}"}, ""},
		{"top level", []Set{{"name", "p-calibrated"}}, []string{"name: p-calibrated"}, ""},
		{"unknown field", []Set{{"job.cost_scal", "0.5"}}, nil, `unknown field "cost_scal"`},
		{"missing index", []Set{{"faults[0].at", "1s"}}, nil, "no list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Patch("p.yaml", []byte(src), c.sets)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w+"\n") {
					t.Errorf("patched file lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestBounds: absurd sizes are refused at once, naming the file, line,
// field and allowed range, with no follow-on problem of the bad value.
func TestBounds(t *testing.T) {
	with := func(old, new string) string { return strings.Replace(base, old, new, 1) }
	cases := []struct {
		name, src, want string
		not             string // a follow-on message that must not appear
	}{
		{"partitions 1e9", base + "kafka: {partitions: 1000000000}\n", "s.yaml:10: kafka.partitions: must be in 1..100000, got 1000000000", ""},
		{"rate 1e12/s", with("rate: 1000/s", "rate: 1e12/s"), "s.yaml:3: workload.rate: must be in 0..1e9 records/s", ""},
		{"step rate 1e12/s", with("{shape: constant, rate: 1000/s}", "{shape: step, rate: 1000/s, steps: [{at: 1m, rate: 1e12/s}]}"),
			"s.yaml:3: workload.steps[0].rate: must be in 0..1e9 records/s", ""},
		{"constant rate 0", with("rate: 1000/s", "rate: 0/s"), "s.yaml:3: workload.rate: a constant workload needs a positive rate", ""},
		{"parallelism 0", with("parallelism: 2", "parallelism: 0") + "  - {at: 20m, taskmanager: 1}\n", "s.yaml:5: job.parallelism: must be at least 1, got 0", "TaskManagers 0..-1"},
		{"duration 0s", with("duration: 1h", "duration: 0s"), "s.yaml:2: duration: must be positive (e.g. duration: 2h), got 0s", "missing"},
		{"duration missing", with("duration: 1h\n", ""), "duration: missing", ""},
		{"staleness shares over 1", with("  parallelism: 2\n", "  parallelism: 2\n  latency: {staleness: [{gap: 1s, share: 0.9}, {gap: 4s, share: 0.2}]}\n"),
			"job.latency.staleness: shares add up to 1.1; they must not exceed 1", ""},
		{"staleness share 2", with("  parallelism: 2\n", "  parallelism: 2\n  latency: {staleness: [{gap: 1s, share: 2}]}\n"),
			"job.latency.staleness[0].share: must be in 0..1, got 2", ""},
		{"fault kind", base + "  - {at: 20m, kind: crash}\n", "s.yaml:10: faults[2].kind: must be one of taskmanager, freeze, cpu_throttle, kafka_broker, jobmanager, checkpoint_storage, network_delay, got \"crash\"", ""},
		{"freeze without duration", base + "  - {at: 20m, kind: freeze}\n", "faults[2].duration: a freeze fault needs a duration, e.g. duration: 30s", ""},
		{"crash with duration", base + "  - {at: 20m, duration: 5s}\n", "faults[2].duration: a taskmanager fault has no duration", ""},
		{"freeze past the end", base + "  - {at: 20m, kind: freeze, duration: 2h}\n", "faults[2].duration: must be in (0, 1h), got 2h", ""},
		{"broker down 5 min", base + "  - {at: 20m, kind: kafka_broker, duration: 5m}\n", "faults[2].duration: must be in (0, 60s]", ""},
		{"throttle share 1.5", base + "  - {at: 20m, kind: cpu_throttle, duration: 1m, share: 1.5}\n", "faults[2].share: must be in (0, 1), got 1.5", ""},
		{"throttle without share", base + "  - {at: 20m, kind: cpu_throttle, duration: 1m}\n", "faults[2].share: a cpu_throttle fault needs the CPU share it leaves", ""},
		{"jobmanager on a TaskManager", base + "  - {at: 20m, kind: jobmanager, taskmanager: 1}\n", "faults[2]: a jobmanager fault hits no TaskManager", ""},
		{"network delay without delay", base + "  - {at: 20m, kind: network_delay, duration: 30s}\n", "faults[2].delay: a network_delay fault needs the delay of each packet, e.g. delay: 60s", ""},
		{"network delay of an hour", base + "  - {at: 20m, kind: network_delay, duration: 30s, delay: 1h}\n", "faults[2].delay: must be in (0, 600s], got 1h", ""},
		{"crash with delay", base + "  - {at: 20m, delay: 5s}\n", "faults[2].delay: only a network_delay fault has a delay, not a taskmanager fault", ""},
		{"target unknown", base + "  - {at: 20m, target: idlest}\n", "faults[2].target: must be random or busiest, got \"idlest\"", ""},
		{"target and taskmanager", base + "  - {at: 20m, target: busiest, taskmanager: 1}\n", "faults[2].target: give one of target, taskmanager and operator", ""},
		{"every without at", base + "  - {random: {mtbf: 5m}, every: 10m}\n", "faults[2]: every, until and jitter repeat or delay a fault given `at`", ""},
		{"until before at", base + "  - {at: 20m, every: 5m, until: 10m}\n", "faults[2].until: must be after at (20m), got 10m", ""},
		{"jitter beyond every", base + "  - {at: 20m, every: 5m, jitter: 6m}\n", "faults[2].jitter: must be in [0, 5m), got 6m", ""},
		{"negative tolerable failures", with("timeout: 5m}", "timeout: 5m, tolerable_failures: -1}"), "job.checkpoint.tolerable_failures: must be ≥ 0, got -1", ""},
		{"in-place share 2", with("  parallelism: 2\n", "  parallelism: 2\n  cluster: {in_place_share: 2}\n"),
			"job.cluster.in_place_share: must be in (0, 1] (the share of a deployment's time a restart on JVMs that ran the job takes, e.g. 0.4; 0: 1), got 2", ""},
		{"negative retention", with("  parallelism: 2\n", "  parallelism: 2\n  operators: [{name: source, cost: 1us, state_retention: -1s}]\n"),
			"state_retention: must be ≥ 0, got -1s", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse("s.yaml", []byte(c.src))
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v, want < 1 s", d)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if c.not != "" && strings.Contains(err.Error(), c.not) {
				t.Errorf("error %q has the follow-on %q", err, c.not)
			}
		})
	}
}

// TestEstimate: the cost model by hand, and the refusal it gives.
func TestEstimate(t *testing.T) {
	f, err := Parse("s.yaml", []byte(base+"kafka: {partitions: 4}\n"))
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Base
	e := sc.Estimate()
	ops := float64(len(sc.Job.Operators))
	// 48 MiB + 64 B × 3,600 s + 256 B × 4 partitions + 1 KiB × 2 × ops tasks
	if want := 48<<20 + 64*3600.0 + 256*4 + 1024*2*ops; e.MemoryBytes != want {
		t.Errorf("memory %.0f B, want %.0f", e.MemoryBytes, want)
	}
	// 3,600 s / 30 s checkpoints + 12 for the fault at 10 m + 12 × 3 for
	// the random ones (MTBF 20 m in 1 h)
	if want := 120 + 12 + 36.0; e.Events != want {
		t.Errorf("events %g, want %g", e.Events, want)
	}
	if err := e.CheckMemory("s.yaml", 1, e.MemoryBytes); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	err = e.CheckMemory("s.yaml", 4, e.MemoryBytes)
	if err == nil || !strings.Contains(err.Error(), "s.yaml: a run needs ≈ 48 MiB") || !strings.Contains(err.Error(), "4 at once need") {
		t.Errorf("4 workers over the limit: %v", err)
	}
}

// TestUnknownFieldSuggests: a misspelt key names the nearest field valid at
// its place, in the file or in a set path (sweeps, calibration); a far-off
// one only lists the known fields.
func TestUnknownFieldSuggests(t *testing.T) {
	cases := []struct {
		name, src string
		sets      []Set
		want, not string
	}{
		{"nested", strings.Replace(base, "{interval: 30s,", "{intreval: 30s,", 1), nil,
			`s.yaml:6: job.checkpoint.intreval: unknown field "intreval"; did you mean "interval"? (known: alignment, async_base,`, ""},
		{"top level", base + "fautls: []\n", nil,
			`s.yaml:10: fautls: unknown field "fautls"; did you mean "faults"? (known: actions, description, duration, faults,`, ""},
		{"in a list", base + "  - {at: 12m, taskmanger: 1}\n", nil,
			`s.yaml:10: faults[2].taskmanger: unknown field "taskmanger"; did you mean "taskmanager"?`, ""},
		{"in a variant", base + "variants:\n  - {name: a, job: {paralelism: 3}}\n", nil,
			`s.yaml:11: variants[0].job.paralelism: unknown field "paralelism"; did you mean "parallelism"?`, ""},
		{"in a policy", base + "policy: {name: khaos, windw: 10m}\n", nil,
			`s.yaml:10: policy.windw: unknown field "windw"; did you mean "window"?`, ""},
		{"far off", base + "workers: 4\n", nil, `s.yaml:10: workers: unknown field "workers" (known: `, "did you mean"},
		{"set path", base, []Set{{"job.checkpoint.intreval", "10s"}},
			`job.checkpoint.intreval: unknown field "intreval"; did you mean "interval"?`, "s.yaml"},
		{"set path, first key", base, []Set{{"jbo.parallelism", "2"}}, `jbo.parallelism: unknown field "jbo"; did you mean "job"?`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.sets == nil {
				_, err = Parse("s.yaml", []byte(c.src))
			} else {
				_, err = ParseRun("s.yaml", []byte(c.src), "", c.sets)
			}
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v\nwant %s…", err, c.want)
			}
			if c.not != "" && strings.Contains(err.Error(), c.not) {
				t.Errorf("error %q has %q", err, c.not)
			}
		})
	}
}

// TestSetValueProblemsNameTheSet: a set value the scenario refuses is a
// SetError of that set, not a problem at a line and field of go-yaml's
// scratch document (it used to read s.yaml:1: v: …).
func TestSetValueProblemsNameTheSet(t *testing.T) {
	for _, c := range []struct{ path, value, want string }{
		{"job.checkpoint.interval", "10", `job.checkpoint.interval: value 10: duration "10" has no unit`},
		{"job.cluster.warmup", "soon", `job.cluster.warmup: value soon: invalid duration "soon"`},
		{"qos.latency", "[1s]", "qos.latency: value [1s]: expected a single value, got a list"},
		{"job.parallelism", "0", "job.parallelism: value 0: must be at least 1"},
		{"job.checkpoint", "{intreval: 5s}", `job.checkpoint: value {intreval: 5s}: job.checkpoint.intreval: unknown field "intreval"; did you mean "interval"?`},
	} {
		_, err := ParseRun("s.yaml", []byte(base), "", []Set{{c.path, c.value}})
		var se *SetError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("set %s=%s: %v, want %q", c.path, c.value, err, c.want)
		}
	}
	// a problem elsewhere, caused by the set, stays at its place in the file
	_, err := ParseRun("s.yaml", []byte(base+"  - {at: 20m, before_checkpoint: 5s}\n"), "", []Set{{"job.checkpoint.interval", "2s"}})
	if err == nil || !strings.Contains(err.Error(), "s.yaml:10: faults[2].before_checkpoint: must be in [0, checkpoint interval 2s)") {
		t.Errorf("a problem the set causes elsewhere: %v", err)
	}
}

// TestCollectionWhereAValueBelongs: a list or mapping given for a single
// value names the field and line.
func TestCollectionWhereAValueBelongs(t *testing.T) {
	for _, c := range []struct{ name, old, new, want string }{
		{"list for a duration", "duration: 1h", "duration: [1h, 2h]", "s.yaml:2: duration: expected a single value"},
		{"mapping for an int", "parallelism: 2", "parallelism: {a: 1}", "s.yaml:5: job.parallelism: "},
		{"list for a string", "name: s", "name: [a, b]", "s.yaml:1: name: "},
		{"mapping for a rate", "rate: 1000/s", "rate: {r: 1}", "s.yaml:3: workload.rate: expected a single value"},
		{"list for a mapping", "checkpoint: {interval: 30s, timeout: 5m}", "checkpoint: [30s]", "s.yaml:6: job.checkpoint: "},
	} {
		src := strings.Replace(base, c.old, c.new, 1)
		_, err := Parse("s.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestMissingTraceFile: a trace file that is not there names the field and
// where it was looked for (beside the scenario).
func TestMissingTraceFile(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/s.yaml"
	for _, c := range []struct{ workload, want string }{
		{"{shape: trace, file: traces/nope.csv}", "s.yaml:3: workload.file: file traces/nope.csv not found: no " + dir + "/traces/nope.csv (paths are relative to the scenario file's folder)"},
		{"{segments: [{duration: 1h, shape: constant, rate: 1/s}, {duration: 1h, shape: trace, file: /nope.csv}]}",
			"s.yaml:3: workload.segments[1].file: file /nope.csv not found (paths are relative"},
	} {
		src := strings.Replace(base, "{shape: constant, rate: 1000/s}", c.workload, 1)
		_, err := Parse(path, []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", c.workload, err, c.want)
		}
	}
}

// Every external process runs in the scenario's folder unless its dir says
// otherwise: the policy's and each monitoring forecaster's.
func TestExternalDirsFollowTheScenario(t *testing.T) {
	src := `name: x
duration: 1h
workload: {shape: constant, rate: 1000/s}
policy: {external: {command: [python3, p.py]}}
monitoring:
  train: 30m
  samplers:
    - {kind: fixed, intervals: [5]}
    - {kind: forecast, forecaster: external, external: {command: [python3, f.py], dir: tools}, thresholds: [0.02]}
    - {kind: forecast, forecaster: external, external: {command: [python3, f.py], dir: /abs}, thresholds: [0.02]}
`
	sc, err := ParseRun(filepath.Join("some", "where", "s.yaml"), []byte(src), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var pol struct {
		External struct {
			Dir string `yaml:"dir"`
		} `yaml:"external"`
	}
	if err := yaml.NodeToValue(sc.Policy.Node, &pol); err != nil {
		t.Fatal(err)
	}
	got := []string{pol.External.Dir, sc.Monitoring.Samplers[1].External.Dir, sc.Monitoring.Samplers[2].External.Dir}
	want := []string{filepath.Join("some", "where"), filepath.Join("some", "where", "tools"), "/abs"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("dirs %v, want %v", got, want)
	}
}
