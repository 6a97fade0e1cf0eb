package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/urfave/cli/v2"
)

func resultsCommand() *cli.Command {
	return &cli.Command{
		Name:  "results",
		Usage: "inspect result files",
		Subcommands: []*cli.Command{mergeCommand(), summarizeCommand(), {
			Name:      "cat",
			Usage:     "print a parquet file as a table, or as CSV",
			ArgsUsage: "FILE.parquet",
			Flags:     []cli.Flag{&cli.BoolFlag{Name: "csv", Usage: "write CSV instead of an aligned table"}},
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return badInput(fmt.Errorf("results cat needs one parquet file, e.g. runs/demo/timeseries.parquet"))
				}
				path := c.Args().First()
				if !exists(path) {
					return badInput(fmt.Errorf("%s: no such file", path))
				}
				return results.Cat(os.Stdout, path, c.Bool("csv"))
			},
		}},
	}
}

func plotCommand() *cli.Command {
	return &cli.Command{
		Name:      "plot",
		Usage:     "draw a run's figure (figure.png and figure.svg in the run folder)",
		ArgsUsage: "RUN_DIR",
		Description: "RUN_DIR is a folder written by `streamtwin run`; for a scenario with variants,\n" +
			"give the parent folder to plot every variant.",
		Subcommands: figureCommands(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badInput(fmt.Errorf("plot needs one run folder, e.g. streamtwin plot runs/demo"))
			}
			dir := c.Args().First()
			dirs := []string{dir}
			if !exists(filepath.Join(dir, "timeseries.parquet")) {
				subs, _ := filepath.Glob(filepath.Join(dir, "*", "timeseries.parquet"))
				if len(subs) == 0 {
					return badInput(fmt.Errorf("%s holds no run (no timeseries.parquet); run a scenario first", dir))
				}
				dirs = dirs[:0]
				for _, s := range subs {
					dirs = append(dirs, filepath.Dir(s))
				}
			}
			for _, d := range dirs {
				png, svg, err := figures.PlotRun(d)
				if err != nil {
					return err
				}
				fmt.Println(png)
				fmt.Println(svg)
			}
			return nil
		},
	}
}
