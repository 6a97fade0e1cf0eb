package app

import (
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/urfave/cli/v2"
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
					fmt.Printf("%s: ok (%d run(s))\n", f.Path, len(f.Runs()))
					return nil
				},
			},
			{
				Name:      "print",
				Usage:     "print the scenario fully resolved, every default filled in",
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
						b, err := yaml.Marshal(sc)
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
