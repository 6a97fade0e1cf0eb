package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/streamtwin/streamtwin/internal/decode"
)

// Set assigns a value (YAML text, e.g. 10s or [1, 2]) to the scenario field
// at Path (job.checkpoint.interval, faults[0].at, job.operators[2].cost).
type Set struct {
	Path  string
	Value string
}

// SetError is a Set that could not be applied.
type SetError struct {
	Path string
	Err  error
}

func (e *SetError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *SetError) Unwrap() error { return e.Err }

// ParseRun resolves one run of a scenario file: the named variant ("" for
// the base) with sets applied after the variant and job template, then
// decoded and validated like any scenario. A set of an unknown field fails
// the strict decoding, so typos in paths are caught.
func ParseRun(path string, data []byte, variant string, sets []Set) (Scenario, error) {
	idx := -1
	if variant != "" {
		base, _, err := decodeRun(path, data, -1, nil)
		if err != nil {
			return Scenario{}, err
		}
		var names []string
		for i, v := range base.Variants {
			if v.Name == variant {
				idx = i
			}
			names = append(names, v.Name)
		}
		if idx < 0 {
			return Scenario{}, fmt.Errorf("%s has no variant %q (variants: %v)", path, variant, names)
		}
	}
	sc, _, err := decodeRun(path, data, idx, sets)
	if err != nil {
		return Scenario{}, err
	}
	if idx >= 0 {
		sc.Variant = variant
	}
	sc.Variants = nil
	return sc, nil
}

var segment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)((?:\[[0-9]+\])*)$`)

// setPath replaces (or adds) the value at path in the mapping root. Missing
// mapping keys are created; list indices must exist.
func setPath(root *ast.MappingNode, path, value string) error {
	valueNode, err := parseValue(value)
	if err != nil {
		return err
	}
	parts := strings.Split(path, ".")
	var node ast.Node = root
	at := "$" // the YAML path of node, given to new nodes so errors name it
	for pi, part := range parts {
		m := segment.FindStringSubmatch(part)
		if m == nil {
			return fmt.Errorf("%q is not a field name (write e.g. job.checkpoint.interval or faults[0].at)", part)
		}
		key, indexText := m[1], m[2]
		at += "." + key
		mapping, ok := node.(*ast.MappingNode)
		if !ok {
			return fmt.Errorf("%s is not a mapping", strings.Join(parts[:pi], "."))
		}
		var kv *ast.MappingValueNode
		for _, x := range mapping.Values {
			if decode.Text(x.Key) == key {
				kv = x
			}
		}
		last := pi == len(parts)-1 && indexText == ""
		if kv == nil {
			if indexText != "" {
				return fmt.Errorf("%s has no list %q to index", strings.Join(parts[:pi], "."), key)
			}
			fresh, err := parseEntryAt(key, "{}", blockColumn(mapping))
			if err != nil {
				return err
			}
			fresh.Value.SetPath(at)
			mapping.Values = append(mapping.Values, fresh)
			kv = fresh
		}
		if last {
			kv.Value = rehome(valueNode, at)
			return nil
		}
		node = kv.Value
		var idxs []int
		for _, ix := range strings.Split(strings.Trim(indexText, "[]"), "][") {
			if ix != "" {
				i, _ := strconv.Atoi(ix)
				idxs = append(idxs, i)
			}
		}
		for k, i := range idxs {
			seq, ok := node.(*ast.SequenceNode)
			if !ok || i >= len(seq.Values) {
				n := 0
				if ok {
					n = len(seq.Values)
				}
				return fmt.Errorf("%s has no element %d (it has %d)", key, i, n)
			}
			at += fmt.Sprintf("[%d]", i)
			if pi == len(parts)-1 && k == len(idxs)-1 {
				seq.Values[i] = rehome(valueNode, at)
				return nil
			}
			node = seq.Values[i]
		}
	}
	return nil
}

// rehome gives a value parsed as "v: VALUE" (parseValue) the YAML paths of
// the place it is set at, so a problem in it names that field, not v.
func rehome(value ast.Node, at string) ast.Node {
	ast.Walk(pathRewriter(at), value)
	return value
}

type pathRewriter string

func (to pathRewriter) Visit(n ast.Node) ast.Visitor {
	if n != nil {
		if rest, ok := strings.CutPrefix(n.GetPath(), "$.v"); ok {
			n.SetPath(string(to) + rest)
		}
	}
	return to
}

// blockColumn is where the keys of a block mapping start (1 for a flow
// mapping or an empty one), so an added key prints in line with its
// siblings when a patched file is written back.
func blockColumn(m *ast.MappingNode) int {
	if m.IsFlowStyle || len(m.Values) == 0 {
		return 1
	}
	return m.Values[0].Key.GetToken().Position.Column
}

func parseEntry(key, value string) (*ast.MappingValueNode, error) { return parseEntryAt(key, value, 1) }

func parseEntryAt(key, value string, column int) (*ast.MappingValueNode, error) {
	f, err := parser.ParseBytes([]byte(strings.Repeat(" ", column-1)+key+": "+value+"\n"), 0)
	if err != nil {
		return nil, err
	}
	return f.Docs[0].Body.(*ast.MappingNode).Values[0], nil
}

func parseValue(value string) (ast.Node, error) {
	kv, err := parseEntry("v", value)
	if err != nil {
		return nil, fmt.Errorf("value %q is not valid YAML: %s", value, decode.YAMLMessage(err))
	}
	return kv.Value, nil
}

// Patch returns a scenario file with sets applied to its own top-level keys
// (so they reach every variant that does not override them), keeping its
// comments and layout; the result must still parse as a scenario. It is how
// calibration writes the calibrated file.
func Patch(path string, data []byte, sets []Set) ([]byte, error) {
	file, err := parser.ParseBytes(data, parser.ParseComments)
	if err != nil {
		return nil, Problems{decode.YAMLProblem(path, nil, err)}
	}
	if len(file.Docs) != 1 {
		return nil, Problems{{File: path, Line: 1, Msg: "expected one YAML document with the scenario"}}
	}
	root, ok := file.Docs[0].Body.(*ast.MappingNode)
	if !ok {
		return nil, Problems{{File: path, Line: 1, Msg: "the scenario must be a mapping (name:, duration:, workload:, job: …)"}}
	}
	for _, s := range sets {
		if err := setPath(root, s.Path, s.Value); err != nil {
			return nil, &SetError{Path: s.Path, Err: err}
		}
	}
	out := []byte(file.String() + "\n")
	if _, err := Parse(path, out); err != nil {
		return nil, fmt.Errorf("patched scenario does not parse: %w", err)
	}
	return out, nil
}
