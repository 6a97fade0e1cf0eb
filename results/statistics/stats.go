package statistics

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/streamtwin/streamtwin/internal/suggest"
	"github.com/streamtwin/streamtwin/results"
)

// FigureStat is one figure of one group of runs, across its replications.
type FigureStat struct {
	Group  []string // values of the --by parameters, as text
	Figure string
	N      int
	Mean   float64
	Std    float64 // sample standard deviation (n − 1)
	CILow  float64 // 95 % confidence interval of the mean (Student t), clamped at 0 (CIBounds)
	CIHigh float64
	Min    float64
	Max    float64
}

// MeanCI returns the mean of xs, the half-width of its two-sided 95 %
// confidence interval (Student t with n − 1 degrees of freedom) and the
// sample standard deviation (n − 1). It is the one confidence interval of the
// tree: SummarizeRuns and the figures' error bars both use it. For one value
// half and std are 0 (a caller that must show "no interval" tests n); for no
// values everything is NaN. Values are not filtered: collect them with
// AppendFinite or FiniteValues.
//
// The interval is symmetric, mean ± half. For a quantity that cannot be
// negative (latency, recovery time, lag, counts, rates: every summary
// figure) turn it into bounds with CIBounds(mean, half, true), which clamps
// the lower bound at 0: with few, skewed replications the t interval can
// reach below 0, where no value lies. Clamping keeps the interval's upper
// bound and coverage as they are (a log-normal or bootstrap interval would
// change both, and fails on zeros).
func MeanCI(xs []float64) (mean, half, std float64) {
	if len(xs) == 0 {
		nan := math.NaN()
		return nan, nan, nan
	}
	mean = stat.Mean(xs, nil)
	if len(xs) < 2 {
		return mean, 0, 0
	}
	std = stat.StdDev(xs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975)
	return mean, t * std / math.Sqrt(float64(len(xs))), std
}

// CIBounds are the bounds of the interval mean ± half of MeanCI; for a
// nonNegative quantity the lower bound is clamped at 0 (and so is the upper
// one, should the mean itself be below 0 through rounding).
func CIBounds(mean, half float64, nonNegative bool) (low, high float64) {
	low, high = mean-half, mean+half
	if nonNegative {
		low, high = max(low, 0), max(high, 0)
	}
	return low, high
}

// RunKeys are the columns of runs.parquet that identify a run, neither
// parameters nor figures. Its replications (replication, seed) are what a
// summary describes the spread over.
var RunKeys = []string{"run_id", "run_index", "replication", "seed"}

// ParamColumns are the parameter columns of a runs table: in runs.parquet
// (which has a seed column) the columns between seed and the first summary
// figure, so a figure of an older or newer version is not taken for one;
// in any other table every column that is neither a run key nor a figure.
func ParamColumns(t *results.Table) []string {
	figs, _ := results.Summary{}.Figures()
	skip := map[string]bool{}
	for _, n := range append(RunKeys, figs...) {
		skip[n] = true
	}
	runsTable := slices.Contains(t.Names, "seed")
	started := !runsTable
	var out []string
	for _, n := range t.Names {
		switch {
		case n == "seed":
			started = true
		case runsTable && started && slices.Contains(figs, n):
			return out
		case started && !skip[n]:
			out = append(out, n)
		}
	}
	return out
}

// Levels are the distinct values of a column, as keys (Table.Key), in
// order: numbers ascending, text in order of first appearance.
func Levels(t *results.Table, name string) []string {
	seen := map[string]bool{}
	var out []string
	for i := 0; i < t.Rows; i++ {
		if k := t.Key(name, i); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return lessGroup([]string{out[a]}, []string{out[b]}) })
	return out
}

// Pooled lists the parameter columns (ParamColumns) outside by that take
// more than one value within a group of runs with equal values of by: a
// statistic of such a group mixes those parameters with the replications.
// A parameter that varies only together with a by column is not pooled.
func Pooled(t *results.Table, by []string) []string {
	group := make([]string, t.Rows)
	for i := range group {
		var key []string
		for _, b := range by {
			key = append(key, t.Key(b, i))
		}
		group[i] = strings.Join(key, "\x00")
	}
	var out []string
	for _, p := range ParamColumns(t) {
		if slices.Contains(by, p) {
			continue
		}
		first := map[string]string{}
		for i := 0; i < t.Rows; i++ {
			v := t.Key(p, i)
			if f, ok := first[group[i]]; !ok {
				first[group[i]] = v
			} else if f != v {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// PoolingError is a summary whose groups would mix runs of different
// values of parameters neither grouped by nor pooled on purpose: their
// mean, spread and confidence interval would describe the parameters, not
// the replications.
type PoolingError struct {
	By     []string // the grouping asked for
	Params []string // the parameters that vary within its groups, in column order
}

func (e *PoolingError) Error() string {
	within := "the runs"
	if len(e.By) > 0 {
		within = "the groups by " + strings.Join(e.By, ", ")
	}
	return fmt.Sprintf("%s mix runs of different %s: group by them too, or pool them on purpose",
		within, strings.Join(e.Params, ", "))
}

// NameError is a name given by the user (a figure, a parameter, a column)
// that is not among the known ones. Its message suggests the closest known
// names (suggest.Closest: recovery → recovery_mean_s, …) and lists them.
type NameError struct {
	Kind  string // "figure", "parameter", "column"
	Name  string
	Known []string
}

func (e *NameError) Error() string {
	msg := fmt.Sprintf("unknown %s %q", e.Kind, e.Name)
	if s := suggest.DidYouMean(suggest.Closest(e.Name, e.Known, 3)); s != "" {
		msg += "; " + s
	}
	if len(e.Known) > 0 {
		msg += fmt.Sprintf(" (%ss: %s)", e.Kind, strings.Join(e.Known, ", "))
	}
	return msg
}

// CheckFigure is nil when name is a summary figure (Figures) and otherwise
// a NameError suggesting the closest: the one check of a figure name a user
// gives (summarize --figure, a compare tolerance file). Columns of a table
// (plot -x/-y/-z) are checked against the table: ColumnError suggests the
// same way.
func CheckFigure(name string) error {
	figs, _ := results.Summary{}.Figures()
	if slices.Contains(figs, name) {
		return nil
	}
	return &NameError{Kind: "figure", Name: name, Known: figs}
}

// SummarizeRuns groups the rows of a runs table by the given parameter
// columns and describes every summary figure in each group. A parameter
// that varies within the groups is refused with a PoolingError unless it is
// in pool: what a group describes is its replications, and pooling other
// parameters into them is a choice to make on purpose. An unknown by or
// pool column is a NameError.
func SummarizeRuns(t *results.Table, by, pool []string) ([]FigureStat, error) {
	params := ParamColumns(t)
	unknown := func(name string) error {
		if len(params) == 0 {
			return &NameError{Kind: "column", Name: name, Known: t.Names}
		}
		return &NameError{Kind: "parameter", Name: name, Known: params}
	}
	for _, b := range by {
		if _, ok := t.Floats[b]; !ok {
			if _, ok := t.Strings[b]; !ok {
				return nil, unknown(b)
			}
		}
	}
	for _, p := range pool {
		switch {
		case slices.Contains(by, p):
			return nil, fmt.Errorf("%s is both grouped by and pooled over; keep it in one of the two", p)
		case slices.Contains(t.Names, p) && !slices.Contains(params, p):
			return nil, fmt.Errorf("%s is not a parameter; only parameters pool (parameters: %s)", p, strings.Join(params, ", "))
		case !slices.Contains(params, p):
			return nil, unknown(p)
		}
	}
	var missing []string
	for _, p := range Pooled(t, by) {
		if !slices.Contains(pool, p) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return nil, &PoolingError{By: by, Params: missing}
	}
	figs, _ := results.Summary{}.Figures()
	groups := map[string][]int{}
	var order []string
	for i := 0; i < t.Rows; i++ {
		var key []string
		for _, b := range by {
			key = append(key, t.Key(b, i))
		}
		k := strings.Join(key, "\x00")
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	sort.SliceStable(order, func(a, b int) bool {
		return lessGroup(strings.Split(order[a], "\x00"), strings.Split(order[b], "\x00"))
	})
	var out []FigureStat
	for _, k := range order {
		rows := groups[k]
		for _, f := range figs {
			col, ok := t.Floats[f]
			if !ok {
				continue
			}
			xs := make([]float64, 0, len(rows))
			for _, i := range rows {
				if !math.IsNaN(col[i]) {
					xs = append(xs, col[i])
				}
			}
			if len(xs) == 0 {
				continue
			}
			mean, half, std := MeanCI(xs)
			// Every figure of a summary is ≥ 0 (durations, latencies,
			// counts, rates, fractions), so its interval is clamped at 0.
			ciLow, ciHigh := CIBounds(mean, half, true)
			lo, hi := xs[0], xs[0]
			for _, x := range xs {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
			group := []string{}
			if len(by) > 0 {
				group = strings.Split(k, "\x00")
			}
			out = append(out, FigureStat{Group: group, Figure: f, N: len(xs), Mean: mean, Std: std,
				CILow: ciLow, CIHigh: ciHigh, Min: lo, Max: hi})
		}
	}
	return out, nil
}

// lessGroup orders groups numerically where the values are numbers.
func lessGroup(a, b []string) bool {
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		x, e1 := strconv.ParseFloat(a[i], 64)
		y, e2 := strconv.ParseFloat(b[i], 64)
		if e1 == nil && e2 == nil {
			return x < y
		}
		return a[i] < b[i]
	}
	return false
}

// PooledColumn is the column of the statistics parquet that names the
// parameters pooled on purpose (SummarizeRuns' pool), comma-separated; ""
// when the groups hold replications only.
const PooledColumn = "pooled_over"

// WriteStats writes the statistics of the runs table t as a long table
// (the --by columns, figure, n, mean, std, ci95_low, ci95_high, min, max,
// pooled_over) to a parquet file. A --by column has its type in t: a
// numeric parameter is a number in base units, as in runs.parquet (10 for a
// checkpoint interval of 10 s, 60000 for 60,000 records/s; NaN where the
// runs have none), so pandas can filter, sort and join on it, and results
// cat prints it by the table rule (60,000); a text parameter stays text.
func WriteStats(path string, t *results.Table, by, pooled []string, stats []FigureStat) error {
	str, flt, in := reflect.TypeOf(""), reflect.TypeOf(0.0), reflect.TypeOf(int64(0))
	fields := []reflect.StructField{}
	numeric := make([]bool, len(by))
	for i, b := range by {
		typ := str
		if _, ok := t.Floats[b]; ok {
			typ, numeric[i] = flt, true
		}
		fields = append(fields, reflect.StructField{Name: "G" + strconv.Itoa(i), Type: typ, Tag: reflect.StructTag(`parquet:"` + b + `"`)})
	}
	for _, f := range []struct {
		n string
		t reflect.Type
	}{{"figure", str}, {"n", in}, {"mean", flt}, {"std", flt}, {"ci95_low", flt}, {"ci95_high", flt}, {"min", flt}, {"max", flt}, {PooledColumn, str}} {
		fields = append(fields, reflect.StructField{Name: strings.ToUpper(f.n[:1]) + strings.NewReplacer("95_", "95", "_", "").Replace(f.n[1:]), Type: f.t, Tag: reflect.StructTag(`parquet:"` + f.n + `"`)})
	}
	rt := reflect.StructOf(fields)
	rows := reflect.MakeSlice(reflect.SliceOf(rt), 0, len(stats))
	pooledText := strings.Join(pooled, ",")
	for _, s := range stats {
		v := reflect.New(rt).Elem()
		for i, g := range s.Group {
			if !numeric[i] {
				v.Field(i).SetString(g)
				continue
			}
			x := math.NaN() // Table.Key's "" of a NaN
			if g != "" {
				var err error
				if x, err = strconv.ParseFloat(g, 64); err != nil {
					return fmt.Errorf("%s: group key %q of %s is not a number", path, g, by[i])
				}
			}
			v.Field(i).SetFloat(x)
		}
		k := len(by)
		v.Field(k).SetString(s.Figure)
		v.Field(k + 1).SetInt(int64(s.N))
		for j, x := range []float64{s.Mean, s.Std, s.CILow, s.CIHigh, s.Min, s.Max} {
			v.Field(k + 2 + j).SetFloat(x)
		}
		v.Field(k + 8).SetString(pooledText)
		rows = reflect.Append(rows, v)
	}
	return results.WriteParquetRows(path, rows)
}

// Quantile is the p-quantile (0 ≤ p ≤ 1) of xs by linear interpolation
// between order statistics: with the sorted values s[0..n-1] and
// h = p·(n−1), it is s[⌊h⌋] + (h−⌊h⌋)·(s[⌊h⌋+1] − s[⌊h⌋]) (numpy's default,
// Hyndman and Fan's type 7; gonum's stat.LinInterp is type 4, another
// statistic). It is the one quantile definition of the tree: the
// simulator's summaries and the live driver's per-interval latency p50/p99
// both use it, so sim and live percentiles are the same statistic. It sorts
// xs in place; NaN values sort first, as the smallest; no values give 0.
func Quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := xs
	sort.Float64s(s)
	h := p * float64(len(s)-1)
	i := int(math.Floor(h))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// AppendFinite appends v to xs unless it is NaN or infinite.
func AppendFinite(xs []float64, v float64) []float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return xs
	}
	return append(xs, v)
}

// FiniteMean is the mean of xs, NaN for no values (it does not drop NaN:
// collect with AppendFinite or FiniteValues).
func FiniteMean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// FiniteValues are the values of xs that are neither NaN nor infinite.
func FiniteValues(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}
