package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/models/profile"
	"github.com/streamtwin/streamtwin/models/scenario"
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
			sc, err := profiledRun(f, c.String("variant"))
			if err != nil {
				return badInput(err)
			}
			cfg, err := profileConfig(c)
			if err != nil {
				return badInput(err)
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join("runs", f.Base.Name, "profile")
			}
			res, files, err := profileInto(sc, cfg, out)
			if err != nil {
				return err
			}
			printProfile(res, files)
			return nil
		},
	}
}

// profiledRun is the run whose job a profile describes.
func profiledRun(f *scenario.File, variant string) (scenario.Scenario, error) {
	runs := f.Runs()
	for _, sc := range runs {
		if variant == "" && sc.Policy.Name == khaos.Name || variant != "" && sc.Variant == variant {
			return sc, nil
		}
	}
	if variant != "" {
		return scenario.Scenario{}, fmt.Errorf("%s has no variant %q", f.Path, variant)
	}
	return f.Base, nil
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

// profileInto profiles sc and writes the profile folder, stamped with the
// hash of what it was profiled on so `run` can tell a stale one.
func profileInto(sc scenario.Scenario, cfg profile.Config, out string) (*profile.Result, []string, error) {
	res, err := profile.Run(sc, cfg)
	if err != nil {
		return nil, nil, err
	}
	hash, err := profileHash(sc)
	if err != nil {
		return nil, nil, err
	}
	res.ScenarioHash = hash
	files, err := res.Write(out)
	return res, files, err
}

// profileHash identifies what a profile depends on: the workload, Kafka,
// the job (its CI aside: the copies set their own) and the seed.
func profileHash(sc scenario.Scenario) (string, error) {
	sc.Job.Checkpoint.Interval = 0
	b, err := yaml.Marshal(struct {
		Seed     uint64
		Duration any
		Workload any
		Kafka    any
		Job      any
	}{sc.Seed, sc.Duration, sc.Workload, sc.Kafka, sc.Job})
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8]), nil
}

func printProfile(r *profile.Result, files []string) {
	fmt.Printf("profiled %d failure points × %d copies (CI %g … %g s) in %.1f s; %d failures without recovery\n",
		len(r.Points), len(r.CIs), r.CIs[0], r.CIs[len(r.CIs)-1], r.WallS, r.Missed)
	l, rec := r.Models.Latency, r.Models.Recovery
	fmt.Printf("  latency  (ms) = %.6g + %.6g·thr + %.6g·CI_ms   R² %.3f, accuracy %.3f (n %d)\n", l.Intercept, l.Throughput, l.CIms, l.R2, l.Accuracy, l.N)
	fmt.Printf("  recovery (s)  = %.6g + %.6g·thr + %.6g·CI_ms   R² %.3f, accuracy %.3f (n %d, recoveries > %g s)\n", rec.Intercept, rec.Throughput, rec.CIms, rec.R2, rec.Accuracy, rec.N, r.Models.MinRecoveryS)
	if p := r.Models.Physics; p != nil {
		fmt.Printf("  physical recovery = D + λ(CI − 3 s + D)/(μ − λ): D %.1f s, μ %.0f records/s, accuracy %.3f\n", p.DowntimeS, p.Capacity, p.Accuracy)
	}
	fmt.Printf("  leave-one-CI-out accuracy: OLS %.3f, physical %.3f → %s predicts held-out failures better\n", r.CV.OLSAccuracy, r.CV.PhysicsAccuracy, r.CV.Better)
	fmt.Println("→", strings.Join(files, " "))
}

// withKhaosModels inlines the models into every run of the Khaos policy
// that has none, so its resolved scenario.yaml replays on its own: from
// policy.profile, else from OUT/profile/models.json when it was profiled on
// the same job and input, else by profiling now into OUT/profile.
func withKhaosModels(f *scenario.File, runs []scenario.Scenario, out string) ([]scenario.Scenario, error) {
	var data []byte
	var inlined string // models JSON of this file, profiled once
	for i, sc := range runs {
		if sc.Policy.Name != khaos.Name {
			continue
		}
		var spec struct {
			Profile string         `yaml:"profile"`
			Models  map[string]any `yaml:"models"`
		}
		if err := yaml.NodeToValue(sc.Policy.Node, &spec); err != nil {
			return nil, badInput(err)
		}
		if spec.Models != nil {
			continue
		}
		models, err := khaosModels(sc, spec.Profile, f.Path, out, &inlined)
		if err != nil {
			return nil, err
		}
		if data == nil {
			if data, err = os.ReadFile(f.Path); err != nil {
				return nil, err
			}
		}
		seed := sc.Seed
		if runs[i], err = scenario.ParseRun(f.Path, data, sc.Variant, []scenario.Set{{Path: "policy.models", Value: models}}); err != nil {
			return nil, err
		}
		runs[i].Seed = seed
	}
	return runs, nil
}

// khaosModels returns the models as JSON text (valid YAML) for sc.
func khaosModels(sc scenario.Scenario, profilePath, scenarioPath, out string, cache *string) (string, error) {
	if profilePath != "" {
		path := profilePath
		if !filepath.IsAbs(path) && !exists(path) {
			path = filepath.Join(filepath.Dir(scenarioPath), profilePath)
		}
		return readModels(path)
	}
	if *cache != "" {
		return *cache, nil
	}
	dir := filepath.Join(out, "profile")
	hash, err := profileHash(sc)
	if err != nil {
		return "", err
	}
	cached := filepath.Join(dir, profile.ModelsFile)
	if m, h, err := readModelsHash(cached); err == nil && h == hash {
		fmt.Fprintf(os.Stderr, "khaos: using the profile in %s\n", dir)
		*cache = m
		return m, nil
	} else if err == nil {
		fmt.Fprintf(os.Stderr, "khaos: %s was profiled on another job or input; profiling again\n", cached)
	}
	fmt.Fprintf(os.Stderr, "khaos: no profile yet; profiling %s into %s (phases 1–3)\n", scenarioPath, dir)
	res, files, err := profileInto(sc, profile.Config{}, dir)
	if err != nil {
		return "", err
	}
	printProfile(res, files)
	m, err := json.Marshal(res.Models)
	*cache = string(m)
	return *cache, err
}

func readModels(path string) (string, error) {
	m, _, err := readModelsHash(path)
	if err != nil {
		return "", badInput(fmt.Errorf("policy.profile: %w (write it with `streamtwin profile SCENARIO`)", err))
	}
	return m, nil
}

func readModelsHash(path string) (models, hash string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	var p struct {
		Models json.RawMessage `json:"models"`
		Hash   string          `json:"scenario_hash"`
	}
	if err := json.Unmarshal(data, &p); err != nil || len(p.Models) == 0 {
		return "", "", fmt.Errorf("%s is not a models.json of `streamtwin profile`", path)
	}
	var m khaos.Models
	if err := json.Unmarshal(p.Models, &m); err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}
	if err := m.Validate(); err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}
	compact, err := json.Marshal(m)
	return string(compact), p.Hash, err
}
