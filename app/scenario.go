package app

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

func scenarioCommand() *cli.Command {
	return &cli.Command{
		Name:  "scenario",
		Usage: "check and show scenario files",
		Subcommands: []*cli.Command{
			{
				Name:      "validate",
				Usage:     "check a scenario file; problems name the file, line and field",
				ArgsUsage: "SCENARIO.yaml",
				Action: func(c *cli.Context) error {
					f, err := loadScenario(c)
					if err != nil {
						return err
					}
					fmt.Printf("%s: ok (%s)\n", f.Path, textfmt.Plural(len(f.Runs()), "run"))
					return nil
				},
			},
			{
				Name:      "print",
				Usage:     "print the scenario fully resolved: every default filled in, and the values derived from others (TaskManagers, cores)",
				ArgsUsage: "SCENARIO.yaml",
				Flags:     []cli.Flag{&cli.StringSliceFlag{Name: "variant", Usage: "print only these variants, resolved"}},
				Action: func(c *cli.Context) error {
					f, err := loadScenario(c)
					if err != nil {
						return err
					}
					runs := f.Runs()
					if !c.IsSet("variant") && len(f.Variants) > 0 {
						runs = runs[:0]
						runs = append(runs, f.Base)
					} else if runs, err = selectVariants(f, c.StringSlice("variant")); err != nil {
						return err
					}
					for i, sc := range runs {
						b, err := sc.MarshalResolved()
						if err != nil {
							return err
						}
						if i > 0 {
							fmt.Println("---")
						}
						fmt.Print(string(b))
					}
					return nil
				},
			},
		},
	}
}

// printWarnings prints a scenario's implausible settings to standard error,
// one a line: "warning: FILE:LINE: FIELD: why". They change nothing else:
// the command goes on, and its exit code is its own.
func printWarnings(ws scenario.Problems) {
	for _, w := range ws {
		fmt.Fprintln(os.Stderr, "warning:", w.Error())
	}
}
