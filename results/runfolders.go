package results

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Folders of run folders: the output of a scenario with variants, or a
// sweep's runs/, as the comparison, evaluation and figure layers read them.

// RunSubfolders lists the sub-folders of dir that hold a summary.json,
// sorted; hidden (temporary) folders are skipped.
func RunSubfolders(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && fileExists(filepath.Join(dir, e.Name(), SummaryFile)) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// Key is how a single summary is keyed: its variant, or its scenario
// name when it has none.
func (s Summary) Key() string { return cmp.Or(s.Variant, s.Scenario) }

// outputPatterns are the files streamtwin's commands write beside or
// around run folders, by the command that writes them (file name patterns
// as filepath.Match takes them; a figure pattern without an extension
// stands for its .png, .svg and .pdf). A folder that holds only these, run
// folders and sweep folders is streamtwin's, and a refusal to write a run
// into it says what it is (inspectOut).
var outputPatterns = []struct{ command, pattern string }{
	{"sweep", "sweep.yaml"}, {"results merge", RunsFile},
	{"results summarize", "stats.parquet"}, {"results summarize", "stats-by-*.parquet"},
	{"evaluate", "evaluation.md"}, {"evaluate", "failures.csv"}, {"evaluate", "variants.csv"}, {"evaluate", "evaluation-*"},
	{"evaluate", "scaling.md"}, {"evaluate", "scaling.csv"}, {"evaluate", "scaling-runs.csv"}, {"evaluate", "scaling-*"},
	{"plot", "figure-*"}, {"plot", "latency-*"},
	// internal/profile: PointsFile, ProfilingFile, ModelsFile and its figures
	{"profile", "failure_points.csv"}, {"profile", "profiling.parquet"}, {"profile", "models.json"},
	{"profile", "recovery_model"}, {"profile", "latency_model"},
}

var figureExts = map[string]bool{".png": true, ".svg": true, ".pdf": true}

// outputOf names the command that writes a file of this name, "" if none.
func outputOf(name string) string {
	for _, o := range outputPatterns {
		if ok, _ := filepath.Match(o.pattern, name); ok {
			return o.command
		}
		if ext := filepath.Ext(name); figureExts[ext] && !strings.Contains(o.pattern, ".") {
			if ok, _ := filepath.Match(o.pattern, strings.TrimSuffix(name, ext)); ok {
				return o.command
			}
		}
	}
	return ""
}

// folderContents sorts what a folder holds into what streamtwin wrote
// there, by kind, and the rest.
type folderContents struct {
	sweep      []string            // sweep.yaml, runs.parquet, runs/
	runFolders []string            // run folders, and folders of them
	outputs    map[string][]string // command → the files of it
	commands   []string            // the keys of outputs, in the order met
	unknown    []string            // what streamtwin did not write
}

// contentsOf sorts the entries of dir. depth bounds how far folders of
// folders are followed (check --out: OUT/<scenario>/<variant>).
func contentsOf(dir string, entries []os.DirEntry, depth int) folderContents {
	c := folderContents{outputs: map[string][]string{}}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case e.IsDir() && (strings.HasSuffix(name, ScratchSuffix) || strings.HasSuffix(name, oldSuffix)):
			// a killed writer's leftover, removed by the next run there
		case !e.IsDir() && strings.HasSuffix(name, ".lock") && emptyFile(path):
			// the lock of a writer of a sibling folder
		case e.IsDir() && name == "runs" && (names["sweep.yaml"] || names[RunsFile]):
			c.sweep = append(c.sweep, name+"/")
		case e.IsDir() && isRunFolder(path):
			c.runFolders = append(c.runFolders, name)
		case e.IsDir() && depth > 0 && ownFolder(path, depth-1):
			c.runFolders = append(c.runFolders, name)
		case !e.IsDir() && (name == "sweep.yaml" || name == RunsFile) && (names["runs"] || names["sweep.yaml"]):
			c.sweep = append(c.sweep, name)
		case !e.IsDir() && outputOf(name) != "":
			cmd := outputOf(name)
			if c.outputs[cmd] == nil {
				c.commands = append(c.commands, cmd)
			}
			c.outputs[cmd] = append(c.outputs[cmd], name)
		case e.IsDir() && name == "profile" && ownFolder(path, 0):
			c.outputs["profile"] = append(c.outputs["profile"], name+"/")
			if len(c.outputs["profile"]) == 1 {
				c.commands = append(c.commands, "profile")
			}
		default:
			c.unknown = append(c.unknown, name)
		}
	}
	return c
}

// isRunFolder tells a folder a run wrote: it has the marker, or, written
// before markers, a summary and a timeseries.
func isRunFolder(dir string) bool {
	return fileExists(filepath.Join(dir, markerFile)) ||
		fileExists(filepath.Join(dir, SummaryFile)) && fileExists(filepath.Join(dir, TimeseriesFile))
}

// ownFolder tells a non-empty folder that holds only what streamtwin writes.
func ownFolder(dir string, depth int) bool {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return false
	}
	c := contentsOf(dir, entries, depth)
	return len(c.unknown) == 0 && c.what() != ""
}

func emptyFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() == 0
}

// what says what streamtwin wrote into the folder, e.g. "a sweep folder
// streamtwin wrote (runs/, runs.parquet, sweep.yaml)"; "" if nothing.
func (c folderContents) what() string {
	var parts []string
	switch {
	case len(c.sweep) > 0:
		parts = append(parts, "a sweep folder streamtwin wrote ("+shortList(c.sweep, 3)+")")
		if len(c.runFolders) > 0 {
			parts = append(parts, "run folders ("+shortList(c.runFolders, 3)+")")
		}
	case len(c.runFolders) > 0:
		parts = append(parts, "a folder of run folders streamtwin wrote ("+shortList(c.runFolders, 3)+")")
	}
	for _, cmd := range c.commands {
		files := shortList(c.outputs[cmd], 3)
		switch {
		case cmd == "profile" && len(parts) == 0:
			parts = append(parts, "a Khaos profile folder streamtwin wrote (streamtwin profile: "+files+")")
		case cmd == "profile":
			parts = append(parts, "a Khaos profile ("+files+")")
		case len(parts) == 0:
			parts = append(parts, "what streamtwin "+cmd+" writes ("+files+")")
		default:
			parts = append(parts, "the output of streamtwin "+cmd+" ("+files+")")
		}
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return parts[0] + " with " + strings.Join(parts[1:], " and ")
}

// shortList lists names, at most n and how many more.
func shortList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(", … (%d more)", len(names)-n)
}
