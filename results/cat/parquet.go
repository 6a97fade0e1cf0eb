package cat

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// catColumn describes one leaf column of an arbitrary parquet schema.
type catColumn struct {
	name    string
	kind    parquet.Kind
	numeric bool // right-aligned in the table view
}

type parquetSource struct {
	file   *parquet.File
	r      *parquet.Reader
	cols   []catColumn
	table  bool
	rows   []parquet.Row
	pos, n int   // the next buffered row, and how many are buffered
	read   int64 // rows taken from the reader
	err    error // the reader's error after the buffered rows
	cells  [][]string
}

func openParquetSource(f *os.File, table bool) (*parquetSource, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, err
	}
	schema := pf.Schema()
	var cols []catColumn
	for _, p := range schema.Columns() {
		leaf, ok := schema.Lookup(p...)
		if !ok {
			return nil, fmt.Errorf("column %s not in schema", strings.Join(p, "."))
		}
		k := leaf.Node.Type().Kind()
		cols = append(cols, catColumn{
			name:    strings.Join(p, "."),
			kind:    k,
			numeric: k != parquet.ByteArray && k != parquet.FixedLenByteArray && k != parquet.Boolean,
		})
	}
	return &parquetSource{file: pf, r: parquet.NewReader(pf), cols: cols, table: table,
		rows: make([]parquet.Row, 256), cells: make([][]string, len(cols))}, nil
}

func (s *parquetSource) header() []string {
	h := make([]string, len(s.cols))
	for i, c := range s.cols {
		h[i] = c.name
	}
	return h
}

func (s *parquetSource) numeric() []bool {
	n := make([]bool, len(s.cols))
	for i, c := range s.cols {
		n[i] = c.numeric
	}
	return n
}

func (s *parquetSource) next() ([]string, error) {
	for s.pos == s.n {
		if s.err != nil {
			return nil, s.err
		}
		s.n, s.err = s.r.ReadRows(s.rows)
		s.pos, s.read = 0, s.read+int64(s.n)
		if s.err != nil && !errors.Is(s.err, io.EOF) {
			return nil, s.err
		}
		if s.n == 0 && s.err == nil {
			s.err = io.EOF
		}
	}
	row := s.rows[s.pos]
	s.pos++
	for i := range s.cells {
		s.cells[i] = s.cells[i][:0]
	}
	for _, v := range row {
		if c := v.Column(); c >= 0 && c < len(s.cols) {
			s.cells[c] = append(s.cells[c], formatValue(v, s.cols[c], !s.table))
		}
	}
	rec := make([]string, len(s.cols))
	for i, cs := range s.cells {
		rec[i] = joinCells(cs)
	}
	return rec, nil
}

// remaining is known from the file's metadata: nothing more is read.
func (s *parquetSource) remaining() (int64, error) {
	return s.file.NumRows() - s.read + int64(s.n-s.pos), nil
}

func (s *parquetSource) Close() error { return s.r.Close() }

func (s *parquetSource) seekFromEnd(n int64) error {
	at := max(s.file.NumRows()-n, 0)
	s.pos, s.n, s.read = 0, 0, at
	return s.r.SeekToRow(at)
}

// joinCells renders a column's values for one row. A flat column has exactly
// one value (possibly null); repeated ones are bracketed.
func joinCells(cs []string) string {
	if len(cs) == 1 {
		return cs[0]
	}
	return "[" + strings.Join(cs, " ") + "]"
}

// nullText is what the table shows for a null; CSV leaves the cell empty.
const nullText = "null"

// formatValue is a parquet value as text: exact (full, for CSV) or by the
// table format.
func formatValue(v parquet.Value, col catColumn, full bool) string {
	if v.IsNull() {
		if full {
			return ""
		}
		return nullText
	}
	switch col.kind {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return formatFloat(col.name, float64(v.Float()), 32, full)
	case parquet.Double:
		return formatFloat(col.name, v.Double(), 64, full)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return formatText(v.ByteArray(), full)
	default: // Int96 and anything newer
		return v.String()
	}
}

// formatText shows text as is, except that the table escapes control
// characters (a newline or tab would break its rows) and hex-dumps bytes
// that are not UTF-8.
func formatText(b []byte, full bool) string {
	switch {
	case !utf8.Valid(b):
		return "0x" + hex.EncodeToString(b)
	case full || !strings.ContainsFunc(string(b), unicode.IsControl):
		return string(b)
	}
	q := strconv.Quote(string(b))
	return q[1 : len(q)-1]
}

// formatFloat is exact for CSV, with NaN and infinities spelled the way
// pandas reads them back, and by the table format otherwise.
func formatFloat(name string, x float64, bits int, full bool) string {
	if !full {
		return catFigure(name, x)
	}
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, bits)
}

// catFigure is a number of the table view: a time in s (isSeconds) by
// textfmt.EventTime, anything else by textfmt.Figure.
func catFigure(name string, x float64) string {
	if !isSeconds(name) {
		return textfmt.Figure(name, x, 0)
	}
	return textfmt.EventTime(x)
}

// isSeconds reports whether a column or figure name is a time in s:
// time_s, duration_s, recovery_mean_s, checkpoint_interval_s, … but not
// a rate (…_per_s).
func isSeconds(name string) bool {
	return strings.HasSuffix(name, "_s") && !strings.HasSuffix(name, "_per_s")
}
