package decode

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/streamtwin/streamtwin/internal/suggest"
)

// UnknownFieldError is a key that no field has at its place in a schema (a
// Go struct with yaml tags), with the names that are valid there, so the
// message can suggest the nearest. YAMLProblem and YAMLMessage print it.
type UnknownFieldError struct {
	Name  string
	Known []string // sorted; nil when the schema does not describe the place
	yerr  error    // go-yaml's error, for the token (nil for a checked path)
}

func (e *UnknownFieldError) Error() string { return e.Message() }
func (e *UnknownFieldError) Unwrap() error { return e.yerr }

// Message says the field is unknown, suggests the nearest known name if one
// is close, and lists the known ones.
func (e *UnknownFieldError) Message() string {
	msg := fmt.Sprintf("unknown field %q", e.Name)
	if s := suggest.Typo(e.Name, e.Known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	if len(e.Known) > 0 {
		msg += " (known: " + strings.Join(e.Known, ", ") + ")"
	}
	return msg
}

// Strict decodes node into v like yaml.NodeToValue with yaml.Strict,
// turning an unknown key into an UnknownFieldError that knows the fields
// of v's type valid where the key is.
func Strict(node ast.Node, v any) error {
	err := yaml.NodeToValue(node, v, yaml.Strict())
	var uf *yaml.UnknownFieldError
	if !errors.As(err, &uf) || uf.Token == nil {
		return err
	}
	keys, ok := keyPath(node, uf.Token, nil)
	if !ok {
		return err
	}
	known, _ := KnownFields(reflect.TypeOf(v), keys[:len(keys)-1])
	return &UnknownFieldError{Name: keys[len(keys)-1], Known: known, yerr: err}
}

// CheckFieldPath reports the first key of a dotted path (job.checkpoint.
// interval, faults[0].at) that t does not have at its place, as an
// UnknownFieldError. Places t does not describe (a policy's own keys) pass.
func CheckFieldPath(t reflect.Type, path string) error {
	var keys []string
	for _, part := range strings.Split(path, ".") {
		key, _, _ := strings.Cut(part, "[")
		known, ok := KnownFields(t, keys)
		if !ok || key == "" { // a malformed path is for the caller to report
			return nil
		}
		if !slices.Contains(known, key) {
			return &UnknownFieldError{Name: key, Known: known}
		}
		keys = append(keys, key)
	}
	return nil
}

// KnownFields lists the YAML keys valid in the mapping at keys (list
// indices left out) of a value of type t. ok is false where t does not
// describe the keys: a struct without yaml tags decodes itself (a policy),
// and scalars, maps and ast.Node take anything.
func KnownFields(t reflect.Type, keys []string) (names []string, ok bool) {
	for _, k := range keys {
		fields, ok := yamlFields(t)
		if !ok || fields[k] == nil {
			return nil, false
		}
		t = fields[k]
	}
	fields, ok := yamlFields(t)
	if !ok {
		return nil, false
	}
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, true
}

// yamlFields maps the YAML keys of a struct type (through pointers, slices
// and inline fields) to their types.
func yamlFields(t reflect.Type) (map[string]reflect.Type, bool) {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, false
	}
	fields, tagged := map[string]reflect.Type{}, false
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		tagged = tagged || hasTag
		switch {
		case name == "-" || !f.IsExported():
		case strings.Contains(opts, "inline"):
			inner, _ := yamlFields(f.Type)
			for k, v := range inner {
				fields[k] = v
			}
		case name == "":
			fields[strings.ToLower(f.Name)] = f.Type // go-yaml's default name
		default:
			fields[name] = f.Type
		}
	}
	return fields, tagged
}

// keyPath finds the mapping key whose token is tk under n and returns the
// keys leading to it, itself last (list indices left out).
func keyPath(n ast.Node, tk *token.Token, above []string) ([]string, bool) {
	switch n := n.(type) {
	case *ast.MappingNode:
		for _, kv := range n.Values {
			if keys, ok := keyPath(kv, tk, above); ok {
				return keys, true
			}
		}
	case *ast.MappingValueNode:
		keys := append(slices.Clip(above), Text(n.Key))
		if n.Key.GetToken() == tk {
			return keys, true
		}
		return keyPath(n.Value, tk, keys)
	case *ast.SequenceNode:
		for _, v := range n.Values {
			if keys, ok := keyPath(v, tk, above); ok {
				return keys, true
			}
		}
	case *ast.TagNode:
		return keyPath(n.Value, tk, above)
	case *ast.AnchorNode:
		return keyPath(n.Value, tk, above)
	}
	return nil, false
}
