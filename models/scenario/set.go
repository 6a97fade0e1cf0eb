package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
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
		base, _, err := decode(path, data, -1, nil)
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
	sc, _, err := decode(path, data, idx, sets)
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
	for pi, part := range parts {
		m := segment.FindStringSubmatch(part)
		if m == nil {
			return fmt.Errorf("%q is not a field name (write e.g. job.checkpoint.interval or faults[0].at)", part)
		}
		key, indexText := m[1], m[2]
		mapping, ok := node.(*ast.MappingNode)
		if !ok {
			return fmt.Errorf("%s is not a mapping", strings.Join(parts[:pi], "."))
		}
		var kv *ast.MappingValueNode
		for _, x := range mapping.Values {
			if x.Key.String() == key {
				kv = x
			}
		}
		last := pi == len(parts)-1 && indexText == ""
		if kv == nil {
			if indexText != "" {
				return fmt.Errorf("%s has no list %q to index", strings.Join(parts[:pi], "."), key)
			}
			fresh, err := parseEntry(key, "{}")
			if err != nil {
				return err
			}
			mapping.Values = append(mapping.Values, fresh)
			kv = fresh
		}
		if last {
			kv.Value = valueNode
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
			if pi == len(parts)-1 && k == len(idxs)-1 {
				seq.Values[i] = valueNode
				return nil
			}
			node = seq.Values[i]
		}
	}
	return nil
}

func parseEntry(key, value string) (*ast.MappingValueNode, error) {
	f, err := parser.ParseBytes([]byte(key+": "+value+"\n"), 0)
	if err != nil {
		return nil, err
	}
	return f.Docs[0].Body.(*ast.MappingNode).Values[0], nil
}

func parseValue(value string) (ast.Node, error) {
	kv, err := parseEntry("v", value)
	if err != nil {
		return nil, fmt.Errorf("value %q is not valid YAML: %v", value, err)
	}
	return kv.Value, nil
}
