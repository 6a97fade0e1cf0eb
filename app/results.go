package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/streamtwin/streamtwin/results"
	"github.com/urfave/cli/v2"
)

func resultsCommand() *cli.Command {
	return &cli.Command{
		Name:        "results",
		Usage:       "inspect result files",
		Subcommands: []*cli.Command{mergeCommand(), summarizeCommand(), catCommand(), rescalesCommand()},
	}
}

func catCommand() *cli.Command {
	return &cli.Command{
		Name:      "cat",
		Usage:     "print a result file (Parquet, JSON or CSV) as a table, or as CSV",
		ArgsUsage: "FILE.parquet|FILE.json|FILE.csv",
		Description: fmt.Sprintf("Parquet files print through their own schema; JSON files (summary.json, fit.json,\n"+
			"reference files) as key/value rows, nested keys dotted; CSV files as they are.\n"+
			"The table rounds numbers to 4 significant digits (docs/results.md) and stops after %d rows;\n"+
			"--csv writes every row with exact values. --head N and --tail N pick rows in both views.", results.DefaultCatRows),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "csv", Usage: "write CSV with exact values instead of an aligned table (every row unless --head/--tail)"},
			&cli.IntFlag{Name: "head", Usage: "print only the first `N` rows"},
			&cli.IntFlag{Name: "tail", Usage: "print only the last `N` rows"},
			&cli.BoolFlag{Name: "all", Usage: fmt.Sprintf("print every row of the table (default: the first %d)", results.DefaultCatRows)},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badInput(fmt.Errorf("results cat needs one file, e.g. runs/demo/timeseries.parquet or runs/demo/summary.json"))
			}
			path := c.Args().First()
			if !exists(path) {
				return badInput(fmt.Errorf("%s: no such file", path))
			}
			opt := results.CatOptions{CSV: c.Bool("csv"), Head: c.Int("head"), Tail: c.Int("tail"), All: c.Bool("all")}
			switch {
			case opt.Head < 0 || opt.Tail < 0:
				return badInput(fmt.Errorf("--head and --tail take a number of rows > 0"))
			case opt.Head > 0 && opt.Tail > 0:
				return badInput(fmt.Errorf("give --head or --tail, not both"))
			case opt.All && (opt.Head > 0 || opt.Tail > 0):
				return badInput(fmt.Errorf("--all prints every row: give it without --head/--tail"))
			}
			return results.Cat(os.Stdout, path, opt)
		},
	}
}

func rescalesCommand() *cli.Command {
	return &cli.Command{
		Name:      "rescales",
		Usage:     "one row per rescale of a run: decision, parallelism, input rate, delay, downtime, recovery",
		ArgsUsage: "RUN_DIR",
		Description: "The same table for a simulated and a live run: at_s (the decision), from, to, input_rate\n" +
			"(records/s), delay_s (decision → restart, the job running meanwhile), downtime_s (restart →\n" +
			"running) and recovery_s (restart → backlog read; empty if never). CSV on stdout.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badInput(fmt.Errorf("results rescales needs one run folder, e.g. runs/live-rescale-profile"))
			}
			dir := c.Args().First()
			samples, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
			if err != nil {
				return badInput(err)
			}
			events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
			if err != nil {
				return badInput(err)
			}
			return results.WriteRescalesCSV(os.Stdout, results.Rescales(samples, events))
		},
	}
}
