package check

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/streamtwin/streamtwin/internal/profile"
	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/compare"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// Options are what Run does.
type Options struct {
	// List is the list file; "" checks the default set (DefaultList of Root).
	List string
	// Root is the folder the default set is found in ("" is ".").
	Root string
	// Policy is the policy under test (ParsePolicy: YAML or @FILE), swapped
	// into every run; "" keeps each scenario's and variant's own.
	Policy string
	// Update rewrites the references from the runs instead of comparing.
	Update bool
	// Out keeps the run folders there (Out/<entry name>[/<variant>]);
	// "" runs into a temporary folder that is removed.
	Out string
	// Workers is how many scenarios run at once (0: one per core).
	Workers int
	// Progress gets one line per scenario as it finishes (nil: none).
	Progress io.Writer
}

// Run runs every scenario of the list, with the policy under test if one
// is given, and compares each run's QoS figures with its reference
// (Report.Worse says what got worse) or, with Update, rewrites the
// references. Problems of the input, found before anything runs, are
// *InputError.
func Run(opt Options) (*Report, error) {
	rep := &Report{List: opt.List, Update: opt.Update, Out: opt.Out}
	var err error
	if opt.Policy != "" {
		if rep.Policy, err = ParsePolicy(opt.Policy); err != nil {
			return nil, err
		}
	}
	var list *List
	if opt.List != "" {
		list, err = LoadList(opt.List)
	} else {
		list, err = DefaultList(cmp.Or(opt.Root, "."))
	}
	if err != nil {
		return nil, err
	}
	rep.Skipped = list.Skipped
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, len(list.Entries))
	jobs := make([]*job, len(list.Entries))
	for i, e := range list.Entries {
		if jobs[i], err = prepare(e, rep.Policy, opt.Update, workers); err != nil {
			return nil, err
		}
	}

	out := opt.Out
	if out == "" {
		if out, err = os.MkdirTemp("", "streamtwin-check-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(out)
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	progress := opt.Progress
	if progress == nil {
		progress = io.Discard
	}
	var mu sync.Mutex
	done := 0
	next := make(chan *job)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				start := time.Now()
				j.err = j.run(filepath.Join(out, j.entry.Name), rep.Policy != "", opt.Update)
				j.res.Wall = time.Since(start)
				mu.Lock()
				done++
				fmt.Fprintf(progress, "check: [%d/%d] %s\n", done, len(jobs), j.progress())
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()

	var errs []error
	for _, j := range jobs {
		if j.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", j.entry.Name, j.err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...) // with Update, nothing is written
	}
	for _, j := range jobs {
		if opt.Update {
			if err := j.write(); err != nil {
				return nil, err
			}
		}
		rep.Entries = append(rep.Entries, j.res)
	}
	return rep, nil
}

// job is one entry: its resolved runs, then what running them gave.
type job struct {
	entry Entry
	file  *scenario.File
	runs  []scenario.Scenario
	ref   *compare.ResultSet // nil with Update
	tol   compare.Tolerances
	sums  []results.Summary // with Update
	res   EntryReport
	err   error
}

// prepare reads everything an entry needs before anything runs: the
// scenario, its runs (with the policy swapped in), the reference and the
// tolerances. Every problem is an *InputError.
func prepare(e Entry, pol string, update bool, workers int) (*job, error) {
	data, err := os.ReadFile(e.Scenario)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, e.problem("scenario", fmt.Sprintf("file %s not found", e.Scenario))
	} else if err != nil {
		return nil, inputErr(err)
	}
	f, err := scenario.Parse(e.Scenario, data)
	if err != nil {
		return nil, inputErr(err)
	}
	j := &job{entry: e, file: f, res: EntryReport{Name: e.Name, Reference: e.Reference}}
	all := f.Runs()
	if len(e.Variants) == 0 {
		j.runs = all
	}
	for _, v := range e.Variants {
		i := slices.IndexFunc(all, func(sc scenario.Scenario) bool { return sc.Variant == v })
		if i < 0 {
			var have []string
			for _, sc := range f.Variants {
				have = append(have, sc.Variant)
			}
			return nil, e.problem("variants", fmt.Sprintf("%s has no variant %q (variants: %s)", e.Scenario, v, strings.Join(have, ", ")))
		}
		j.runs = append(j.runs, all[i])
	}
	if pol != "" {
		for i, sc := range j.runs {
			swapped, err := scenario.ParseRun(e.Scenario, data, sc.Variant, []scenario.Set{{Path: "policy", Value: pol}})
			var se *scenario.SetError
			switch {
			case errors.As(err, &se):
				return nil, inputErr(fmt.Errorf("--policy in %s: %v", runLabel(e.Scenario, sc.Variant), se.Err))
			case err != nil:
				return nil, inputErr(fmt.Errorf("--policy in %s: %w", runLabel(e.Scenario, sc.Variant), err))
			}
			j.runs[i] = swapped
		}
	}
	for _, sc := range j.runs {
		if err := sc.Estimate().CheckMemory(e.Scenario, workers, scenario.DefaultMaxMemory()); err != nil {
			return nil, inputErr(err)
		}
		j.res.Runs = append(j.res.Runs, runKey(sc))
	}
	if update {
		return j, nil
	}

	if !isFile(e.Reference) {
		return nil, e.problem("reference", fmt.Sprintf("file %s not found: create it with streamtwin check --update%s", e.Reference, listFlag(e)))
	}
	if j.ref, err = compare.LoadResultSet(e.Reference); err != nil {
		return nil, e.problem("reference", err.Error())
	}
	if j.ref, err = matchRuns(j.ref, j.res.Runs, len(e.Variants) > 0); err != nil {
		return nil, e.problem("reference", fmt.Sprintf("%v; if the scenario changed on purpose, refresh the reference with streamtwin check --update%s", err, listFlag(e)))
	}
	j.res.Tolerance = e.toleranceFile()
	j.tol = compare.DefaultTolerances()
	if j.res.Tolerance != "" {
		if j.tol, err = compare.LoadTolerances(j.res.Tolerance); err != nil {
			return nil, inputErr(err)
		}
	}
	return j, nil
}

// matchRuns is the reference's runs that go with the run keys: all of
// them, and no other unless subset (the list names variants).
func matchRuns(ref *compare.ResultSet, keys []string, subset bool) (*compare.ResultSet, error) {
	var have []string
	for _, r := range ref.Runs {
		have = append(have, r.Key)
	}
	var missing []string
	kept := *ref
	kept.Runs = nil
	for _, k := range keys {
		i := slices.IndexFunc(ref.Runs, func(r compare.SetRun) bool { return r.Key == k })
		if i < 0 {
			missing = append(missing, k)
			continue
		}
		kept.Runs = append(kept.Runs, ref.Runs[i])
	}
	var extra []string
	if !subset {
		for _, h := range have {
			if !slices.Contains(keys, h) {
				extra = append(extra, h)
			}
		}
	}
	switch {
	case len(missing) > 0 && len(extra) > 0:
		return nil, fmt.Errorf("the reference %s has runs %s; the scenario runs %s", ref.Path, strings.Join(have, ", "), strings.Join(keys, ", "))
	case len(missing) > 0:
		return nil, fmt.Errorf("the reference %s has no run %s (it has %s)", ref.Path, strings.Join(missing, ", "), strings.Join(have, ", "))
	case len(extra) > 0:
		return nil, fmt.Errorf("the reference %s has runs the scenario no longer has: %s", ref.Path, strings.Join(extra, ", "))
	}
	return &kept, nil
}

// run runs the job's scenarios into dir (one folder per variant) and
// compares them with the reference, or keeps their summaries for Update.
func (j *job) run(dir string, swapped, update bool) error {
	runs := j.runs
	if !swapped {
		// the scenario's own Khaos policy gets its models as in
		// streamtwin run (profiled into dir/profile when needed)
		var err error
		if runs, err = profile.InlineModels(j.file, slices.Clone(runs), profile.Inline{Out: dir}); err != nil {
			var se *profile.SpecError
			if errors.As(err, &se) {
				return inputErr(err)
			}
			return err
		}
	}
	fresh := &compare.ResultSet{Path: dir, Kind: "run folder"}
	if len(j.file.Variants) > 0 {
		fresh.Kind = "variants folder"
	}
	for _, sc := range runs {
		rdir := dir
		if sc.Variant != "" {
			rdir = filepath.Join(dir, sc.Variant)
		}
		sum, err := run.ToDir(context.Background(), twin.Backend{}, sc, rdir, run.Output{})
		if err != nil {
			return fmt.Errorf("%s: %w", runLabel(j.entry.Scenario, sc.Variant), err)
		}
		if update {
			j.sums = append(j.sums, sum)
			continue
		}
		set, err := compare.LoadResultSet(rdir)
		if err != nil {
			return err
		}
		fresh.Runs = append(fresh.Runs, set.Runs...)
	}
	if update {
		return nil
	}
	c, err := compare.Compare(j.ref, fresh, j.tol)
	if err != nil {
		return err
	}
	j.res.Rows = qosRows(j.entry.Name, j.res.Runs, len(j.file.Variants) > 0, c)
	return nil
}

// write rewrites the job's reference, atomically: the runs just made and,
// when the list names variants, the reference's other runs as they were.
func (j *job) write() error {
	e := j.entry
	ref := compare.Reference{Scenario: j.file.Base.Name, Source: e.Source, Runs: map[string]results.Summary{}}
	if len(e.Variants) > 0 {
		if b, err := os.ReadFile(e.Reference); err == nil {
			var old compare.Reference
			if json.Unmarshal(b, &old) == nil {
				maps.Copy(ref.Runs, old.Runs)
			}
		}
	}
	for _, s := range j.sums {
		ref.Runs[s.Key()] = s
	}
	if err := os.MkdirAll(filepath.Dir(e.Reference), 0o755); err != nil {
		return err
	}
	if err := compare.WriteReference(e.Reference, ref); err != nil {
		return err
	}
	j.res.Written = len(j.sums)
	return nil
}

// progress is the job's line on the progress writer.
func (j *job) progress() string {
	s := fmt.Sprintf("%s: %s in %.2f s", j.entry.Name, plural(len(j.runs), "run"), j.res.Wall.Seconds())
	switch {
	case j.err != nil:
		return s + ": failed: " + strings.ReplaceAll(j.err.Error(), "\n", "; ")
	case j.ref == nil: // update
		return s
	}
	var worse, better int
	for _, r := range j.res.Rows {
		switch r.Verdict {
		case Worse:
			worse++
		case Better:
			better++
		}
	}
	return s + fmt.Sprintf(": %d worse, %d better", worse, better)
}

// runKey is how a run is keyed in a reference: its variant, or the
// scenario's name (results.Summary.Key of its summary).
func runKey(sc scenario.Scenario) string { return cmp.Or(sc.Variant, sc.Name) }

func runLabel(path, variant string) string {
	if variant == "" {
		return path
	}
	return path + " variant " + variant
}

// listFlag is the --list of e's list, to repeat in a hint.
func listFlag(e Entry) string {
	if e.list == nil || e.list.Path == "" {
		return ""
	}
	return " --list " + e.list.Path
}

func plural(n int, what string) string { return textfmt.Plural(n, what) }
