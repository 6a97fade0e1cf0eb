package sim

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// PosError is a value error tied to a place in a YAML file. The scenario
// loader adds the file name; Path is the YAML path ($.job.parallelism).
type PosError struct {
	Line, Column int
	Path         string
	Msg          string
}

func (e *PosError) Error() string {
	return fmt.Sprintf("line %d: %s: %s", e.Line, FieldName(e.Path), e.Msg)
}

// FieldName turns a YAML path ($.job.checkpoint.interval) into the dotted
// field name users write (job.checkpoint.interval).
func FieldName(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, "$"), ".")
}

// scalar returns the text of a scalar node, or a PosError for anything else.
func scalar(node ast.Node) (string, error) {
	switch n := node.(type) {
	case *ast.StringNode:
		return n.Value, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.LiteralNode:
		return n.GetToken().Value, nil
	case *ast.NullNode:
		return "", posErr(node, fmt.Errorf("value is missing"))
	}
	return "", posErr(node, fmt.Errorf("expected a single value, got %s", node.Type()))
}

func posErr(node ast.Node, err error) error {
	tk := node.GetToken()
	return &PosError{Line: tk.Position.Line, Column: tk.Position.Column, Path: node.GetPath(), Msg: err.Error()}
}

// decodeNode parses a scalar node with parse, attaching the position to errors.
func decodeNode[T any](node ast.Node, parse func(string) (T, error), dst *T) error {
	s, err := scalar(node)
	if err != nil {
		return err
	}
	v, err := parse(s)
	if err != nil {
		return posErr(node, err)
	}
	*dst = v
	return nil
}
