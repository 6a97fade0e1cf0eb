package cat

import (
	"bufio"
	"encoding/csv"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamtwin/streamtwin/results/textfmt"
)

// rowSink takes the rows cat prints: as CSV (csvSink) or as an aligned
// table (tableSink).
type rowSink interface {
	row([]string) error
	flush() error
}

type csvSink struct{ w *csv.Writer }

func (s *csvSink) row(r []string) error { return s.w.Write(r) }

func (s *csvSink) flush() error { s.w.Flush(); return s.w.Error() }

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
	case "", nullText, textfmt.NoValue, "inf", "-inf", "NaN":
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
