package jsonproc

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/internal/decode"
)

// Env is the variables a scenario adds to an external process's
// environment, name → value. The process inherits streamtwin's environment
// and Env is added to it: a name given here replaces the inherited value.
// Values are strings, taken literally (no $VAR expansion); in YAML a number
// or a boolean is taken as written (VERSION: 1.10 is "1.10", not "1.1").
type Env map[string]string

// UnmarshalYAML reads a mapping of names to scalars, keeping each scalar's
// text as written; a list, a mapping or a missing value is refused at its
// line.
func (e *Env) UnmarshalYAML(node ast.Node) error {
	node = untag(node)
	if node.Type() == ast.NullType {
		*e = nil
		return nil
	}
	m, ok := node.(ast.MapNode)
	if !ok {
		return posErr(node, node.GetPath(), "a mapping of names to values, e.g. env: {PYTHONPATH: ../python}")
	}
	out := Env{}
	for it := m.MapRange(); it.Next(); {
		name, ok := text(it.Key())
		if !ok {
			return posErr(it.Key(), node.GetPath(), "a name is a single value, not a list or a mapping")
		}
		if msg := envNameProblem(name); msg != "" {
			return posErr(it.Key(), node.GetPath(), msg)
		}
		value, ok := text(it.Value())
		switch {
		case it.Value().Type() == ast.NullType:
			return posErr(it.Value(), node.GetPath()+"."+name, `value is missing (write "" for an empty one)`)
		case !ok:
			return posErr(it.Value(), node.GetPath()+"."+name, "a value is a string, not a list or a mapping")
		case strings.ContainsRune(value, 0):
			return posErr(it.Value(), node.GetPath()+"."+name, "a value cannot contain a NUL byte")
		}
		out[name] = value
	}
	*e = out
	return nil
}

// check reports the first bad name or value, for Settings given in Go
// (UnmarshalYAML already refused them in a scenario file).
func (e Env) check(field string) error {
	for _, name := range slices.Sorted(maps.Keys(e)) {
		if msg := envNameProblem(name); msg != "" {
			return fmt.Errorf("%s.env: %s", field, msg)
		}
		if strings.ContainsRune(e[name], 0) {
			return fmt.Errorf("%s.env.%s: a value cannot contain a NUL byte", field, name)
		}
	}
	return nil
}

// List is the NAME=value strings of e, sorted by name.
func (e Env) List() []string {
	out := make([]string, 0, len(e))
	for _, name := range slices.Sorted(maps.Keys(e)) {
		out = append(out, name+"="+e[name])
	}
	return out
}

// envNameProblem says what is wrong with a variable's name, or "".
func envNameProblem(name string) string {
	switch {
	case name == "":
		return "a variable's name cannot be empty"
	case strings.Contains(name, "="):
		return fmt.Sprintf("name %q contains '=': give the name and the value apart, e.g. {FOO: bar}", name)
	case strings.ContainsRune(name, 0):
		return fmt.Sprintf("name %q contains a NUL byte", name)
	}
	return ""
}

// untag is node without its tag (!!str 1.10 is 1.10).
func untag(node ast.Node) ast.Node {
	for {
		t, ok := node.(*ast.TagNode)
		if !ok {
			return node
		}
		node = t.Value
	}
}

// text is a scalar's text as written; false for a list, a mapping or null.
func text(node ast.Node) (string, bool) {
	switch n := untag(node).(type) {
	case *ast.StringNode:
		return n.Value, true
	case *ast.LiteralNode:
		return n.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return n.GetToken().Value, true
	}
	return "", false
}

func posErr(node ast.Node, path, msg string) error {
	tk := node.GetToken()
	return &decode.PosError{Line: tk.Position.Line, Column: tk.Position.Column, Path: path, Msg: msg}
}
