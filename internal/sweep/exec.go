package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
)

// ParamsFile records, in every run folder, which run of which sweep it is.
const ParamsFile = "params.json"

// Options control one execution of a sweep.
type Options struct {
	Out      string
	Workers  int       // default: number of cores
	Resume   bool      // skip completed runs of an existing sweep folder
	Progress io.Writer // progress bar target; nil for none
}

// Report says what an execution did.
type Report struct {
	Total, Done, Skipped int // runs of this shard; run now; already complete
	Failed               []error
	Interrupted          bool
	Wall                 time.Duration
}

type paramsJSON struct {
	RunID       string               `json:"run_id"`
	Index       int                  `json:"run_index"`
	Replication int                  `json:"replication"`
	Seed        uint64               `json:"seed"`
	Params      []results.ParamValue `json:"params"`
}

// Execute runs the sweep's runs of its shard into opt.Out and writes
// runs.parquet. Cancelling ctx lets the running runs finish, writes
// runs.parquet of what is complete and returns with Interrupted set.
func Execute(ctx context.Context, s *Spec, opt Options) (Report, error) {
	start := time.Now()
	if opt.Workers < 1 {
		opt.Workers = 1
	}
	var mine []Run
	for _, r := range s.Runs() {
		if r.Index%s.Shard.N == s.Shard.I {
			mine = append(mine, r)
		}
	}
	rep := Report{Total: len(mine)}
	runsDir := filepath.Join(opt.Out, "runs")
	if _, err := os.Stat(runsDir); err == nil && !opt.Resume {
		return rep, &results.RefusedError{Dir: opt.Out, Why: "it already holds a sweep; add --resume to continue it, or choose another --out"}
	}
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return rep, err
	}
	spec, err := os.ReadFile(s.Path)
	if err != nil {
		return rep, err
	}
	if err := results.WriteFileAtomic(filepath.Join(opt.Out, "sweep.yaml"), spec); err != nil {
		return rep, err
	}

	var todo []Run
	for _, r := range mine {
		done, err := complete(runsDir, r)
		if err != nil {
			return rep, err
		}
		if done {
			rep.Skipped++
		} else {
			todo = append(todo, r)
		}
	}
	bar := newBar(opt.Progress, len(mine), rep.Skipped)
	jobs := make(chan Run)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				err := runOne(s, runsDir, r)
				mu.Lock()
				if err != nil {
					rep.Failed = append(rep.Failed, fmt.Errorf("%s %v: %w", r.ID, r.Params, err))
				} else {
					rep.Done++
				}
				mu.Unlock()
				if bar != nil {
					bar.Add(1)
				}
			}
		}()
	}
feed:
	for _, r := range todo {
		select {
		case <-ctx.Done():
			rep.Interrupted = true
			break feed
		case jobs <- r:
		}
	}
	close(jobs)
	wg.Wait()
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(opt.Progress)
	}
	if err := Collect(filepath.Join(opt.Out, results.RunsFile), []string{opt.Out}); err != nil {
		return rep, err
	}
	rep.Wall = time.Since(start)
	return rep, nil
}

func newBar(w io.Writer, total, done int) *progressbar.ProgressBar {
	if w == nil {
		return nil
	}
	bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("sweep"),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("runs"),
		progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetWidth(30))
	bar.Set(done)
	return bar
}

// runOne simulates one run into its folder and records its parameters.
func runOne(s *Spec, runsDir string, r Run) error {
	sc, err := s.RunScenario(r)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(paramsJSON{r.ID, r.Index, r.Replication, r.Seed, r.Params}, "", "  ")
	if err != nil {
		return err
	}
	// params.json comes with the run folder, unsynced like the rest of a
	// sweep run (results.RunWriter.SkipSync)
	_, err = run.ToDir(context.Background(), twin.Backend{}, sc, filepath.Join(runsDir, r.ID), run.Output{Files: map[string][]byte{ParamsFile: append(b, '\n')}})
	return err
}

// complete reports whether r's folder holds a finished run of this very
// run (a folder of a different run under the same id is an error: the
// sweep file changed).
func complete(runsDir string, r Run) (bool, error) {
	dir := filepath.Join(runsDir, r.ID)
	b, err := os.ReadFile(filepath.Join(dir, ParamsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var p paramsJSON
	if err := json.Unmarshal(b, &p); err != nil {
		return false, nil // unreadable (e.g. cut short by a power loss): run it again
	}
	want, _ := json.Marshal(paramsJSON{r.ID, r.Index, r.Replication, r.Seed, r.Params})
	got, _ := json.Marshal(p)
	if string(want) != string(got) {
		return false, fmt.Errorf("%s was run with other parameters (%s); the sweep file changed since — use a new --out", dir, got)
	}
	// every file the run wrote is there, with its size and hash (a resumed
	// sweep reruns a run whose parquet was deleted or cut short)
	return results.VerifyRun(dir) == nil, nil
}

// Collect writes runs.parquet at path from the completed run folders of
// the given sweep folders (one for a sweep, several shards for a merge),
// ordered by run index. The same runs give the same bytes however they
// were executed. It reads params.json first (to type the columns) and then
// streams one summary at a time, so memory stays flat.
func Collect(path string, sweepDirs []string) error {
	type entry struct {
		index int
		dir   string
	}
	var entries []entry
	var names []string
	numeric := map[string]bool{}
	seen := map[string]string{}
	for _, d := range sweepDirs {
		files, err := filepath.Glob(filepath.Join(d, "runs", "*", ParamsFile))
		if err != nil {
			return err
		}
		for _, f := range files {
			dir := filepath.Dir(f)
			if strings.HasSuffix(dir, results.ScratchSuffix) {
				continue // a run being written, or a killed one's leftover
			}
			if _, err := os.Stat(filepath.Join(dir, results.SummaryFile)); err != nil {
				continue // not finished
			}
			p, raw, err := readParams(f)
			if err != nil {
				return err
			}
			if prev, ok := seen[p.RunID]; ok {
				if prev != raw {
					return fmt.Errorf("run %s appears in two sweeps with different parameters (%s)", p.RunID, dir)
				}
				continue
			}
			seen[p.RunID] = raw
			if names == nil {
				for _, x := range p.Params {
					names = append(names, x.Name)
					numeric[x.Name] = true
				}
			}
			for _, x := range p.Params {
				numeric[x.Name] = numeric[x.Name] && x.IsNumber
			}
			entries = append(entries, entry{p.Index, dir})
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].index < entries[j].index })
	i := 0
	return results.StreamRunsTable(path, names, numeric, func() (results.RunRecord, bool, error) {
		if i == len(entries) {
			return results.RunRecord{}, false, nil
		}
		dir := entries[i].dir
		i++
		p, _, err := readParams(filepath.Join(dir, ParamsFile))
		if err != nil {
			return results.RunRecord{}, false, err
		}
		sum, err := results.ReadSummary(dir)
		if err != nil {
			return results.RunRecord{}, false, err
		}
		return results.RunRecord{RunID: p.RunID, Index: p.Index, Replication: p.Replication, Seed: p.Seed, Params: p.Params, Summary: sum}, true, nil
	})
}

func readParams(path string) (paramsJSON, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return paramsJSON{}, "", err
	}
	var p paramsJSON
	if err := json.Unmarshal(b, &p); err != nil {
		return p, "", fmt.Errorf("%s: %w", path, err)
	}
	return p, string(b), nil
}
