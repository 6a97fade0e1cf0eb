package sweep

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
)

// Spec is a parsed sweep file.
type Spec struct {
	Path         string // the sweep file
	Scenario     string // the base scenario file (resolved against the sweep's folder)
	Variant      string
	Replications int
	Seed         uint64 // replication r runs with Seed + r
	Samples      int    // random draws of the random parameters
	Shard        Shard
	Params       []Param
	// Warnings are the implausible settings of the base scenario, of its
	// variants the sweep runs and of each parameter value (at the
	// parameter's line), each once (scenario.Scenario.Warnings).
	Warnings     decode.Problems
	scenarioData []byte
}

// Param is one swept scenario field.
type Param struct {
	Path   string
	Values []string // grid or list values (YAML text)
	Random *[2]float64
	unit   string // of random values
	line   int
}

// Shard selects the runs with index mod N == I.
type Shard struct{ I, N int }

// ParseShard reads "i/n" (0 ≤ i < n).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("shard %q: write i/n, e.g. 0/4", s)
	case n < 1:
		return Shard{}, fmt.Errorf("shard %q: n must be at least 1", s)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("shard %q: i must be in 0..%d", s, n-1)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

type rawSpec struct {
	Scenario     string   `yaml:"scenario"`
	Variant      string   `yaml:"variant,omitempty"`
	Replications int      `yaml:"replications,omitempty"`
	Seed         *uint64  `yaml:"seed,omitempty"`
	Samples      int      `yaml:"samples,omitempty"`
	Shard        string   `yaml:"shard,omitempty"`
	Parameters   ast.Node `yaml:"parameters"`
}

// Load reads and checks a sweep file: every parameter path is tried on the
// scenario, so a typo is reported at its line.
func Load(path string) (*Spec, error) {
	root, raw, err := readRaw(path)
	if err != nil {
		return nil, err
	}
	l := &loader{path: path, root: root, seen: map[decode.Problem]bool{}, probed: map[decode.Problem]bool{}}
	if err := l.readHeader(raw); err != nil {
		return nil, err
	}
	base, err := l.parseBase(raw)
	if err != nil {
		return nil, err
	}
	s := l.spec
	params, ok := raw.Parameters.(*ast.MappingNode)
	if raw.Parameters == nil || !ok || len(params.Values) == 0 {
		return nil, l.fail(l.line("parameters"), "parameters", "give at least one parameter, e.g. job.checkpoint.interval: [10s, 30s]")
	}
	probeVariant, err := l.probeVariants(params)
	if err != nil {
		return nil, err
	}
	random, err := l.probeParams(params, probeVariant)
	if err != nil {
		return nil, err
	}
	if probeVariant == s.Variant { // no variant parameter: the base's warnings first
		s.Warnings = append(slices.Clip(base.Warnings()), s.Warnings...)
	}
	if err := l.checkRuns(random); err != nil {
		return nil, err
	}
	return s, nil
}

// readRaw reads the sweep file and decodes its mapping strictly.
func readRaw(path string) (*ast.MappingNode, rawSpec, error) {
	var raw rawSpec
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, raw, err
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, raw, decode.Problems{decode.YAMLProblem(path, nil, err)}
	}
	if len(file.Docs) != 1 {
		return nil, raw, problemAt(path, 1, "", "expected one YAML document")
	}
	root, ok := file.Docs[0].Body.(*ast.MappingNode)
	if !ok {
		return nil, raw, problemAt(path, 1, "", "a sweep file is a mapping with scenario, parameters, replications …")
	}
	for _, kv := range root.Values {
		if k := decode.Text(kv.Key); k == "workload" || k == "job" || k == "duration" {
			return nil, raw, problemAt(path, kv.Key.GetToken().Position.Line, "", "this is a scenario file (it has %s:); a sweep file names one with scenario: and lists parameters: (see docs/sweeps.md)", k)
		}
	}
	if err := decode.Strict(root, &raw); err != nil {
		return nil, raw, decode.Problems{decode.YAMLProblem(path, file, err)}
	}
	return root, raw, nil
}

// problemAt is the error of one problem of the sweep file at path.
func problemAt(path string, line int, field, msg string, args ...any) error {
	return decode.Problems{{File: path, Line: line, Field: field, Msg: fmt.Sprintf(msg, args...)}}
}

// loader is what the steps of Load share: the sweep file's mapping, the
// spec so far and the warnings found.
type loader struct {
	path string
	root *ast.MappingNode
	spec *Spec
	// seen are the warnings listed in spec.Warnings, each listed once;
	// probed are those of the scenario the parameters are probed on.
	seen, probed map[decode.Problem]bool
}

func (l *loader) fail(line int, field, msg string, args ...any) error {
	return problemAt(l.path, line, field, msg, args...)
}

// line is the line of the sweep file's key (1 if it has none).
func (l *loader) line(key string) int {
	for _, kv := range l.root.Values {
		if decode.Text(kv.Key) == key {
			return kv.Key.GetToken().Position.Line
		}
	}
	return 1
}

// warn lists w among the spec's warnings unless it is there already.
func (l *loader) warn(w decode.Problem) {
	if !l.seen[w] {
		l.seen[w] = true
		l.spec.Warnings = append(l.spec.Warnings, w)
	}
}

// readHeader starts the spec with the keys besides the parameters: the
// base scenario file (read now), the variant, replications and the shard.
func (l *loader) readHeader(raw rawSpec) error {
	s := &Spec{Path: l.path, Variant: raw.Variant, Replications: cmp.Or(raw.Replications, 1), Samples: raw.Samples, Shard: Shard{0, 1}}
	l.spec = s
	if raw.Scenario == "" {
		return l.fail(1, "scenario", "missing; the base scenario file, e.g. scenario: ../scenarios/demo.yaml")
	}
	s.Scenario = raw.Scenario
	if !filepath.IsAbs(s.Scenario) {
		s.Scenario = filepath.Join(filepath.Dir(l.path), s.Scenario)
	}
	var err error
	if s.scenarioData, err = os.ReadFile(s.Scenario); err != nil {
		return l.fail(l.line("scenario"), "scenario", "%s", fileProblem(raw.Scenario, s.Scenario, err))
	}
	if s.Replications < 0 {
		return l.fail(l.line("replications"), "replications", "must be at least 1, got %d", raw.Replications)
	}
	if raw.Shard != "" {
		if s.Shard, err = ParseShard(raw.Shard); err != nil {
			return l.fail(l.line("shard"), "shard", "%v", err)
		}
	}
	return nil
}

// parseBase resolves the base scenario (its variant, if the sweep fixes
// one), notes its warnings as probed and takes its seed unless the sweep
// sets one.
func (l *loader) parseBase(raw rawSpec) (scenario.Scenario, error) {
	s := l.spec
	base, err := scenario.ParseRun(s.Scenario, s.scenarioData, s.Variant, nil)
	var ps decode.Problems
	switch {
	case errors.As(err, &ps):
		return base, ps // at their lines of the base scenario
	case err != nil && s.Variant != "":
		return base, l.fail(l.line("variant"), "variant", "%v", err)
	case err != nil:
		return base, l.fail(l.line("scenario"), "scenario", "%v", err)
	}
	for _, w := range base.Warnings() {
		l.probed[w] = true
	}
	s.Seed = base.Seed
	if raw.Seed != nil {
		s.Seed = *raw.Seed
	}
	return base, nil
}

// probeVariants resolves each variant the variant parameter lists, noting
// their warnings, and returns the variant the other parameters are probed
// on: the first listed, or the one the sweep fixes.
func (l *loader) probeVariants(params *ast.MappingNode) (string, error) {
	s := l.spec
	probeVariant := s.Variant
	for _, kv := range params.Values {
		if decode.Text(kv.Key) != VariantParam {
			continue
		}
		p, err := parseParam(kv)
		switch {
		case err == nil && p.Random != nil:
			err = errors.New("variants are a list of names, e.g. [daedalus, hpa-80]")
		case err == nil && s.Variant != "":
			err = fmt.Errorf("the sweep already fixes variant: %s; drop one of the two", s.Variant)
		}
		if err != nil {
			return "", l.fail(kv.Key.GetToken().Position.Line, "parameters."+VariantParam, "%v", err)
		}
		for _, v := range p.Values {
			sc, err := scenario.ParseRun(s.Scenario, s.scenarioData, v, nil)
			if err != nil {
				return "", l.fail(p.line, "parameters."+VariantParam, "%v", err)
			}
			for _, w := range sc.Warnings() {
				if v == p.Values[0] {
					l.probed[w] = true
				}
				w.Msg += " (variant " + v + ")"
				l.warn(w)
			}
		}
		probeVariant = p.Values[0]
	}
	return probeVariant, nil
}

// probeParams parses the parameters into the spec, trying each value (a
// random parameter's bounds) on the scenario's probeVariant: an unknown
// path or a value the scenario rejects is an error of the parameter's
// line. It reports whether any parameter is random.
func (l *loader) probeParams(params *ast.MappingNode, probeVariant string) (random bool, err error) {
	s := l.spec
	for _, kv := range params.Values {
		p, err := parseParam(kv)
		if err != nil {
			return false, l.fail(kv.Key.GetToken().Position.Line, "parameters."+decode.Text(kv.Key), "%v", err)
		}
		if p.Path == VariantParam {
			s.Params = append(s.Params, p)
			continue
		}
		probe := p.Values
		if p.Random != nil {
			probe = []string{p.format(p.Random[0]), p.format(p.Random[1])}
		}
		for _, v := range probe {
			if err := l.probe(p, probeVariant, v); err != nil {
				return false, err
			}
		}
		random = random || p.Random != nil
		s.Params = append(s.Params, p)
	}
	return random, nil
}

// probe resolves the scenario's variant with parameter p set to v, noting
// the warnings that setting brings.
func (l *loader) probe(p Param, variant, v string) error {
	s := l.spec
	sc, err := scenario.ParseRun(s.Scenario, s.scenarioData, variant, []scenario.Set{{Path: p.Path, Value: v}})
	for _, w := range sc.Warnings() {
		switch {
		case w.Line == 0: // about the value: at its line here
			w.File, w.Line, w.Field = l.path, p.line, "parameters."+p.Path
		case l.probed[w]:
			continue // the scenario's own, reported below
		default:
			w.Msg += fmt.Sprintf(" (with %s: %s)", p.Path, v)
		}
		l.warn(w)
	}
	if err != nil {
		var se *scenario.SetError
		if errors.As(err, &se) { // the path or value of this line
			return l.fail(p.line, "parameters."+p.Path, "%v", se.Err)
		}
		return l.fail(p.line, "parameters."+p.Path, "%s = %s: %v", p.Path, v, err)
	}
	return nil
}

// checkRuns settles the samples (random parameters need them, a grid has
// none) and bounds the number of runs, which Runs holds in memory.
func (l *loader) checkRuns(random bool) error {
	s := l.spec
	if random && s.Samples < 1 {
		return l.fail(l.line("samples"), "samples", "random parameters need samples: N (how many draws)")
	}
	if !random {
		s.Samples = 0
	}
	runs := float64(s.Replications) * float64(max(1, s.Samples))
	for _, p := range s.Params {
		if p.Random == nil {
			runs *= float64(len(p.Values))
		}
	}
	if runs > maxRuns {
		return l.fail(l.line("parameters"), "", "%.4g runs (grid × samples × replications); a sweep has at most %d", runs, maxRuns)
	}
	return nil
}

// fileProblem says what is wrong with the file a sweep names (given as
// written, resolved against the sweep's folder).
func fileProblem(given, resolved string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return decode.NotFound(given, resolved, "sweep")
	}
	return err.Error()
}

// Bounds of a sweep file: the values of one grid parameter, and the runs.
const (
	maxSteps = 10_000
	maxRuns  = 1_000_000
)

func parseParam(kv *ast.MappingValueNode) (Param, error) {
	p := Param{Path: decode.Text(kv.Key), line: kv.Key.GetToken().Position.Line}
	switch v := kv.Value.(type) {
	case *ast.SequenceNode:
		if len(v.Values) == 0 {
			return p, fmt.Errorf("the list of values is empty")
		}
		for _, x := range v.Values {
			p.Values = append(p.Values, nodeText(x))
		}
	case *ast.MappingNode:
		for _, x := range v.Values {
			// goccy/go-yaml (v1.19.2) panics decoding a tagged scalar into a list
			if t, ok := x.Value.(*ast.TagNode); ok && decode.Text(x.Key) == "random" {
				if _, seq := t.Value.(*ast.SequenceNode); !seq {
					return p, fmt.Errorf("random needs [lo, hi]")
				}
			}
		}
		var g struct {
			From   string   `yaml:"from"`
			To     string   `yaml:"to"`
			Steps  int      `yaml:"steps"`
			Random []string `yaml:"random"`
		}
		if err := decode.Strict(v, &g); err != nil {
			return p, fmt.Errorf("a parameter is a list [a, b, …], a grid {from, to, steps} or {random: [lo, hi]}: %s", decode.YAMLMessage(err))
		}
		if len(g.Random) > 0 {
			if len(g.Random) != 2 {
				return p, fmt.Errorf("random needs [lo, hi]")
			}
			lo, unit, err := number(g.Random[0], "")
			if err != nil {
				return p, err
			}
			hi, _, err := number(g.Random[1], unit)
			if err != nil {
				return p, err
			}
			p.Random, p.unit = &[2]float64{lo, hi}, unit
			return p, nil
		}
		if g.Steps < 1 {
			return p, fmt.Errorf("the grid is empty: give steps ≥ 1 (from %q to %q)", g.From, g.To)
		}
		if g.Steps > maxSteps {
			return p, fmt.Errorf("steps %d: a grid has at most %d values (each is tried on the scenario first)", g.Steps, maxSteps)
		}
		lo, unit, err := number(g.From, "")
		if err != nil {
			return p, err
		}
		hi, _, err := number(g.To, unit)
		if err != nil {
			return p, err
		}
		for k := 0; k < g.Steps; k++ {
			x := lo
			if g.Steps > 1 {
				x = lo + float64(k)*(hi-lo)/float64(g.Steps-1)
			}
			p.Values = append(p.Values, strconv.FormatFloat(x, 'g', 10, 64)+unit)
		}
	default:
		p.Values = []string{nodeText(v)}
	}
	return p, nil
}

func (p Param) format(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) + p.unit }

func nodeText(n ast.Node) string {
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value
	}
	return n.String()
}

// number splits "20000/s" into 20000 and "/s"; with want set, the unit must
// match (durations of other units are converted to seconds first).
func number(s, want string) (float64, string, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-' || s[i] == '+' || s[i] == 'e' && i > 0) {
		i++
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, "", fmt.Errorf("%q is not a number with a unit", s)
	}
	unit := s[i:]
	if want != "" && unit != want {
		a, errA := sim.ParseDuration(s)
		if errA == nil {
			return float64(a), "s", nil
		}
		return 0, "", fmt.Errorf("%q and the other bound use different units (%q vs %q)", s, unit, want)
	}
	return v, unit, nil
}

// Value is the numeric value of a parameter text in base units (seconds,
// records/s, bytes), if it has one.
func Value(text string) (float64, bool) {
	if d, err := sim.ParseDuration(text); err == nil {
		return float64(d), true
	}
	if r, err := sim.ParseRate(text); err == nil {
		return float64(r), true
	}
	if b, err := sim.ParseBytes(text); err == nil {
		return float64(b), true
	}
	if v, err := strconv.ParseFloat(text, 64); err == nil && !math.IsNaN(v) {
		return v, true
	}
	return 0, false
}

// VariantParam is the parameter that sweeps a scenario's variants (a list
// of their names): `parameters: {variant: [daedalus, hpa-80]}` runs each
// variant, with the other parameters applied on top.
const VariantParam = "variant"

// Run is one run of the sweep.
type Run struct {
	Index       int
	ID          string
	Replication int
	Seed        uint64
	Params      []results.ParamValue
}

// Runs expands the sweep: the grid (first parameter varies slowest) × the
// random samples × the replications (fastest), in a fixed order.
func (s *Spec) Runs() []Run {
	var grid [][]string
	grid = append(grid, nil)
	for _, p := range s.Params {
		if p.Random != nil {
			continue
		}
		var next [][]string
		for _, g := range grid {
			for _, v := range p.Values {
				next = append(next, append(append([]string(nil), g...), v))
			}
		}
		grid = next
	}
	samples := [][]string{nil}
	if s.Samples > 0 {
		rng := sim.Seeds{Root: s.Seed}.Stream("sweep.samples")
		samples = nil
		for k := 0; k < s.Samples; k++ {
			var draw []string
			for _, p := range s.Params {
				if p.Random != nil {
					draw = append(draw, p.format(p.Random[0]+rng.Float64()*(p.Random[1]-p.Random[0])))
				}
			}
			samples = append(samples, draw)
		}
	}
	var runs []Run
	for _, g := range grid {
		for _, draw := range samples {
			for r := 0; r < s.Replications; r++ {
				run := Run{Index: len(runs), Replication: r, Seed: s.Seed + uint64(r)}
				run.ID = fmt.Sprintf("r%06d", run.Index)
				gi, di := 0, 0
				for _, p := range s.Params {
					var text string
					if p.Random != nil {
						text, di = draw[di], di+1
					} else {
						text, gi = g[gi], gi+1
					}
					v, ok := Value(text)
					run.Params = append(run.Params, results.ParamValue{Name: p.Path, Text: text, Number: v, IsNumber: ok})
				}
				runs = append(runs, run)
			}
		}
	}
	return runs
}

// RunScenario resolves the scenario of one run.
func (s *Spec) RunScenario(r Run) (scenario.Scenario, error) {
	variant := s.Variant
	var sets []scenario.Set
	for _, p := range r.Params {
		if p.Name == VariantParam {
			variant = p.Text
			continue
		}
		sets = append(sets, scenario.Set{Path: p.Name, Value: p.Text})
	}
	sc, err := scenario.ParseRun(s.Scenario, s.scenarioData, variant, sets)
	if err != nil {
		return sc, err
	}
	sc.Seed = r.Seed
	return sc, nil
}
