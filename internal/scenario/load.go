package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/workloads"
)

// File is a loaded scenario file: the base scenario and, if it has
// variants, one resolved scenario per variant.
type File struct {
	Path     string
	Base     Scenario
	Variants []Scenario
}

// Runs returns the scenarios to run: the variants, or the base alone.
func (f *File) Runs() []Scenario {
	if len(f.Variants) > 0 {
		return f.Variants
	}
	return []Scenario{f.Base}
}

// Problem is one thing wrong with a scenario file, at a line; it is the
// error form every YAML reader shares (decode.Problem).
type Problem = decode.Problem

// Problems is every problem found, in line order.
type Problems = decode.Problems

// Load reads and resolves a scenario file.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

var variantName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Parse resolves a scenario from its bytes; path names it in errors.
func Parse(path string, data []byte) (*File, error) { return ParseWith(path, data, nil) }

// LoadWith reads and resolves a scenario file with sets applied to the
// base and to every variant, after the variant's own keys (`streamtwin run
// --set`).
func LoadWith(path string, sets []Set) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWith(path, data, sets)
}

// ParseWith is Parse with sets applied as LoadWith applies them.
func ParseWith(path string, data []byte, sets []Set) (*File, error) {
	base, _, err := decodeRun(path, data, -1, sets)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, Base: base}
	seen := map[string]bool{}
	var problems Problems
	for i, v := range base.Variants {
		if v.node == nil { // a bare "-": UnmarshalYAML never ran
			problems = append(problems, Problem{File: path, Line: 1, Field: fmt.Sprintf("variants[%d]", i), Msg: "a variant is a mapping with a name, e.g. - {name: ci10, job: {checkpoint: {interval: 10s}}}"})
			continue
		}
		line := v.node.GetToken().Position.Line
		switch {
		case !variantName.MatchString(v.Name):
			problems = append(problems, Problem{File: path, Line: line, Field: fmt.Sprintf("variants[%d].name", i), Msg: fmt.Sprintf("%q is not a usable name (letters, digits, . _ -; it names the output folder)", v.Name)})
			continue
		case seen[v.Name]:
			problems = append(problems, Problem{File: path, Line: line, Field: fmt.Sprintf("variants[%d].name", i), Msg: fmt.Sprintf("duplicate variant name %q", v.Name)})
			continue
		}
		seen[v.Name] = true
		sc, _, err := decodeRun(path, data, i, sets)
		if err != nil {
			var ps Problems
			if errors.As(err, &ps) {
				problems = append(problems, ps...)
				continue
			}
			return nil, err
		}
		sc.Variant, sc.Variants = v.Name, nil
		f.Variants = append(f.Variants, sc)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return f, nil
}

// decodeRun parses data and decodes it over the defaults; with variant ≥ 0 the
// variant's keys are merged over the base first. Decoding and validation
// problems come back as Problems with lines.
func decodeRun(path string, data []byte, variant int, sets []Set) (Scenario, *ast.File, error) {
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return Scenario{}, nil, Problems{decode.YAMLProblem(path, nil, err)}
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return Scenario{}, nil, Problems{{File: path, Line: 1, Msg: "expected one YAML document with the scenario"}}
	}
	root, ok := file.Docs[0].Body.(*ast.MappingNode)
	if !ok {
		return Scenario{}, nil, Problems{{File: path, Line: 1, Msg: "the scenario must be a mapping (name:, duration:, workload:, job: …)"}}
	}
	for _, kv := range root.Values {
		if decode.Text(kv.Key) == "parameters" {
			return Scenario{}, nil, Problems{{File: path, Line: kv.Key.GetToken().Position.Line, Msg: "this is a sweep file (it has parameters:); run it with streamtwin sweep"}}
		}
	}
	if variant >= 0 {
		var vnode *ast.MappingNode
		kept := root.Values[:0:0]
		for _, kv := range root.Values {
			if decode.Text(kv.Key) == "variants" {
				vnode = kv.Value.(*ast.SequenceNode).Values[variant].(*ast.MappingNode)
				continue
			}
			kept = append(kept, kv)
		}
		root.Values = kept
		for _, kv := range vnode.Values {
			if decode.Text(kv.Key) != "name" {
				mergeInto(root, kv)
			}
		}
	}
	if err := applyTemplate(root); err != nil {
		return Scenario{}, nil, Problems{{File: path, Line: decode.LineOf(file, "job.template"), Field: "job.template", Msg: err.Error()}}
	}
	if err := resolveProfile(root, filepath.Dir(path)); err != nil {
		return Scenario{}, nil, Problems{{File: path, Line: decode.LineOf(file, "policy.profile"), Field: "policy.profile", Msg: err.Error()}}
	}
	if err := resolveExternalDir(root, filepath.Dir(path)); err != nil {
		return Scenario{}, nil, Problems{{File: path, Line: decode.LineOf(file, "policy.external"), Field: "policy.external.dir", Msg: err.Error()}}
	}
	for _, set := range sets {
		if err := decode.CheckFieldPath(reflect.TypeOf(Scenario{}), set.Path); err != nil {
			return Scenario{}, nil, &SetError{Path: set.Path, Err: err}
		}
		if err := setPath(root, set.Path, set.Value); err != nil {
			return Scenario{}, nil, &SetError{Path: set.Path, Err: err}
		}
	}
	sc := Default()
	if err := nodeToValue(root, &sc); err != nil {
		return Scenario{}, nil, ofSets(Problems{decode.YAMLProblem(path, file, err)}, sets)
	}
	sc.Name = cmp.Or(sc.Name, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	missing := map[string]string{}
	if sc.Workload != nil {
		resolveFiles(sc.Workload, filepath.Dir(path), "workload", missing)
	}
	if ps := validate(path, file, &sc, missing); len(ps) > 0 {
		return Scenario{}, nil, ofSets(ps, sets)
	}
	sc.warnings = warnings(path, file, &sc, sets)
	return sc, file, nil
}

// ofSets returns the first problem in the value of a set as a SetError:
// its line would be of the scratch document the value was parsed in, and
// the value came from the caller (a sweep parameter), not the file.
// Problems elsewhere, even if a set caused them, stay in the file.
func ofSets(ps Problems, sets []Set) error {
	for _, p := range ps {
		for _, s := range sets {
			if p.Field == s.Path {
				return &SetError{Path: s.Path, Err: fmt.Errorf("value %s: %s", s.Value, p.Msg)}
			}
			if rest, ok := strings.CutPrefix(p.Field, s.Path); ok && (rest[0] == '.' || rest[0] == '[') {
				return &SetError{Path: s.Path, Err: fmt.Errorf("value %s: %s: %s", s.Value, p.Field, p.Msg)}
			}
		}
	}
	return ps
}

// mergeInto overlays kv on m: mappings merge key by key, operator lists
// merge by operator name, anything else replaces the value.
func mergeInto(m *ast.MappingNode, kv *ast.MappingValueNode) {
	for _, have := range m.Values {
		if decode.Text(have.Key) != decode.Text(kv.Key) {
			continue
		}
		dst, ok1 := have.Value.(*ast.MappingNode)
		src, ok2 := kv.Value.(*ast.MappingNode)
		dseq, ok3 := have.Value.(*ast.SequenceNode)
		sseq, ok4 := kv.Value.(*ast.SequenceNode)
		switch {
		case ok1 && ok2:
			for _, sub := range src.Values {
				mergeInto(dst, sub)
			}
		case ok3 && ok4 && decode.Text(kv.Key) == "operators":
			mergeByName(dseq, sseq)
		default:
			have.Value = kv.Value
		}
		return
	}
	m.Values = append(m.Values, kv)
}

// mergeByName overlays each named mapping of src on the one of dst with the
// same name, appending those dst lacks.
func mergeByName(dst, src *ast.SequenceNode) {
	name := func(n ast.Node) string {
		if m, ok := n.(*ast.MappingNode); ok {
			for _, kv := range m.Values {
				if decode.Text(kv.Key) == "name" {
					return decode.Text(kv.Value)
				}
			}
		}
		return ""
	}
outer:
	for _, s := range src.Values {
		if n := name(s); n != "" {
			for _, d := range dst.Values {
				if name(d) == n {
					for _, kv := range s.(*ast.MappingNode).Values {
						mergeInto(d.(*ast.MappingNode), kv)
					}
					continue outer
				}
			}
		}
		dst.Values = append(dst.Values, s)
	}
}

// applyTemplate expands job.template: the template's job mapping, with the
// scenario's job keys merged over it, replaces the scenario's job.
func applyTemplate(root *ast.MappingNode) error {
	for _, kv := range root.Values {
		job, ok := kv.Value.(*ast.MappingNode)
		if decode.Text(kv.Key) != "job" || !ok {
			continue
		}
		name := ""
		for _, x := range job.Values {
			if decode.Text(x.Key) == "template" {
				name = decode.Text(x.Value)
			}
		}
		if name == "" {
			return nil
		}
		src, err := flink.Template(name)
		if err != nil {
			return err
		}
		tf, err := parser.ParseBytes(src, 0)
		if err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		var base *ast.MappingNode
		for _, t := range tf.Docs[0].Body.(*ast.MappingNode).Values {
			if decode.Text(t.Key) == "job" {
				base = t.Value.(*ast.MappingNode)
			}
		}
		for _, x := range job.Values {
			mergeInto(base, x)
		}
		kv.Value = base
	}
	return nil
}

// ProblemsAt turns field → message into Problems at the fields' lines in
// the scenario file at path (line 1 if it cannot be read again).
func ProblemsAt(path string, errs map[string]string) Problems {
	var file *ast.File
	if data, err := os.ReadFile(path); err == nil {
		file, _ = parser.ParseBytes(data, 0)
	}
	return decode.ProblemsAt(path, file, errs)
}

// resolveProfile makes a relative policy.profile relative to the scenario
// file's folder, as trace paths are (unless it names a file from here).
func resolveProfile(root *ast.MappingNode, dir string) error {
	for _, kv := range root.Values {
		pol, ok := kv.Value.(*ast.MappingNode)
		if decode.Text(kv.Key) != "policy" || !ok {
			continue
		}
		for _, pkv := range pol.Values {
			p, ok := pkv.Value.(*ast.StringNode)
			if decode.Text(pkv.Key) != "profile" || !ok || filepath.IsAbs(p.Value) {
				continue
			}
			if _, err := os.Stat(p.Value); err == nil {
				return nil
			}
			return setPath(root, "policy.profile", filepath.Join(dir, p.Value))
		}
	}
	return nil
}

// resolveExternalDir makes the working directory (dir, default: the
// scenario's folder) of every external process — the policy's and the
// monitoring samplers' forecasters — relative to the scenario file, as
// trace paths are, so `command: [python3, my_policy.py]` finds the script
// beside the scenario wherever streamtwin runs.
func resolveExternalDir(root *ast.MappingNode, dir string) error {
	owners := map[string]ast.Node{"policy": child(root, "policy")}
	if samplers, ok := child(child(root, "monitoring"), "samplers").(*ast.SequenceNode); ok {
		for i, n := range samplers.Values {
			owners[fmt.Sprintf("monitoring.samplers[%d]", i)] = n
		}
	}
	for _, owner := range slices.Sorted(maps.Keys(owners)) {
		n := owners[owner]
		ext, ok := child(n, "external").(*ast.MappingNode)
		if !ok {
			continue
		}
		given := ""
		if s, ok := child(ext, "dir").(*ast.StringNode); ok {
			given = s.Value
		}
		if filepath.IsAbs(given) {
			continue
		}
		if err := setPath(root, owner+".external.dir", filepath.Join(dir, given)); err != nil {
			return err
		}
	}
	return nil
}

// child is the value of key in mapping n; nil if n is no mapping or lacks it.
func child(n ast.Node, key string) ast.Node {
	m, ok := n.(*ast.MappingNode)
	if !ok {
		return nil
	}
	for _, kv := range m.Values {
		if decode.Text(kv.Key) == key {
			return kv.Value
		}
	}
	return nil
}

// resolveFiles makes trace paths relative to the scenario file's folder
// and notes, by field, those that are not there: a missing file says which
// field named it and where it was looked for.
func resolveFiles(w *workloads.Config, dir, field string, missing map[string]string) {
	if w.File != "" {
		given := w.File
		if !filepath.IsAbs(w.File) {
			w.File = filepath.Join(dir, w.File)
		}
		if _, err := os.Stat(w.File); errors.Is(err, fs.ErrNotExist) {
			missing[field+".file"] = decode.NotFound(given, w.File, "scenario")
		}
	}
	for i := range w.Segments {
		resolveFiles(&w.Segments[i].Config, dir, fmt.Sprintf("%s.segments[%d]", field, i), missing)
	}
}

// nodeToValue is decode.Strict (strict, unknown keys with a suggestion)
// with a decoder panic turned into
// an error: goccy/go-yaml v1.19.2 panics on a tagged scalar where a list
// belongs (faults: !x 1; found by FuzzParse).
func nodeToValue(n ast.Node, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot decode the scenario (a tagged value where a list or mapping belongs?): %v", r)
		}
	}()
	return decode.Strict(n, v)
}
