package evaluation

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// The autoscaling comparison (issue 21): resource usage, latency, lag and
// rescalings per variant, with 95 % intervals over the seeds.

// Files an autoscaling evaluation writes.
const (
	ScalingMarkdown = "scaling.md"
	ScalingCSV      = "scaling.csv"      // one row per variant and figure
	ScalingRunsCSV  = "scaling-runs.csv" // one row per run
)

// ScalingLatencyColumn is the latency an autoscaling comparison reads: the
// per-second event-time p99, the nearest column to the per-second p95 of
// Flink's latency histogram that Daedalus plotted.
const ScalingLatencyColumn = "latency_p99_ms"

// ScalingRun is one run (one variant, one seed).
type ScalingRun struct {
	Variant string
	Seed    uint64
	Dir     string
	// MeanParallelism is the time-weighted parallelism; Usage is it over
	// the baseline's run of the same seed (NaN without one).
	MeanParallelism, Usage float64
	WorkerSeconds          float64
	Rescalings             int
	// LatencyP99MedianMs and LatencyP99P95Ms are the median and 95th
	// percentile over the run of the per-second ScalingLatencyColumn, the
	// event-time p99 (seconds without output skipped).
	LatencyP99MedianMs, LatencyP99P95Ms float64
	LagMean, LagMax                     float64 // records
}

// ScalingStat is a mean over seeds and its 95 % confidence interval
// (statistics.MeanCI; Low clamped at 0).
type ScalingStat struct {
	N               int
	Mean, Low, High float64
}

// ScalingVariant is one policy over its seeds.
type ScalingVariant struct {
	Name string
	Runs []ScalingRun
	// Stats by figure name (ScalingFigures).
	Stats map[string]ScalingStat
}

// ScalingFigures are the figures of the comparison, in table order.
// latency_p99_median_ms and latency_p99_p95_ms are the median and the 95th
// percentile over the run of the per-second event-time p99
// (ScalingLatencyColumn), not the per-second p50 and p95.
var ScalingFigures = []string{"usage", "mean_parallelism", "worker_seconds", "rescalings", "latency_p99_median_ms", "latency_p99_p95_ms", "lag_mean", "lag_max"}

// Scaling is the comparison.
type Scaling struct {
	Scenario string
	Baseline string // the variant usage is normalised to ("" if absent)
	Variants []ScalingVariant
}

// ScalingRunDirs finds the run folders of a comparison: a sweep's
// runs/<id>/ or a variants folder's <variant>/ (one seed), as
// results.RunSubfolders lists them (sorted by name).
func ScalingRunDirs(dir string) ([]string, error) {
	for _, parent := range []string{filepath.Join(dir, "runs"), dir} {
		// A folder that cannot be read holds no runs of the comparison:
		// the next place is looked at, and none is ErrNoRunFolders.
		subs, _ := results.RunSubfolders(parent)
		if len(subs) == 0 {
			continue
		}
		out := make([]string, len(subs))
		for i, s := range subs {
			out[i] = filepath.Join(parent, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: %w", dir, ErrNoRunFolders)
}

// EvaluateScaling reads the runs, groups them by variant (in the order the
// scenario lists them, else first seen) and computes every figure with
// its interval. baseline names the variant usage is normalised to
// (static-12 in the Daedalus evaluation).
func EvaluateScaling(runDirs []string, baseline string) (*Scaling, error) {
	s := &Scaling{}
	byName := map[string]int{}
	base := map[uint64]float64{}
	var runs []ScalingRun
	for _, d := range runDirs {
		r, scen, err := scalingRun(d)
		if err != nil {
			return nil, err
		}
		s.Scenario = cmp.Or(s.Scenario, scen)
		runs = append(runs, r)
		if r.Variant == baseline {
			base[r.Seed] = r.MeanParallelism
			s.Baseline = baseline
		}
	}
	for _, r := range runs {
		r.Usage = math.NaN()
		if b, ok := base[r.Seed]; ok && b > 0 {
			r.Usage = r.MeanParallelism / b
		}
		i, ok := byName[r.Variant]
		if !ok {
			i = len(s.Variants)
			byName[r.Variant] = i
			s.Variants = append(s.Variants, ScalingVariant{Name: r.Variant})
		}
		s.Variants[i].Runs = append(s.Variants[i].Runs, r)
	}
	for i := range s.Variants {
		v := &s.Variants[i]
		slices.SortFunc(v.Runs, func(a, b ScalingRun) int { return cmp.Compare(a.Seed, b.Seed) })
		v.Stats = map[string]ScalingStat{}
		for _, name := range ScalingFigures {
			var xs []float64
			for _, r := range v.Runs {
				xs = statistics.AppendFinite(xs, r.figure(name))
			}
			st := ScalingStat{N: len(xs), Mean: math.NaN(), Low: math.NaN(), High: math.NaN()}
			if len(xs) > 0 {
				var half float64
				st.Mean, half, _ = statistics.MeanCI(xs)
				if len(xs) > 1 {
					st.Low, st.High = statistics.CIBounds(st.Mean, half, true)
				}
			}
			v.Stats[name] = st
		}
	}
	return s, nil
}

func (r ScalingRun) figure(name string) float64 {
	switch name {
	case "usage":
		return r.Usage
	case "mean_parallelism":
		return r.MeanParallelism
	case "worker_seconds":
		return r.WorkerSeconds
	case "rescalings":
		return float64(r.Rescalings)
	case "latency_p99_median_ms":
		return r.LatencyP99MedianMs
	case "latency_p99_p95_ms":
		return r.LatencyP99P95Ms
	case "lag_mean":
		return r.LagMean
	case "lag_max":
		return r.LagMax
	}
	return math.NaN()
}

func scalingRun(dir string) (ScalingRun, string, error) {
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return ScalingRun{}, "", err
	}
	cols, err := results.ReadRunColumns(dir, "parallelism", ScalingLatencyColumn, "lag")
	if err != nil {
		return ScalingRun{}, "", err
	}
	if sum.Variant == "" {
		return ScalingRun{}, "", fmt.Errorf("%s is no variant of a scenario: an autoscaling comparison is a sweep over variants (parameters: {variant: [a, b, …]}) or a scenario's variants folder", dir)
	}
	r := ScalingRun{Variant: sum.Variant, Seed: sum.Seed, Dir: dir,
		WorkerSeconds: sum.WorkerSeconds, Rescalings: sum.Reconfigurations,
		MeanParallelism: statistics.FiniteMean(cols[0]), LagMean: statistics.FiniteMean(cols[2])}
	lat := statistics.FiniteValues(cols[1])
	r.LatencyP99MedianMs, r.LatencyP99P95Ms = math.NaN(), math.NaN()
	if len(lat) > 0 {
		r.LatencyP99MedianMs = statistics.Quantile(lat, 0.5)
		r.LatencyP99P95Ms = statistics.Quantile(lat, 0.95)
	}
	r.LagMax = math.NaN()
	if lag := statistics.FiniteValues(cols[2]); len(lag) > 0 {
		r.LagMax = slices.Max(lag)
	}
	return r, sum.Scenario, nil
}

// WriteScaling writes scaling.md, scaling.csv, scaling-runs.csv and the
// figures (scaling-summary, scaling-latency: the latency ECDFs of the
// first seed, scaling-timeline: parallelism and lag against the load of
// the first seed) into out, and returns the files written. opts (e.g.
// figures.WithWidth) go to every figure.
func WriteScaling(s *Scaling, out string, opts ...figures.Option) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var files []string
	write := func(name, text string) error {
		p := filepath.Join(out, name)
		files = append(files, p)
		return results.WriteFileAtomic(p, []byte(text))
	}
	if err := write(ScalingMarkdown, s.Markdown()); err != nil {
		return nil, err
	}
	var b strings.Builder
	cw := csv.NewWriter(&b)
	cw.Write([]string{"variant", "figure", "n", "mean", "ci_low", "ci_high"})
	for _, v := range s.Variants {
		for _, f := range ScalingFigures {
			st := v.Stats[f]
			cw.Write([]string{v.Name, f, strconv.Itoa(st.N), csvNum(st.Mean), csvNum(st.Low), csvNum(st.High)})
		}
	}
	cw.Flush()
	if err := write(ScalingCSV, b.String()); err != nil {
		return nil, err
	}
	b.Reset()
	cw = csv.NewWriter(&b)
	cw.Write([]string{"variant", "seed", "run_dir", "mean_parallelism", "usage", "worker_seconds", "rescalings", "latency_p99_median_ms", "latency_p99_p95_ms", "lag_mean", "lag_max"})
	for _, v := range s.Variants {
		for _, r := range v.Runs {
			cw.Write([]string{v.Name, strconv.FormatUint(r.Seed, 10), r.Dir, csvNum(r.MeanParallelism), csvNum(r.Usage), csvNum(r.WorkerSeconds),
				strconv.Itoa(r.Rescalings), csvNum(r.LatencyP99MedianMs), csvNum(r.LatencyP99P95Ms), csvNum(r.LagMean), csvNum(r.LagMax)})
		}
	}
	cw.Flush()
	if err := write(ScalingRunsCSV, b.String()); err != nil {
		return nil, err
	}

	names := make([]string, len(s.Variants))
	var firstDirs []string
	for i, v := range s.Variants {
		names[i] = v.Name
		firstDirs = append(firstDirs, v.Runs[0].Dir)
	}
	// Every panel is drawn against the baseline: a dashed line at its
	// mean, so what each autoscaler saves and pays is the distance to it.
	// Times in the table's unit (s).
	metric := func(fig, label string, log bool, scale float64) figures.ScalingMetric {
		m := figures.ScalingMetric{Label: label, Log: log, Reference: math.NaN()}
		for _, v := range s.Variants {
			st := v.Stats[fig]
			m.Mean, m.Low, m.High = append(m.Mean, st.Mean/scale), append(m.Low, st.Low/scale), append(m.High, st.High/scale)
			if v.Name == s.Baseline {
				m.Reference, m.ReferenceLabel = st.Mean/scale, s.Baseline+" (baseline)"
			}
		}
		return m
	}
	usage := metric("usage", "resource usage (÷ "+s.Baseline+")", false, 1)
	if s.Baseline == "" {
		usage = metric("mean_parallelism", "mean parallelism", false, 1)
	}
	// Twin and live comparisons of one scenario carry their backends.
	var sums []*results.Summary
	for _, d := range firstDirs {
		if sum, err := results.ReadSummary(d); err == nil {
			sums = append(sums, &sum)
		}
	}
	scen := cmp.Or(s.Scenario, "autoscaling") + figures.BackendTag(sums...)
	title := scen + ": usage saved vs latency, lag and rescalings paid (lower is better)"
	for _, f := range []func() ([]string, error){
		func() ([]string, error) {
			return figures.PlotScalingSummary(filepath.Join(out, "scaling-summary"), title, names, []figures.ScalingMetric{
				usage, metric("latency_p99_p95_ms", "p95 over seconds of the event-time p99 (s)", true, 1000),
				metric("lag_mean", "mean consumer lag (records)", true, 1), metric("rescalings", "rescalings (count)", false, 1)}, opts...)
		},
		func() ([]string, error) {
			// What each autoscaler pays beyond the baseline, and where in the
			// distribution; the CDFs without one.
			latOpts := append([]figures.Option{figures.WithLatencyColumn(ScalingLatencyColumn)}, opts...)
			if s.Baseline == "" {
				return figures.PlotLatencyDistributions(firstDirs, names, filepath.Join(out, "scaling-latency"), "cdf", latOpts...)
			}
			latOpts = append(latOpts, figures.WithTitle(scen+": the latency each autoscaler pays beyond "+s.Baseline))
			return figures.PlotLatencyDifferences(firstDirs, names, filepath.Join(out, "scaling-latency"), s.Baseline, latOpts...)
		},
		func() ([]string, error) {
			return figures.PlotScalingTimeline(filepath.Join(out, "scaling-timeline"),
				fmt.Sprintf("%s, seed %d: when each autoscaler rescales and the lag it lets build", scen, s.Variants[0].Runs[0].Seed), firstDirs, names, opts...)
		},
	} {
		p, err := f()
		if err != nil {
			return nil, err
		}
		files = append(files, p...)
	}
	return files, nil
}

// Markdown is the comparison's table: every figure as mean [95 % CI] per
// variant.
func (s *Scaling) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Autoscaling comparison: %s\n\n", cmp.Or(s.Scenario, "runs"))
	n := 0
	for _, v := range s.Variants {
		n = max(n, len(v.Runs))
	}
	fmt.Fprintf(&b, "Mean over %s with the 95 %% confidence interval of the mean (Student t).", textfmt.Plural(n, "seed"))
	if s.Baseline != "" {
		fmt.Fprintf(&b, " Usage is the mean parallelism over the run divided by %s's of the same seed (the Daedalus paper's \"total resource usage (normalized)\").", s.Baseline)
	}
	fmt.Fprintf(&b, " Latency is the median and 95th percentile over the run's seconds of the per-second event-time p99 (`%s`: end-to-end from each event's time, the wait in Kafka included), seconds without output skipped. Rescalings count completed reconfigurations.\n\n", ScalingLatencyColumn)
	usage := "usage"
	if s.Baseline != "" {
		usage += " (÷ " + s.Baseline + ")"
	}
	fmt.Fprintf(&b, "| variant | %s | worker-hours | rescalings | event-time p99, median over seconds (s) | event-time p99, p95 over seconds (s) | mean lag (k records) | max lag (k records) |\n", usage)
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, v := range s.Variants {
		// Every cell by the one number format (docs/results.md), read
		// against its column's mean so that noise shows as 0.
		cell := func(fig string, scale float64) string {
			st := v.Stats[fig]
			if math.IsNaN(st.Mean) {
				return textfmt.NoValue
			}
			f := func(x float64) string { return textfmt.Number(x/scale, st.Mean/scale) }
			if math.IsNaN(st.Low) {
				return f(st.Mean)
			}
			return f(st.Mean) + " [" + f(st.Low) + ", " + f(st.High) + "]"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", v.Name, cell("usage", 1), cell("worker_seconds", 3600),
			cell("rescalings", 1), cell("latency_p99_median_ms", 1000), cell("latency_p99_p95_ms", 1000), cell("lag_mean", 1000), cell("lag_max", 1000))
	}
	b.WriteString("\nFigures: `scaling-summary` (the table's usage, event-time p99's p95, lag and rescalings with their intervals), `scaling-latency` (latency ECDFs, first seed), `scaling-timeline` (parallelism and lag against the load, first seed).\n")
	return b.String()
}
