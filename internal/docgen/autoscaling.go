package docgen

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results/evaluation"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// The blocks of docs/autoscaling.md (and README.md's autoscaling table):
// the Daedalus evaluation of `make daedalus`, the operator autoscaler's
// tuning sweep, and the live rescales and the live Daedalus run from their
// committed results. Hand-written prose inside a block states what the
// numbers show; each such statement is checked against the data, and a
// block whose data contradicts it fails with "claim no longer holds".

// asWorkloads are the workloads of the Daedalus evaluation
// (scenarios/sweeps/daedalus-NAME.yaml), in the documents' order.
var asWorkloads = []struct{ name, title, short string }{
	{"ysb", "YSB", "YSB"},
	{"traffic", "Traffic monitoring", "traffic"},
	{"wordcount", "WordCount", "WordCount"},
}

// The variants of the Daedalus sweeps that the prose names.
const (
	asDaedalus = "daedalus"
	asHPA80    = "hpa-80"
	asHPA85    = "hpa-85"
	asOperator = "flink-autoscaler"
	asDS2      = "ds2"
	asStatic   = "static-12"
)

// The figures of an autoscaling evaluation (evaluation.ScalingFigures)
// that the documents show.
const (
	asUsage     = "usage"
	asWorkerS   = "worker_seconds"
	asRescales  = "rescalings"
	asLatMedian = "latency_p99_median_ms"
	asLatP95    = "latency_p99_p95_ms"
	asLagMean   = "lag_mean"
	asLagMax    = "lag_max"
)

func autoscalingBlocks() []Block {
	var bs []Block
	for _, w := range asWorkloads {
		bs = append(bs, Block{"daedalus-" + w.name + " table", func(c *Context) (string, error) {
			e, err := asDaedalusEval(c, w.name)
			if err != nil {
				return "", err
			}
			return e.markdown(), nil
		}})
	}
	bs = append(bs,
		Block{"daedalus capacity", asDaedalusCapacity},
		Block{"daedalus findings", asDaedalusFindings},
		Block{"daedalus latency", asDaedalusLatency},
		Block{"autoscaler-tuning findings", asTuningFindings},
		Block{"live rescales", asLiveRescales},
		Block{"live rescales table", asLiveRescalesTable},
		Block{"daedalus live", asDaedalusLive},
		Block{"readme autoscaling table", asReadmeTable},
	)
	// the prose is wrapped as the hand-written text around it
	for i, b := range bs {
		bs[i].Make = func(c *Context) (string, error) {
			s, err := b.Make(c)
			return asWrapped(s), err
		}
	}
	return bs
}

// --- the evaluation's outputs -------------------------------------------

// asStat is one row of scaling.csv: a figure's mean over seeds and
// its 95 % interval (NaN without one).
type asStat struct {
	n               int
	mean, low, high float64
}

// asRunRow is one row of scaling-runs.csv.
type asRunRow struct {
	variant string
	seed    uint64
	dir     string
	fig     map[string]float64
}

// asEval is what `streamtwin evaluate` wrote for an autoscaling
// sweep: scaling.csv and scaling-runs.csv.
type asEval struct {
	variants []string // in the evaluation's order
	stats    map[string]map[string]asStat
	runs     []asRunRow
}

// asDaedalusEval is `make daedalus` for one workload, read back.
func asDaedalusEval(c *Context, workload string) (*asEval, error) {
	return asSweptEval(c, "daedalus-"+workload)
}

// asSweptEval sweeps scenarios/sweeps/NAME.yaml, evaluates it and reads the
// evaluation.
func asSweptEval(c *Context, name string) (*asEval, error) {
	dir, err := sweptAndEvaluated(c, name)
	if err != nil {
		return nil, err
	}
	return asReadScaling(dir)
}

// asReadScaling reads an autoscaling evaluation's scaling.csv and
// scaling-runs.csv from dir. Every variant must have every figure of
// evaluation.ScalingFigures.
func asReadScaling(dir string) (*asEval, error) {
	e := &asEval{stats: map[string]map[string]asStat{}}
	cols := []string{"variant", "figure", "n", "mean", "ci_low", "ci_high"}
	err := asReadCSV(filepath.Join(dir, evaluation.ScalingCSV), cols, cols, func(cells map[string]string) error {
		v, f := cells["variant"], cells["figure"]
		n, err := strconv.Atoi(cells["n"])
		if err != nil {
			return fmt.Errorf("n: %w", err)
		}
		st := asStat{n: n}
		for p, name := range map[*float64]string{&st.mean: "mean", &st.low: "ci_low", &st.high: "ci_high"} {
			if *p, err = asCSVFloat(cells[name]); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if e.stats[v] == nil {
			e.stats[v] = map[string]asStat{}
			e.variants = append(e.variants, v)
		}
		e.stats[v][f] = st
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, v := range e.variants {
		for _, f := range evaluation.ScalingFigures {
			if _, ok := e.stats[v][f]; !ok {
				return nil, fmt.Errorf("%s: variant %s has no figure %s", evaluation.ScalingCSV, v, f)
			}
		}
	}
	runCols := append([]string{"variant", "seed", "run_dir"}, evaluation.ScalingFigures...)
	err = asReadCSV(filepath.Join(dir, evaluation.ScalingRunsCSV), runCols, runCols, func(cells map[string]string) error {
		seed, err := strconv.ParseUint(cells["seed"], 10, 64)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		r := asRunRow{variant: cells["variant"], seed: seed, dir: cells["run_dir"], fig: map[string]float64{}}
		for _, f := range evaluation.ScalingFigures {
			if r.fig[f], err = asCSVFloat(cells[f]); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
		}
		e.runs = append(e.runs, r)
		return nil
	})
	return e, err
}

func asReadCSV(path string, known, required []string, row func(map[string]string) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return ingest.ReadCSVTable(path, bytes.NewReader(b), known, required, func(_ int, cells map[string]string) error { return row(cells) })
}

// asCSVFloat reads a number of an evaluation's CSV; empty is NaN.
func asCSVFloat(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

// stat is a variant's figure; a variant the evaluation lacks is an error.
func (e *asEval) stat(variant, fig string) (asStat, error) {
	st, ok := e.stats[variant][fig]
	if !ok {
		return st, fmt.Errorf("the evaluation has no %s for variant %q (variants: %s)", fig, variant, strings.Join(e.variants, ", "))
	}
	return st, nil
}

// means are a figure's means for variants, in order.
func (e *asEval) means(fig string, variants ...string) ([]float64, error) {
	var xs []float64
	for _, v := range variants {
		st, err := e.stat(v, fig)
		if err != nil {
			return nil, err
		}
		xs = append(xs, st.mean)
	}
	return xs, nil
}

// variantRuns are a variant's runs, by seed.
func (e *asEval) variantRuns(variant string) []asRunRow {
	var rs []asRunRow
	for _, r := range e.runs {
		if r.variant == variant {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b asRunRow) int { return cmp.Compare(a.seed, b.seed) })
	return rs
}

// runRange is the smallest and largest of a figure over a variant's runs.
func (e *asEval) runRange(variant, fig string) (lo, hi float64, err error) {
	rs := e.variantRuns(variant)
	if len(rs) == 0 {
		return 0, 0, fmt.Errorf("the evaluation has no runs of variant %q", variant)
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		lo, hi = min(lo, r.fig[fig]), max(hi, r.fig[fig])
	}
	return lo, hi, nil
}

// asColumns are the columns of the documents' comparison tables.
var asColumns = []struct {
	fig, head string
	unit      float64 // the figure is shown divided by unit
}{
	{asUsage, "usage (÷ static-12)", 1},
	{asWorkerS, "worker-hours", 3600},
	{asRescales, "rescalings", 1},
	{asLatMedian, "event-time p99, median over seconds (s)", 1000},
	{asLatP95, "event-time p99, p95 over seconds (s)", 1000},
	{asLagMean, "mean lag (k records)", 1000},
	{asLagMax, "max lag (k records)", 1000},
}

// markdown is the comparison table: every variant's figures as mean [95 %
// interval], by the one number format, each column read against its
// largest value.
func (e *asEval) markdown() string {
	var b strings.Builder
	b.WriteString("| variant |")
	for _, col := range asColumns {
		b.WriteString(" " + col.head + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(asColumns)) + "\n")
	scales := make([]float64, len(asColumns))
	for i, col := range asColumns {
		for _, v := range e.variants {
			st := e.stats[v][col.fig]
			scales[i] = max(scales[i], textfmt.Scale(st.mean/col.unit, st.low/col.unit, st.high/col.unit))
		}
	}
	for _, v := range e.variants {
		b.WriteString("| " + v + " |")
		for i, col := range asColumns {
			b.WriteString(" " + asMeanCI(e.stats[v][col.fig], col.unit, scales[i]) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// asMeanCI formats a mean and its interval, divided by unit: "0.6431
// [0.6359, 0.6503]"; the mean alone without an interval.
func asMeanCI(st asStat, unit, scale float64) string {
	f := func(x float64) string { return textfmt.Number(x/unit, scale) }
	if math.IsNaN(st.mean) || math.IsNaN(st.low) || math.IsNaN(st.high) {
		return f(st.mean)
	}
	return f(st.mean) + " [" + f(st.low) + ", " + f(st.high) + "]"
}

// --- formatting helpers for prose ---------------------------------------

// asWhole is a number in prose rounded to a whole one (a percentage, a
// count of minutes), thousands separated.
func asWhole(x float64) string { return textfmt.Count(x) }

// asPercent is a fraction as a whole percentage: 0.357 → "36".
func asPercent(x float64) string { return asWhole(100 * x) }

// asSpan is the range of xs formatted by f: "lo–hi", or one value when
// they all format alike.
func asSpan(xs []float64, f func(float64) string) string {
	if len(xs) == 0 {
		return textfmt.NoValue
	}
	lo, hi := f(slices.Min(xs)), f(slices.Max(xs))
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// asAnd joins items as prose: "a", "a and b", "a, b and c".
func asAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// asWidth is the width the documents' prose is wrapped at.
const asWidth = 102

// asMap formats each of xs.
func asMap(xs []float64, f func(float64) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// asClaims collects the statements of prose that the data no longer bears
// out.
type asClaims []string

// check records claim (formatted) unless ok.
func (cs *asClaims) check(ok bool, claim string, args ...any) {
	if !ok {
		*cs = append(*cs, fmt.Sprintf(claim, args...))
	}
}

// err is nil when every claim held, else one error naming each that did
// not.
func (cs asClaims) err() error {
	if len(cs) == 0 {
		return nil
	}
	return fmt.Errorf("claim no longer holds: %s", strings.Join(cs, "; claim no longer holds: "))
}

// --- README.md ----------------------------------------------------------

// asReadmeTable is README.md's summary of the Daedalus
// evaluation: resource usage of three policies and Daedalus's latency.
func asReadmeTable(c *Context) (string, error) {
	rows := []struct{ variant, label string }{
		{asDaedalus, "Daedalus"}, {asHPA80, "HPA-80"}, {asOperator, "Flink operator autoscaler"},
	}
	heads := map[string]string{"ysb": "YSB %s k/s", "traffic": "traffic %s k/s", "wordcount": "WordCount sine to %s k/s"}
	cells := make([][]string, len(rows)+1)
	seeds := 0
	var head []string
	for _, w := range asWorkloads {
		e, err := asDaedalusEval(c, w.name)
		if err != nil {
			return "", err
		}
		static := e.variantRuns(asStatic)
		if len(static) == 0 {
			return "", fmt.Errorf("daedalus-%s: no %s runs", w.name, asStatic)
		}
		_, peak, err := asRunCapacity(static[0].dir)
		if err != nil {
			return "", err
		}
		head = append(head, fmt.Sprintf(heads[w.name], num(peak/1000)))
		for i, r := range rows {
			st, err := e.stat(r.variant, asUsage)
			if err != nil {
				return "", err
			}
			seeds = max(seeds, st.n)
			cells[i] = append(cells[i], asMeanCI(st, 1, 0))
		}
		p95, err := e.means(asLatP95, asDaedalus, asStatic)
		if err != nil {
			return "", err
		}
		cells[len(rows)] = append(cells[len(rows)], num(p95[0]/p95[1])+"×")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| resource usage ÷ static-12 (95 %% CI, %d seeds) | %s |\n|---|---|---|---|\n", seeds, strings.Join(head, " | "))
	for i, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", r.label, strings.Join(cells[i], " | "))
	}
	fmt.Fprintf(&b, "| event-time p99, p95 over seconds, Daedalus ÷ static-12 (the twin) | %s |", strings.Join(cells[len(rows)], " | "))
	return b.String(), nil
}

// asWrapped is the autoscaling blocks' prose, wrapped to asWidth.
func asWrapped(text string) string { return wrap(text, asWidth) }
