package results

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestPythonCheckerMatchesSchema keeps tests/python/check_outputs.py in step
// with the Go types: it lists every column (with its DuckDB type), event kind
// and summary key by hand, since Python cannot read Go struct tags.
func TestPythonCheckerMatchesSchema(t *testing.T) {
	src, err := os.ReadFile("../tests/python/check_outputs.py")
	if err != nil {
		t.Fatal(err)
	}
	script := string(src)
	duck := map[reflect.Kind]string{reflect.Float64: "DOUBLE", reflect.Int32: "INTEGER", reflect.Int64: "BIGINT", reflect.String: "VARCHAR", reflect.Bool: "BOOLEAN"}
	for _, typ := range []reflect.Type{reflect.TypeFor[Sample](), reflect.TypeFor[Event](), reflect.TypeFor[TradeoffRow](), reflect.TypeFor[HostSample]()} {
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			want := fmt.Sprintf("%q: %q", name, duck[ft.Kind()])
			if !strings.Contains(script, want) {
				t.Errorf("check_outputs.py lacks %s (%s.%s)", want, typ.Name(), f.Name)
			}
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Summary](), reflect.TypeFor[QoSSummary]()} {
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue // not in summary.json
			}
			if !strings.Contains(script, strconv.Quote(name)) {
				t.Errorf("check_outputs.py lacks summary key %q (%s.%s)", name, typ.Name(), f.Name)
			}
		}
	}
	// Kind constants cannot be listed by reflection: read them from schema.go.
	file, err := parser.ParseFile(token.NewFileSet(), "schema.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := 0
	for _, d := range file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Kind") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					continue
				}
				kinds++
				if !strings.Contains(script, lit.Value) {
					t.Errorf("check_outputs.py EVENT_KINDS lacks %s (%s)", lit.Value, n.Name)
				}
			}
		}
	}
	if kinds == 0 {
		t.Error("found no Kind* constants in schema.go")
	}
}
