package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
	"github.com/urfave/cli/v2"
)

func summarizeCommand() *cli.Command {
	return &cli.Command{
		Name:  "summarize",
		Usage: "mean, std, 95% confidence interval, min and max of every figure across replications",
		Description: "Prints the headline figures (" + strings.Join(headlineFigures, ", ") + ")\n" +
			"of each group; --all prints every figure, --figure picks some. The statistics of every figure\n" +
			"are written to the parquet file either way. Numbers are rounded to 4 significant digits\n" +
			"(docs/results.md); confidence intervals of figures that cannot be negative stop at 0.",
		ArgsUsage: "RUNS_DIR|runs.parquet",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "by", Usage: "group by these parameter columns (repeat, or comma-separate)"},
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
			t, err := results.ReadTable(path)
			if err != nil {
				return err
			}
			var by []string
			for _, b := range c.StringSlice("by") {
				by = append(by, strings.Split(b, ",")...)
			}
			stats, err := results.SummarizeRuns(t, by)
			if err != nil {
				return badInput(fmt.Errorf("%s: %w", path, err))
			}
			printStats(os.Stdout, by, stats, c.StringSlice("figure"), c.Bool("all"))
			out := c.String("out")
			if out == "" {
				name := "stats.parquet"
				if len(by) > 0 {
					name = "stats-by-" + strings.NewReplacer("[", "", "]", "", "/", "_").Replace(strings.Join(by, "+")) + ".parquet"
				}
				out = filepath.Join(filepath.Dir(path), name)
			}
			if err := results.WriteStats(out, by, stats); err != nil {
				return err
			}
			fmt.Println("→", out)
			return nil
		},
	}
}

// headlineFigures are what summarize prints by default: recovery, its
// violations, latency, throughput and lag (5 lines per group instead of
// 31; a 45-run sweep grouped by two parameters fits about a screen).
var headlineFigures = []string{"recovery_mean_s", "qos_recovery_violations", "latency_p99_ms",
	"throughput_mean", "lag_max"}

// printStats prints the statistics of the chosen figures (figures given,
// else all with all, else the headline ones) as an aligned table.
func printStats(w io.Writer, by []string, stats []results.FigureStat, figures []string, all bool) {
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
		rows = append(rows, statRow(s))
	}
	right := make([]bool, len(header))
	for i := len(by) + 1; i < len(right); i++ {
		right[i] = true
	}
	results.WriteAligned(w, rows, right)
	if total := countFigures(stats); len(shown) < total {
		fmt.Fprintf(w, "(%d of %d figures; --all prints every one, --figure F picks)\n", len(shown), total)
	}
}

// statRow formats one figure of one group; every number of the row is read
// against the figure's magnitude, so a std of 3e-10 on a mean of 375 is 0.
func statRow(s results.FigureStat) []string {
	scale := results.Scale(s.Mean, s.Min, s.Max)
	row := append(slices.Clone(s.Group), s.Figure, strconv.Itoa(s.N))
	for _, x := range []float64{s.Mean, s.Std, s.CILow, s.CIHigh} {
		row = append(row, results.FormatNumber(x, scale))
	}
	// The extremes of a count are counts; its mean and spread are not.
	return append(row, results.FormatFigure(s.Figure, s.Min, scale), results.FormatFigure(s.Figure, s.Max, scale))
}

func countFigures(stats []results.FigureStat) int {
	seen := map[string]bool{}
	for _, s := range stats {
		seen[s.Figure] = true
	}
	return len(seen)
}
