package ingest

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

var (
	tableKnown    = []string{"a", "b", "c"}
	tableRequired = []string{"a", "b"}
)

// readTable reads src with ReadCSVTable and returns the rows as
// "line:col=cell,..." in column order a, b, c.
func readTable(src string) ([]string, error) {
	var rows []string
	err := ReadCSVTable("t.csv", strings.NewReader(src), tableKnown, tableRequired, func(line int, cells map[string]string) error {
		if cells["a"] == "bad" {
			return errors.New("a: bad cell")
		}
		var kv []string
		for _, c := range tableKnown {
			if v, ok := cells[c]; ok {
				kv = append(kv, c+"="+v)
			}
		}
		rows = append(rows, fmt.Sprintf("%d:%s", line, strings.Join(kv, ",")))
		return nil
	})
	return rows, err
}

func TestReadCSVTable(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"plain", "a,b\n1,2\n3,4\n", []string{"2:a=1,b=2", "3:a=3,b=4"}},
		{"any order, optional column", "c,b,a\nz,2,1\n", []string{"2:a=1,b=2,c=z"}},
		{"empty cells", "a,b,c\n,,\n", []string{"2:a=,b=,c="}},
		{"comments and blank lines", "# made by hand\n\na,b\n# first\n1,2\n\n   \n3,4\n", []string{"5:a=1,b=2", "8:a=3,b=4"}},
		{"spaces trimmed", " a , b \n 1 , x y \n", []string{"2:a=1,b=x y"}},
		{"BOM", "\ufeffa,b\n1,2\n", []string{"2:a=1,b=2"}},
		{"quoted cell", "a,b\n\"1,5\",\"say \"\"hi\"\"\"\n", []string{`2:a=1,5,b=say "hi"`}},
		{"no final newline", "a,b\n1,2", []string{"2:a=1,b=2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readTable(c.src)
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, %v\nwant %q", got, err, c.want)
			}
		})
	}
}

func TestReadCSVTableErrors(t *testing.T) {
	const hint = "(the table needs a, b; optional c)"
	cases := []struct{ name, src, want string }{
		{"empty file", "", "t.csv: no rows: the file is empty; the first line must be the header " + hint},
		{"only comments", "# nothing\n\n", "t.csv: no rows: the file is empty"},
		{"no rows", "a,b\n# nothing yet\n", "t.csv: no rows after the header"},
		{"data first", "1,2\n", `t.csv:1: the first line must be the header, got data "1,2" ` + hint},
		{"unknown column", "# c\na,b,d\n", `t.csv:2: unknown column "d" (known: a, b, c; names are case sensitive)`},
		{"case", "A,b\n", `t.csv:1: unknown column "A"`},
		{"duplicate column", "a,b,a\n", "t.csv:1: column a appears twice"},
		{"duplicate after trimming", "a, b,b \n", "t.csv:1: column b appears twice"},
		{"missing column", "\n# c\na,c\n", "t.csv:3: missing column b " + hint},
		{"too few fields", "a,b,c\n1,2,3\n1,2\n", "t.csv:3: 2 fields, but the header has 3 (a,b,c)"},
		{"too many fields", "a,b\n# c\n1,2,3\n", "t.csv:3: 3 fields, but the header has 2 (a,b)"},
		{"row error", "a,b\n1,2\n\nbad,2\n", "t.csv:4: a: bad cell"},
		// an unclosed quote: the column is where the csv reader gave up
		{"bad quote", "a,b\n1,\"2\n", `extraneous or missing " in quoted-field (comma-separated values;`},
		{"bad quote line", "a,b\n1,\"2\n", "t.csv:2:"},
		{"bare quote", "a,b\n1,x\"y\n", `t.csv:2:4: bare " in non-quoted-field`},
		{"bad quote in header", "a,\"b\n", "t.csv:1:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readTable(c.src)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant one containing %q", err, c.want)
			}
		})
	}
}

func TestReadCSVTableReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	err := ReadCSVTable("t.csv", iotest.ErrReader(boom), tableKnown, tableRequired, nil)
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "t.csv: ") {
		t.Errorf("error %v, want t.csv: wrapping %v", err, boom)
	}
}

// TestReadCSVTableRowError: the row's error is wrapped, so callers can
// match it, and reading stops there.
func TestReadCSVTableRowError(t *testing.T) {
	stop := errors.New("stop")
	var seen []map[string]string
	err := ReadCSVTable("t.csv", strings.NewReader("a,b\n1,2\n3,4\n5,6\n"), tableKnown, tableRequired, func(line int, cells map[string]string) error {
		seen = append(seen, maps.Clone(cells))
		if line == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || err.Error() != "t.csv:3: stop" {
		t.Errorf("error %v, want t.csv:3: stop", err)
	}
	if want := []map[string]string{{"a": "1", "b": "2"}, {"a": "3", "b": "4"}}; !reflect.DeepEqual(seen, want) {
		t.Errorf("rows %v, want %v", seen, want)
	}
}

func TestCheckColumns(t *testing.T) {
	cases := []struct {
		cols []string
		want string // "" for no error
	}{
		{[]string{"b", "a"}, ""},
		{[]string{"a", "b", "c"}, ""},
		{[]string{"a"}, "t.parquet: missing column b (the table needs a, b; optional c)"},
		{[]string{"a", "b", "x"}, `t.parquet: unknown column "x"`},
		{[]string{"c", "a", "b", "c"}, "t.parquet: column c appears twice"},
		{nil, "t.parquet: missing column a"},
	}
	for _, c := range cases {
		err := CheckColumns("t.parquet", c.cols, tableKnown, tableRequired)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: error %v, want %q", c.cols, err, c.want)
		}
	}
	// no optional columns: the hint has no "optional" part
	if err := CheckColumns("t", nil, tableRequired, tableRequired); err == nil || !strings.HasSuffix(err.Error(), "(the table needs a, b)") {
		t.Errorf("all required: %v", err)
	}
}
