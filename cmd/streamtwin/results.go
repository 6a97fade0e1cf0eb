package main

import (
	"fmt"
	"os"

	"github.com/streamtwin/streamtwin/results"
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
