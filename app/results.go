package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/suggest"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/cat"
	"github.com/streamtwin/streamtwin/results/measure"
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
		Usage:     "print a result file (Parquet, JSON or CSV) as a table, or as CSV; an events file's faults with --summary",
		ArgsUsage: "FILE.parquet|FILE.json|FILE.csv",
		Description: fmt.Sprintf("Parquet files print through their own schema; JSON files (summary.json, fit.json,\n"+
			"reference files) as key/value rows, nested keys dotted; CSV files as they are. Any other\n"+
			"file (.yaml: see scenario print) is refused.\n"+
			"The table rounds numbers to 4 significant digits (docs/results.md), times in s (time_s,\n"+
			"duration_s, …_s) to the millisecond, and stops after %d rows; --csv writes every row with\n"+
			"exact values. --head N and --tail N pick rows in both views.\n\n"+
			"events.parquet: --kind fault,recovered keeps those kinds (%s);\n"+
			"--summary prints one line per fault: its time and TaskManager, when the failure was\n"+
			"detected, when the job ran again, when it recovered and the recovery time (an unrecovered\n"+
			"fault says unrecovered, with the lower bound of its recovery time).",
			cat.DefaultRows, strings.Join(cat.EventKinds, ", ")),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "csv", Usage: "write CSV with exact values instead of an aligned table (every row unless --head/--tail)"},
			&cli.IntFlag{Name: "head", Usage: "print only the first `N` rows"},
			&cli.IntFlag{Name: "tail", Usage: "print only the last `N` rows"},
			&cli.BoolFlag{Name: "all", Usage: fmt.Sprintf("print every row of the table (default: the first %d)", cat.DefaultRows)},
			&cli.StringSliceFlag{Name: "kind", Usage: "events.parquet: keep only events of these kinds, e.g. `fault,recovered` (comma separated or repeated)"},
			&cli.BoolFlag{Name: "summary", Usage: "events.parquet: one line per fault: detected, running, recovered, recovery time"},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return badInput(err) },
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badInput(fmt.Errorf("results cat needs one file, e.g. runs/demo/timeseries.parquet or runs/demo/summary.json"))
			}
			path := c.Args().First()
			if !exists(path) {
				return badInput(fmt.Errorf("%s: no such file", path))
			}
			opt := cat.Options{CSV: c.Bool("csv"), Head: c.Int("head"), Tail: c.Int("tail"), All: c.Bool("all"), Summary: c.Bool("summary")}
			kinds, err := eventKinds(c.StringSlice("kind"))
			if err != nil {
				return badInput(err)
			}
			opt.Kinds = kinds
			switch {
			case opt.Head < 0 || opt.Tail < 0:
				return badInput(fmt.Errorf("--head and --tail take a number of rows > 0"))
			case opt.Head > 0 && opt.Tail > 0:
				return badInput(fmt.Errorf("give --head or --tail, not both"))
			case opt.All && (opt.Head > 0 || opt.Tail > 0):
				return badInput(fmt.Errorf("--all prints every row: give it without --head/--tail"))
			case opt.Summary && (opt.Head > 0 || opt.Tail > 0 || opt.All || len(opt.Kinds) > 0):
				return badInput(fmt.Errorf("--summary prints one line per fault: give it without --head, --tail, --all or --kind"))
			}
			err = cat.Print(os.Stdout, path, opt)
			if errors.Is(err, cat.ErrNoKindColumn) || errors.Is(err, cat.ErrNotResultFile) {
				return badInput(err)
			}
			return err
		},
	}
}

// eventKinds splits --kind values (comma separated or repeated) and refuses
// a kind events.parquet does not have, suggesting the one meant.
func eventKinds(values []string) ([]string, error) {
	var kinds []string
	for _, v := range values {
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" && !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	if len(values) > 0 && len(kinds) == 0 {
		return nil, fmt.Errorf("--kind takes event kinds: %s", strings.Join(cat.EventKinds, ", "))
	}
	for _, k := range kinds {
		if slices.Contains(cat.EventKinds, k) {
			continue
		}
		msg := fmt.Sprintf("--kind %q: no such event kind", k)
		if s := kindMeant(k); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return nil, fmt.Errorf("%s (kinds: %s)", msg, strings.Join(cat.EventKinds, ", "))
	}
	return kinds, nil
}

// kindMeant is the event kind a mistyped one is nearest to (recovery →
// recovered), else the kinds that contain it (checkpoint →
// checkpoint_completed, checkpoint_failed).
func kindMeant(k string) []string {
	if s := suggest.Typo(k, cat.EventKinds); s != "" {
		return []string{s}
	}
	var in []string
	for _, known := range cat.EventKinds {
		if len(k) >= 3 && strings.Contains(known, strings.ToLower(k)) {
			in = append(in, known)
		}
	}
	return in
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
			return measure.WriteRescalesCSV(os.Stdout, measure.Rescales(samples, events))
		},
	}
}
