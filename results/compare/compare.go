package compare

// Comparing two result sets figure by figure (streamtwin compare, and the
// regression references in results/reference/).
//
// A result set is any of
//
//   - a run folder (it holds summary.json): one run;
//   - a folder of run folders (a scenario with variants, or a sweep's runs/):
//     one run per sub-folder, keyed by the folder name;
//   - a sweep folder (it holds runs.parquet) or a runs.parquet file: one run
//     per row, keyed by run_id;
//   - a JSON file: a single summary.json-format summary, or a reference file
//     {"format": "streamtwin-reference/1", "scenario": …, "runs": {"<key>":
//     <summary>, …}} (see results/reference/README.md).
//
// A single summary (run folder, summary file) is keyed by its variant, or by
// its scenario name when it has none. When both sides hold exactly one run the
// two are compared whatever their keys; otherwise runs are matched by key.
//
// Figures are the numbers of a summary: the JSON names, qos.* as qos_*,
// without seed, wall_time_s and the list of recovery times (the same set and
// order as Figures). Summaries are read generically, not into Summary, so a
// figure that only one side has (a file written by another version) shows up
// as such instead of as a silent 0.
//
// Tolerance: B is within tolerance of the baseline A when
//
//	|B − A| ≤ max(abs, rel·|A|, AbsFloor)
//
// with a relative slack of 1e-12 on the bound for floating-point rounding, so
// a difference exactly at the tolerance is within it: a 5% shift passes
// --rel 0.05 and fails --rel 0.049. AbsFloor (1e-6) keeps figures at or near
// 0 from failing on rounding noise: figures are in s, ms, records, records/s
// or fractions, where 1e-6 is far below anything meaningful yet above the
// float noise of record counts in the 1e8–1e9 range (a final_lag of 6e-8). NaN equals NaN; NaN against a number, or
// an infinity against anything else, is beyond any tolerance.
//
// A tolerance file may mark a figure informational: it is compared and
// printed, but never beyond tolerance (a figure one side does not claim to
// predict, such as the twin's latency tail against a live run's; see
// TwinVsLiveTolerances).

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

const (
	// DefaultRel is the default relative tolerance of a comparison (5%).
	DefaultRel = 0.05
	// AbsFloor is the absolute difference up to which two figures are always
	// within tolerance, whatever the tolerance says.
	AbsFloor = 1e-6
	// ReferenceFormat identifies a reference file.
	ReferenceFormat = "streamtwin-reference/1"

	// cmpBoundSlack absorbs rounding at the boundary (x·1.05 − x is not
	// exactly 0.05·x in floating point).
	cmpBoundSlack = 1e-12
	// cmpIgnored is never compared: the one value that differs between two
	// runs of the same scenario and seed.
	cmpIgnored = "wall_time_s"

	// TwinVsLiveTolerances is the agreement the project claims between a
	// twin run and a live run of the same scenario, figure by figure
	// (relative to the repository's root).
	TwinVsLiveTolerances = "results/reference/live/twin-vs-live.yaml"
	// informational is the tolerance file's word for a figure that is
	// reported and never fails.
	informational = "informational"
)

// ResultSet is one side of a comparison: runs with their figures.
type ResultSet struct {
	Path string
	Kind string // "run folder", "variants folder", "sweep", "reference", "summary file"
	Runs []SetRun
}

// SetRun is one run of a result set.
type SetRun struct {
	Key     string
	Backend string   // summary.json's backend ("sim" or "live"), "" when not given
	Figures []string // in canonical order
	Values  map[string]float64
	// Params identify a sweep row beyond its run_id (run_index, replication,
	// seed and the swept parameters); a mismatch is noted, not failed.
	Params     map[string]string
	ParamOrder []string
}

func (r *SetRun) add(name string, v float64) {
	if _, dup := r.Values[name]; dup {
		return
	}
	r.Figures = append(r.Figures, name)
	r.Values[name] = v
}

// LoadResultSet reads a result set from a run folder, a folder of run
// folders, a sweep folder, runs.parquet, or a summary or reference JSON file.
func LoadResultSet(path string) (*ResultSet, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or folder", path)
		}
		return nil, err
	}
	if !st.IsDir() {
		if strings.HasSuffix(path, ".parquet") {
			return loadSweep(path)
		}
		return loadJSONSet(path)
	}
	if fileExists(filepath.Join(path, results.SummaryFile)) {
		r, err := loadSummaryRun(filepath.Join(path, results.SummaryFile), "")
		if err != nil {
			return nil, err
		}
		return &ResultSet{Path: path, Kind: "run folder", Runs: []SetRun{r}}, nil
	}
	if fileExists(filepath.Join(path, results.RunsFile)) {
		set, err := loadSweep(filepath.Join(path, results.RunsFile))
		if set != nil {
			set.Path = path
		}
		return set, err
	}
	dirs, err := results.RunSubfolders(path)
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s holds no results: no %s, no %s, no run folders (*/%s)", path, results.SummaryFile, results.RunsFile, results.SummaryFile)
	}
	set := &ResultSet{Path: path, Kind: "variants folder"}
	for _, d := range dirs {
		r, err := loadSummaryRun(filepath.Join(path, d, results.SummaryFile), d)
		if err != nil {
			return nil, err
		}
		set.Runs = append(set.Runs, r)
	}
	return set, nil
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

func loadSummaryRun(path, key string) (SetRun, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return SetRun{}, err
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return SetRun{}, fmt.Errorf("%s: not a summary: %w", path, err)
	}
	return summaryRun(path, key, obj)
}

// summaryRun flattens a decoded summary; an empty key becomes its variant,
// or its scenario.
func summaryRun(where, key string, obj map[string]any) (SetRun, error) {
	if obj == nil {
		return SetRun{}, fmt.Errorf("%s: a summary must be a JSON object", where)
	}
	if key == "" {
		v, _ := obj["variant"].(string)
		s, _ := obj["scenario"].(string)
		key = cmp.Or(v, s)
	}
	r := SetRun{Key: key, Values: map[string]float64{}}
	r.Backend, _ = obj["backend"].(string)
	var walk func(prefix string, o map[string]any)
	walk = func(prefix string, o map[string]any) {
		for k, v := range o {
			name := prefix + k
			switch v := v.(type) {
			case float64:
				if name != "seed" && name != cmpIgnored {
					r.add(name, v)
				}
			case map[string]any:
				walk(name+"_", v)
			}
		}
	}
	walk("", obj)
	if len(r.Figures) == 0 {
		return SetRun{}, fmt.Errorf("%s: not a summary (no numeric figures)", where)
	}
	sortFigures(r.Figures)
	return r, nil
}

// figureRank orders figures as Figures does; unknown ones go last, by name.
var figureRank = func() map[string]int {
	names, _ := results.Figures(results.Summary{})
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}()

func sortFigures(names []string) {
	sort.SliceStable(names, func(i, j int) bool {
		ri, oki := figureRank[names[i]]
		rj, okj := figureRank[names[j]]
		switch {
		case oki && okj:
			return ri < rj
		case oki != okj:
			return oki
		default:
			return names[i] < names[j]
		}
	})
}

// loadJSONSet reads a summary.json-format file or a reference file.
func loadJSONSet(path string) (*ResultSet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("%s: neither a summary nor a reference file (JSON object expected): %w", path, err)
	}
	raw, isRef := top["runs"]
	if !isRef {
		var obj map[string]any
		json.Unmarshal(b, &obj)
		r, err := summaryRun(path, "", obj)
		if err != nil {
			return nil, err
		}
		return &ResultSet{Path: path, Kind: "summary file", Runs: []SetRun{r}}, nil
	}
	if f, ok := top["format"]; ok {
		var format string
		if json.Unmarshal(f, &format) != nil || format != ReferenceFormat {
			return nil, fmt.Errorf("%s: unknown reference format %s (this streamtwin reads %q)", path, f, ReferenceFormat)
		}
	}
	var runs map[string]map[string]any
	if err := json.Unmarshal(raw, &runs); err != nil {
		return nil, fmt.Errorf("%s: \"runs\" must map run names to summaries: %w", path, err)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: reference holds no runs", path)
	}
	keys := make([]string, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	set := &ResultSet{Path: path, Kind: "reference"}
	for _, k := range keys {
		r, err := summaryRun(fmt.Sprintf("%s: runs[%q]", path, k), k, runs[k])
		if err != nil {
			return nil, err
		}
		set.Runs = append(set.Runs, r)
	}
	return set, nil
}

// loadSweep reads runs.parquet: columns before the first summary figure are
// the row's identity (parameters), the rest are figures.
func loadSweep(path string) (*ResultSet, error) {
	t, err := results.ReadTable(path)
	if err != nil {
		return nil, err
	}
	ids, ok := t.Strings["run_id"]
	if !ok {
		return nil, fmt.Errorf("%s: not a runs table (no run_id column)", path)
	}
	first := -1
	for i, n := range t.Names {
		if _, known := figureRank[n]; known {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, fmt.Errorf("%s: no summary figures in the runs table", path)
	}
	set := &ResultSet{Path: path, Kind: "sweep"}
	seen := map[string]bool{}
	for i := 0; i < t.Rows; i++ {
		id := ids[i]
		if seen[id] {
			return nil, fmt.Errorf("%s: run_id %q appears twice", path, id)
		}
		seen[id] = true
		r := SetRun{Key: id, Values: map[string]float64{}, Params: map[string]string{}}
		for j, n := range t.Names {
			if n == "run_id" || n == cmpIgnored {
				continue
			}
			col, numeric := t.Floats[n]
			if j < first || !numeric {
				v := ""
				if numeric {
					v = strconv.FormatFloat(col[i], 'g', -1, 64)
				} else {
					v = t.Strings[n][i]
				}
				r.Params[n] = v
				r.ParamOrder = append(r.ParamOrder, n)
				continue
			}
			r.add(n, col[i])
		}
		sortFigures(r.Figures)
		set.Runs = append(set.Runs, r)
	}
	if len(set.Runs) == 0 {
		return nil, fmt.Errorf("%s: the runs table has no rows", path)
	}
	return set, nil
}

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
		s += " or " + results.FormatNumber(t.Abs, 0)
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
	abs := results.FormatNumber(t.Abs, 0)
	if results.IsCount(figure) {
		abs = results.FormatCount(t.Abs)
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
		return ts, sim.Problems{sim.YAMLProblem(path, nil, err)}
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
							p.errorf(f.Key, "figures."+name, "%v", results.CheckFigure(name)) // did you mean …?
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
	problems sim.Problems
}

// errorf records a problem of field ("" for the file as a whole) at n's line.
func (p *tolParser) errorf(n ast.Node, field, format string, args ...any) {
	line := 1
	if tk := n.GetToken(); tk != nil {
		line = tk.Position.Line
	}
	p.problems = append(p.problems, sim.Problem{File: p.path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
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

// FigureDiff is one (run, figure) of a comparison.
type FigureDiff struct {
	Run, Figure string
	A, B        float64
	InA, InB    bool    // false: the figure is on the other side only
	Abs, Rel    float64 // B − A and (B − A)/|A|
	Tol         Tolerance
	Beyond      bool
}

// Status is "same", "ok" (within tolerance), "info" (an informational
// figure that differs), "BEYOND", "only in A" or "only in B".
func (d FigureDiff) Status() string {
	switch {
	case !d.InB:
		return "only in A"
	case !d.InA:
		return "only in B"
	case d.Beyond:
		return "BEYOND"
	case d.A == d.B || math.IsNaN(d.A) && math.IsNaN(d.B):
		return "same"
	case d.Tol.Informational:
		return "info"
	}
	return "ok"
}

// Comparison is the result of Compare.
type Comparison struct {
	A, B *ResultSet
	// Diffs has every figure of every matched run, in A's run order.
	Diffs                []FigureDiff
	RunsOnlyA, RunsOnlyB []string
	// Notes are identity mismatches of matched sweep rows (seed, parameters).
	Notes []string
	// Compared counts (run, figure) pairs present on both sides; Beyond those
	// beyond tolerance; Informational those compared without a tolerance
	// (never beyond it); OneSided the figures and runs on one side only.
	Compared, Beyond, Informational, OneSided int
}

// Failed: something is beyond tolerance or, when strict, something is on
// one side only.
func (c *Comparison) Failed(strict bool) bool {
	return c.Beyond > 0 || strict && c.OneSided > 0
}

// Compare matches the runs of a and b and compares every common figure. It
// fails when there is nothing to compare (no run or no figure in common).
func Compare(a, b *ResultSet, tol Tolerances) (*Comparison, error) {
	c := &Comparison{A: a, B: b}
	type pair struct{ a, b *SetRun }
	var pairs []pair
	if len(a.Runs) == 1 && len(b.Runs) == 1 {
		pairs = append(pairs, pair{&a.Runs[0], &b.Runs[0]})
	} else {
		byKey := map[string]*SetRun{}
		for i := range b.Runs {
			byKey[b.Runs[i].Key] = &b.Runs[i]
		}
		matched := map[string]bool{}
		for i := range a.Runs {
			if rb, ok := byKey[a.Runs[i].Key]; ok {
				pairs = append(pairs, pair{&a.Runs[i], rb})
				matched[rb.Key] = true
			} else {
				c.RunsOnlyA = append(c.RunsOnlyA, a.Runs[i].Key)
			}
		}
		for _, r := range b.Runs {
			if !matched[r.Key] {
				c.RunsOnlyB = append(c.RunsOnlyB, r.Key)
			}
		}
	}
	c.OneSided = len(c.RunsOnlyA) + len(c.RunsOnlyB)
	for _, p := range pairs {
		key := p.a.Key
		for _, name := range p.a.ParamOrder {
			if vb, ok := p.b.Params[name]; ok && vb != p.a.Params[name] {
				c.Notes = append(c.Notes, fmt.Sprintf("%s: %s differs (A %s, B %s)", key, name, p.a.Params[name], vb))
			}
		}
		names := append([]string(nil), p.a.Figures...)
		for _, n := range p.b.Figures {
			if _, ok := p.a.Values[n]; !ok {
				names = append(names, n)
			}
		}
		sortFigures(names)
		for _, n := range names {
			if n == cmpIgnored {
				continue
			}
			va, inA := p.a.Values[n]
			vb, inB := p.b.Values[n]
			d := FigureDiff{Run: key, Figure: n, A: va, B: vb, InA: inA, InB: inB, Tol: tol.For(n)}
			if inA && inB {
				c.Compared++
				if d.Tol.Informational {
					c.Informational++
				}
				d.Abs, d.Rel = vb-va, relDiff(va, vb)
				if d.Beyond = !d.Tol.Within(va, vb); d.Beyond {
					c.Beyond++
				}
			} else {
				c.OneSided++
			}
			c.Diffs = append(c.Diffs, d)
		}
	}
	if c.Compared == 0 {
		return nil, fmt.Errorf("nothing to compare: %s and %s have no run and figure in common (A runs: %s; B runs: %s)",
			a.Path, b.Path, runKeys(a), runKeys(b))
	}
	return c, nil
}

// TwinVsLive reports whether one side holds twin runs and the other live
// runs (summary.json's backend "sim" and "live"), the comparison whose
// claimed tolerances are TwinVsLiveTolerances.
func TwinVsLive(a, b *ResultSet) bool {
	has := func(s *ResultSet, backend string) bool {
		for _, r := range s.Runs {
			if r.Backend == backend {
				return true
			}
		}
		return false
	}
	return has(a, "sim") && has(b, "live") || has(a, "live") && has(b, "sim")
}

func relDiff(a, b float64) float64 {
	switch {
	case a == b || math.IsNaN(a) && math.IsNaN(b):
		return 0
	case a == 0:
		return math.Copysign(math.Inf(1), b)
	}
	return (b - a) / math.Abs(a)
}

func runKeys(s *ResultSet) string {
	var ks []string
	for i, r := range s.Runs {
		if i == 8 {
			ks = append(ks, "… "+results.FormatCount(float64(len(s.Runs)-i))+" more")
			break
		}
		ks = append(ks, cmp.Or(r.Key, `""`))
	}
	return strings.Join(ks, ", ")
}

// Verdict is the final line: "N figures compared, M beyond tolerance",
// plus what is on one side only.
func (c *Comparison) Verdict(strict bool) string {
	s := results.Plural(c.Compared, "figure") + " compared, " + results.FormatCount(float64(c.Beyond)) + " beyond tolerance"
	if c.Informational > 0 {
		s += "; " + results.FormatCount(float64(c.Informational)) + " informational (reported, never beyond tolerance)"
	}
	if c.OneSided > 0 {
		s += "; " + results.FormatCount(float64(c.OneSided)) + " on one side only"
		if strict {
			s += " (a failure with --strict)"
		} else {
			s += " (not a failure without --strict)"
		}
	}
	return s
}

// WriteTable prints the comparison as an aligned table: the runs and
// figures that differ or are on one side only (all figures with all), then
// the notes and the verdict line.
func (c *Comparison) WriteTable(w io.Writer, all, strict bool) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "A: %s (%s, %s)\n", c.A.Path, c.A.Kind, results.Plural(len(c.A.Runs), "run"))
	fmt.Fprintf(bw, "B: %s (%s, %s)\n", c.B.Path, c.B.Kind, results.Plural(len(c.B.Runs), "run"))
	rows := [][]string{{"RUN", "FIGURE", "A", "B", "B-A", "REL", "TOL", "STATUS"}}
	for _, d := range c.Diffs {
		st := d.Status()
		if !all && st == "same" {
			continue
		}
		row := []string{d.Run, d.Figure, "-", "-", "", "", "", st}
		// A, B and B − A are read against the figure's magnitude, so the
		// float noise of a record count (a final_lag of 6e-08) shows as 0.
		scale := results.Scale(d.A, d.B)
		if d.InA {
			row[2] = results.FormatFigure(d.Figure, d.A, scale)
		}
		if d.InB {
			row[3] = results.FormatFigure(d.Figure, d.B, scale)
		}
		if d.InA && d.InB {
			row[4], row[5] = ChangeCells(d.Figure, d.Abs, d.Rel, scale)
			row[6] = d.Tol.Cell(d.Figure)
		}
		rows = append(rows, row)
	}
	for _, k := range c.RunsOnlyA {
		rows = append(rows, []string{k, "*", "", "", "", "", "", "run only in A"})
	}
	for _, k := range c.RunsOnlyB {
		rows = append(rows, []string{k, "*", "", "", "", "", "", "run only in B"})
	}
	if len(rows) > 1 {
		results.WriteAligned(bw, rows, []bool{false, false, true, true, true, true, false, false})
	}
	for _, n := range c.Notes {
		fmt.Fprintln(bw, "note:", n)
	}
	fmt.Fprintln(bw, c.Verdict(strict))
	return bw.Flush()
}

// ChangeCells are the cells of a figure's change, as compare's B−A and REL
// columns and check's CHANGE and REL show them: abs (B − A) in the
// figure's format at scale, and rel (a fraction) in percent. A change from
// 0 has no relative size: rel is "–" and abs says it all; a change that
// shows as 0 is 0%, whatever its relative size in floating point.
func ChangeCells(figure string, abs, rel, scale float64) (absCell, relCell string) {
	if results.IsCount(figure) {
		absCell = results.FormatSignedCount(abs)
	} else {
		absCell = results.FormatSigned(abs, scale)
	}
	switch {
	case absCell == "0":
		return absCell, "0%"
	case math.IsNaN(rel) || math.IsInf(rel, 0):
		return absCell, results.NoValue
	}
	return absCell, results.FormatSigned(rel*100, 0) + "%"
}

// Reference is a regression reference file: the summaries of every run of
// one scenario (one per variant, or one keyed by the scenario name when it
// has no variants). See results/reference/README.md.
type Reference struct {
	Format   string                     `json:"format"`   // ReferenceFormat
	Scenario string                     `json:"scenario"` // the scenario's name
	Source   string                     `json:"source,omitempty"`
	Runs     map[string]results.Summary `json:"runs"`
}

// ReadRunSummaries reads a run folder (one summary, keyed by RunKey) or a
// folder of run folders (keyed by folder name).
func ReadRunSummaries(dir string) (map[string]results.Summary, error) {
	if fileExists(filepath.Join(dir, results.SummaryFile)) {
		s, err := results.ReadSummary(dir)
		if err != nil {
			return nil, err
		}
		return map[string]results.Summary{results.RunKey(s): s}, nil
	}
	subs, err := results.RunSubfolders(dir)
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return nil, fmt.Errorf("%s holds no run folders", dir)
	}
	out := map[string]results.Summary{}
	for _, d := range subs {
		s, err := results.ReadSummary(filepath.Join(dir, d))
		if err != nil {
			return nil, err
		}
		out[d] = s
	}
	return out, nil
}

// MarshalReference renders a reference file: indented, runs sorted by key,
// wall_time_s zeroed (it is never compared and would churn the file) and
// recovery_times_s as [] rather than null.
func MarshalReference(r Reference) ([]byte, error) {
	if r.Format == "" {
		r.Format = ReferenceFormat
	}
	runs := make(map[string]results.Summary, len(r.Runs))
	for k, s := range r.Runs {
		s.WallTimeS = 0
		if s.RecoveryTimesS == nil {
			s.RecoveryTimesS = []float64{}
		}
		runs[k] = s
	}
	r.Runs = runs
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteReference writes a reference file atomically.
func WriteReference(path string, r Reference) error {
	b, err := MarshalReference(r)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return results.WriteFileAtomic(path, b)
}
