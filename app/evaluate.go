package app

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/evaluation"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/sim"
)

func evaluateCommand() *cli.Command {
	return &cli.Command{
		Name:      "evaluate",
		Usage:     "the evaluation tables and figures of a policy comparison (a scenario's variants)",
		ArgsUsage: "RUNS_DIR",
		Description: "An autoscaling comparison: RUNS_DIR is the output folder of `streamtwin sweep` over\n" +
			"variants and seeds (parameters: {variant: [...]}, replications: N), or --scaling on a\n" +
			"variants folder. Writes scaling.md (usage normalised to --baseline, worker-hours,\n" +
			"rescalings, latency p50/p95, lag: mean and 95 % CI over seeds), scaling.csv,\n" +
			"scaling-runs.csv and the figures scaling-summary, scaling-latency, scaling-timeline.\n" +
			"--width single|double|INCHES sizes every figure for print (as `plot --width`).\n\n" +
			"Otherwise (Khaos) RUNS_DIR is the output folder of `streamtwin run` on a scenario with variants\n" +
			"(RUNS_DIR/<variant>/summary.json …). Writes, into --out (default RUNS_DIR):\n" +
			"  evaluation.md   per-failure table (throughput k/s / latency ms / recovery s, as in Khaos's\n" +
			"                  paper; the latency is --latency-column's, the latency-marker p99 by default),\n" +
			"                  latency-series statistics, per-variant figures, measured vs simulated\n" +
			"  failures.csv    one row per variant and failure\n" +
			"  variants.csv    one row per variant\n" +
			"  evaluation-recovery, evaluation-latency, evaluation-panels, evaluation-faults (.png, .svg, .pdf)\n" +
			"R and L default to each run's qos bounds. --measured takes a calibration table (CSV or\n" +
			"Parquet: throughput, checkpoint_interval_s, recovery_s[, latency_ms][, label][, fault_at_s]);\n" +
			"its CIs are matched to the variants with that static job.checkpoint.interval.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "output folder (default RUNS_DIR)"},
			&cli.StringFlag{Name: "measured", Usage: "measured failures to compare with, a calibration table (.csv or .parquet)"},
			&cli.StringFlag{Name: "recovery-bound", Usage: "recovery bound R, e.g. 240s (default: each run's qos.recovery)"},
			&cli.StringFlag{Name: "latency-bound", Usage: "latency bound L, e.g. 1s (default: each run's qos.latency)"},
			&cli.BoolFlag{Name: "scaling", Usage: "the autoscaling comparison on a variants folder (automatic for a sweep folder)"},
			&cli.StringFlag{Name: "baseline", Value: "static-12", Usage: "autoscaling: the variant resource usage is normalised to"},
			widthFlag,
			&cli.StringFlag{Name: "latency-column", Value: evaluation.DefaultLatencyColumn, Usage: "latency column: latency_marker_p99_ms (latency-marker p99, what Khaos recorded: Flink latency markers), latency_p99_ms, latency_p50_ms or latency_mean_ms (event-time p99, p50, mean: Kafka wait included)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badInput(fmt.Errorf("evaluate needs one folder of runs, e.g. streamtwin evaluate runs/ci-variants"))
			}
			runsDir := c.Args().First()
			figOpts, err := widthOptions(c)
			if err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(runsDir, "sweep.yaml")); err == nil || c.Bool("scaling") {
				return evaluateScaling(runsDir, cmp.Or(c.String("out"), runsDir), c.String("baseline"), figOpts)
			}
			opt := evaluation.Options{LatencyColumn: c.String("latency-column")}
			if !slices.Contains(evaluation.LatencyColumns, opt.LatencyColumn) {
				return badInput(fmt.Errorf("--latency-column must be one of %s, got %q", strings.Join(evaluation.LatencyColumns, ", "), opt.LatencyColumn))
			}
			for _, b := range []struct {
				flag  string
				dst   *float64
				scale float64
			}{{"recovery-bound", &opt.RecoveryBoundS, 1}, {"latency-bound", &opt.LatencyBoundMs, 1000}} {
				if !c.IsSet(b.flag) {
					continue
				}
				d, err := sim.ParseDuration(c.String(b.flag))
				if err == nil && d <= 0 {
					err = errors.New("want a positive duration, e.g. 240s or 1s")
				}
				if err != nil {
					return badInput(fmt.Errorf("--%s %q: %w", b.flag, c.String(b.flag), err))
				}
				*b.dst = d.Seconds() * b.scale
			}
			if m := c.String("measured"); m != "" {
				if err := requireFile("evaluate: --measured", m); err != nil {
					return err
				}
				pts, err := ingest.ReadMeasured(m)
				if err != nil {
					return badInput(err)
				}
				opt.Measured, opt.MeasuredSource = pts, m
			}
			dirs, labels, err := evaluation.Runs(runsDir)
			if err != nil {
				if errors.Is(err, evaluation.ErrNoRunFolders) {
					err = fmt.Errorf("%w; run the scenario first: streamtwin run SCENARIO --out %s", err, runsDir)
				}
				return badInput(err)
			}
			ev, err := evaluation.Evaluate(dirs, labels, opt)
			if err != nil {
				var ce *results.ColumnError
				if errors.As(err, &ce) {
					return badInput(err)
				}
				return err
			}
			paths, err := ev.Write(cmp.Or(c.String("out"), runsDir), figOpts...)
			if err != nil {
				return err
			}
			if err := ev.WriteSummaryTable(os.Stdout); err != nil {
				return err
			}
			for _, p := range paths {
				fmt.Println(p)
			}
			return nil
		},
	}
}

// evaluateScaling is `evaluate` on an autoscaling comparison; figOpts go
// to its figures.
func evaluateScaling(runsDir, out, baseline string, figOpts []figures.Option) error {
	dirs, err := evaluation.ScalingRunDirs(runsDir)
	if err != nil {
		if errors.Is(err, evaluation.ErrNoRunFolders) {
			err = fmt.Errorf("%w; run the sweep first: streamtwin sweep SWEEP.yaml --out %s", err, runsDir)
		}
		return badInput(err)
	}
	s, err := evaluation.EvaluateScaling(dirs, baseline)
	if err != nil {
		return badInput(err)
	}
	paths, err := evaluation.WriteScaling(s, out, figOpts...)
	if err != nil {
		return err
	}
	fmt.Print(s.Markdown())
	for _, p := range paths {
		fmt.Println(p)
	}
	return nil
}
