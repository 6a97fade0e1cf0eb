package house

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	module   = "github.com/streamtwin/streamtwin/"
	maxFile  = 800 // lines of a non-test Go file
	maxFunc  = 120 // lines of a function body, braces included
	maxNames = 60  // exported package-level names of results
)

// goFile is one parsed Go file of the module.
type goFile struct {
	path string // slash-separated, relative to the module root
	test bool
	fset *token.FileSet
	ast  *ast.File
}

// moduleFiles parses every Go file of the module (testdata, hidden folders
// and the Python virtualenv left out).
func moduleFiles(t *testing.T) []goFile {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []goFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, goFile{path: filepath.ToSlash(rel), test: strings.HasSuffix(p, "_test.go"), fset: fset, ast: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("found only %d Go files under %s: is the module root two folders up?", len(out), root)
	}
	return out
}

// TestSizes: no non-test file above maxFile lines and no function (or
// function literal) above maxFunc: split by topic, or into named steps.
func TestSizes(t *testing.T) {
	for _, f := range moduleFiles(t) {
		if f.test {
			continue
		}
		if n := f.fset.File(f.ast.Pos()).LineCount(); n > maxFile {
			t.Errorf("%s: %d lines, at most %d: split it by topic into files named for what they hold", f.path, n, maxFile)
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			var body *ast.BlockStmt
			name := "a function literal"
			switch x := n.(type) {
			case *ast.FuncDecl:
				body, name = x.Body, x.Name.Name
			case *ast.FuncLit:
				body = x.Body
			}
			if body != nil {
				from, to := f.fset.Position(body.Lbrace).Line, f.fset.Position(body.Rbrace).Line
				if to-from+1 > maxFunc {
					t.Errorf("%s:%d: %s has %d lines, at most %d: split it into named steps", f.path, from, name, to-from+1, maxFunc)
				}
			}
			return true
		})
	}
}

// TestResultsExports: results holds the run-folder schema and its IO;
// printing, statistics, measurements and imports live beside it.
func TestResultsExports(t *testing.T) {
	var names []string
	for _, f := range moduleFiles(t) {
		if f.test || filepath.Dir(f.path) != "results" {
			continue
		}
		for _, d := range f.ast.Decls {
			switch x := d.(type) {
			case *ast.FuncDecl:
				if x.Recv == nil && x.Name.IsExported() {
					names = append(names, x.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range x.Specs {
					switch y := s.(type) {
					case *ast.TypeSpec:
						if y.Name.IsExported() {
							names = append(names, y.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range y.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	if len(names) < 20 {
		t.Fatalf("found only %d exported names in results: %v", len(names), names)
	}
	if len(names) > maxNames {
		slices.Sort(names)
		t.Errorf("results exports %d names, at most %d: give what is not the run-folder schema or its IO a package of its own (%v)", len(names), maxNames, names)
	}
}

// TestImportsFlowOneWay: models/ is the simulated system and the
// policies, not run machinery; the live backend never imports the
// simulator, also not in its tests (its fakes are its own).
func TestImportsFlowOneWay(t *testing.T) {
	rules := []struct {
		under     string
		tests     bool // the rule covers test files too
		forbidden []string
	}{
		{"models/", false, []string{"internal/", "live", "app", "cmd/"}},
		{"live/", true, []string{"internal/twin", "models/flink", "models/kafka"}},
		{"results/", false, []string{"internal/", "live", "app", "cmd/"}},
	}
	checked := 0
	for _, f := range moduleFiles(t) {
		for _, r := range rules {
			if !strings.HasPrefix(f.path, r.under) || (f.test && !r.tests) {
				continue
			}
			checked++
			for _, imp := range f.ast.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				own, ok := strings.CutPrefix(path, module)
				if !ok {
					continue
				}
				for _, bad := range r.forbidden {
					if own == bad || strings.HasPrefix(own, strings.TrimSuffix(bad, "/")+"/") {
						if own == "internal/decode" || own == "internal/suggest" || own == "internal/jsonproc" {
							continue // leaf helpers every layer may use
						}
						t.Errorf("%s imports %s: nothing under %s may import %s", f.path, own, r.under, bad)
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files", checked)
	}
}

// TestOneCallSite: a run's policy is built, its capabilities checked and
// its folder created in one place each (the run lifecycle, internal/run);
// tests and the policy package itself aside.
func TestOneCallSite(t *testing.T) {
	want := map[string][]string{
		"policy.New":        {"internal/run/run.go"},
		"control.Check":     {"internal/run/run.go"},
		"results.CreateRun": {"internal/run/folder.go", "results/resultstest/resultstest.go"},
	}
	got := map[string][]string{}
	for _, f := range moduleFiles(t) {
		if f.test {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			name := pkg.Name + "." + sel.Sel.Name
			if _, counted := want[name]; counted && !slices.Contains(got[name], f.path) {
				got[name] = append(got[name], f.path)
			}
			return true
		})
	}
	for name, files := range want {
		slices.Sort(got[name])
		if !slices.Equal(got[name], files) {
			t.Errorf("%s is called in %v, want only %v: go through internal/run (run.NewPolicy, run.Prepare, run.ToDir)", name, got[name], files)
		}
	}
}

// TestDocGo: every package has a doc.go saying its one job.
func TestDocGo(t *testing.T) {
	dirs := map[string]bool{}
	for _, f := range moduleFiles(t) {
		if !f.test {
			dirs[filepath.Dir(filepath.FromSlash(f.path))] = true
		}
	}
	for dir := range dirs {
		if _, err := os.Stat(filepath.Join("..", "..", dir, "doc.go")); err != nil {
			t.Errorf("%s: no doc.go: write one that says what the package is for", filepath.ToSlash(dir))
		}
	}
}
