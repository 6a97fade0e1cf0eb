package ingest

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzReadCSVTable feeds arbitrary bytes to the shared CSV table reader
// (make fuzz; plain go test replays the seeds and testdata/fuzz/). Every row
// it hands over has exactly the header's columns, from the known ones and
// with the required ones, on increasing lines; a table it accepts has rows
// and, written back as CSV, reads to the same cells.
func FuzzReadCSVTable(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n",
		"\ufeffa, b ,label\n# a comment\n1, 2 ,x\n\n3,4,\"quoted, with comma\"\n",
		"b,a,c\n1,2,3\n4,5,6\n",
		"a,b\n",
		"1,2\n3,4\n",
		"a,a,b\n1,2,3\n",
		"a,c\n1,2\n",
		"a,b,nope\n1,2,3\n",
		"a,b\n1\n",
		"a,b\n\"unclosed,2\n",
		"a,b,label\n1,2,\"#not a comment\"\n\"#x\",2,y\n",
		"",
	} {
		f.Add([]byte(s))
	}
	for _, p := range append(fuzzGlob("../scenarios/measured/*.csv"), fuzzGlob("testdata/*.csv")...) {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	known := []string{"a", "b", "c", "label", "throughput", "checkpoint_interval_s", "recovery_s", "latency_ms", "fault_at_s"}
	required := []string{"a", "b"}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, lines, err := fuzzReadTable(data, known, required)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(rows) == 0 {
			t.Fatal("a table without rows was accepted")
		}
		cols := slices.Sorted(maps.Keys(rows[0]))
		for i, r := range rows {
			if got := slices.Sorted(maps.Keys(r)); !slices.Equal(got, cols) {
				t.Fatalf("row %d has columns %v, row 0 %v", i, got, cols)
			}
			if i > 0 && lines[i] <= lines[i-1] || lines[i] < 2 {
				t.Fatalf("row %d at line %d after line %d", i, lines[i], lines[max(i-1, 0)])
			}
		}
		if err := CheckColumns("fuzz.csv", cols, known, required); err != nil {
			t.Fatalf("accepted columns %v: %v", cols, err)
		}
		// write back and read again
		var b bytes.Buffer
		b.WriteString(csvLine(cols))
		for _, r := range rows {
			rec := make([]string, len(cols))
			for i, c := range cols {
				rec[i] = r[c]
			}
			b.WriteString(csvLine(rec))
		}
		back, _, err := fuzzReadTable(b.Bytes(), known, required)
		if err != nil {
			t.Fatalf("the table written back does not read: %v\n%s", err, b.Bytes())
		}
		if len(back) != len(rows) {
			t.Fatalf("round trip: %d rows, want %d\n%s", len(back), len(rows), b.Bytes())
		}
		for i := range rows {
			if !maps.Equal(back[i], rows[i]) {
				t.Fatalf("round trip row %d: %q, want %q\n%s", i, back[i], rows[i], b.Bytes())
			}
		}
	})
}

func fuzzReadTable(data []byte, known, required []string) ([]map[string]string, []int, error) {
	var rows []map[string]string
	var lines []int
	err := ReadCSVTable("fuzz.csv", bytes.NewReader(data), known, required, func(line int, cells map[string]string) error {
		rows = append(rows, maps.Clone(cells))
		lines = append(lines, line)
		return nil
	})
	return rows, lines, err
}

// csvLine is rec as one CSV record, each cell quoted: csv.Writer does not
// quote a first cell that begins with the comment character.
func csvLine(rec []string) string {
	q := make([]string, len(rec))
	for i, c := range rec {
		q[i] = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
	}
	return strings.Join(q, ",") + "\n"
}

func fuzzGlob(pattern string) []string {
	paths, _ := filepath.Glob(pattern)
	return paths
}
