package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/streamtwin/streamtwin/results"
	"github.com/urfave/cli/v2"
)

func summarizeCommand() *cli.Command {
	return &cli.Command{
		Name:      "summarize",
		Usage:     "mean, std, 95% confidence interval, min and max of every figure across replications",
		ArgsUsage: "RUNS_DIR|runs.parquet",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "by", Usage: "group by these parameter columns (repeat, or comma-separate)"},
			&cli.StringSliceFlag{Name: "figure", Usage: "print only these figures (all are written)"},
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
			only := map[string]bool{}
			for _, f := range c.StringSlice("figure") {
				only[f] = true
			}
			w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			header := append(append([]string{}, by...), "figure", "n", "mean", "std", "ci95_low", "ci95_high", "min", "max")
			fmt.Fprintln(w, strings.Join(header, "\t")+"\t")
			for _, s := range stats {
				if len(only) > 0 && !only[s.Figure] {
					continue
				}
				row := append(append([]string{}, s.Group...), s.Figure, fmt.Sprint(s.N))
				for _, x := range []float64{s.Mean, s.Std, s.CILow, s.CIHigh, s.Min, s.Max} {
					row = append(row, fmt.Sprintf("%.4g", x))
				}
				fmt.Fprintln(w, strings.Join(row, "\t")+"\t")
			}
			w.Flush()
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
