package app

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/check"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "regression check of a policy change: run the reference scenarios and compare their QoS with the references",
		Description: "Runs every scenario of --list (default: every results/reference/*.json whose source scenario\n" +
			"exists), with the policy under test swapped into every scenario and variant if --policy is\n" +
			"given, and compares each run with its reference, within the reference's tolerance file\n" +
			"(the entry's or the list's tolerance:, else <reference>.tolerance.yaml, else 5%). Prints the QoS\n" +
			"figures that changed (recovery time, unrecovered faults, violations, latency p99, checkpoints,\n" +
			"worker-seconds; lower is better), reference against now, better/worse/=, and a last line\n" +
			"naming what got worse. Progress goes to standard error.\n\n" +
			"List file (paths relative to it):\n" +
			"  scenarios:\n" +
			"    - {scenario: scenarios/demo.yaml, reference: references/demo.json}\n" +
			"    - {scenario: scenarios/ci.yaml, reference: references/ci.json, tolerance: ci-tol.yaml, variants: [ci10]}\n\n" +
			"Exit 0: nothing worse beyond tolerance (or, with --update, the references written); 1: something\n" +
			"got worse (the scenarios and figures are named) or a run failed; 2: bad input. See docs/check.md.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "list", Usage: "list file of the reference scenarios (default: the committed results/reference/*.json)"},
			&cli.StringFlag{Name: "policy", Usage: "the policy under test, swapped into every run: a policy section in YAML, e.g. '{name: static, interval: 30s}', or @FILE"},
			&cli.BoolFlag{Name: "update", Usage: "rewrite the references of the list from fresh runs instead of comparing"},
			&cli.StringFlag{Name: "out", Usage: "keep the run folders here, OUT/<scenario>[/<variant>] (default: a temporary folder, removed)"},
			&cli.IntFlag{Name: "workers", Usage: "scenarios run at once (default: one per core)"},
			&cli.BoolFlag{Name: "all", Usage: "print every QoS figure, not only those that changed"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return badInput(fmt.Errorf("check takes no arguments (got %s): give the scenarios with --list FILE", strings.Join(c.Args().Slice(), " ")))
			}
			if c.IsSet("policy") && strings.TrimSpace(c.String("policy")) == "" {
				return badInput(fmt.Errorf("--policy is empty: give a policy section, e.g. --policy '{name: static, interval: 30s}' or --policy @policy.yaml"))
			}
			if c.Bool("update") && c.IsSet("policy") && !c.IsSet("list") {
				return badInput(errors.New("--update with --policy and no --list would rewrite streamtwin's own references (results/reference) with the runs of another policy: give the list of your references with --list"))
			}
			if c.Int("workers") < 0 {
				return badInput(fmt.Errorf("--workers must be at least 1, got %d", c.Int("workers")))
			}
			rep, err := check.Run(check.Options{
				List:     c.String("list"),
				Policy:   c.String("policy"),
				Update:   c.Bool("update"),
				Out:      c.String("out"),
				Workers:  c.Int("workers"),
				Progress: os.Stderr,
			})
			var ie *check.InputError
			if errors.As(err, &ie) {
				return badInput(err)
			}
			if err != nil {
				return err
			}
			if err := rep.WriteTable(os.Stdout, c.Bool("all")); err != nil {
				return err
			}
			if worse := rep.WorseEntries(); len(worse) > 0 {
				return cli.Exit(fmt.Sprintf("%s of %s got worse beyond tolerance: %s", textfmt.Count(float64(len(worse))), textfmt.Plural(len(rep.Entries), "scenario"), strings.Join(worse, ", ")), 1)
			}
			return nil
		},
	}
}
