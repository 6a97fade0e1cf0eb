package validate

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/streamtwin/streamtwin/internal/calibrate"
	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/sim"
)

// ProtocolFile is the name of a dataset folder's protocol.
const ProtocolFile = "protocol.yaml"

// Protocol is a dataset's declared validation: its data, its base scenario
// and what is fitted on what. Paths are relative to the protocol's folder.
type Protocol struct {
	Dir   string `yaml:"-"` // the dataset folder
	Name  string `yaml:"-"` // the folder's name
	Title string `yaml:"title"`
	// Kind is recovery (the default: a measured table of failures),
	// autoscaler (long autoscaled runs: AutoscalerProtocol) or rescale (a
	// measured table of rescales: KindRescale).
	Kind string `yaml:"kind"`
	// Autoscaler is an autoscaler dataset's calibration and prediction.
	Autoscaler AutoscalerProtocol `yaml:"autoscaler"`
	// Source says where the measurements come from and under which licence.
	Source string `yaml:"source"`
	// Scenario is the base scenario (its job, Kafka and detection
	// settings); Variant picks one of its variants.
	Scenario string `yaml:"scenario"`
	Variant  string `yaml:"variant"`
	// Measured is the measured table (.csv or .parquet; a rescale
	// dataset's is the CSV of `streamtwin results rescales`).
	Measured string `yaml:"measured"`
	// BeforeCheckpoint is how long before a checkpoint each fault fired
	// (Khaos 3 s, Demeter 5 s).
	BeforeCheckpoint sim.Duration `yaml:"before_checkpoint"`
	// Settle and Horizon bound a point's run: steady load before the
	// fault, and the longest recovery simulated after it (calibrate's
	// defaults, 400 s and 1800 s, when 0).
	Settle  sim.Duration `yaml:"settle"`
	Horizon sim.Duration `yaml:"horizon"`
	// Fit are the parameters every fit has: the job's own costs and times.
	Fit []string `yaml:"fit"`
	// Mechanisms are optional parameters that join Fit only if they lower
	// the cross-validated error on the fitted points (Select).
	Mechanisms []string `yaml:"mechanisms"`
	// Spread are spread parameters (deploy_cv, restart_delay_cv,
	// catchup_cv) fitted after the rest, on the interval score of the 90 %
	// intervals (calibrate's spread stage): the twin's seeds then differ as
	// much as the measurements do. Optional; they need replications ≥ 2.
	Spread []string `yaml:"spread"`
	// Holdout keeps the rows whose Column has one of Values out of every
	// fit: the held-out error is the headline.
	Holdout struct {
		Column string   `yaml:"column"`
		Values []string `yaml:"values"`
	} `yaml:"holdout"`
	// CV cross-validates the whole table after the fit: ci, k=N or a
	// column whose values are left out one at a time (calibrate.ParseCV).
	CV string `yaml:"cv"`
	// Intervals is the number of seeds per point of the 90 % prediction
	// intervals (default 10; the fit itself uses one).
	Intervals int `yaml:"intervals"`
	// MaxEvaluations bounds each fit (calibrate's default when 0).
	MaxEvaluations int `yaml:"max_evaluations"`
	// OneRun, when set, also validates the job calibrated from a single
	// static run (OneRunResult): the scenario (relative to the protocol's
	// folder) and variant of that run, and its measured series
	// (StaticRun).
	OneRun OneRunProtocol `yaml:"one_run"`
	// Replications is the number of seeds whose mean a fitted point's
	// prediction is (default 3): the twin's random phases (checkpoint,
	// heartbeat) average out as they do over a series of measurements.
	Replications int `yaml:"replications"`
}

// OneRunProtocol is the static run a one-run validation calibrates on:
// the scenario that runs it (relative to the protocol's folder), its
// variant and its series.
type OneRunProtocol struct {
	Scenario  string `yaml:"scenario"`
	StaticRun `yaml:",inline"`
}

// Load reads dir's protocol file and checks it against the folder: the
// files exist, the parameters are known, the holdout column is one of the
// measured table's. Errors name the file, line and field.
func Load(dir string) (*Protocol, error) {
	path := filepath.Join(dir, ProtocolFile)
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no %s; a dataset folder holds a protocol file beside its measured table (docs/validation.md)", dir, ProtocolFile)
		}
		return nil, err
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, decode.Problems{decode.YAMLProblem(path, nil, err)}
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, decode.Problems{{File: path, Line: 1, Msg: "expected one YAML document: a mapping with title, scenario, measured, fit …"}}
	}
	p := &Protocol{Dir: dir, Name: filepath.Base(filepath.Clean(dir))}
	if err := decode.Strict(file.Docs[0].Body, p); err != nil {
		return nil, decode.Problems{decode.YAMLProblem(path, file, err)}
	}
	if errs := p.check(); len(errs) > 0 {
		return nil, decode.ProblemsAt(path, file, errs)
	}
	return p, nil
}

// check validates the protocol's fields (field → message).
func (p *Protocol) check() map[string]string {
	e := map[string]string{}
	files := map[string]string{"scenario": p.Scenario, "measured": p.Measured}
	fitted := p.Kind == "" || p.Kind == "recovery"
	switch p.Kind {
	case "", "recovery", KindRescale:
	case KindAutoscaler:
		delete(files, "measured")
		maps.Copy(files, p.Autoscaler.Calibrate.files("autoscaler.calibrate."))
		for i, r := range p.Autoscaler.Predict.Runs {
			files[fmt.Sprintf("autoscaler.predict.runs[%d]", i)] = r
		}
		for i, u := range p.Autoscaler.Calibrate.Upgrades {
			files[fmt.Sprintf("autoscaler.calibrate.upgrades[%d].task_managers", i)] = u.TaskManagers
			files[fmt.Sprintf("autoscaler.calibrate.upgrades[%d].throughput", i)] = u.Throughput
		}
		for i, l := range p.Autoscaler.Predict.Lag {
			files[fmt.Sprintf("autoscaler.predict.lag[%d]", i)] = l
		}
		if n := len(p.Autoscaler.Predict.Lag); n > 0 && n != len(p.Autoscaler.Predict.Runs) {
			e["autoscaler.predict.lag"] = fmt.Sprintf("one lag series per run, in their order: %d for %d runs", n, len(p.Autoscaler.Predict.Runs))
		}
		if len(p.Autoscaler.Predict.Runs) == 0 {
			e["autoscaler.predict.runs"] = "missing; the measured runs' TaskManager series (timestamp,value)"
		}
		if p.Autoscaler.Hold < 0 {
			e["autoscaler.hold"] = "must be ≥ 0s (0: 120s)"
		}
	default:
		e["kind"] = fmt.Sprintf("must be recovery, autoscaler or rescale, got %q", p.Kind)
	}
	for field, rel := range files {
		switch {
		case rel == "":
			e[field] = "missing; a path relative to the protocol's folder"
		default:
			if _, err := os.Stat(p.Path(rel)); err != nil {
				e[field] = fmt.Sprintf("%s: no such file", p.Path(rel))
			}
		}
	}
	if !fitted {
		return e
	}
	if o := p.OneRun; o != (OneRunProtocol{}) {
		need := o.files("one_run.")
		need["one_run.scenario"] = o.Scenario
		for field, rel := range need {
			if rel == "" {
				e[field] = "missing; a path relative to the protocol's folder (one_run needs the static run's scenario, and its CPU, throughput and TaskManager series)"
			} else if _, err := os.Stat(p.Path(rel)); err != nil {
				e[field] = fmt.Sprintf("%s: no such file", p.Path(rel))
			}
		}
	}
	if len(p.Fit) == 0 {
		e["fit"] = "missing; the parameters every fit has, e.g. [cost_scale, restart_delay]; choose from " + strings.Join(calibrate.ParamNames(), ", ")
	} else if _, err := calibrate.LookupParams(slices.Concat(p.Fit, p.Mechanisms, p.Spread)); err != nil {
		e["fit"] = strings.TrimPrefix(err.Error(), "--fit: ") + " (fit, mechanisms and spread)"
	}
	if ps, err := calibrate.LookupParams(p.Spread); err == nil {
		for _, q := range ps {
			if !q.Spread {
				e["spread"] = fmt.Sprintf("%s is no spread parameter; choose from deploy_cv, restart_delay_cv, catchup_cv", q.Name)
			}
		}
		if len(ps) > 0 && p.replications() < 2 {
			e["replications"] = "the spread parameters need at least 2 seeds per point (10 or more for a stable fit)"
		}
	}
	if p.Holdout.Column != "" {
		if _, ok := (calibrate.Point{}).Cell(p.Holdout.Column); !ok {
			e["holdout.column"] = fmt.Sprintf("%q is no column of a measured table (%s)", p.Holdout.Column, strings.Join(ingest.MeasuredColumns(), ", "))
		}
		if len(p.Holdout.Values) == 0 {
			e["holdout.values"] = "missing; the values of " + p.Holdout.Column + " to hold out, e.g. [3]"
		}
	}
	if p.CV != "" {
		if _, err := calibrate.ParseCV(p.CV); err != nil {
			e["cv"] = strings.TrimPrefix(err.Error(), "--cv: ")
		}
	}
	if p.Replications < 0 {
		e["replications"] = fmt.Sprintf("must be ≥ 1 seeds per point (0: 3), got %d", p.Replications)
	}
	if p.Intervals < 0 || p.Intervals == 1 {
		e["intervals"] = fmt.Sprintf("must be 0 (default 10) or at least 2 seeds per point, got %d", p.Intervals)
	}
	if p.BeforeCheckpoint < 0 || p.Settle < 0 || p.Horizon < 0 {
		e["before_checkpoint"] = "before_checkpoint, settle and horizon must be ≥ 0"
	}
	return e
}

// Path resolves a path of the protocol against its folder.
func (p *Protocol) Path(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(p.Dir, rel)
}

// intervals is the number of interval seeds per point.
func (p *Protocol) intervals() int { return cmp.Or(p.Intervals, 10) }

// replications is the number of seeds per fitted point.
func (p *Protocol) replications() int { return cmp.Or(p.Replications, 3) }

// position is where a field sits in the protocol file, for errors found
// after loading (a holdout value no row has).
func (p *Protocol) position(field string) string {
	path := filepath.Join(p.Dir, ProtocolFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return path
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return path
	}
	return fmt.Sprintf("%s:%d: %s", path, decode.LineOf((*ast.File)(file), field), field)
}
