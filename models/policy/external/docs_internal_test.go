package external

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/internal/jsonproc"
	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

const policiesDoc = "../../../docs/policies.md"

// docTable returns the rows of the markdown table after the line that
// contains marker, as trimmed cells.
func docTable(t *testing.T, marker string) [][]string {
	t.Helper()
	doc, err := os.ReadFile(policiesDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), marker)
	if !ok {
		t.Fatalf("%s: no table marked %q", policiesDoc, marker)
	}
	var rows [][]string
	for i, line := range strings.Split(rest, "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if i < 2 { // the header and the |---| line
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: the table marked %q has no rows", policiesDoc, marker)
	}
	return rows
}

var code = regexp.MustCompile("`([^`]+)`")

// The table of docs/policies.md lists exactly the keys of an observation
// as this package encodes it (samples, job, detail), and the table of
// actions exactly the kinds and fields a reply may carry.
func TestObservationKeysDocumented(t *testing.T) {
	p, err := New(Settings{Settings: jsonproc.Settings{Command: []string{"x"}}, Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	obs := policy.Observation{
		Window: []results.Sample{{TimeS: 1, JobState: "RUNNING"}},
		Detail: []measure.Detail{{TaskManagers: []measure.TaskManagerSample{{}}, Operators: []measure.OperatorSample{{Name: "source"}}}},
		Job:    policy.JobStatus{State: "RUNNING", LastCheckpoint: &policy.Checkpoint{ID: 1}},
	}
	var msg map[string]any
	if err := json.Unmarshal(p.observation(10*time.Second, obs), &msg); err != nil {
		t.Fatal(err)
	}
	var sent []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if _, list := x.([]any); !list {
					sent = append(sent, path+"."+k)
				}
				walk(path+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		}
	}
	for _, k := range []string{"samples", "job", "detail"} { // what a policy sees (tick and now_s are the protocol's)
		walk(k, msg[k])
	}
	groups := map[string]string{ // the doc's names of the groups: the message's
		"window[i]":                    "samples[]",
		"job":                          "job",
		`detail[i]["taskmanagers"][j]`: "detail[].taskmanagers[]",
		`detail[i]["operators"][j]`:    "detail[].operators[]",
	}
	var documented []string
	group := ""
	for _, row := range docTable(t, "<!-- observation keys:") {
		m := code.FindStringSubmatch(row[0])
		switch {
		case m == nil:
			t.Errorf("row %q: its first cell names no key", row)
		case strings.HasPrefix(row[0], "**"):
			if group = groups[m[1]]; group == "" {
				t.Errorf("group %q: not one of the observation's (%v)", m[1], groups)
			}
		default:
			documented = append(documented, group+"."+m[1])
		}
	}
	slices.Sort(sent)
	slices.Sort(documented)
	for _, k := range sent {
		if !slices.Contains(documented, k) {
			t.Errorf("%s: the observation's %s is not in the table", policiesDoc, k)
		}
	}
	for _, k := range documented {
		if !slices.Contains(sent, k) {
			t.Errorf("%s: the table lists %s, which the observation does not carry", policiesDoc, k)
		}
	}

	var kinds []policy.ActionKind
	fields := []string{"kind", "reason"}
	for _, row := range docTable(t, "<!-- action keys:") {
		m := code.FindStringSubmatch(row[0])
		if m == nil || len(row) != 4 {
			t.Fatalf("action row %q: want kind | fields | Python | what it does", row)
		}
		kinds = append(kinds, policy.ActionKind(m[1]))
		if f := code.FindStringSubmatch(row[1]); f != nil && strings.HasPrefix(row[1], f[0]+":") {
			fields = append(fields, f[1])
		}
		if !strings.Contains(row[2], "Action."+m[1]+"(") {
			t.Errorf("action %s: its Python is %s", m[1], row[2])
		}
	}
	if !slices.Equal(kinds, policy.ActionKinds) {
		t.Errorf("%s: the actions table lists %v; the kinds are %v", policiesDoc, kinds, policy.ActionKinds)
	}
	var tags []string
	for f := range reflect.TypeFor[actionMsg]().Fields() {
		tags = append(tags, strings.Split(f.Tag.Get("json"), ",")[0])
	}
	slices.Sort(tags)
	slices.Sort(fields)
	if !slices.Equal(tags, fields) {
		t.Errorf("%s: the actions table has the fields %v; a reply's action has %v", policiesDoc, fields, tags)
	}
}
