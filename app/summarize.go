package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/sweep"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

func summarizeCommand() *cli.Command {
	return &cli.Command{
		Name:  "summarize",
		Usage: "mean, std, 95% confidence interval, min and max of every figure across replications",
		Description: "Prints the headline figures (" + strings.Join(headlineFigures, ", ") + ")\n" +
			"of each group; --all prints every figure, --figure picks some. The statistics of every figure\n" +
			"are written to the parquet file either way. Numbers are rounded to 4 significant digits\n" +
			"(docs/results.md); confidence intervals of figures that cannot be negative stop at 0.\n" +
			"A group holds the replications of one setting: a parameter that varies in the sweep must be\n" +
			"in --by, or in --pool to pool its values into the groups on purpose (the table and the\n" +
			"parquet's pooled_over column say so); otherwise summarize refuses, naming it.",
		ArgsUsage: "RUNS_DIR|runs.parquet",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "by", Usage: "group by these parameter columns (repeat, or comma-separate)"},
			&cli.StringSliceFlag{Name: "pool", Usage: "pool the runs of every value of these parameters into each group, on purpose (repeat, or comma-separate)"},
			&cli.StringSliceFlag{Name: "figure", Usage: "print only these figures (all are written)"},
			&cli.BoolFlag{Name: "all", Usage: "print every figure, not only the headline ones"},
			&cli.StringFlag{Name: "out", Usage: "parquet file for the statistics (default: stats[-by-…].parquet beside runs.parquet)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badInput(fmt.Errorf("summarize needs a sweep folder or its runs.parquet"))
			}
			path := c.Args().First()
			if st, err := os.Stat(path); err == nil && st.IsDir() {
				path = filepath.Join(path, results.RunsFile)
			}
			if !exists(path) {
				return badInput(fmt.Errorf("%s: no such file; run a sweep first", path))
			}
			figures := splitList(c.StringSlice("figure"))
			for _, f := range figures {
				if err := statistics.CheckFigure(f); err != nil {
					return badInput(fmt.Errorf("--figure: %w", err))
				}
			}
			t, err := results.ReadTable(path)
			if err != nil {
				return err
			}
			by, pool := splitList(c.StringSlice("by")), splitList(c.StringSlice("pool"))
			keys := paramKeys(filepath.Dir(path), t)
			stats, err := statistics.SummarizeRuns(t, by, pool)
			var pe *statistics.PoolingError
			switch {
			case errors.As(err, &pe):
				return badInput(fmt.Errorf("%s: %s", path, poolingMessage(t, keys, pe, pool)))
			case err != nil:
				return badInput(fmt.Errorf("%s: %w", path, err))
			}
			printStats(os.Stdout, by, stats, figures, c.Bool("all"), keys)
			if len(pool) > 0 {
				fmt.Println(pooledLine(t, pool))
			}
			out := c.String("out")
			if out == "" {
				name := "stats.parquet"
				if len(by) > 0 {
					name = "stats-by-" + strings.NewReplacer("[", "", "]", "", "/", "_").Replace(strings.Join(by, "+")) + ".parquet"
				}
				out = filepath.Join(filepath.Dir(path), name)
			}
			if err := statistics.WriteStats(out, t, by, pool, stats); err != nil {
				return err
			}
			fmt.Println("→", out)
			return nil
		},
	}
}

// headlineFigures are what summarize prints by default: recovery, its
// violations, latency, throughput and lag (5 lines per group instead of
// one per figure; a 45-run sweep grouped by two parameters fits about a
// screen).
var headlineFigures = []string{"recovery_mean_s", "qos_recovery_violations", "latency_p99_ms",
	"throughput_mean", "lag_max"}

// printStats prints the statistics of the chosen figures (figures given,
// else all with all, else the headline ones) as an aligned table, the group
// values in their parameters' units (keys).
func printStats(w io.Writer, by []string, stats []statistics.FigureStat, figures []string, all bool, keys paramKeyFormat) {
	if len(figures) == 0 && !all {
		figures = headlineFigures
	}
	only := map[string]bool{}
	for _, f := range figures {
		only[f] = true
	}
	header := append(slices.Clone(by), "figure", "n", "mean", "std", "ci95_low", "ci95_high", "min", "max")
	rows := [][]string{header}
	shown := map[string]bool{}
	for _, s := range stats {
		if len(only) > 0 && !only[s.Figure] {
			continue
		}
		shown[s.Figure] = true
		row := statRow(s)
		for i, b := range by {
			row[i] = keys.format(b, row[i])
		}
		rows = append(rows, row)
	}
	right := make([]bool, len(header))
	for i := len(by) + 1; i < len(right); i++ {
		right[i] = true
	}
	textfmt.WriteAligned(w, rows, right)
	if total := countFigures(stats); len(shown) < total {
		fmt.Fprintf(w, "(%s of %s; --all prints every one, --figure F picks)\n", textfmt.Count(float64(len(shown))), textfmt.Plural(total, "figure"))
	}
}

// statRow formats one figure of one group; every number of the row is read
// against the figure's magnitude, so a std of 3e-10 on a mean of 375 is 0.
func statRow(s statistics.FigureStat) []string {
	scale := textfmt.Scale(s.Mean, s.Min, s.Max)
	row := append(slices.Clone(s.Group), s.Figure, strconv.Itoa(s.N))
	for _, x := range []float64{s.Mean, s.Std, s.CILow, s.CIHigh} {
		row = append(row, textfmt.Number(x, scale))
	}
	// The extremes of a count are counts; its mean and spread are not.
	return append(row, textfmt.Figure(s.Figure, s.Min, scale), textfmt.Figure(s.Figure, s.Max, scale))
}

func countFigures(stats []statistics.FigureStat) int {
	seen := map[string]bool{}
	for _, s := range stats {
		seen[s.Figure] = true
	}
	return len(seen)
}

// pooledLine says what the groups pool on purpose: "pooled over
// workload.rate (3 values)".
func pooledLine(t *results.Table, pool []string) string {
	var parts []string
	for _, p := range pool {
		parts = append(parts, fmt.Sprintf("%s (%s)", p, textfmt.Plural(len(statistics.Levels(t, p)), "value")))
	}
	return "pooled over " + strings.Join(parts, ", ") + ": n counts the runs of every value, not replications only"
}

// poolingMessage explains a refused summary: which parameters vary within
// the groups (with their values, in their units) and the two ways out.
func poolingMessage(t *results.Table, keys paramKeyFormat, e *statistics.PoolingError, pool []string) string {
	var what []string
	for _, p := range e.Params {
		levels := statistics.Levels(t, p)
		var vs []string
		for _, l := range levels[:min(len(levels), 5)] {
			vs = append(vs, keys.format(p, l))
		}
		if len(levels) > 5 {
			vs = append(vs, "…")
		}
		what = append(what, fmt.Sprintf("%s (%s: %s)", p, textfmt.Plural(len(levels), "value"), strings.Join(vs, ", ")))
	}
	it, verb := "it", "varies"
	if len(e.Params) > 1 {
		it, verb = "them", "vary"
	}
	where := "between the runs"
	if len(e.By) > 0 {
		where = "within the groups of --by " + strings.Join(e.By, ",")
	}
	return fmt.Sprintf("%s %s %s, so the statistics would mix %s with the replications. "+
		"Add %s to --by (--by %s), or pool over %s on purpose with --pool %s",
		strings.Join(what, " and "), verb, where, it,
		it, strings.Join(append(slices.Clone(e.By), e.Params...), ","),
		it, strings.Join(append(slices.Clone(pool), e.Params...), ","))
}

// paramKeyFormat prints the values of numeric parameter columns in their
// units, by column name.
type paramKeyFormat map[string]func(float64) string

// format prints a group key (results.Table.Key: a number in base units, or
// text) of column name: 10 → 10s, 60000 → 60,000/s; a column of unknown
// unit as it is, no value as –.
func (p paramKeyFormat) format(name, key string) string {
	if key == "" {
		return textfmt.NoValue
	}
	if f := p[name]; f != nil {
		if x, err := strconv.ParseFloat(key, 64); err == nil {
			return f(x)
		}
	}
	return key
}

// paramKeys learns the unit of each parameter of a sweep from how the
// sweep file wrote its values, as the runs' params.json keep them (10s: a
// duration, 60000/s: a rate, 64MiB: a size; the same parsers, in the same
// order, as sweep.Value, which turned them into the base units of
// runs.parquet): durations print as scenarios write them (sim.Duration:
// 10s, 1m30s), rates as records/s with thousands separators, sizes as
// sim.Bytes. It reads the first and the last run's params.json (a value
// written 0 says nothing of its unit). Without run folders (a merged
// runs.parquet) the values print in base units.
func paramKeys(dir string, t *results.Table) paramKeyFormat {
	keys := paramKeyFormat{}
	ids := t.Strings["run_id"]
	if len(ids) == 0 {
		return keys
	}
	for _, id := range []string{ids[0], ids[len(ids)-1]} {
		b, err := os.ReadFile(filepath.Join(dir, "runs", id, sweep.ParamsFile))
		if err != nil {
			continue
		}
		var params struct {
			Params []results.ParamValue `json:"params"`
		}
		if json.Unmarshal(b, &params) != nil {
			continue
		}
		for _, p := range params.Params {
			if _, ok := t.Floats[p.Name]; ok && keys[p.Name] == nil {
				if f := unitFormat(p.Text); f != nil {
					keys[p.Name] = f
				}
			}
		}
	}
	return keys
}

// unitFormat is how to print values of a parameter written text in a sweep
// file; nil for a plain number (or 0, which any unit may write).
func unitFormat(text string) func(float64) string {
	if _, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil {
		return nil
	}
	if _, err := sim.ParseDuration(text); err == nil {
		return func(x float64) string { return sim.Duration(x).String() }
	}
	if _, err := sim.ParseRate(text); err == nil {
		return formatRate
	}
	if _, err := sim.ParseBytes(text); err == nil {
		return func(x float64) string { return sim.Bytes(x).String() }
	}
	return nil
}

// formatRate prints records/s in the table number format: 60,000/s; a
// fractional rate (a random draw) to 4 significant digits.
func formatRate(x float64) string {
	if x == math.Trunc(x) {
		return textfmt.Count(x) + "/s"
	}
	return textfmt.Number(x, 0) + "/s"
}
