package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/sweep"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:      "sweep",
		Usage:     "run a parameter sweep with replications, in parallel, resumable and shardable",
		ArgsUsage: "SWEEP.yaml",
		Description: "Writes OUT/runs/<run_id>/ (a run folder each, with params.json) and OUT/runs.parquet\n" +
			"(one row per run: parameters as columns plus the summary figures). Ctrl-C finishes the\n" +
			"running runs and writes runs.parquet of what is complete; --resume continues.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "workers", Value: runtime.NumCPU(), Usage: "parallel runs"},
			maxMemoryFlag,
			&cli.StringFlag{Name: "out", Usage: "sweep folder (default runs/sweep-<sweep file name>)"},
			&cli.BoolFlag{Name: "resume", Usage: "skip the runs already complete in --out"},
			&cli.StringFlag{Name: "shard", Usage: "run only shard i of n (i/n, 0-based): runs with index mod n = i"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badInput(fmt.Errorf("sweep needs one sweep file, e.g. streamtwin sweep scenarios/sweeps/ci.yaml"))
			}
			path := c.Args().First()
			if err := requireFile("sweep: sweep file", path); err != nil {
				return err
			}
			spec, err := sweep.Load(path)
			if err != nil {
				var pe *fs.PathError
				var ps scenario.Problems
				if errors.As(err, &pe) || errors.As(err, &ps) {
					return badInput(err)
				}
				return err
			}
			printWarnings(spec.Warnings)
			if s := c.String("shard"); s != "" {
				if spec.Shard, err = sweep.ParseShard(s); err != nil {
					return badInput(fmt.Errorf("--shard: %w", err))
				}
			}
			if c.Int("workers") < 1 {
				return badInput(fmt.Errorf("--workers must be at least 1"))
			}
			limit, err := maxMemory(c)
			if err != nil {
				return err
			}
			if all := spec.Runs(); len(all) > 0 {
				sc, err := spec.RunScenario(all[0])
				if err != nil {
					return badInput(err)
				}
				if err := sc.Estimate().CheckMemory(path, min(c.Int("workers"), len(all)), limit); err != nil {
					return badInput(err)
				}
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join("runs", "sweep-"+strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
			}
			opt := sweep.Options{Out: out, Workers: c.Int("workers"), Resume: c.Bool("resume")}
			if st, err := os.Stderr.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				opt.Progress = os.Stderr // a bar only on a terminal
			}
			// Runs allocate a few MB each and keep little: a loose GC target
			// keeps the collector from eating the second core.
			if os.Getenv("GOGC") == "" {
				debug.SetGCPercent(400)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			rep, err := sweep.Execute(ctx, spec, opt)
			if err != nil {
				return err
			}
			fmt.Printf("%s: %s (shard %s): %s run now, %s already complete, %s failed in %s s → %s\n",
				path, textfmt.Plural(rep.Total, "run"), spec.Shard, textfmt.Count(float64(rep.Done)), textfmt.Count(float64(rep.Skipped)), textfmt.Count(float64(len(rep.Failed))), textfmt.Number(rep.Wall.Seconds(), 0), filepath.Join(out, results.RunsFile))
			for _, f := range rep.Failed {
				fmt.Fprintln(os.Stderr, "failed:", f)
			}
			switch {
			case rep.Interrupted:
				return cli.Exit("interrupted; continue with --resume", 130)
			case len(rep.Failed) > 0:
				return cli.Exit(textfmt.Plural(len(rep.Failed), "run")+" failed", 1)
			}
			return nil
		},
	}
}

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "join the outputs of sweep shards into one runs.parquet",
		ArgsUsage: "SHARD_DIR…",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "out", Required: true, Usage: "folder for the merged runs.parquet"}},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return badInput(fmt.Errorf("merge needs the shard folders, e.g. results merge --out runs/all runs/shard-*"))
			}
			for _, d := range c.Args().Slice() {
				if _, err := os.Stat(filepath.Join(d, "runs")); err != nil {
					return badInput(fmt.Errorf("%s is not a sweep folder (no runs/)", d))
				}
			}
			if err := os.MkdirAll(c.String("out"), 0o755); err != nil {
				return err
			}
			path := filepath.Join(c.String("out"), results.RunsFile)
			if err := sweep.Collect(path, c.Args().Slice()); err != nil {
				return err
			}
			t, err := results.ReadTable(path)
			if err != nil {
				return err
			}
			fmt.Printf("%s from %s → %s\n", textfmt.Plural(int(t.Rows), "run"), textfmt.Plural(c.NArg(), "shard folder"), path)
			return nil
		},
	}
}
