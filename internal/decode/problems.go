package decode

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// Problem is one thing wrong with an input file, at a line: the one form in
// which every YAML reader (scenario, sweep, tolerance file) reports what it
// refuses. It prints as file:line: field: message, or file:line: message when
// no single field is to blame. Field is the dotted name users write
// (job.checkpoint.interval, faults[0].at).
type Problem struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (p Problem) Error() string {
	if p.Field == "" {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Field, p.Msg)
}

// Problems is every problem found in a file, one per line when printed.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// YAMLProblem turns an error from parsing or decoding the YAML file at path
// into a Problem. file is the parsed file (nil when parsing failed); it
// names the field a decoding error belongs to.
//   - A PosError (a value a field's own decoder refused) keeps its line and
//     field.
//   - A go-yaml error (syntax, unknown field, a value of the wrong type) is
//     at its token's line, in the field that token belongs to, with the
//     message alone (YAMLMessage; an unknown field from Strict comes
//     with the nearest known one).
//   - Anything else is at line 1.
func YAMLProblem(path string, file *ast.File, err error) Problem {
	var pe *PosError
	if errors.As(err, &pe) {
		return Problem{path, pe.Line, FieldName(pe.Path), pe.Msg}
	}
	var ye yaml.Error
	if errors.As(err, &ye) {
		p := Problem{File: path, Line: 1, Msg: YAMLMessage(err)}
		if tk := ye.GetToken(); tk != nil {
			p.Line = tk.Position.Line
			p.Field = FieldName(pathOfToken(file, tk))
		}
		return p
	}
	return Problem{path, 1, "", err.Error()}
}

// YAMLMessage is the message of a go-yaml error without its position, the
// source excerpt and Go type names (cannot unmarshal string into int); other
// errors are their Error(). It is for a YAML error reported inside another
// message, e.g. of a value given on the command line. An UnknownFieldError
// (from Strict) suggests the nearest known field.
func YAMLMessage(err error) string {
	var uf *UnknownFieldError
	if errors.As(err, &uf) {
		return uf.Message()
	}
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return err.Error()
	}
	msg := ye.GetMessage()
	if i := strings.Index(msg, " into Go struct field "); i >= 0 {
		if j := strings.LastIndex(msg, " of type "); j > i {
			msg = msg[:i] + " into " + strings.TrimPrefix(msg[j:], " of type ")
		}
	}
	return collectionForValue(msg)
}

// goCollection matches go-yaml's complaint about a list or mapping decoded
// into a Go type, e.g. cannot unmarshal []interface {} into string.
var goCollection = regexp.MustCompile(`^cannot unmarshal (map\[string\]interface \{\}|\[\]interface \{\}) into (.+)$`)

// collectionForValue says "expected a single value (int), got a mapping"
// for a list or mapping where a scalar belongs, in the words scalar uses.
func collectionForValue(msg string) string {
	m := goCollection.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	got := "a mapping"
	if strings.HasPrefix(m[1], "[]") {
		got = "a list"
	}
	if strings.ContainsAny(m[2], "[]{}.*") { // a Go collection or struct, not a value
		return fmt.Sprintf("cannot use %s here (%s expected)", got, m[2])
	}
	return fmt.Sprintf("expected a single value (%s), got %s", m[2], got)
}

// pathOfToken finds the YAML path of the node that owns tk.
func pathOfToken(file *ast.File, tk *token.Token) string {
	if file == nil {
		return ""
	}
	var found string
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		if n == nil || found != "" {
			return
		}
		switch n := n.(type) {
		case *ast.MappingNode:
			if n.GetToken() == tk { // a mapping where something else belongs
				found = n.GetPath()
				return
			}
			for _, kv := range n.Values {
				if kv.Key.GetToken() == tk {
					found = kv.Value.GetPath()
					if found == "" || strings.HasSuffix(kv.Value.GetPath(), "$") {
						found = n.GetPath() + "." + Text(kv.Key)
					}
					return
				}
				walk(kv.Value)
			}
		case *ast.SequenceNode:
			if n.GetToken() == tk {
				found = n.GetPath()
				return
			}
			for _, v := range n.Values {
				walk(v)
			}
		default:
			if n.GetToken() == tk {
				found = n.GetPath()
			}
		}
	}
	for _, d := range file.Docs {
		walk(d.Body)
	}
	return found
}

// LineOf returns the line of the dotted field in file, or of its closest
// ancestor present in the file (a missing key is reported where it
// belongs); 1 when there is none, or no file.
func LineOf(file *ast.File, field string) int {
	if file == nil {
		return 1
	}
	for f := field; ; {
		if p, err := yaml.PathString("$." + f); err == nil && f != "" {
			if n, err := p.FilterFile(file); err == nil && n != nil {
				return n.GetToken().Position.Line
			}
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			return 1
		}
		f = f[:i]
	}
}

// ProblemsAt turns field → message (what Validate methods return) into
// Problems at the fields' lines in file (LineOf), in line order.
func ProblemsAt(path string, file *ast.File, errs map[string]string) Problems {
	var ps Problems
	for field, msg := range errs {
		ps = append(ps, Problem{path, LineOf(file, field), field, msg})
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Field < ps[j].Field
	})
	return ps
}

// NotFound is the message for a file named in a YAML file of that kind
// (scenario, sweep) that is not there: the path as written and, when it
// differs, where it was looked for.
func NotFound(given, resolved, kind string) string {
	if given == resolved {
		return fmt.Sprintf("file %s not found (paths are relative to the %s file's folder)", given, kind)
	}
	return fmt.Sprintf("file %s not found: no %s (paths are relative to the %s file's folder)", given, resolved, kind)
}

// PosError is a value error tied to a place in a YAML file, returned by the
// decoders of units and policies; YAMLProblem adds the file name. Path is
// the YAML path ($.job.parallelism).
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
	got := map[ast.NodeType]string{ast.SequenceType: "a list", ast.MappingType: "a mapping"}[node.Type()]
	return "", posErr(node, fmt.Errorf("expected a single value, got %s", cmp.Or(got, node.Type().String())))
}

func posErr(node ast.Node, err error) error {
	tk := node.GetToken()
	return &PosError{Line: tk.Position.Line, Column: tk.Position.Column, Path: node.GetPath(), Msg: err.Error()}
}

// Scalar decodes a scalar node with parse, attaching the node's position to
// errors: the YAML decoding of units (sim.Duration, sim.Rate, …).
func Scalar[T any](node ast.Node, parse func(string) (T, error), dst *T) error {
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

// Nest adds a section's problems (field → message) to into, below the
// section's path; the empty field is the section as a whole. A config
// validates each section on its own and nests the answers.
func Nest(into map[string]string, section string, problems map[string]string) {
	for field, msg := range problems {
		if field == "" {
			into[section] = msg
		} else {
			into[section+"."+field] = msg
		}
	}
}

// Text is a key or scalar as the file means it: the value of a quoted one
// ("job.checkpoint.interval": in a JSON scenario, which is YAML), not its
// source text with the quotes.
func Text(n ast.Node) string {
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value
	}
	return n.String()
}
