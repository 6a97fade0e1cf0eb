package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
)

// SubDir is the profile folder inside an output folder of runs: where
// InlineModels looks for a profile and profiles into.
const SubDir = "profile"

// SpecError is a Khaos policy whose models cannot be had: its profile and
// models fields do not decode, or policy.profile names no valid models.json.
// It is the scenario author's to fix (the CLI exits 2).
type SpecError struct{ Err error }

func (e *SpecError) Error() string { return e.Err.Error() }
func (e *SpecError) Unwrap() error { return e.Err }

// ProfiledRun is the run whose job a profile of f describes: the variant
// named, else the first run with policy khaos, else the base.
func ProfiledRun(f *scenario.File, variant string) (scenario.Scenario, error) {
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

// Into profiles sc and writes the profile folder out, stamped with
// Hash(sc) so that InlineModels can tell a stale one. It returns the files
// written.
func Into(sc scenario.Scenario, cfg Config, out string) (*Result, []string, error) {
	res, err := Run(sc, cfg)
	if err != nil {
		return nil, nil, err
	}
	hash, err := Hash(sc)
	if err != nil {
		return nil, nil, err
	}
	res.ScenarioHash = hash
	files, err := res.Write(out)
	return res, files, err
}

// Hash identifies what a profile depends on: the workload, Kafka, the job
// (its CI aside: the copies set their own) and the seed.
func Hash(sc scenario.Scenario) (string, error) {
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

// Inline says where InlineModels finds or writes a profile and whom it
// tells.
type Inline struct {
	// Out is the output folder of the runs: a profile is looked for in, and
	// written to, Out/profile.
	Out string
	// Log receives one line on where the models come from (nil: discarded).
	Log io.Writer
	// Profiled, if set, is called after profiling with the result and the
	// files written.
	Profiled func(r *Result, files []string)
}

// InlineModels inlines the models into every run of f (runs, from f.Runs
// or a selection of them) with the Khaos policy and no models, so that its
// resolved scenario.yaml replays on its own: from policy.profile (relative
// to the working folder, else to the scenario file's), else from
// Out/profile/models.json when it was profiled on the same job and input,
// else by profiling now into Out/profile. The runs of f share one
// profile: once found or made, it serves every later run. It sets the
// models in runs, in place, and returns it; a run's seed stays as given.
func InlineModels(f *scenario.File, runs []scenario.Scenario, opt Inline) ([]scenario.Scenario, error) {
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
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
			// the node keeps its place in f: the problem is at its line,
			// in its field (policy.models)
			file := &ast.File{Docs: []*ast.DocumentNode{{Body: sc.Policy.Node}}}
			return nil, &SpecError{decode.Problems{decode.YAMLProblem(f.Path, file, err)}}
		}
		if spec.Models != nil {
			continue
		}
		models, err := khaosModels(sc, spec.Profile, f.Path, opt, log, &inlined)
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
func khaosModels(sc scenario.Scenario, profilePath, scenarioPath string, opt Inline, log io.Writer, cache *string) (string, error) {
	if profilePath != "" {
		path := profilePath
		if !filepath.IsAbs(path) && !exists(path) {
			path = filepath.Join(filepath.Dir(scenarioPath), profilePath)
		}
		m, _, err := ReadModels(path)
		if err != nil {
			return "", &SpecError{fmt.Errorf("policy.profile: %w (write it with `streamtwin profile SCENARIO`)", err)}
		}
		return m, nil
	}
	if *cache != "" {
		return *cache, nil
	}
	dir := filepath.Join(opt.Out, SubDir)
	hash, err := Hash(sc)
	if err != nil {
		return "", err
	}
	cached := filepath.Join(dir, ModelsFile)
	if m, h, err := ReadModels(cached); err == nil && h == hash {
		fmt.Fprintf(log, "khaos: using the profile in %s\n", dir)
		*cache = m
		return m, nil
	} else if err == nil {
		fmt.Fprintf(log, "khaos: %s was profiled on another job or input; profiling again\n", cached)
	}
	fmt.Fprintf(log, "khaos: no profile yet; profiling %s into %s (phases 1–3)\n", scenarioPath, dir)
	res, files, err := Into(sc, Config{}, dir)
	if err != nil {
		return "", err
	}
	if opt.Profiled != nil {
		opt.Profiled(res, files)
	}
	m, err := json.Marshal(res.Models)
	*cache = string(m)
	return *cache, err
}

// ReadModels reads a models.json written by Result.Write: the models as
// compact JSON (valid YAML, for policy.models) and the hash of what they
// were profiled on.
func ReadModels(path string) (models, hash string, err error) {
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

func exists(path string) bool { _, err := os.Stat(path); return err == nil }
