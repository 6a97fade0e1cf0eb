package compare

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// Tolerance is how far B may be from the baseline A.
type Tolerance struct {
	Rel float64 // fraction of |A|
	Abs float64 // in the figure's unit
	// Informational: the figure is compared and reported, never beyond
	// tolerance (Rel and Abs are not used).
	Informational bool
}

// Bound is the largest |B − A| allowed around a.
func (t Tolerance) Bound(a float64) float64 {
	return max(t.Abs, t.Rel*math.Abs(a), AbsFloor)
}

// Within reports whether b is within tolerance of the baseline a (always,
// for an informational figure).
func (t Tolerance) Within(a, b float64) bool {
	switch {
	case t.Informational, a == b, math.IsNaN(a) && math.IsNaN(b):
		return true
	case math.IsNaN(a), math.IsNaN(b), math.IsInf(a, 0), math.IsInf(b, 0):
		return false
	}
	return math.Abs(b-a) <= t.Bound(a)*(1+cmpBoundSlack)
}

func (t Tolerance) String() string {
	if t.Informational {
		return "info"
	}
	s := "±" + strconv.FormatFloat(t.Rel*100, 'g', 4, 64) + "%"
	if t.Abs > 0 {
		s += " or " + textfmt.Number(t.Abs, 0)
	}
	return s
}

// Cell is the tolerance as compare's TOL column shows it for figure: the
// absolute part in the figure's format (a count whole), and "±abs" alone
// when there is no relative part.
func (t Tolerance) Cell(figure string) string {
	if t.Informational || t.Abs == 0 {
		return t.String()
	}
	abs := textfmt.Number(t.Abs, 0)
	if textfmt.IsCount(figure) {
		abs = textfmt.Count(t.Abs)
	}
	if t.Rel == 0 {
		return "±" + abs
	}
	return "±" + strconv.FormatFloat(t.Rel*100, 'g', 4, 64) + "% or " + abs
}

// Tolerances are a default and per-figure overrides.
type Tolerances struct {
	Default Tolerance
	Figures map[string]Tolerance
}

// DefaultTolerances is 5% relative for every figure.
func DefaultTolerances() Tolerances { return Tolerances{Default: Tolerance{Rel: DefaultRel}} }

// For returns the tolerance of one figure.
func (ts Tolerances) For(figure string) Tolerance {
	if t, ok := ts.Figures[figure]; ok {
		return t
	}
	return ts.Default
}

// LoadTolerances reads a tolerance file:
//
//	default: {rel: 0.05, abs: 0}        # every figure; rel may be written 5%
//	figures:
//	  recovery_mean_s: {rel: 0.02}      # abs comes from default
//	  latency_p99_ms: {rel: 0.1, abs: 5}
//	  cpu_busy_mean: informational      # reported, never beyond tolerance
//
// Keys left out take the default's value (the default's own: rel 0.05, abs
// 0). Unknown keys, unknown figures and bad numbers are errors naming
// file:line.
func LoadTolerances(path string) (Tolerances, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Tolerances{}, err
	}
	return ParseTolerances(path, b)
}

// ParseTolerances parses a tolerance file's bytes; path names it in errors.
func ParseTolerances(path string, data []byte) (Tolerances, error) {
	ts := DefaultTolerances()
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return ts, decode.Problems{decode.YAMLProblem(path, nil, err)}
	}
	p := tolParser{path: path}
	type override struct {
		name     string
		rel, abs *float64
		info     bool
	}
	var overrides []override
	for _, doc := range file.Docs {
		if doc.Body == nil {
			continue
		}
		top, ok := p.mapping(doc.Body, "", "a mapping with default: and figures:")
		if !ok {
			continue
		}
		for _, kv := range top {
			switch key := kv.Key.String(); key {
			case "default":
				rel, abs := p.tolerance(kv.Value, "default")
				if rel != nil {
					ts.Default.Rel = *rel
				}
				if abs != nil {
					ts.Default.Abs = *abs
				}
			case "figures":
				figs, ok := p.mapping(kv.Value, "figures", "a mapping of figure names to {rel:, abs:} or informational")
				if !ok {
					continue
				}
				for _, f := range figs {
					name := f.Key.String()
					if _, known := figureRank[name]; !known {
						if name == cmpIgnored {
							p.errorf(f.Key, "figures."+name, "%s is never compared", name)
						} else {
							p.errorf(f.Key, "figures."+name, "%v", statistics.CheckFigure(name)) // did you mean …?
						}
						continue
					}
					if isInformational(f.Value) {
						overrides = append(overrides, override{name: name, info: true})
						continue
					}
					rel, abs := p.tolerance(f.Value, "figures."+name)
					overrides = append(overrides, override{name: name, rel: rel, abs: abs})
				}
			default:
				p.errorf(kv.Key, "", "unknown key %q (want default, figures)", key)
			}
		}
	}
	if len(p.problems) > 0 {
		return ts, p.problems
	}
	for _, o := range overrides {
		t := ts.Default
		t.Informational = o.info
		if o.rel != nil {
			t.Rel = *o.rel
		}
		if o.abs != nil {
			t.Abs = *o.abs
		}
		if ts.Figures == nil {
			ts.Figures = map[string]Tolerance{}
		}
		ts.Figures[o.name] = t
	}
	return ts, nil
}

type tolParser struct {
	path     string
	problems decode.Problems
}

// errorf records a problem of field ("" for the file as a whole) at n's line.
func (p *tolParser) errorf(n ast.Node, field, format string, args ...any) {
	line := 1
	if tk := n.GetToken(); tk != nil {
		line = tk.Position.Line
	}
	p.problems = append(p.problems, decode.Problem{File: p.path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// mapping returns the entries of the mapping node of field ("" for the
// file's top level; anchors unwrapped), reporting duplicates and anything
// that is not a mapping.
func (p *tolParser) mapping(n ast.Node, field, want string) ([]*ast.MappingValueNode, bool) {
	n = unwrapAnchor(n)
	m, ok := n.(*ast.MappingNode)
	if !ok {
		p.errorf(n, "", "%s must be %s", cmp.Or(field, "the tolerance file"), want)
		return nil, false
	}
	seen := map[string]bool{}
	var out []*ast.MappingValueNode
	for _, kv := range m.Values {
		k := kv.Key.String()
		if seen[k] {
			p.errorf(kv.Key, field, "%s given twice", k)
			continue
		}
		seen[k] = true
		out = append(out, kv)
	}
	return out, true
}

// isInformational: the figure's value is the word informational.
func isInformational(n ast.Node) bool {
	s, ok := unwrapAnchor(n).(*ast.StringNode)
	return ok && strings.TrimSpace(s.Value) == informational
}

func unwrapAnchor(n ast.Node) ast.Node {
	for {
		a, ok := n.(*ast.AnchorNode)
		if !ok {
			return n
		}
		n = a.Value
	}
}

// tolerance reads {rel:, abs:}; absent keys come back nil.
func (p *tolParser) tolerance(n ast.Node, where string) (rel, abs *float64) {
	want := "a mapping {rel: …, abs: …}"
	if where != "default" {
		want += " or " + informational
	}
	kvs, ok := p.mapping(n, where, want)
	if !ok {
		return nil, nil
	}
	for _, kv := range kvs {
		key := kv.Key.String()
		if key != "rel" && key != "abs" {
			p.errorf(kv.Key, where, "unknown key %q (want rel, abs)", key)
			continue
		}
		v, ok := p.number(kv.Value, where+"."+key, key == "rel")
		if !ok {
			continue
		}
		if key == "rel" {
			rel = &v
		} else {
			abs = &v
		}
	}
	return rel, abs
}

// number reads a non-negative finite number; percent allows "5%".
func (p *tolParser) number(n ast.Node, where string, percent bool) (float64, bool) {
	n = unwrapAnchor(n)
	text := ""
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.StringNode:
		text = strings.TrimSpace(n.GetToken().Value)
	}
	scale := 1.0
	if percent && strings.HasSuffix(text, "%") {
		text, scale = strings.TrimSpace(strings.TrimSuffix(text, "%")), 0.01
	}
	v, err := strconv.ParseFloat(text, 64)
	switch {
	case text == "" || err != nil:
		p.errorf(n, where, "want a number, got %s", strings.TrimSpace(n.String()))
		return 0, false
	case v < 0 || math.IsNaN(v) || math.IsInf(v, 0):
		p.errorf(n, where, "must be a finite number ≥ 0, got %s", strings.TrimSpace(n.String()))
		return 0, false
	}
	return v * scale, true
}
