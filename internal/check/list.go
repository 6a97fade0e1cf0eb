package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/streamtwin/streamtwin/internal/decode"
)

// ReferenceDir is where the committed references live, relative to the
// repository root: the default set is every *.json there whose source
// scenario exists.
const ReferenceDir = "results/reference"

// ToleranceSuffix names a reference's own tolerance file: the reference
// path without .json, plus this (results/reference/demo.tolerance.yaml).
const ToleranceSuffix = ".tolerance.yaml"

// InputError is an error of what the user gave: the list, a scenario, a
// reference, a tolerance file or the policy (streamtwin exit code 2). The
// message says what to fix.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(err error) error {
	var ie *InputError
	if err == nil || errors.As(err, &ie) {
		return err
	}
	return &InputError{err}
}

// List is the reference scenarios to check.
type List struct {
	// Path is the list file; "" for the default set.
	Path string
	// Tolerance is the list's tolerance file (resolved), for entries
	// without their own; "" for none.
	Tolerance string
	Entries   []Entry
	// Skipped are references of the default set whose source scenario is
	// not there (or that name none).
	Skipped []string

	file *ast.File // for the line of a field
}

// Entry is one reference scenario.
type Entry struct {
	// Name names the entry in the table and its folder under the output
	// folder: the reference's file name without .json unless the list
	// says name:.
	Name string
	// Scenario, Reference and Tolerance are paths, resolved against the
	// list file's folder; Tolerance is "" when the entry has none of its
	// own.
	Scenario, Reference, Tolerance string
	// Variants are the runs to check; none: every run of the scenario.
	Variants []string
	// Source is what --update writes as the reference's source: the
	// scenario as the list names it (the default set keeps the
	// reference's own).
	Source string

	list  *List
	index int
}

var entryName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

type rawList struct {
	Tolerance string     `yaml:"tolerance,omitempty"`
	Scenarios []rawEntry `yaml:"scenarios"`
}

type rawEntry struct {
	Name      string   `yaml:"name,omitempty"`
	Scenario  string   `yaml:"scenario"`
	Reference string   `yaml:"reference"`
	Tolerance string   `yaml:"tolerance,omitempty"`
	Variants  []string `yaml:"variants,omitempty"`
}

// LoadList reads a list file. Paths in it are relative to its folder. It
// checks the list itself (keys, required fields, names, files it names);
// the scenarios, references and tolerance files are read by Run.
func LoadList(path string) (*List, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, inputErr(fmt.Errorf("--list %s: no such file", path))
		}
		return nil, inputErr(err)
	}
	l, err := ParseList(path, data)
	return l, inputErr(err)
}

// ParseList parses a list file's bytes; path names it in errors and is what
// paths in it are relative to.
func ParseList(path string, data []byte) (*List, error) {
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, decode.Problems{decode.YAMLProblem(path, nil, err)}
	}
	l := &List{Path: path, file: file}
	example := "e.g.\n  scenarios:\n    - {scenario: scenarios/demo.yaml, reference: results/reference/demo.json}"
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, decode.Problems{l.problem("scenarios", "missing: list the reference scenarios, "+example)}
	}
	if _, ok := file.Docs[0].Body.(*ast.MappingNode); !ok {
		return nil, decode.Problems{l.problem("", "a list file is a mapping with scenarios: (and optionally tolerance:), "+example)}
	}
	var raw rawList
	if err := decode.Strict(file.Docs[0].Body, &raw); err != nil {
		return nil, decode.Problems{decode.YAMLProblem(path, file, err)}
	}
	if len(raw.Scenarios) == 0 {
		return nil, decode.Problems{l.problem("scenarios", "missing or empty: list the reference scenarios, "+example)}
	}
	dir := filepath.Dir(path)
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	var ps decode.Problems
	if raw.Tolerance != "" {
		l.Tolerance = resolve(raw.Tolerance)
		if !isFile(l.Tolerance) {
			ps = append(ps, l.problem("tolerance", decode.NotFound(raw.Tolerance, l.Tolerance, "list")))
		}
	}
	seen := map[string]int{}
	for i, r := range raw.Scenarios {
		field := func(f string) string { return fmt.Sprintf("scenarios[%d].%s", i, f) }
		e := Entry{Name: r.Name, Variants: r.Variants, Source: filepath.ToSlash(r.Scenario), list: l, index: i}
		switch {
		case r.Scenario == "":
			ps = append(ps, l.problem(field("scenario"), "missing: the scenario file to run, e.g. scenario: scenarios/demo.yaml"))
		case !isFile(resolve(r.Scenario)):
			ps = append(ps, l.problem(field("scenario"), decode.NotFound(r.Scenario, resolve(r.Scenario), "list")))
		default:
			e.Scenario = resolve(r.Scenario)
		}
		if r.Reference == "" {
			ps = append(ps, l.problem(field("reference"), "missing: the reference file to compare with, e.g. reference: references/demo.json (streamtwin check --update writes it)"))
		} else {
			e.Reference = resolve(r.Reference)
		}
		if r.Tolerance != "" {
			e.Tolerance = resolve(r.Tolerance)
			if !isFile(e.Tolerance) {
				ps = append(ps, l.problem(field("tolerance"), decode.NotFound(r.Tolerance, e.Tolerance, "list")))
			}
		}
		for j, v := range r.Variants {
			for _, w := range r.Variants[:j] {
				if v == w {
					ps = append(ps, l.problem(field("variants"), fmt.Sprintf("variant %q given twice", v)))
				}
			}
		}
		if e.Name == "" && r.Reference != "" {
			e.Name = strings.TrimSuffix(filepath.Base(r.Reference), ".json")
			if !entryName.MatchString(e.Name) {
				ps = append(ps, l.problem(field("reference"), fmt.Sprintf("the file name %q does not make a usable name (letters, digits, . _ -): give the entry a name:", e.Name)))
				continue
			}
		} else if e.Name != "" && !entryName.MatchString(e.Name) {
			ps = append(ps, l.problem(field("name"), fmt.Sprintf("%q is not a usable name (letters, digits, . _ -; it names the entry's output folder)", e.Name)))
			continue
		}
		if e.Name != "" {
			if j, dup := seen[e.Name]; dup {
				ps = append(ps, l.problem(field("name"), fmt.Sprintf("scenarios[%d] is named %q too (names default to the reference's file name): give one a name:", j, e.Name)))
				continue
			}
			seen[e.Name] = i
		}
		l.Entries = append(l.Entries, e)
	}
	if len(ps) > 0 {
		return nil, ps
	}
	return l, nil
}

// DefaultList is the committed set: every ReferenceDir/*.json under root
// whose source scenario (relative to root) exists, by name. The others are
// in Skipped.
func DefaultList(root string) (*List, error) {
	refs, err := filepath.Glob(filepath.Join(root, ReferenceDir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, inputErr(fmt.Errorf("no --list given and no %s/*.json in %s: run streamtwin check in the streamtwin repository, or give --list FILE (docs/check.md)", ReferenceDir, absOr(root)))
	}
	sort.Strings(refs)
	l := &List{}
	for _, ref := range refs {
		b, err := os.ReadFile(ref)
		if err != nil {
			return nil, inputErr(err)
		}
		var head struct {
			Source string `json:"source"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, inputErr(fmt.Errorf("%s: not a reference file: %w", ref, err))
		}
		src := head.Source
		if src != "" && !filepath.IsAbs(src) {
			src = filepath.Join(root, filepath.FromSlash(src))
		}
		if src == "" || !isFile(src) {
			l.Skipped = append(l.Skipped, ref)
			continue
		}
		name := strings.TrimSuffix(filepath.Base(ref), ".json")
		l.Entries = append(l.Entries, Entry{Name: name, Scenario: src, Reference: ref, Source: head.Source, list: l, index: len(l.Entries)})
	}
	if len(l.Entries) == 0 {
		return nil, inputErr(fmt.Errorf("none of the %d references in %s names a scenario file that is there (source:): give --list FILE (docs/check.md)", len(refs), filepath.Join(root, ReferenceDir)))
	}
	return l, nil
}

// problem is a problem of a field of the list file ("" for the file as a
// whole), at its line.
func (l *List) problem(field, msg string) decode.Problem {
	return decode.Problem{File: l.Path, Line: decode.LineOf(l.file, field), Field: field, Msg: msg}
}

// problem is a problem of one of the entry's fields: at its line of the
// list file, or, in the default set, of the reference.
func (e Entry) problem(field, msg string) error {
	if e.list == nil || e.list.Path == "" {
		return &InputError{fmt.Errorf("%s: %s", e.Reference, msg)}
	}
	return &InputError{decode.Problems{e.list.problem(fmt.Sprintf("scenarios[%d].%s", e.index, field), msg)}}
}

// toleranceFile is the tolerance file of e: its own, the list's, the one
// beside its reference, or "" (the default tolerances).
func (e Entry) toleranceFile() string {
	if e.Tolerance != "" {
		return e.Tolerance
	}
	if e.list != nil && e.list.Tolerance != "" {
		return e.list.Tolerance
	}
	if beside := strings.TrimSuffix(e.Reference, ".json") + ToleranceSuffix; isFile(beside) {
		return beside
	}
	return ""
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
