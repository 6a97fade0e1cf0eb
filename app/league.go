package app

import (
	"fmt"
	"path/filepath"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/evaluation"
	"github.com/urfave/cli/v2"
)

func init() { liveExtra = append(liveExtra, liveLeagueCommand()) }

func liveLeagueCommand() *cli.Command {
	def := evaluation.DefaultLeagueCriteria()
	return &cli.Command{
		Name:      "league",
		Usage:     "rank a scenario's policies on the twin and on the live cluster, and test whether the twin ranks them as live does",
		ArgsUsage: "TWIN_DIR LIVE_DIR",
		Description: "TWIN_DIR holds the twin's run folders of a scenario's variants (streamtwin run SCENARIO --out TWIN_DIR),\n" +
			"LIVE_DIR the live ones (streamtwin live run SCENARIO --variant V --out LIVE_DIR/V, one per variant).\n" +
			"--repeat is a second live run of one variant: the spread between its two live runs is the live\n" +
			"noise, and two policies whose live values differ by less than it tie.\n" +
			"Writes, into --out (default LIVE_DIR):\n" +
			"  league.md             per policy twin / live: worker-seconds, p95 and p99 latency, lag peak,\n" +
			"                        rescales, downtime; per figure the ranks, the live spread, Kendall's τ-b;\n" +
			"                        the verdict against the acceptance, each criterion pass or fail\n" +
			"  league.csv            one row per policy and backend\n" +
			"  league-ranks.csv      one row per figure and policy\n" +
			"  league-tau.csv        one row per figure\n" +
			"  league-verdict.csv    one row per criterion\n" +
			"  league-decisions.txt  per policy the decision logs side by side (as compare --decisions)\n" +
			"With --baseline, each other policy's p95 latency over the baseline's in both backends, and whether\n" +
			"the twin agrees with live that it is above (live: by more than the spread).\n" +
			"Exit 0 when the report is written, whatever the verdict (--strict: 1 when a criterion fails).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repeat", Usage: "a second live run folder of one variant (the live spread)"},
			&cli.StringFlag{Name: "out", Usage: "output folder (default LIVE_DIR)"},
			&cli.StringFlag{Name: "baseline", Usage: "a variant every other policy's p95 latency is set against in both backends (the latency penalty)"},
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 when a criterion of the verdict fails"},
			&cli.Float64Flag{Name: "tau-worker-seconds", Value: def.TauWorkerSeconds, Usage: "least Kendall τ-b on worker-seconds"},
			&cli.Float64Flag{Name: "tau-p95", Value: def.TauP95, Usage: "least Kendall τ-b on p95 latency"},
			&cli.IntFlag{Name: "min-policies", Value: def.MinPolicies, Usage: "least number of policies run in both backends"},
			&cli.Float64Flag{Name: "worker-seconds-rel", Value: def.WorkerSecondsRel, Usage: "largest |twin − live| / live of a policy's worker-seconds, a fraction"},
			&cli.Float64Flag{Name: "p95-rel", Value: def.P95Rel, Usage: "largest |twin − live| / live of a policy's p95 latency, a fraction"},
			&cli.IntFlag{Name: "decisions", Value: def.Decisions, Usage: "how many first rescale decisions per policy must agree in direction and lie within one policy interval"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return badInput(fmt.Errorf("live league needs the twin's and the live runs, e.g. streamtwin live league runs/sim-autoscaling runs/live-autoscaling --repeat runs/live-autoscaling-repeat/daedalus"))
			}
			opt := evaluation.LeagueOptions{Repeat: c.String("repeat"), Baseline: c.String("baseline"), Interval: policyInterval, Criteria: evaluation.LeagueCriteria{
				TauWorkerSeconds: c.Float64("tau-worker-seconds"), TauP95: c.Float64("tau-p95"), MinPolicies: c.Int("min-policies"),
				WorkerSecondsRel: c.Float64("worker-seconds-rel"), P95Rel: c.Float64("p95-rel"), Decisions: c.Int("decisions")}}
			l, err := evaluation.EvaluateLeague(c.Args().Get(0), c.Args().Get(1), opt)
			if err != nil {
				return badInput(err)
			}
			out := c.String("out")
			if out == "" {
				out = c.Args().Get(1)
			}
			paths, err := evaluation.WriteLeague(l, out)
			if err != nil {
				return err
			}
			fmt.Print(l.FiguresTable(), "\n", l.TauTable(), "\n", l.VerdictText())
			for _, p := range paths {
				fmt.Println(p)
			}
			if c.Bool("strict") && !l.Passed() {
				return cli.Exit("the league fails its acceptance (league.md, Verdict)", 1)
			}
			return nil
		},
	}
}

// policyInterval is the decision interval (s) of a run folder's policy,
// built from its scenario.yaml as the run built it.
func policyInterval(runDir string) (float64, error) {
	f, err := scenario.Load(filepath.Join(runDir, results.ScenarioFile))
	if err != nil {
		return 0, err
	}
	runs := f.Runs()
	if len(runs) != 1 {
		return 0, fmt.Errorf("%s holds %d runs, want one", filepath.Join(runDir, results.ScenarioFile), len(runs))
	}
	pol, err := run.NewPolicy(runs[0])
	if err != nil {
		return 0, err
	}
	return pol.Interval().Seconds(), nil
}
