package decode_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/parser"

	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/sim"
)

// TestUnknownFieldSuggestion: an unknown key decoded with Strict is
// reported at its line and field, with the nearest name valid at that
// place of the schema (not elsewhere) and the known ones.
func TestUnknownFieldSuggestion(t *testing.T) {
	type checkpoint struct {
		Interval sim.Duration `yaml:"interval"`
		Mode     string       `yaml:"mode"`
	}
	type op struct {
		Name string `yaml:"name"`
		Cost string `yaml:"cost"`
	}
	type Job struct {
		Parallelism int        `yaml:"parallelism"`
		Checkpoint  checkpoint `yaml:"checkpoint"`
		Operators   []op       `yaml:"operators"`
	}
	type seg struct {
		Duration sim.Duration `yaml:"duration"`
		Job      `yaml:",inline"`
	}
	type doc struct {
		Name     string `yaml:"name"`
		Job      Job    `yaml:"job"`
		Faults   []int  `yaml:"faults"`
		Segments []seg  `yaml:"segments"`
	}
	cases := []struct{ name, src, want string }{
		{"nested", "name: x\njob:\n  checkpoint:\n    intreval: 30s\n",
			`f.yaml:4: job.checkpoint.intreval: unknown field "intreval"; did you mean "interval"? (known: interval, mode)`},
		{"top level", "fautls: [1]\n",
			`f.yaml:1: fautls: unknown field "fautls"; did you mean "faults"? (known: faults, job, name, segments)`},
		{"only names of its place", "job:\n  intreval: 30s\n",
			`f.yaml:2: job.intreval: unknown field "intreval" (known: checkpoint, operators, parallelism)`},
		{"in a list", "job:\n  operators:\n    - {name: a, cots: 1us}\n",
			`f.yaml:3: job.operators[0].cots: unknown field "cots"; did you mean "cost"? (known: cost, name)`},
		{"inline fields", "segments:\n  - {duration: 1h, paralelism: 2}\n",
			`f.yaml:2: segments[0].paralelism: unknown field "paralelism"; did you mean "parallelism"? (known: checkpoint, duration, operators, parallelism)`},
		{"far off", "job:\n  checkpoint:\n    workers: 2\n",
			`f.yaml:3: job.checkpoint.workers: unknown field "workers" (known: interval, mode)`},
	}
	for _, c := range cases {
		file, err := parser.ParseBytes([]byte(c.src), 0)
		if err != nil {
			t.Fatal(err)
		}
		var d doc
		err = decode.Strict(file.Docs[0].Body, &d)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if got := decode.YAMLProblem("f.yaml", file, err).Error(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestCheckFieldPath(t *testing.T) {
	type policy struct{ Name string } // no yaml tags: decodes itself
	type checkpoint struct {
		Interval sim.Duration `yaml:"interval"`
	}
	type doc struct {
		Checkpoint checkpoint `yaml:"checkpoint"`
		Faults     []struct {
			At sim.Duration `yaml:"at"`
		} `yaml:"faults"`
		Policy policy `yaml:"policy"`
	}
	ty := reflect.TypeOf(doc{})
	cases := []struct{ path, want string }{
		{"checkpoint.interval", ""},
		{"faults[0].at", ""},
		{"policy.anything", ""},
		{"checkpoint.intreval", `unknown field "intreval"; did you mean "interval"? (known: interval)`},
		{"checkpiont.interval", `unknown field "checkpiont"; did you mean "checkpoint"?`},
		{"faults[1].att", `unknown field "att"; did you mean "at"?`},
	}
	for _, c := range cases {
		err := decode.CheckFieldPath(ty, c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s: %v, want %s", c.path, err, c.want)
		}
	}
}
