package scenario

import (
	"fmt"
	"strings"
	"testing"
)

// TestWarnings: implausible but legal settings load, and each is a warning
// at its file, line and field saying why; plausible ones are not.
func TestWarnings(t *testing.T) {
	const plain = `name: w
duration: 1h
workload: {shape: constant, rate: 1000/s}
kafka: {partitions: 4}
job:
  parallelism: 2
  checkpoint: {interval: 30s}
qos: {latency: 1s, recovery: 4m}
`
	cases := []struct {
		name, replace, with string
		want                string // "LINE: FIELD: part of the message"; "" for no warning
	}{
		{"plausible", "", "", ""},
		{"CI of 30 ms", "interval: 30s", "interval: 30ms", "7: job.checkpoint.interval: 30ms is below 1s: a checkpoint takes at least 520ms here"},
		{"CI of 1 s", "interval: 30s", "interval: 1s", ""},
		{"a forced CI of 200 ms", "qos:", "actions:\n  - {at: 10m, checkpoint_interval: 200ms}\nqos:", "9: actions[0].checkpoint_interval: 200ms is below 1s"},
		{"parallelism above the partitions", "parallelism: 2", "parallelism: 8", "6: job.parallelism: 8 source subtasks read 4 Kafka partitions (kafka.partitions): 4 of them get no partition and sit idle"},
		{"parallelism of the partitions", "parallelism: 2", "parallelism: 4", ""},
		{"one partition", "partitions: 4", "partitions: 1", "6: job.parallelism: 2 source subtasks read 1 Kafka partition (kafka.partitions): 1 of them gets no partition and sits idle"},
		{"a source of its own parallelism", "  checkpoint:", "  operators: [{name: source, parallelism: 6, cost: 4us}, {name: sink, partitioning: rebalance, cost: 4us}]\n  checkpoint:",
			"7: job.operators[0].parallelism: 6 source subtasks read 4 Kafka partitions"},
		{"a rescale above the partitions", "qos:", "actions:\n  - {at: 10m, parallelism: 6}\nqos:", "9: actions[0].parallelism: 6 source subtasks read 4 Kafka partitions"},
	}
	// the recovery bound against the detection of each mode (the
	// detection on line 7, the bounds on 9)
	for _, c := range []struct {
		name, detection string
		parallelism     int
		recovery, want  string
	}{
		{"heartbeat", "{mode: heartbeat}", 2, "30s", "9: qos.recovery: 30s is below the failure detection alone: a dead TaskManager is noticed 40s–50s after it dies (job.detection.mode heartbeat"},
		{"heartbeat, a bound above it", "{mode: heartbeat}", 2, "60s", ""},
		{"rpc", "{mode: rpc}", 2, "5s", "9: qos.recovery: 5s is below the failure detection alone: a dead TaskManager is noticed 10s–20s after it dies (job.detection.mode rpc"},
		{"connection", "{mode: connection}", 2, "500ms", "9: qos.recovery: 500ms is below the failure detection alone: a dead TaskManager is noticed 1s after it dies (its peers see their connections reset"},
		{"auto, distributed: connections tell", "{mode: auto}", 2, "5s", ""},
		{"auto on one TaskManager: heartbeats tell", "{mode: auto}", 1, "5s", "9: qos.recovery: 5s is below the failure detection alone: a dead TaskManager is noticed 10s–20s after it dies (no other TaskManager"},
		{"a long heartbeat timeout, the default bound", "{mode: heartbeat, heartbeat_timeout: 10m}", 2, "", "7: job.detection.heartbeat_timeout: 4m is below the failure detection alone: a dead TaskManager is noticed 9m50s–10m"},
	} {
		with := "recovery: " + c.recovery + "}"
		if c.recovery == "" {
			with = "}"
		}
		src := strings.NewReplacer("parallelism: 2", fmt.Sprintf("parallelism: %d\n  detection: %s", c.parallelism, c.detection), "recovery: 4m}", with).Replace(plain)
		cases = append(cases, struct{ name, replace, with, want string }{"recovery bound, " + c.name, plain, src, c.want})
	}
	cases = append(cases, struct{ name, replace, with, want string }{"latency bound below the base latency", "latency: 1s", "latency: 20ms", "8: qos.latency: 20ms is below job.latency.base (50ms), which every record's latency includes"})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(plain, c.replace, c.with, 1)
			if c.replace != "" && src == plain {
				t.Fatal("the case does not change the scenario")
			}
			f, err := Parse("w.yaml", []byte(src))
			if err != nil {
				t.Fatalf("an implausible scenario must still load: %v", err)
			}
			ws := f.Warnings()
			if c.want == "" {
				if len(ws) > 0 {
					t.Errorf("warnings %v, want none", ws)
				}
				return
			}
			if len(ws) != 1 || !strings.HasPrefix(ws[0].Error(), "w.yaml:"+c.want) {
				t.Errorf("warnings:\n%v\nwant one starting w.yaml:%s", ws, c.want)
			}
			if len(f.Base.Warnings()) != len(ws) {
				t.Errorf("the scenario has %d warnings, its file %d", len(f.Base.Warnings()), len(ws))
			}
		})
	}
}

// TestWarningsOfVariantsAndSets: a warning only some variants have names
// them, at the variant's line; one about a value a Set gave is at line 0
// with the set's path, for the caller to place (a sweep's parameter).
func TestWarningsOfVariantsAndSets(t *testing.T) {
	src := base + `kafka: {partitions: 2}
variants:
  - {name: few, job: {parallelism: 2}}
  - {name: many, job: {parallelism: 6}}
  - {name: fast, job: {parallelism: 2, checkpoint: {interval: 10ms}}}
`
	f, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"s.yaml:13: job.parallelism: 6 source subtasks read 2 Kafka partitions (kafka.partitions): 4 of them get no partition and sit idle (variant many)",
		"s.yaml:14: job.checkpoint.interval: 10ms is below 1s",
	}
	ws := f.Warnings()
	if len(ws) != len(want) {
		t.Fatalf("warnings:\n%v\nwant %d", ws, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(ws[i].Error(), w) {
			t.Errorf("warning %d: %q, want %q…", i, ws[i].Error(), w)
		}
	}
	if !strings.HasSuffix(ws[1].Msg, "(variant fast)") {
		t.Errorf("warning %q does not name its variant", ws[1].Msg)
	}

	sc, err := ParseRun("s.yaml", []byte(src), "few", []Set{{Path: "job.checkpoint.interval", Value: "50ms"}, {Path: "kafka.partitions", Value: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	got := sc.Warnings()
	if len(got) != 2 {
		t.Fatalf("warnings %v, want 2", got)
	}
	for _, w := range got {
		if w.Line != 0 || w.File != "s.yaml" || !strings.HasPrefix(w.Msg, "value ") {
			t.Errorf("a set's warning %+v: want line 0, its path, value …", w)
		}
	}
	if got[0].Field != "job.checkpoint.interval" || !strings.HasPrefix(got[0].Msg, "value 50ms: 50ms is below 1s") ||
		got[1].Field != "kafka.partitions" || !strings.HasPrefix(got[1].Msg, "value 1: 2 source subtasks read 1 Kafka partition") {
		t.Errorf("the sets' warnings: %v", got)
	}
}
