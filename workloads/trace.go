package workloads

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

// Trace is a measured rate series: Values[i] records/s from Times[i] (s,
// relative to the first row) until the next row.
type Trace struct {
	Times  []float64
	Values []float64
}

// TraceRow is the Parquet layout of a trace, as export writes it.
type TraceRow struct {
	TimeS float64 `parquet:"time_s"`
	Rate  float64 `parquet:"rate"`
}

// ReadTrace reads a rate trace. Accepted: `second|value` (the dos-group
// format), `time,value` CSV (time in seconds or `YYYY-MM-DD HH:MM:SS`), both
// with one header line, and Parquet with columns time_s and rate. Errors
// name the file and line.
func ReadTrace(path string) (*Trace, error) {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return readParquetTrace(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseTrace(path, f)
}

// ParseTrace reads a text trace from r; name is used in errors.
func ParseTrace(name string, r io.Reader) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	var sep byte
	tr := &Trace{}
	var t0 float64
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if line == 1 {
			switch {
			case strings.Contains(text, "|"):
				sep = '|'
			case strings.Contains(text, ","):
				sep = ','
			default:
				return nil, fmt.Errorf("%s:1: header %q has no separator; expected `second|value` or `time,value`", name, text)
			}
			if f := strings.Split(text, string(sep)); len(f) != 2 {
				return nil, fmt.Errorf("%s:1: header %q has %d columns, expected 2 (time and rate)", name, text, len(f))
			}
			if _, err := strconv.ParseFloat(strings.Split(text, string(sep))[1], 64); err == nil {
				return nil, fmt.Errorf("%s:1: the first line must be a header (e.g. second|value), got data %q", name, text)
			}
			continue
		}
		if text == "" {
			continue
		}
		i := strings.IndexByte(text, sep)
		if i < 0 || strings.IndexByte(text[i+1:], sep) >= 0 {
			other := "|"
			if sep == '|' {
				other = ","
			}
			hint := ""
			if strings.Contains(text, other) || strings.ContainsAny(text, ";\t") {
				hint = " (wrong separator?)"
			}
			return nil, fmt.Errorf("%s:%d: expected 2 fields separated by %q, got %q%s", name, line, sep, text, hint)
		}
		ts, vs := strings.TrimSpace(text[:i]), strings.TrimSpace(text[i+1:])
		t, err := parseTime(ts)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: time %q is neither seconds nor YYYY-MM-DD HH:MM:SS", name, line, ts)
		}
		v, err := strconv.ParseFloat(vs, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s:%d: rate %q is not a number", name, line, vs)
		}
		if v < 0 {
			return nil, fmt.Errorf("%s:%d: negative rate %v", name, line, v)
		}
		if len(tr.Times) == 0 {
			t0 = t
		}
		t -= t0
		if t > maxTraceSpan {
			return nil, fmt.Errorf("%s:%d: time %q is %v s after the first row; a trace spans at most a year (%v s)", name, line, ts, t, maxTraceSpan)
		}
		if n := len(tr.Times); n > 0 && t <= tr.Times[n-1] {
			what := "unsorted"
			if t == tr.Times[n-1] {
				what = "duplicate"
			}
			return nil, fmt.Errorf("%s:%d: %s timestamp %q (times must increase)", name, line, what, ts)
		}
		tr.Times = append(tr.Times, t)
		tr.Values = append(tr.Values, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(tr.Times) == 0 {
		return nil, fmt.Errorf("%s:%d: the trace has no data rows", name, max(line, 1))
	}
	return tr, nil
}

// maxTraceSpan bounds a trace as the runs are bounded (a year): it is
// rendered per second.
const maxTraceSpan = 366 * 86400

func parseTime(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v, nil
	}
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		return 0, err
	}
	return float64(t.Unix()), nil
}

func readParquetTrace(path string) (*Trace, error) {
	rows, err := parquet.ReadFile[TraceRow](path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (a Parquet trace needs columns time_s and rate)", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: the trace has no rows", path)
	}
	tr := &Trace{}
	for i, r := range rows {
		if r.Rate < 0 || math.IsNaN(r.Rate) || math.IsInf(r.Rate, 0) {
			return nil, fmt.Errorf("%s: row %d: invalid rate %v", path, i+1, r.Rate)
		}
		if i > 0 && r.TimeS <= rows[i-1].TimeS {
			return nil, fmt.Errorf("%s: row %d: unsorted or duplicate time_s %v", path, i+1, r.TimeS)
		}
		if t := r.TimeS - rows[0].TimeS; !(t <= maxTraceSpan) {
			return nil, fmt.Errorf("%s: row %d: time_s %v is %v s after the first row; a trace spans at most a year (%v s)", path, i+1, r.TimeS, t, maxTraceSpan)
		}
		tr.Times = append(tr.Times, r.TimeS-rows[0].TimeS)
		tr.Values = append(tr.Values, r.Rate)
	}
	return tr, nil
}

// Step is the median spacing of the rows (s).
func (t *Trace) Step() float64 {
	if len(t.Times) < 2 {
		return 1
	}
	return t.Times[len(t.Times)/2] - t.Times[len(t.Times)/2-1]
}

// PerSecond renders the trace at 1 s. A 1-s trace is taken as it is; a
// coarser one (bucket means) is interpolated linearly between bucket
// centres ("linear") or held ("step").
func (t *Trace) PerSecond(interpolate string) []float64 {
	step := t.Step()
	n := int(math.Round(t.Times[len(t.Times)-1] + step))
	out := make([]float64, n)
	if step <= 1 || interpolate == "step" {
		j := 0
		for i := range out {
			for j+1 < len(t.Times) && t.Times[j+1] <= float64(i) {
				j++
			}
			out[i] = t.Values[j]
		}
		return out
	}
	j := 0
	for i := range out {
		x := float64(i) + 0.5 - step/2 // position relative to bucket centres
		for j+1 < len(t.Times) && t.Times[j+1] <= x {
			j++
		}
		if x <= t.Times[0] || j+1 >= len(t.Times) {
			out[i] = t.Values[min(j, len(t.Values)-1)]
			continue
		}
		f := (x - t.Times[j]) / (t.Times[j+1] - t.Times[j])
		out[i] = t.Values[j] + f*(t.Values[j+1]-t.Values[j])
	}
	return out
}

// WriteCSV writes per-second rates as `time_s,rate`.
func WriteCSV(w io.Writer, rates []float64) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("time_s,rate\n")
	var buf []byte
	for i, r := range rates {
		buf = strconv.AppendInt(buf[:0], int64(i), 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, r, 'g', -1, 64)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// ParquetBytes encodes per-second rates as a Parquet trace (time_s, rate).
func ParquetBytes(rates []float64) ([]byte, error) {
	rows := make([]TraceRow, len(rates))
	for i, r := range rates {
		rows[i] = TraceRow{TimeS: float64(i), Rate: r}
	}
	var b bytes.Buffer
	if err := parquet.Write(&b, rows, parquet.Compression(&parquet.Zstd)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
