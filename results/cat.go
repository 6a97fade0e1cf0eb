package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
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
)

// tableWidthRows is how many rows the table view looks at to size its
// columns; later rows reuse those widths so big files still stream.
const tableWidthRows = 1000

// DefaultCatRows is how many rows the table view prints when no --head,
// --tail or --all is given; a note says how many more there are.
const DefaultCatRows = 50

// CatOptions choose what Cat prints.
type CatOptions struct {
	CSV  bool // CSV with exact values instead of an aligned table
	Head int  // only the first Head rows (0: not set)
	Tail int  // only the last Tail rows (0: not set)
	// All prints every row of the table view; without it, and without
	// Head or Tail, the table stops after DefaultCatRows. CSV always
	// prints every row unless Head or Tail is set.
	All bool
}

// Cat prints a result file as an aligned text table or (CSV) as CSV. It
// reads Parquet (through the file's own schema: nested or repeated columns
// as [a b ...]), JSON (summary.json, fit.json, reference files: one key,
// value row per number or string, nested keys dotted) and CSV; the kind is
// told from the content. The table formats numbers by the one table rule
// (FormatNumber; counts whole), NaN as "–" and nulls as "null"; CSV keeps
// every value exact, nulls empty and NaN as NaN.
func Cat(w io.Writer, path string, opt CatOptions) error {
	if err := cat(w, path, opt); err != nil {
		return fmt.Errorf("results: cat %s: %w", path, err)
	}
	return nil
}

func cat(w io.Writer, path string, opt CatOptions) error {
	if opt.Head < 0 || opt.Tail < 0 || opt.Head > 0 && opt.Tail > 0 {
		return errors.New("give one of head or tail, a number of rows > 0")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	src, err := openSource(f, !opt.CSV)
	if err != nil {
		return err
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	bw := bufio.NewWriter(w)
	var out rowSink
	if opt.CSV {
		out = &csvSink{w: csv.NewWriter(bw)}
	} else {
		out = &tableSink{w: bw, numeric: src.numeric()}
	}
	if err := out.row(src.header()); err != nil {
		return err
	}
	limit := opt.Head
	if limit == 0 && opt.Tail == 0 && !opt.CSV && !opt.All {
		limit = DefaultCatRows
	}
	var more int64
	if opt.Tail > 0 {
		err = copyTail(out, src, opt.Tail)
	} else {
		more, err = copyHead(out, src, limit)
	}
	if err != nil {
		return err
	}
	if err := out.flush(); err != nil {
		return err
	}
	if more > 0 && limit == DefaultCatRows && opt.Head == 0 {
		fmt.Fprintf(bw, "… %s more rows (use --head N, --tail N or --all)\n", FormatCount(float64(more)))
	}
	return bw.Flush()
}

// copyHead copies the first limit rows (all for 0) and counts the rest.
func copyHead(out rowSink, src rowSource, limit int) (more int64, err error) {
	for n := 0; ; n++ {
		if limit > 0 && n == limit {
			return src.remaining()
		}
		r, err := src.next()
		if errors.Is(err, io.EOF) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		if err := out.row(r); err != nil {
			return 0, err
		}
	}
}

// copyTail copies the last n rows: a source that knows its size seeks to
// them (Parquet); any other streams through a ring of n rows.
func copyTail(out rowSink, src rowSource, n int) error {
	if s, ok := src.(seekableSource); ok {
		if err := s.seekFromEnd(int64(n)); err != nil {
			return err
		}
		_, err := copyHead(out, src, 0)
		return err
	}
	ring := make([][]string, 0, n)
	next := 0
	for {
		r, err := src.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if len(ring) < n {
			ring = append(ring, r)
		} else {
			ring[next] = r
			next = (next + 1) % n
		}
	}
	for i := range ring {
		if err := out.row(ring[(next+i)%len(ring)]); err != nil {
			return err
		}
	}
	return nil
}

// rowSource is a file read row by row, every cell already text.
type rowSource interface {
	header() []string
	// numeric says which columns are numbers (right-aligned in the table);
	// nil lets the table tell from the cells.
	numeric() []bool
	next() ([]string, error) // io.EOF after the last row
	remaining() (int64, error)
}

// seekableSource knows its size and can start at any row.
type seekableSource interface {
	seekFromEnd(n int64) error
}

// openSource tells Parquet, JSON and CSV apart by their first bytes.
func openSource(f *os.File, table bool) (rowSource, error) {
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return openParquetSource(f, table)
	case bytes.HasPrefix(trimmed, []byte("{")) || bytes.HasPrefix(trimmed, []byte("[")):
		return openJSONSource(f, table)
	case n > 0 && utf8.Valid(head[:n-utf8Tail(head)]) && !bytes.ContainsRune(head, 0):
		return openCSVSource(f, table)
	}
	return nil, errors.New("not a Parquet, JSON or CSV file (results cat reads those three)")
}

// utf8Tail is how many bytes at the end of b may be a rune cut by the read.
func utf8Tail(b []byte) int {
	for i := 1; i <= min(3, len(b)); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if utf8.FullRune(b[len(b)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
}

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
		return FormatFigure(name, x, 0)
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

type rowSink interface {
	row([]string) error
	flush() error
}

type csvSink struct{ w *csv.Writer }

func (s *csvSink) row(r []string) error { return s.w.Write(r) }
func (s *csvSink) flush() error         { s.w.Flush(); return s.w.Error() }

// tableSink buffers the first tableWidthRows rows to size the columns, then
// prints everything else as it comes with those widths.
type tableSink struct {
	w       *bufio.Writer
	numeric []bool // right-aligned columns; nil: told from the buffered cells
	pending [][]string
	widths  []int
}

func (s *tableSink) row(r []string) error {
	if s.widths == nil {
		s.pending = append(s.pending, r)
		if len(s.pending) <= tableWidthRows { // header + tableWidthRows rows
			return nil
		}
		return s.flush()
	}
	return s.print(r)
}

func (s *tableSink) flush() error {
	if s.widths == nil {
		s.widths = make([]int, len(s.pending[0]))
		for _, r := range s.pending {
			for len(s.widths) < len(r) { // a CSV row longer than its header
				s.widths = append(s.widths, 0)
			}
			for i, c := range r {
				s.widths[i] = max(s.widths[i], utf8.RuneCountInString(c))
			}
		}
		if s.numeric == nil {
			s.numeric = numericColumns(s.pending)
		}
		for _, r := range s.pending {
			if err := s.print(r); err != nil {
				return err
			}
		}
		s.pending = nil
	}
	return nil
}

// numericColumns: a column is numeric when every cell below the header is a
// number as the table prints it (or empty, null, "–").
func numericColumns(rows [][]string) []bool {
	num := make([]bool, len(rows[0]))
	for i := range num {
		num[i] = len(rows) > 1
		for _, r := range rows[1:] {
			if i < len(r) && !isNumberCell(r[i]) {
				num[i] = false
				break
			}
		}
	}
	return num
}

func isNumberCell(c string) bool {
	switch c {
	case "", nullText, NoValue, "inf", "-inf", "NaN":
		return true
	}
	_, err := strconv.ParseFloat(strings.ReplaceAll(c, ",", ""), 64)
	return err == nil
}

// print right-aligns numeric columns (header included) and left-aligns text.
func (s *tableSink) print(r []string) error {
	var b strings.Builder
	for i, c := range r {
		pad := -1
		if i < len(s.widths) {
			pad = s.widths[i] - utf8.RuneCountInString(c)
		}
		if i > 0 {
			b.WriteString("  ")
		}
		if i < len(s.numeric) && s.numeric[i] {
			b.WriteString(strings.Repeat(" ", max(pad, 0)))
			b.WriteString(c)
		} else {
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", max(pad, 0)))
		}
	}
	// Trailing blanks (a short last text cell) only make diffs noisy.
	_, err := s.w.WriteString(strings.TrimRight(b.String(), " ") + "\n")
	return err
}

// WriteAligned prints rows (the first is the header) with every column
// padded to its widest cell, two spaces apart; right-aligned columns
// (numbers) are padded on the left, header included.
func WriteAligned(w io.Writer, rows [][]string, right []bool) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, cell := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if right[i] {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
