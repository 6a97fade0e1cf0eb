package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "simulate a scenario and write its results",
		ArgsUsage: "SCENARIO.yaml",
		Description: "Writes timeseries.parquet, events.parquet, summary.json and scenario.yaml into --out\n" +
			"(default runs/<scenario name>). A scenario with variants writes one folder per variant.",
		Flags: []cli.Flag{
			&cli.Uint64Flag{Name: "seed", Usage: "root seed of every random stream (default: the scenario's seed)"},
			&cli.StringFlag{Name: "out", Usage: "output folder"},
			&cli.StringSliceFlag{Name: "variant", Usage: "run only these variants"},
			&cli.BoolFlag{Name: "plot", Usage: "also draw figure.png/figure.svg in each run folder"},
			setFlag(),
			&cli.BoolFlag{Name: "force", Usage: "write into an --out holding files streamtwin did not write, beside them (they are never touched)"},
			maxMemoryFlag,
		},
		Action: func(c *cli.Context) error {
			f, err := loadScenario(c)
			if err != nil {
				return err
			}
			runs, err := selectVariants(f, c.StringSlice("variant"))
			if err != nil {
				return err
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join("runs", f.Base.Name)
			}
			limit, err := maxMemory(c)
			if err != nil {
				return err
			}
			for _, sc := range runs {
				if err := sc.Estimate().CheckMemory(f.Path, 1, limit); err != nil {
					return badInput(err)
				}
			}
			if runs, err = withKhaosModels(f, runs, out); err != nil {
				return err
			}
			for _, sc := range runs {
				if c.IsSet("seed") {
					sc.Seed = c.Uint64("seed")
				}
				dir := out
				if sc.Variant != "" {
					dir = filepath.Join(out, sc.Variant)
				}
				sum, err := run.ToDir(context.Background(), twin.Backend{}, sc, dir, run.Output{Durable: true, Force: c.Bool("force")})
				if err != nil {
					return refusedAt(f.Path, err)
				}
				label := sc.Name
				if sc.Variant != "" {
					label += "/" + sc.Variant
				}
				fmt.Printf("%s: %s s simulated in %s s wall; %s; latency p99 %s ms → %s\n",
					label, textfmt.Number(sum.DurationS, 0), textfmt.Number(sum.WallTimeS, 0), faultsPhrase(sum),
					textfmt.Number(sum.LatencyP99Ms, 0), dir)
				if c.Bool("plot") {
					paths, err := figures.PlotRun(dir)
					if err != nil {
						return err
					}
					fmt.Println("  figure:", strings.Join(paths, ", "))
				}
			}
			return nil
		},
	}
}

// refusedAt reports a run refused before it started (run.RefusedError) as
// bad input at the scenario file's lines; other errors pass unchanged.
func refusedAt(path string, err error) error {
	var re *run.RefusedError
	switch {
	case !errors.As(err, &re):
		return err
	case len(re.Problems) > 0:
		return badInput(scenario.ProblemsAt(path, re.Problems))
	default:
		return badInput(err)
	}
}

func loadScenario(c *cli.Context) (*scenario.File, error) {
	if c.NArg() != 1 {
		return nil, badInput(fmt.Errorf("%s needs exactly one scenario file, e.g. streamtwin %s scenarios/demo.yaml", c.Command.FullName(), c.Command.FullName()))
	}
	path := c.Args().First()
	if err := requireFile(commandName(c)+": scenario file", path); err != nil {
		return nil, err
	}
	var sets []scenario.Set
	if v, ok := c.Generic("set").(*setValues); ok {
		sets = v.sets
	}
	f, err := scenario.LoadWith(path, sets)
	if err != nil {
		var pe *fs.PathError
		var ps scenario.Problems
		var se *scenario.SetError
		if errors.As(err, &pe) || errors.As(err, &ps) || errors.As(err, &se) {
			return nil, badInput(err)
		}
		return nil, err
	}
	printWarnings(f.Warnings())
	return f, nil
}

// setFlag is --set PATH=VALUE, repeatable: scenario fields set from the
// command line, over the file's and its variants' values. A Generic flag,
// not a StringSlice: urfave/cli splits those at commas, which YAML and
// JSON values hold.
func setFlag() cli.Flag {
	return &cli.GenericFlag{Name: "set", Value: &setValues{}, Usage: "set a scenario field, over the file's and its variants' values: PATH=VALUE " +
		"with a YAML value, e.g. --set job.checkpoint.interval=30s or --set 'policy={name: hpa, target: 0.7}' (repeatable)"}
}

// setValues collects the --set flags in order.
type setValues struct{ sets []scenario.Set }

func (v *setValues) Set(s string) error {
	path, value, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(path) == "" {
		return fmt.Errorf("%q is not PATH=VALUE (e.g. job.checkpoint.interval=30s)", s)
	}
	v.sets = append(v.sets, scenario.Set{Path: strings.TrimSpace(path), Value: value})
	return nil
}

func (v *setValues) String() string {
	if v == nil {
		return ""
	}
	parts := make([]string, len(v.sets))
	for i, s := range v.sets {
		parts[i] = s.Path + "=" + s.Value
	}
	return strings.Join(parts, " ")
}

func selectVariants(f *scenario.File, names []string) ([]scenario.Scenario, error) {
	runs := f.Runs()
	if len(names) == 0 {
		return runs, nil
	}
	var out []scenario.Scenario
	for _, n := range names {
		found := false
		for _, sc := range runs {
			if sc.Variant == n {
				out, found = append(out, sc), true
			}
		}
		if !found {
			var have []string
			for _, sc := range runs {
				have = append(have, sc.Variant)
			}
			return nil, badInput(fmt.Errorf("%s has no variant %q (variants: %v)", f.Path, n, have))
		}
	}
	return out, nil
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

var maxMemoryFlag = &cli.StringFlag{Name: "max-memory", Usage: "refuse runs estimated to need more memory than this, e.g. 8GiB (default: half of the machine's)"}

// maxMemory is the --max-memory limit in bytes.
func maxMemory(c *cli.Context) (float64, error) {
	if !c.IsSet("max-memory") {
		return scenario.DefaultMaxMemory(), nil
	}
	b, err := sim.ParseBytes(c.String("max-memory"))
	if err != nil || b <= 0 {
		return 0, badInput(fmt.Errorf("--max-memory: want a positive size such as 8GiB, got %q", c.String("max-memory")))
	}
	return float64(b), nil
}

// faultsPhrase is a run's faults for its one-line report: "no faults",
// "2 faults, recovery mean 77 s", and with unrecovered faults their count
// and the mean as the lower bound it then is, never a recovery of 0 s.
func faultsPhrase(sum results.Summary) string {
	if sum.Faults == 0 {
		return "no faults"
	}
	s := textfmt.Plural(sum.Faults, "fault")
	if sum.UnrecoveredFaults > 0 {
		s += ", " + textfmt.Count(float64(sum.UnrecoveredFaults)) + " unrecovered"
	}
	switch {
	case math.IsNaN(sum.RecoveryMeanS) || sum.Recoveries+sum.UnrecoveredFaults == 0:
		return s + ", no recovery detected"
	case sum.UnrecoveredFaults > 0:
		return s + ", recovery mean ≥ " + textfmt.Number(sum.RecoveryMeanS, 0) + " s"
	}
	return s + ", recovery mean " + textfmt.Number(sum.RecoveryMeanS, 0) + " s"
}
