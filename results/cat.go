package results

import (
	"bufio"
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

// catColumn describes one leaf column of an arbitrary parquet schema.
type catColumn struct {
	name    string
	kind    parquet.Kind
	numeric bool // right-aligned in the table view
}

// Cat prints any parquet file, read through its own schema, as an aligned
// text table or (asCSV) as CSV. Floats are compact in the table (6
// significant digits) and exact in CSV; nulls are "null" in the table and
// empty in CSV. Nested or repeated columns are shown as [a b ...] per row.
func Cat(w io.Writer, path string, asCSV bool) error {
	if err := cat(w, path, asCSV); err != nil {
		return fmt.Errorf("results: cat %s: %w", path, err)
	}
	return nil
}

func cat(w io.Writer, path string, asCSV bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return err
	}
	schema := pf.Schema()
	var cols []catColumn
	for _, p := range schema.Columns() {
		leaf, ok := schema.Lookup(p...)
		if !ok {
			return fmt.Errorf("column %s not in schema", strings.Join(p, "."))
		}
		k := leaf.Node.Type().Kind()
		cols = append(cols, catColumn{
			name:    strings.Join(p, "."),
			kind:    k,
			numeric: k != parquet.ByteArray && k != parquet.FixedLenByteArray && k != parquet.Boolean,
		})
	}
	r := parquet.NewReader(pf)
	defer r.Close()

	bw := bufio.NewWriter(w)
	var out rowSink
	if asCSV {
		out = &csvSink{w: csv.NewWriter(bw)}
	} else {
		out = &tableSink{w: bw, cols: cols}
	}
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	if err := out.row(header); err != nil {
		return err
	}
	rows := make([]parquet.Row, 256)
	cells := make([][]string, len(cols))
	for {
		n, rerr := r.ReadRows(rows)
		for _, row := range rows[:n] {
			for i := range cells {
				cells[i] = cells[i][:0]
			}
			for _, v := range row {
				if c := v.Column(); c >= 0 && c < len(cols) {
					cells[c] = append(cells[c], formatValue(v, cols[c].kind, asCSV))
				}
			}
			rec := make([]string, len(cols))
			for i, cs := range cells {
				rec[i] = joinCells(cs)
			}
			if err := out.row(rec); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	if err := out.flush(); err != nil {
		return err
	}
	return bw.Flush()
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

func formatValue(v parquet.Value, kind parquet.Kind, full bool) string {
	if v.IsNull() {
		if full {
			return ""
		}
		return nullText
	}
	prec := 6
	if full {
		prec = -1
	}
	switch kind {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return formatFloat(float64(v.Float()), prec, 32)
	case parquet.Double:
		return formatFloat(v.Double(), prec, 64)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		b := v.ByteArray()
		switch {
		case !utf8.Valid(b):
		case full || !strings.ContainsFunc(string(b), unicode.IsControl):
			return string(b)
		default: // a newline or tab would break the table's rows
			q := strconv.Quote(string(b))
			return q[1 : len(q)-1]
		}
		return "0x" + hex.EncodeToString(b)
	default: // Int96 and anything newer
		return v.String()
	}
}

// formatFloat spells NaN and infinities the way pandas reads them back.
func formatFloat(x float64, prec, bits int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', prec, bits)
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
	cols    []catColumn
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
		s.widths = make([]int, len(s.cols))
		for _, r := range s.pending {
			for i, c := range r {
				s.widths[i] = max(s.widths[i], utf8.RuneCountInString(c))
			}
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

// print right-aligns numeric columns (header included) and left-aligns text.
func (s *tableSink) print(r []string) error {
	var b strings.Builder
	for i, c := range r {
		pad := s.widths[i] - utf8.RuneCountInString(c)
		if i > 0 {
			b.WriteString("  ")
		}
		if s.cols[i].numeric {
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
