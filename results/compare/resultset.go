package compare

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
)

// ResultSet is one side of a comparison: runs with their figures.
type ResultSet struct {
	Path string
	Kind string // "run folder", "variants folder", "sweep", "reference", "summary file"
	Runs []SetRun
}

// SetRun is one run of a result set.
type SetRun struct {
	Key     string
	Backend string   // summary.json's backend ("sim" or "live"), "" when not given
	Figures []string // in canonical order
	Values  map[string]float64
	// Params identify a sweep row beyond its run_id (run_index, replication,
	// seed and the swept parameters); a mismatch is noted, not failed.
	Params     map[string]string
	ParamOrder []string
}

func (r *SetRun) add(name string, v float64) {
	if _, dup := r.Values[name]; dup {
		return
	}
	r.Figures = append(r.Figures, name)
	r.Values[name] = v
}

// LoadResultSet reads a result set from a run folder, a folder of run
// folders, a sweep folder, runs.parquet, or a summary or reference JSON file.
func LoadResultSet(path string) (*ResultSet, error) {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or folder", path)
		}
		return nil, err
	}
	if !st.IsDir() {
		if strings.HasSuffix(path, ".parquet") {
			return loadSweep(path)
		}
		return loadJSONSet(path)
	}
	if fileExists(filepath.Join(path, results.SummaryFile)) {
		r, err := loadSummaryRun(filepath.Join(path, results.SummaryFile), "")
		if err != nil {
			return nil, err
		}
		return &ResultSet{Path: path, Kind: "run folder", Runs: []SetRun{r}}, nil
	}
	if fileExists(filepath.Join(path, results.RunsFile)) {
		set, err := loadSweep(filepath.Join(path, results.RunsFile))
		if set != nil {
			set.Path = path
		}
		return set, err
	}
	dirs, err := results.RunSubfolders(path)
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s holds no results: no %s, no %s, no run folders (*/%s)", path, results.SummaryFile, results.RunsFile, results.SummaryFile)
	}
	set := &ResultSet{Path: path, Kind: "variants folder"}
	for _, d := range dirs {
		r, err := loadSummaryRun(filepath.Join(path, d, results.SummaryFile), d)
		if err != nil {
			return nil, err
		}
		set.Runs = append(set.Runs, r)
	}
	return set, nil
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

func loadSummaryRun(path, key string) (SetRun, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return SetRun{}, err
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return SetRun{}, fmt.Errorf("%s: not a summary: %w", path, err)
	}
	return summaryRun(path, key, obj)
}

// summaryRun flattens a decoded summary; an empty key becomes its variant,
// or its scenario.
func summaryRun(where, key string, obj map[string]any) (SetRun, error) {
	if obj == nil {
		return SetRun{}, fmt.Errorf("%s: a summary must be a JSON object", where)
	}
	if key == "" {
		v, _ := obj["variant"].(string)
		s, _ := obj["scenario"].(string)
		key = cmp.Or(v, s)
	}
	r := SetRun{Key: key, Values: map[string]float64{}}
	r.Backend, _ = obj["backend"].(string)
	var walk func(prefix string, o map[string]any)
	walk = func(prefix string, o map[string]any) {
		for k, v := range o {
			name := prefix + k
			switch v := v.(type) {
			case float64:
				if name != "seed" && name != cmpIgnored {
					r.add(name, v)
				}
			case map[string]any:
				walk(name+"_", v)
			}
		}
	}
	walk("", obj)
	if len(r.Figures) == 0 {
		return SetRun{}, fmt.Errorf("%s: not a summary (no numeric figures)", where)
	}
	sortFigures(r.Figures)
	return r, nil
}

// figureRank orders figures as Figures does; unknown ones go last, by name.
var figureRank = func() map[string]int {
	names, _ := results.Summary{}.Figures()
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}()

func sortFigures(names []string) {
	sort.SliceStable(names, func(i, j int) bool {
		ri, oki := figureRank[names[i]]
		rj, okj := figureRank[names[j]]
		switch {
		case oki && okj:
			return ri < rj
		case oki != okj:
			return oki
		default:
			return names[i] < names[j]
		}
	})
}

// loadJSONSet reads a summary.json-format file or a reference file.
func loadJSONSet(path string) (*ResultSet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("%s: neither a summary nor a reference file (JSON object expected): %w", path, err)
	}
	raw, isRef := top["runs"]
	if !isRef {
		var obj map[string]any
		json.Unmarshal(b, &obj)
		r, err := summaryRun(path, "", obj)
		if err != nil {
			return nil, err
		}
		return &ResultSet{Path: path, Kind: "summary file", Runs: []SetRun{r}}, nil
	}
	if f, ok := top["format"]; ok {
		var format string
		if json.Unmarshal(f, &format) != nil || format != ReferenceFormat {
			return nil, fmt.Errorf("%s: unknown reference format %s (this streamtwin reads %q)", path, f, ReferenceFormat)
		}
	}
	var runs map[string]map[string]any
	if err := json.Unmarshal(raw, &runs); err != nil {
		return nil, fmt.Errorf("%s: \"runs\" must map run names to summaries: %w", path, err)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: reference holds no runs", path)
	}
	keys := make([]string, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	set := &ResultSet{Path: path, Kind: "reference"}
	for _, k := range keys {
		r, err := summaryRun(fmt.Sprintf("%s: runs[%q]", path, k), k, runs[k])
		if err != nil {
			return nil, err
		}
		set.Runs = append(set.Runs, r)
	}
	return set, nil
}

// loadSweep reads runs.parquet: columns before the first summary figure are
// the row's identity (parameters), the rest are figures.
func loadSweep(path string) (*ResultSet, error) {
	t, err := results.ReadTable(path)
	if err != nil {
		return nil, err
	}
	ids, ok := t.Strings["run_id"]
	if !ok {
		return nil, fmt.Errorf("%s: not a runs table (no run_id column)", path)
	}
	first := -1
	for i, n := range t.Names {
		if _, known := figureRank[n]; known {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, fmt.Errorf("%s: no summary figures in the runs table", path)
	}
	set := &ResultSet{Path: path, Kind: "sweep"}
	seen := map[string]bool{}
	for i := 0; i < t.Rows; i++ {
		id := ids[i]
		if seen[id] {
			return nil, fmt.Errorf("%s: run_id %q appears twice", path, id)
		}
		seen[id] = true
		r := SetRun{Key: id, Values: map[string]float64{}, Params: map[string]string{}}
		for j, n := range t.Names {
			if n == "run_id" || n == cmpIgnored {
				continue
			}
			col, numeric := t.Floats[n]
			if j < first || !numeric {
				v := ""
				if numeric {
					v = strconv.FormatFloat(col[i], 'g', -1, 64)
				} else {
					v = t.Strings[n][i]
				}
				r.Params[n] = v
				r.ParamOrder = append(r.ParamOrder, n)
				continue
			}
			r.add(n, col[i])
		}
		sortFigures(r.Figures)
		set.Runs = append(set.Runs, r)
	}
	if len(set.Runs) == 0 {
		return nil, fmt.Errorf("%s: the runs table has no rows", path)
	}
	return set, nil
}
