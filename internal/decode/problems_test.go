package decode_test

import (
	"errors"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/sim"
)

// TestYAMLProblem: every kind of YAML error comes out as file:line: field:
// message, the field named where the file tells it, without go-yaml's
// position, source excerpt or Go type names.
func TestYAMLProblem(t *testing.T) {
	type job struct {
		Parallelism int          `yaml:"parallelism"`
		Interval    sim.Duration `yaml:"interval"`
	}
	type doc struct {
		Name string `yaml:"name"`
		Job  job    `yaml:"job"`
	}
	parse := func(src string) error {
		file, err := parser.ParseBytes([]byte(src), 0)
		if err != nil {
			return decode.YAMLProblem("f.yaml", nil, err)
		}
		var d doc
		if err := yaml.NodeToValue(file.Docs[0].Body, &d, yaml.Strict()); err != nil {
			return decode.YAMLProblem("f.yaml", file, err)
		}
		return nil
	}
	cases := []struct{ name, src, want string }{
		{"syntax", "name: [x\n", "f.yaml:1: sequence end token ']' not found"},
		{"unknown field", "name: x\njob:\n  parallelism: 2\n  paralelism: 3\n", `f.yaml:4: job.paralelism: unknown field "paralelism"`},
		{"wrong type", "job:\n  parallelism: lots\n", "f.yaml:2: job.parallelism: cannot unmarshal string into int"},
		{"a list for a value", "job:\n  parallelism: [1, 2]\n", "f.yaml:2: job.parallelism: expected a single value (int), got a list"},
		{"a mapping for a value", "name: {a: 1}\n", "f.yaml:1: name: expected a single value (string), got a mapping"},
		{"a list for a unit", "job:\n  interval: [1s]\n", "f.yaml:2: job.interval: expected a single value, got a list"},
		{"a list for a mapping", "job: [1]\n", "f.yaml:1: job: sequence was used where mapping is expected"},
		{"a value's own decoder", "job:\n  interval: 2 minutes\n", `f.yaml:2: job.interval: invalid duration "2 minutes"; write e.g. 30s, 2h or 1d`},
	}
	for _, c := range cases {
		err := parse(c.src)
		var p decode.Problem
		if !errors.As(err, &p) || err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	if p := decode.YAMLProblem("f.yaml", nil, errors.New("boom")); p.Error() != "f.yaml:1: boom" {
		t.Errorf("another error: %v", p)
	}
}

func TestYAMLMessage(t *testing.T) {
	_, err := parser.ParseBytes([]byte("v: [1,\n"), 0)
	if got := decode.YAMLMessage(err); got != "sequence end token ']' not found" {
		t.Errorf("YAMLMessage = %q", got)
	}
	if got := decode.YAMLMessage(errors.New("plain")); got != "plain" {
		t.Errorf("YAMLMessage of a plain error = %q", got)
	}
}

// TestProblemsAt: validation messages land at their field's line, or the
// closest ancestor's when the field is not in the file, in line order.
func TestProblemsAt(t *testing.T) {
	file, err := parser.ParseBytes([]byte("name: x\njob:\n  parallelism: 0\nfaults:\n  - {at: 1h}\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	ps := decode.ProblemsAt("f.yaml", file, map[string]string{
		"faults[0].at":            "too late",
		"job.parallelism":         "must be at least 1",
		"job.checkpoint.interval": "must be positive",
		"workload":                "missing",
	})
	want := "f.yaml:1: workload: missing\n" +
		"f.yaml:3: job.checkpoint.interval: must be positive\n" +
		"f.yaml:3: job.parallelism: must be at least 1\n" +
		"f.yaml:5: faults[0].at: too late"
	if ps.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", ps, want)
	}
	if decode.LineOf(nil, "job") != 1 {
		t.Error("LineOf without a file is not line 1")
	}
	if p := (decode.Problem{File: "f.yaml", Line: 2, Msg: "expected one document"}); p.Error() != "f.yaml:2: expected one document" {
		t.Errorf("a problem without a field: %v", p)
	}
}
