package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/profile"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
)

func profileCommand() *cli.Command {
	return &cli.Command{
		Name:      "profile",
		Usage:     "run Khaos's profiling on the twin: steady-state failure points, chaos experiments on job copies, models",
		ArgsUsage: "SCENARIO.yaml",
		Description: "Phase 1 picks --failures points (one per throughput level, ≥ 30 min apart) from the scenario's\n" +
			"input or --input TRACE; phase 2 replays it on --copies job copies with CIs evenly spaced in\n" +
			"[--min-ci, --max-ci], each killed 3 s before its next checkpoint at every point; phase 3 fits\n" +
			"latency ~ throughput + CI and recovery ~ throughput + CI (recoveries > 55 s) and a physical\n" +
			"recovery model, and cross-validates them by leaving each CI out. Writes failure_points.csv,\n" +
			"profiling.parquet, models.json (what `policy: {name: khaos, profile: …}` reads) and model figures\n" +
			"into --out (default runs/<scenario name>/profile, where `streamtwin run` finds it).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "variant", Usage: "profile this variant's job (default: the first with policy khaos, else the base)"},
			&cli.StringFlag{Name: "out", Usage: "profile folder"},
			&cli.IntFlag{Name: "copies", Value: 8, Usage: "job copies in phase 2"},
			&cli.IntFlag{Name: "failures", Value: 12, Usage: "failure points (throughput levels) in phase 1"},
			&cli.StringFlag{Name: "min-ci", Value: "10s", Usage: "shortest CI of the copies"},
			&cli.StringFlag{Name: "max-ci", Value: "120s", Usage: "longest CI of the copies"},
			&cli.StringFlag{Name: "points", Usage: "failure seconds to use instead of phase 1, e.g. 3445,8713"},
			&cli.StringFlag{Name: "input", Usage: "recorded input for phase 1 (a trace file, as in workload.file) instead of the scenario's"},
			&cli.IntFlag{Name: "workers", Usage: "copies simulated in parallel (default: every core)"},
			&cli.StringFlag{Name: "window", Value: "300s", Usage: "moving-average and pre-failure window (averagingWindow)"},
			&cli.StringFlag{Name: "min-interval", Value: "30m", Usage: "failure points at least this far apart and from both ends (minInterval)"},
			&cli.Float64Flag{Name: "tolerance", Value: 0.5, Usage: "stability tolerance: the band is ⌊⌊N/100⌋·tolerance/2⌋ records/s"},
			&cli.StringFlag{Name: "before-checkpoint", Value: "3s", Usage: "kill this long before the next checkpoint (chkTolerance)"},
			&cli.StringFlag{Name: "min-recovery", Value: "55s", Usage: "recoveries up to this long stay out of the recovery models"},
		},
		Action: func(c *cli.Context) error {
			f, err := loadScenario(c)
			if err != nil {
				return err
			}
			sc, err := profile.ProfiledRun(f, c.String("variant"))
			if err != nil {
				return badInput(err)
			}
			cfg, err := profileConfig(c)
			if err != nil {
				return badInput(err)
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join("runs", f.Base.Name, profile.SubDir)
			}
			res, files, err := profile.Into(sc, cfg, out)
			if err != nil {
				return err
			}
			printProfile(res, files)
			return nil
		},
	}
}

func profileConfig(c *cli.Context) (profile.Config, error) {
	cfg := profile.Config{Copies: c.Int("copies"), Workers: c.Int("workers")}
	cfg.Steady.Failures = c.Int("failures")
	if cfg.Copies < 2 {
		return cfg, fmt.Errorf("--copies must be at least 2 (the models need several CIs), got %d", cfg.Copies)
	}
	var err error
	if cfg.MinCI, err = positiveDuration(c, "min-ci"); err != nil {
		return cfg, err
	}
	if cfg.MaxCI, err = positiveDuration(c, "max-ci"); err != nil {
		return cfg, err
	}
	durations := []struct {
		flag string
		dst  *float64
	}{{"window", &cfg.Window}, {"before-checkpoint", &cfg.BeforeCheckpoint}, {"min-recovery", &cfg.MinRecovery}}
	for _, d := range durations {
		if *d.dst, err = positiveDuration(c, d.flag); err != nil {
			return cfg, err
		}
	}
	minInterval, err := positiveDuration(c, "min-interval")
	if err != nil {
		return cfg, err
	}
	cfg.Steady.Window, cfg.Steady.MinInterval = int(cfg.Window), int(minInterval)
	if cfg.Steady.Tolerance = c.Float64("tolerance"); cfg.Steady.Tolerance <= 0 {
		return cfg, fmt.Errorf("--tolerance must be positive, got %g", cfg.Steady.Tolerance)
	}
	if cfg.MaxCI <= cfg.MinCI {
		return cfg, fmt.Errorf("--max-ci (%gs) must be above --min-ci (%gs)", cfg.MaxCI, cfg.MinCI)
	}
	if s := c.String("points"); s != "" {
		cfg.Points = []int{}
		for _, p := range strings.Split(s, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), "s")))
			if err != nil || v < 0 {
				return cfg, fmt.Errorf("--points: %q is not a second of the run", p)
			}
			cfg.Points = append(cfg.Points, v)
		}
	}
	if in := c.String("input"); in != "" {
		if err := requireFile("profile: --input", in); err != nil {
			return cfg, err
		}
		tr, err := workloads.ReadTrace(in)
		if err != nil {
			return cfg, err
		}
		cfg.Input = tr.PerSecond("linear")
	}
	return cfg, nil
}

func positiveDuration(c *cli.Context, name string) (float64, error) {
	d, err := sim.ParseDuration(c.String(name))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--%s: want a positive duration such as 10s, got %q", name, c.String(name))
	}
	return float64(d), nil
}

func printProfile(r *profile.Result, files []string) {
	n := func(x float64) string { return textfmt.Number(x, 0) }
	fmt.Printf("profiled %s × %s (CI %s … %s s) in %s s; %s without recovery\n",
		textfmt.Plural(len(r.Points), "failure point"), textfmt.Plural(len(r.CIs), "copy"), n(r.CIs[0]), n(r.CIs[len(r.CIs)-1]),
		n(r.WallS), textfmt.Plural(r.Missed, "failure"))
	l, rec := r.Models.Latency, r.Models.Recovery
	model := func(m khaos.Linear) string {
		return textfmt.Linear(m.Intercept, textfmt.Term{Coef: m.Throughput, Var: "thr"}, textfmt.Term{Coef: m.CIms, Var: "CI_ms"})
	}
	fmt.Printf("  latency  (ms) = %s   R² %s, accuracy %s (n %s)\n", model(l), n(l.R2), n(l.Accuracy), textfmt.Count(float64(l.N)))
	fmt.Printf("  recovery (s)  = %s   R² %s, accuracy %s (n %s, recoveries > %s)\n", model(rec), n(rec.R2), n(rec.Accuracy),
		textfmt.Count(float64(rec.N)), sim.Duration(r.Models.MinRecoveryS))
	if p := r.Models.Physics; p != nil {
		fmt.Printf("  physical recovery = D + λ(CI − 3 s + D)/(μ − λ): D %s s, μ %s records/s, accuracy %s\n", n(p.DowntimeS), n(p.Capacity), n(p.Accuracy))
	}
	fmt.Printf("  leave-one-CI-out accuracy: OLS %s, physical %s → %s predicts held-out failures better\n", n(r.CV.OLSAccuracy), n(r.CV.PhysicsAccuracy), r.CV.Better)
	fmt.Println("→", strings.Join(files, " "))
}

// withKhaosModels inlines the Khaos models into runs (profile.InlineModels),
// profiling into OUT/profile when needed; a policy block or policy.profile
// the models cannot come from is bad input.
func withKhaosModels(f *scenario.File, runs []scenario.Scenario, out string) ([]scenario.Scenario, error) {
	runs, err := profile.InlineModels(f, runs, profile.Inline{Out: out, Log: os.Stderr, Profiled: printProfile})
	var se *profile.SpecError
	if errors.As(err, &se) {
		return nil, badInput(err)
	}
	return runs, err
}
