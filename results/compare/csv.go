package compare

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
)

// CSVHeader are the columns of WriteCSV.
var CSVHeader = []string{"run", "figure", "a", "b", "diff", "rel", "tol_rel", "tol_abs", "informational", "status"}

// WriteCSV writes every (run, figure) of the comparison as CSV, for pandas
// or DuckDB: numbers at full precision (empty where a side has none, rel
// empty for a change from 0), the tolerance it was held to, and the status
// of the table (same, ok, info, BEYOND, only in A, only in B); a run on one
// side only is a row with figure "*" and status "run only in A|B".
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	num := func(v float64, ok bool) string {
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, d := range c.Diffs {
		both := d.InA && d.InB
		row := []string{d.Run, d.Figure, num(d.A, d.InA), num(d.B, d.InB), num(d.Abs, both), num(d.Rel, both),
			num(d.Tol.Rel, both && !d.Tol.Informational), num(d.Tol.Abs, both && !d.Tol.Informational),
			strconv.FormatBool(d.Tol.Informational), d.Status()}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	for _, side := range []struct {
		runs []string
		st   string
	}{{c.RunsOnlyA, "run only in A"}, {c.RunsOnlyB, "run only in B"}} {
		for _, k := range side.runs {
			if err := cw.Write([]string{k, "*", "", "", "", "", "", "", "false", side.st}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
