package app

import (
	"fmt"
	"os"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/stepper"
	"github.com/streamtwin/streamtwin/sim"
)

func gymCommand() *cli.Command {
	return &cli.Command{
		Name:      "gym",
		Usage:     "serve a scenario to a learner one policy interval at a time (the Python Gymnasium environments start it)",
		ArgsUsage: "SCENARIO.yaml",
		Description: "Speaks the stepping protocol (docs/gym.md) on standard input and output: a JSON hello line,\n" +
			"then a binary frame for each reset and step. The learner takes the policy's seat: the scenario's\n" +
			"policy is not run. Writes no files.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "variant", Usage: "the variant to serve (a scenario with several needs one)"},
			&cli.StringFlag{Name: "interval", Value: "10s", Usage: "the learner's step interval (default 10s, the external policies')"},
			setFlag(),
		},
		Action: func(c *cli.Context) error {
			f, err := loadScenario(c)
			if err != nil {
				return err
			}
			runs := f.Runs()
			if c.IsSet("variant") || len(runs) > 1 {
				if !c.IsSet("variant") {
					return badInput(fmt.Errorf("%s has %d variants: give one with --variant", f.Path, len(runs)))
				}
				if runs, err = selectVariants(f, []string{c.String("variant")}); err != nil {
					return err
				}
			}
			interval, err := sim.ParseDuration(c.String("interval"))
			if err != nil || interval < 0.001 {
				return badInput(fmt.Errorf("--interval: %q is not a step interval (a duration of at least 1ms, e.g. 10s)", c.String("interval")))
			}
			// One thread: a run is sequential, and every step is a round trip
			// with the learner, which a second P only slows with wake-ups
			// across threads (17.6k → 29.6k steps/s unpinned on 2 cores).
			runtime.GOMAXPROCS(1)
			return stepper.Serve(os.Stdin, os.Stdout, runs[0], interval.Std())
		},
	}
}
