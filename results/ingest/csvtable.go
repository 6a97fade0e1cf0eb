package ingest

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ReadCSVTable reads a header-first CSV table: comma separated, `#` comment
// lines and blank lines skipped, spaces around names and cells trimmed, a
// spreadsheet BOM before the header dropped. The header's names must come
// from known, each once, and include every one of required (CheckColumns).
// row is called for each data line with its line number and the cells by
// column name; absent optional columns are not in the map, which is reused
// from row to row. Errors name the file and line: name:line: err for an error
// of row, and at least one data line is required.
func ReadCSVTable(name string, r io.Reader, known, required []string, row func(line int, cells map[string]string) error) error {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // checked below, with a better message
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: no rows: the file is empty; the first line must be the header (%s)", name, columnsHint(known, required))
	}
	if err != nil {
		return csvError(name, err)
	}
	line, _ := cr.FieldPos(0)
	cols := make([]string, len(header))
	for i, h := range header {
		cols[i] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, err := strconv.ParseFloat(cols[i], 64); err == nil {
			return fmt.Errorf("%s:%d: the first line must be the header, got data %q (%s)", name, line, strings.Join(header, ","), columnsHint(known, required))
		}
	}
	if err := CheckColumns(fmt.Sprintf("%s:%d", name, line), cols, known, required); err != nil {
		return err
	}
	cells := make(map[string]string, len(cols))
	rows := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a line of blanks
		}
		if len(rec) != len(cols) {
			return fmt.Errorf("%s:%d: %d fields, but the header has %d (%s)", name, line, len(rec), len(cols), strings.Join(cols, ","))
		}
		for i, c := range cols {
			cells[c] = strings.TrimSpace(rec[i])
		}
		if err := row(line, cells); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		rows++
	}
	if rows == 0 {
		return fmt.Errorf("%s: no rows after the header", name)
	}
	return nil
}

// CheckColumns checks a table's column names, for any format: only names from
// known, each once, every one of required present; a typo must not silently
// drop a column. pos (file, or file:line) begins the messages.
func CheckColumns(pos string, cols, known, required []string) error {
	for i, c := range cols {
		switch {
		case !slices.Contains(known, c):
			return fmt.Errorf("%s: unknown column %q (known: %s; names are case sensitive)", pos, c, strings.Join(known, ", "))
		case slices.Contains(cols[:i], c):
			return fmt.Errorf("%s: column %s appears twice", pos, c)
		}
	}
	for _, c := range required {
		if !slices.Contains(cols, c) {
			return fmt.Errorf("%s: missing column %s (%s)", pos, c, columnsHint(known, required))
		}
	}
	return nil
}

// columnsHint ends the header errors: what a table must look like.
func columnsHint(known, required []string) string {
	hint := "the table needs " + strings.Join(required, ", ")
	if opt := slices.DeleteFunc(slices.Clone(known), func(c string) bool { return slices.Contains(required, c) }); len(opt) > 0 {
		hint += "; optional " + strings.Join(opt, ", ")
	}
	return hint
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %v (comma-separated values; quote a cell that holds commas or quotes, and double its quotes)", name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
