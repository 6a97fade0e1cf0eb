package app

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/compare"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare two result sets figure by figure",
		ArgsUsage: "A B",
		Description: "A is the baseline, B the candidate. Each is a run folder (summary.json), a folder of\n" +
			"run folders (a scenario's variants), a sweep folder (runs.parquet, rows matched by run_id),\n" +
			"or a JSON file: a summary.json or a reference file (results/reference/<scenario>.json).\n" +
			"Two single runs are compared whatever their names; otherwise runs are matched by name.\n\n" +
			"A figure is beyond tolerance when |B-A| > max(abs, rel*|A|, 1e-6); exactly at the\n" +
			"tolerance is within it (a 5% shift passes --rel 0.05). wall_time_s is never compared.\n" +
			"A tolerance file (YAML) sets a default and per-figure tolerances:\n" +
			"  default: {rel: 0.05, abs: 0}\n" +
			"  figures:\n" +
			"    recovery_mean_s: {rel: 0.02}\n" +
			"    latency_p99_ms: {rel: 0.1, abs: 5}\n" +
			"    cpu_busy_mean: informational      # printed, never beyond tolerance\n" +
			"A twin run against a live run of the same scenario: the agreement the project claims is\n" +
			compare.TwinVsLiveTolerances + " (--tolerance it).\n\n" +
			"Numbers are rounded to 4 significant digits, counts whole (docs/results.md); REL is (B-A)/|A|,\n" +
			"\"–\" for a change from A = 0 (B-A shows it).\n" +
			"Prints the figures that differ (all with --all) and \"N figures compared, M beyond\n" +
			"tolerance\"; --format csv writes every figure as CSV instead (run, figure, a, b, diff,\n" +
			"rel, tol_rel, tol_abs, informational, status). Exit 0: none beyond tolerance; 1: some\n" +
			"are (or, with --strict, a figure or run is on one side only); 2: bad input.",
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "rel", Value: compare.DefaultRel, Usage: "relative tolerance, a fraction of |A|"},
			&cli.Float64Flag{Name: "abs", Usage: "absolute tolerance, in each figure's unit"},
			&cli.StringFlag{Name: "tolerance", Usage: "tolerance file (YAML), instead of --rel/--abs"},
			&cli.BoolFlag{Name: "all", Usage: "print every figure, not only those that differ"},
			&cli.BoolFlag{Name: "strict", Usage: "figures or runs present on one side only are failures"},
			&cli.BoolFlag{Name: "faults", Usage: "also compare two run folders fault by fault: recovery time, lag peak, latency (e.g. a simulated and a live run of one schedule)"},
			&cli.BoolFlag{Name: "decisions", Usage: "also set the policy decision logs of two run folders side by side: the first decision that differs in kind or value, and the CI timelines"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text (the table) or csv (every figure, full precision, for pandas or DuckDB; not with --faults or --decisions)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return badInput(fmt.Errorf("compare needs two result sets, e.g. streamtwin compare results/reference/demo.json runs/demo"))
			}
			tol, err := compareTolerances(c)
			if err != nil {
				return badInput(err)
			}
			format := c.String("format")
			switch {
			case format != "text" && format != "csv":
				return badInput(fmt.Errorf("--format %q: want text or csv", format))
			case format == "csv" && (c.Bool("faults") || c.Bool("decisions")):
				return badInput(fmt.Errorf("--format csv writes the figures' table only: leave out --faults and --decisions, or use --format text"))
			}
			var sets [2]*compare.ResultSet
			for i, path := range c.Args().Slice() {
				if sets[i], err = compare.LoadResultSet(path); err != nil {
					return badInput(err) // missing, unreadable or not a result set
				}
			}
			cmp, err := compare.Compare(sets[0], sets[1], tol)
			if err != nil {
				return badInput(err)
			}
			strict := c.Bool("strict")
			if format == "csv" {
				err = cmp.WriteCSV(os.Stdout)
			} else {
				err = cmp.WriteTable(os.Stdout, c.Bool("all"), strict)
			}
			if err != nil {
				return err
			}
			if c.Bool("faults") {
				var outs [2][]compare.FaultOutcome
				for i, path := range c.Args().Slice() {
					if outs[i], err = compare.FaultOutcomes(path); err != nil {
						return badInput(fmt.Errorf("--faults needs two run folders: %w", err))
					}
				}
				fmt.Println()
				if err := compare.WriteFaultTable(os.Stdout, outs[0], outs[1], c.Args().Get(0), c.Args().Get(1)); err != nil {
					return err
				}
			}
			if c.Bool("decisions") {
				var logs [2][]compare.Decision
				var cis [2][]compare.CIStep
				for i, path := range c.Args().Slice() {
					if logs[i], cis[i], err = decisionLog(path); err != nil {
						return badInput(fmt.Errorf("--decisions needs two run folders: %w", err))
					}
				}
				fmt.Println()
				if err := compare.WriteDecisionTable(os.Stdout, logs[0], logs[1], cis[0], cis[1], c.Args().Get(0), c.Args().Get(1)); err != nil {
					return err
				}
			}
			if !c.IsSet("tolerance") && !c.IsSet("rel") && !c.IsSet("abs") && compare.TwinVsLive(sets[0], sets[1]) {
				twinVsLiveHint(sets[0], c.Args().Get(0), c.Args().Get(1))
			}
			switch {
			case cmp.Beyond > 0:
				return cli.Exit(fmt.Sprintf("%s of %s beyond tolerance", textfmt.Count(float64(cmp.Beyond)), textfmt.Plural(cmp.Compared, "figure")), 1)
			case cmp.Failed(strict):
				return cli.Exit(fmt.Sprintf("%s or %s on one side only (--strict)", textfmt.Plural(cmp.OneSided, "figure"), textfmt.PluralNoun(cmp.OneSided, "run")), 1)
			}
			return nil
		},
	}
}

// twinVsLiveHint names the tolerance file of a twin run against a live run,
// which --tolerance takes, when they were compared at one tolerance for
// every figure.
func twinVsLiveHint(a *compare.ResultSet, pathA, pathB string) {
	twin, live := pathA, pathB
	if len(a.Runs) > 0 && a.Runs[0].Backend == "live" {
		twin, live = pathB, pathA
	}
	fmt.Fprintf(os.Stderr, "hint: a twin run against a live run, compared at ±%g%% for every figure. The agreement the twin claims,\n"+
		"figure by figure, is %s (in the streamtwin repository; the twin run is A):\n"+
		"  streamtwin compare %s %s --tolerance %s\n", 100*compare.DefaultRel, compare.TwinVsLiveTolerances, twin, live, compare.TwinVsLiveTolerances)
}

// decisionLog reads a run folder's policy decisions and CI timeline.
func decisionLog(dir string) ([]compare.Decision, []compare.CIStep, error) {
	ds, err := compare.Decisions(dir)
	if err != nil {
		return nil, nil, err
	}
	samples, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
	if err != nil {
		return nil, nil, err
	}
	return ds, compare.CITimeline(samples), nil
}

// compareTolerances builds the tolerances from --tolerance or --rel/--abs.
func compareTolerances(c *cli.Context) (compare.Tolerances, error) {
	if f := c.String("tolerance"); f != "" {
		if c.IsSet("rel") || c.IsSet("abs") {
			return compare.Tolerances{}, fmt.Errorf("give either --tolerance or --rel/--abs, not both (put them in the file's default:)")
		}
		return compare.LoadTolerances(f)
	}
	tol := compare.DefaultTolerances()
	tol.Default.Rel, tol.Default.Abs = c.Float64("rel"), c.Float64("abs")
	for _, f := range []struct {
		name string
		v    float64
	}{{"rel", tol.Default.Rel}, {"abs", tol.Default.Abs}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return tol, fmt.Errorf("--%s must be a finite number ≥ 0, got %g", f.name, f.v)
		}
	}
	return tol, nil
}
