package results

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/streamtwin/streamtwin/internal/suggest"
)

// ReadFloatColumns loads whole numeric columns of a parquet file by name,
// page by page. parquet.ReadFile rebuilds a Go struct per row through
// reflection, which is ~7x slower than writing; the figure of a week-long
// run only needs a few flat columns. Nulls read as NaN.
func ReadFloatColumns(path string, names ...string) ([][]float64, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([][]float64, len(names))
	for i, name := range names {
		leaf, ok := pf.Schema().Lookup(name)
		if !ok || leaf.MaxRepetitionLevel > 0 {
			return nil, fmt.Errorf("%s: no flat column %q", path, name)
		}
		col := make([]float64, 0, pf.NumRows())
		for _, rg := range pf.RowGroups() {
			if col, err = appendColumn(col, rg.ColumnChunks()[leaf.ColumnIndex], leaf.MaxDefinitionLevel); err != nil {
				return nil, fmt.Errorf("%s: column %s: %w", path, name, err)
			}
		}
		out[i] = col
	}
	return out, nil
}

func appendColumn(col []float64, chunk parquet.ColumnChunk, maxDef int) ([]float64, error) {
	pages := chunk.Pages()
	defer pages.Close()
	buf := make([]parquet.Value, 4096)
	for {
		page, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return col, nil
		}
		if err != nil {
			return col, err
		}
		values := page.Values()
		// Fast path: a required DOUBLE column decodes straight into col.
		if dr, ok := values.(parquet.DoubleReader); ok && maxDef == 0 {
			n := int(page.NumValues())
			start := len(col)
			col = append(col, make([]float64, n)...)
			for read := 0; read < n; {
				m, err := dr.ReadDoubles(col[start+read:])
				read += m
				if errors.Is(err, io.EOF) {
					col = col[:start+read]
					break
				}
				if err != nil {
					return col, err
				}
			}
			parquet.Release(page)
			continue
		}
		for {
			n, err := values.ReadValues(buf)
			for _, v := range buf[:n] {
				col = append(col, toFloat(v))
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return col, err
			}
		}
		parquet.Release(page)
	}
}

func toFloat(v parquet.Value) float64 {
	switch {
	case v.IsNull():
		return math.NaN()
	case v.Kind() == parquet.Double:
		return v.Double()
	case v.Kind() == parquet.Float:
		return float64(v.Float())
	case v.Kind() == parquet.Int32:
		return float64(v.Int32())
	case v.Kind() == parquet.Int64:
		return float64(v.Int64())
	default:
		return math.NaN()
	}
}

// openParquet opens a parquet file for column access; the caller closes f.
func openParquet(path string) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil {
		var pf *parquet.File
		if pf, err = parquet.OpenFile(f, st.Size()); err == nil {
			return f, pf, nil
		}
		err = fmt.Errorf("%s: %w", path, err)
	}
	f.Close()
	return nil, nil, err
}

// ColumnError reports a column a figure needs that a file lacks, or holds
// in a form the figure cannot use; it lists the columns the file has.
type ColumnError struct {
	File      string
	Column    string
	Problem   string // "" when the column does not exist
	Available []string
}

func (e *ColumnError) Error() string {
	what := fmt.Sprintf("no column %q", e.Column)
	if e.Problem != "" {
		what = fmt.Sprintf("column %q %s", e.Column, e.Problem)
	} else if s := suggest.DidYouMean(suggest.Closest(e.Column, e.Available, 3)); s != "" {
		what += "; " + s
	}
	return fmt.Sprintf("%s: %s (available: %s)", e.File, what, strings.Join(e.Available, ", "))
}

// parquetColumnNames lists the leaf columns of a parquet file.
func parquetColumnNames(path string) ([]string, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	for _, c := range pf.Schema().Columns() {
		names = append(names, strings.Join(c, "."))
	}
	return names, nil
}

// ReadRunColumns reads numeric columns of a run's timeseries.parquet; a
// missing column is a ColumnError listing the file's columns.
func ReadRunColumns(dir string, names ...string) ([][]float64, error) {
	path := filepath.Join(dir, TimeseriesFile)
	avail, err := parquetColumnNames(path)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if !slices.Contains(avail, n) {
			return nil, &ColumnError{File: path, Column: n, Available: avail}
		}
	}
	return ReadFloatColumns(path, names...)
}
