package docgen

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// A khaosMeasured is what was measured on the cluster for one variant.
type khaosMeasured struct {
	RecoveriesS   []float64
	LatencyMeanMs float64 // the 24 h mean of the latency markers; NaN if unknown
}

func (m khaosMeasured) over(r float64) int {
	n := 0
	for _, x := range m.RecoveriesS {
		if x > r {
			n++
		}
	}
	return n
}

func (m khaosMeasured) median() float64 { return statistics.Quantile(slices.Clone(m.RecoveriesS), 0.5) }

func (m khaosMeasured) mean() float64 {
	s := 0.0
	for _, x := range m.RecoveriesS {
		s += x
	}
	return s / float64(len(m.RecoveriesS))
}

// khaosYSBMeasured is the measured YSB evaluation by variant key: the
// static CIs' recoveries from the committed measured table; Khaos's
// recoveries and every 24 h latency mean from reference/khaos.md §12,
// whose static recoveries must agree with the table.
func khaosYSBMeasured(c *Context) (map[string]khaosMeasured, error) {
	pts, err := ingest.ReadMeasured(c.Path(measured["khaos-ysb"]))
	if err != nil {
		return nil, err
	}
	out := map[string]khaosMeasured{}
	for _, p := range pts {
		k := "static " + khaosShort(p.CheckpointIntervalS)
		m := out[k]
		m.RecoveriesS = append(m.RecoveriesS, p.RecoveryS)
		m.LatencyMeanMs = math.NaN()
		out[k] = m
	}
	ref, err := os.ReadFile(c.Path(khaosReference))
	if err != nil {
		return nil, err
	}
	failures, err := refTableAfter(string(ref), "**Per-failure measurements**")
	if err != nil {
		return nil, fmt.Errorf("%s §12: %w", khaosReference, err)
	}
	recs, err := failures.recoveries()
	if err != nil {
		return nil, fmt.Errorf("%s §12: %w", khaosReference, err)
	}
	for k, rs := range recs {
		if k == "khaos" {
			out[k] = khaosMeasured{RecoveriesS: rs, LatencyMeanMs: math.NaN()}
			continue
		}
		a, b := slices.Sorted(slices.Values(rs)), slices.Sorted(slices.Values(out[k].RecoveriesS))
		if !slices.Equal(a, b) {
			return nil, fmt.Errorf("claim no longer holds: the measured table %s holds the recoveries of %s §12: %s has %v there, %v in the table",
				measured["khaos-ysb"], khaosReference, k, a, b)
		}
	}
	if _, ok := out["khaos"]; !ok {
		return nil, fmt.Errorf("%s §12: the per-failure table has no Khaos column", khaosReference)
	}
	lat, err := refTableAfter(string(ref), "**24 h latency series**")
	if err != nil {
		return nil, fmt.Errorf("%s §12: %w", khaosReference, err)
	}
	for _, h := range lat.header[1:] {
		k := khaosRefKey(h)
		m, ok := out[k]
		if !ok {
			return nil, fmt.Errorf("%s §12: the 24 h latency table's column %q is no measured variant", khaosReference, h)
		}
		cell, err := lat.cell("mean (ms)", h)
		if err == nil {
			m.LatencyMeanMs, err = khaosRefNumber(cell)
		}
		if err != nil {
			return nil, fmt.Errorf("%s §12: %w", khaosReference, err)
		}
		out[k] = m
	}
	return out, nil
}

// An refTable is a markdown table of a reference document.
type refTable struct {
	header []string
	rows   [][]string
}

// refTableAfter is the first markdown table after the first line of text that
// contains anchor.
func refTableAfter(text, anchor string) (refTable, error) {
	lines := strings.Split(text, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, anchor) })
	if i < 0 {
		return refTable{}, fmt.Errorf("no line contains %q", anchor)
	}
	for i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "|") {
		i++
	}
	var t refTable
	for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
		l := strings.TrimSpace(lines[i])
		l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
		cells := strings.Split(l, "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		switch {
		case t.header == nil:
			t.header = cells
		case strings.Trim(l, "|-: ") == "":
			// the separator line
		default:
			if len(cells) != len(t.header) {
				return refTable{}, fmt.Errorf("the table after %q: a row has %d cells, the header %d", anchor, len(cells), len(t.header))
			}
			t.rows = append(t.rows, cells)
		}
	}
	if t.header == nil {
		return refTable{}, fmt.Errorf("no table after %q", anchor)
	}
	return t, nil
}

// cell is the cell of the row whose first cell is row, in column col.
func (t refTable) cell(row, col string) (string, error) {
	j := slices.Index(t.header, col)
	if j < 0 {
		return "", fmt.Errorf("no column %q (columns: %s)", col, strings.Join(t.header, ", "))
	}
	for _, r := range t.rows {
		if r[0] == row {
			return r[j], nil
		}
	}
	return "", fmt.Errorf("no row %q", row)
}

// recoveries are the recoveries of a per-failure table (rows numbered 1,
// 2, …; cells "throughput/latency/recovery (pred …)") by column key.
func (t refTable) recoveries() (map[string][]float64, error) {
	out := map[string][]float64{}
	for _, r := range t.rows {
		if _, err := strconv.Atoi(r[0]); err != nil {
			continue // a derived row
		}
		for j, h := range t.header[1:] {
			k := khaosRefKey(h)
			if k == "" {
				return nil, fmt.Errorf("column %q names no variant", h)
			}
			parts := strings.Split(r[j+1], "/")
			if len(parts) != 3 {
				return nil, fmt.Errorf("row %s, column %s: %q is not throughput/latency/recovery", r[0], h, r[j+1])
			}
			x, err := khaosRefNumber(parts[2])
			if err != nil {
				return nil, fmt.Errorf("row %s, column %s: %w", r[0], h, err)
			}
			out[k] = append(out[k], x)
		}
	}
	return out, nil
}

// khaosRefKey is the variant key of a reference table's column: "CI 10 s" and
// "10 s" are "static 10", "Khaos" is "khaos"; "" for anything else.
func khaosRefKey(h string) string {
	if strings.EqualFold(h, "khaos") {
		return "khaos"
	}
	s, ok := strings.CutSuffix(strings.TrimPrefix(h, "CI "), " s")
	if !ok {
		return ""
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return ""
	}
	return "static " + khaosShort(x)
}

// khaosRefNumber reads the number a reference cell begins with: "−0.00081438",
// "0.2817 (0.2630)", "205 (pred 202)".
func khaosRefNumber(cell string) (float64, error) {
	f := strings.Fields(strings.ReplaceAll(cell, "−", "-"))
	if len(f) == 0 {
		return 0, errors.New("an empty cell")
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("%q does not begin with a number", cell)
	}
	return x, nil
}

// csvRows are the rows of a CSV file by column; the first failed lookup is
// kept in err.
type khaosCSVRow struct {
	cells map[string]string
	err   error
}

func khaosReadCSV(path string) ([]*khaosCSVRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	var rows []*khaosCSVRow
	for _, rec := range recs[1:] {
		r := &khaosCSVRow{cells: map[string]string{}}
		for i, h := range recs[0] {
			r.cells[h] = rec[i]
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func (r *khaosCSVRow) text(col string) string {
	s, ok := r.cells[col]
	if !ok && r.err == nil {
		r.err = fmt.Errorf("no column %s", col)
	}
	return s
}

func (r *khaosCSVRow) number(col string) float64 {
	s := r.text(col)
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("column %s: %q is not a number", col, s)
	}
	return x
}

// changes reads a ci_changes cell: "at_s:ci_s;at_s:ci_s", "" for none.
func (r *khaosCSVRow) changes(col string) []khaosCIChange {
	s := r.text(col)
	if s == "" {
		return nil
	}
	var out []khaosCIChange
	for _, p := range strings.Split(s, ";") {
		at, ci, ok := strings.Cut(p, ":")
		a, err1 := strconv.ParseFloat(at, 64)
		c, err2 := strconv.ParseFloat(ci, 64)
		if !ok || err1 != nil || err2 != nil {
			if r.err == nil {
				r.err = fmt.Errorf("column %s: %q is not at_s:ci_s", col, p)
			}
			return nil
		}
		out = append(out, khaosCIChange{a, c})
	}
	return out
}
