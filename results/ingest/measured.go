package ingest

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/streamtwin/streamtwin/results"
)

// MeasuredFailure is one measured failure: a row of a measured table, the
// input of `streamtwin calibrate` and of `streamtwin evaluate --measured`.
// ReadMeasured is the one reader of that table and WriteMeasured its writer.
type MeasuredFailure struct {
	Label               string  // free text, e.g. "profile_30000" (optional column)
	Throughput          float64 // records/s: mean source throughput over the 300 s before the fault
	CheckpointIntervalS float64 // s
	RecoveryS           float64 // s, Khaos's definition: fault until throughput and lag are back to pre-fault behaviour
	LatencyMs           float64 // ms, mean latency over the 300 s before the fault; NaN when the table has none
	FaultAtS            float64 // s since the start of the measured run; NaN when unknown
	// The configuration the failure was measured in, when the table says
	// (0 or "" when not: the base scenario's then holds).
	Parallelism float64 // subtasks per operator
	TaskSlots   float64 // taskmanager.numberOfTaskSlots
	CPUCores    float64 // cores per TaskManager
	MemoryMiB   float64 // memory per TaskManager, MiB
	// Fault is the fault injected: "kill" (the default, a TaskManager
	// crash), or a kind of the scenario faults with its settings, e.g.
	// network_delay:60s/30s (each packet 60 s late for 30 s).
	Fault string
	// Censored marks a recovery that was still running when the
	// measurement stopped: RecoveryS is its cap, a lower bound (Demeter's
	// 360 s), not a recovery time.
	Censored bool
	// Experiment names the measurement campaign (a repetition, a cluster):
	// a protocol holds out or cross-validates by it.
	Experiment string
	Line       int // line (CSV) or row+1 (Parquet) it came from, for messages
}

// Column names of the measured table, in the order WriteMeasured writes them.
const (
	colThroughput = "throughput"
	colCI         = "checkpoint_interval_s"
	colRecovery   = "recovery_s"
	colLatency    = "latency_ms"
	colLabel      = "label"
	colFaultAt    = "fault_at_s"
	colPar        = "parallelism"
	colSlots      = "task_slots"
	colCPU        = "cpu_cores"
	colMemory     = "memory_mib"
	colFault      = "fault"
	colCensored   = "censored"
	colExperiment = "experiment"
)

var (
	tableColumns    = []string{colThroughput, colCI, colRecovery, colLatency, colLabel, colFaultAt, colPar, colSlots, colCPU, colMemory, colFault, colCensored, colExperiment}
	requiredColumns = tableColumns[:3]
	// textColumns hold strings; colCensored is a boolean; the rest numbers
	textColumns = []string{colLabel, colFault, colExperiment}
	// configColumns are numbers whose absence is 0, not NaN: a Go caller's
	// zero value means "the base scenario's"
	configColumns = []string{colPar, colSlots, colCPU, colMemory}
)

// ReadMeasured reads a measured table, CSV (ParseMeasuredCSV) or Parquet by
// extension: columns throughput, checkpoint_interval_s, recovery_s and
// optional latency_ms, label, fault_at_s; values within physical ranges
// (MeasuredFailure.Check); at least one row. A row that repeats another in
// every column is an error naming both (it would weigh twice). Errors name
// file:line (CSV) or file: row N (Parquet).
func ReadMeasured(path string) ([]MeasuredFailure, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ParseMeasuredCSV(path, f)
	case ".parquet":
		pts, err := readMeasuredParquet(path)
		if err != nil {
			return nil, err
		}
		return pts, duplicates(path, pts)
	}
	return nil, fmt.Errorf("%s: unknown table format %q (use .csv or .parquet)", path, filepath.Ext(path))
}

// duplicates refuses a row equal to an earlier one in every column.
func duplicates(path string, pts []MeasuredFailure) error {
	seen := map[string]int{}
	for _, p := range pts {
		k := strings.Join(p.cells(tableColumns), "\x00")
		if first, ok := seen[k]; ok {
			return fmt.Errorf("%s:%d: the row repeats line %d in every column; remove one (a duplicate weighs twice in a fit or an evaluation)", path, p.Line, first)
		}
		seen[k] = p.Line
	}
	return nil
}

// ParseMeasuredCSV is ReadMeasured of a CSV table read from r; name is used
// in errors. Comma separated, header first, `#` comment lines
// (ReadCSVTable); empty optional cells are NaN (numbers) or "" (label).
func ParseMeasuredCSV(name string, r io.Reader) ([]MeasuredFailure, error) {
	var pts []MeasuredFailure
	err := ReadCSVTable(name, r, tableColumns, requiredColumns, func(line int, cells map[string]string) error {
		p, err := csvPoint(cells, line)
		if err == nil {
			err = p.Check()
		}
		pts = append(pts, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return pts, duplicates(name, pts)
}

func newPoint(line int) MeasuredFailure {
	return MeasuredFailure{LatencyMs: math.NaN(), FaultAtS: math.NaN(), Line: line}
}

func csvPoint(cells map[string]string, line int) (MeasuredFailure, error) {
	p := newPoint(line)
	for _, c := range tableColumns {
		cell, ok := cells[c]
		if !ok {
			continue
		}
		if slices.Contains(textColumns, c) {
			*p.text(c) = cell
			continue
		}
		if c == colCensored {
			b, err := parseBool(cell)
			if err != nil {
				return p, err
			}
			p.Censored = b
			continue
		}
		v, err := parseCell(c, cell)
		if err != nil {
			return p, err
		}
		if slices.Contains(configColumns, c) {
			if v == 0 {
				return p, &ValueError{c, "0 is no configuration; leave the cell empty for the base scenario's"}
			}
			v = zeroNaN(v)
		}
		*p.field(c) = v
	}
	return p, nil
}

// parseCell parses a number; an empty cell is NaN for the optional columns.
func parseCell(col, cell string) (float64, error) {
	if cell == "" {
		if slices.Contains(requiredColumns, col) {
			return 0, fmt.Errorf("%s: empty cell; the column is required", col)
		}
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(cell, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", col, cell)
	}
	return v, nil
}

// zeroNaN is v, or 0 for NaN (an absent configuration value).
func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// parseBool reads a censored cell: true/false, 1/0 or empty (false).
func parseBool(cell string) (bool, error) {
	switch strings.ToLower(cell) {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, &ValueError{colCensored, fmt.Sprintf("%q is not true, false, 1, 0 or empty", cell)}
}

// text maps a text column to its field.
func (p *MeasuredFailure) text(col string) *string {
	switch col {
	case colLabel:
		return &p.Label
	case colFault:
		return &p.Fault
	case colExperiment:
		return &p.Experiment
	}
	panic("results: no text column " + col)
}

// field maps a numeric column to its field.
func (p *MeasuredFailure) field(col string) *float64 {
	switch col {
	case colThroughput:
		return &p.Throughput
	case colCI:
		return &p.CheckpointIntervalS
	case colRecovery:
		return &p.RecoveryS
	case colLatency:
		return &p.LatencyMs
	case colFaultAt:
		return &p.FaultAtS
	case colPar:
		return &p.Parallelism
	case colSlots:
		return &p.TaskSlots
	case colCPU:
		return &p.CPUCores
	case colMemory:
		return &p.MemoryMiB
	}
	panic("results: no numeric column " + col)
}

// ValueError is a bad value in a named column of a measured table.
type ValueError struct{ Column, Msg string }

func (e *ValueError) Error() string { return e.Column + ": " + e.Msg }

// Check validates a measured failure's values against physical ranges; the
// error is a *ValueError.
func (p MeasuredFailure) Check() error {
	// physical ranges: a billion records/s, a day's CI, a week's recovery,
	// a day's latency, a year's run
	within := func(v, hi float64) bool { return v > 0 && v <= hi }
	whole := func(v, hi float64) bool { return v == 0 || v >= 1 && v <= hi && v == math.Trunc(v) }
	optional := func(v, hi float64) bool { return math.IsNaN(v) || v >= 0 && v <= hi }
	bad := func(col, format string, v float64) error { return &ValueError{col, fmt.Sprintf(format, v)} }
	switch {
	case !within(p.Throughput, 1e9):
		return bad(colThroughput, "must be in (0, 1e9] records/s, got %v", p.Throughput)
	case !within(p.CheckpointIntervalS, 86400):
		return bad(colCI, "must be in (0, 86400] seconds (a day), got %v", p.CheckpointIntervalS)
	case !within(p.RecoveryS, 7*86400):
		return bad(colRecovery, "must be in (0, 604800] seconds (a week), got %v", p.RecoveryS)
	case !optional(p.LatencyMs, 86400e3):
		return bad(colLatency, "must be in [0, 86400000] ms (a day), or empty, got %v", p.LatencyMs)
	case !optional(p.FaultAtS, 366*86400):
		return bad(colFaultAt, "must be in [0, 31622400] seconds since the run start (a year), or empty, got %v", p.FaultAtS)
	case !whole(p.Parallelism, 1<<15):
		return bad(colPar, "must be a whole number in [1, 32768] (Flink's largest max parallelism), or empty, got %v", p.Parallelism)
	case !whole(p.TaskSlots, 1024):
		return bad(colSlots, "must be a whole number in [1, 1024] slots per TaskManager, or empty, got %v", p.TaskSlots)
	case !(p.CPUCores == 0 || within(p.CPUCores, 1024)):
		return bad(colCPU, "must be in (0, 1024] cores per TaskManager, or empty, got %v", p.CPUCores)
	case !(p.MemoryMiB == 0 || within(p.MemoryMiB, 1<<24)):
		return bad(colMemory, "must be in (0, 16777216] MiB per TaskManager (16 TiB), or empty, got %v", p.MemoryMiB)
	}
	return nil
}

// readMeasuredParquet reads a Parquet table through its own schema, so any numeric
// physical type (int32/64, float, double) works and nulls are NaN.
func readMeasuredParquet(path string) ([]MeasuredFailure, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	byIndex, err := parquetColumns(path, pf.Schema())
	if err != nil {
		return nil, err
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	var pts []MeasuredFailure
	rows := make([]parquet.Row, 256)
	for {
		n, rerr := r.ReadRows(rows)
		for _, row := range rows[:n] {
			p := newPoint(len(pts) + 1)
			for _, v := range row {
				if c, ok := byIndex[v.Column()]; ok {
					setParquetValue(&p, c, v)
				}
			}
			if err := p.Check(); err != nil {
				return nil, fmt.Errorf("%s: row %d: %w", path, p.Line, err)
			}
			pts = append(pts, p)
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("%s: %w", path, rerr)
		}
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	return pts, nil
}

// parquetColumns checks names and types and maps leaf column indexes to
// names.
func parquetColumns(path string, schema *parquet.Schema) (map[int]string, error) {
	var names []string
	byIndex := map[int]string{}
	for _, fld := range schema.Fields() {
		name := fld.Name()
		names = append(names, name)
		if !fld.Leaf() || fld.Repeated() {
			return nil, fmt.Errorf("%s: column %s is nested or repeated; the table needs flat columns", path, name)
		}
		leaf, _ := schema.Lookup(name)
		byIndex[leaf.ColumnIndex] = name
		kind := fld.Type().Kind()
		text := kind == parquet.ByteArray || kind == parquet.FixedLenByteArray
		numeric := kind == parquet.Int32 || kind == parquet.Int64 || kind == parquet.Float || kind == parquet.Double
		switch {
		case slices.Contains(textColumns, name) && !text:
			return nil, fmt.Errorf("%s: column %s is %v; it must be a string column", path, name, kind)
		case name == colCensored && kind != parquet.Boolean && !numeric:
			return nil, fmt.Errorf("%s: column censored is %v; it must be boolean (or 0/1)", path, kind)
		case !slices.Contains(textColumns, name) && name != colCensored && slices.Contains(tableColumns, name) && !numeric:
			return nil, fmt.Errorf("%s: column %s is %v; it must be numeric (int or float)", path, name, kind)
		}
	}
	return byIndex, CheckColumns(path, names, tableColumns, requiredColumns)
}

func setParquetValue(p *MeasuredFailure, col string, v parquet.Value) {
	if slices.Contains(textColumns, col) {
		if !v.IsNull() {
			*p.text(col) = string(v.ByteArray())
		}
		return
	}
	if col == colCensored {
		switch {
		case v.IsNull():
		case v.Kind() == parquet.Boolean:
			p.Censored = v.Boolean()
		default:
			p.Censored = setNumber(v) == 1
		}
		return
	}
	x := setNumber(v)
	if slices.Contains(configColumns, col) {
		x = zeroNaN(x)
	}
	*p.field(col) = x
}

// setNumber is a numeric Parquet value as a float64; null is NaN.
func setNumber(v parquet.Value) float64 {
	x := math.NaN()
	switch {
	case v.IsNull():
	case v.Kind() == parquet.Double:
		x = v.Double()
	case v.Kind() == parquet.Float:
		x = float64(v.Float())
	case v.Kind() == parquet.Int32:
		x = float64(v.Int32())
	case v.Kind() == parquet.Int64:
		x = float64(v.Int64())
	}
	return x
}

// tableRow is the Parquet layout WriteMeasured writes.
type tableRow struct {
	Throughput          float64 `parquet:"throughput"`
	CheckpointIntervalS float64 `parquet:"checkpoint_interval_s"`
	RecoveryS           float64 `parquet:"recovery_s"`
	LatencyMs           float64 `parquet:"latency_ms"`
	Label               string  `parquet:"label"`
	FaultAtS            float64 `parquet:"fault_at_s"`
	Parallelism         float64 `parquet:"parallelism"`
	TaskSlots           float64 `parquet:"task_slots"`
	CPUCores            float64 `parquet:"cpu_cores"`
	MemoryMiB           float64 `parquet:"memory_mib"`
	Fault               string  `parquet:"fault"`
	Censored            bool    `parquet:"censored"`
	Experiment          string  `parquet:"experiment"`
}

// WriteMeasured writes pts as a measured table, CSV or Parquet by
// extension, atomically; every point must pass Check. CSV leaves out latency_ms and fault_at_s when they are all NaN
// and label when all empty; Parquet always has every column.
func WriteMeasured(path string, pts []MeasuredFailure) error {
	if len(pts) == 0 {
		return fmt.Errorf("%s: no points to write", path)
	}
	for i, p := range pts {
		if err := p.Check(); err != nil {
			return fmt.Errorf("%s: point %d: %w", path, i+1, err)
		}
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return results.WriteFileAtomic(path, formatMeasuredCSV(pts))
	case ".parquet":
		rows := make([]tableRow, len(pts))
		for i, p := range pts {
			rows[i] = tableRow{p.Throughput, p.CheckpointIntervalS, p.RecoveryS, p.LatencyMs, p.Label, p.FaultAtS,
				p.Parallelism, p.TaskSlots, p.CPUCores, p.MemoryMiB, p.Fault, p.Censored, p.Experiment}
		}
		return results.WriteParquetFile(path, rows, colLatency, colFaultAt)
	}
	return fmt.Errorf("%s: unknown table format %q (use .csv or .parquet)", path, filepath.Ext(path))
}

func formatMeasuredCSV(pts []MeasuredFailure) []byte {
	cols := slices.Clone(requiredColumns)
	for _, c := range tableColumns[3:] {
		if slices.ContainsFunc(pts, func(p MeasuredFailure) bool { return !p.empty(c) }) {
			cols = append(cols, c)
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(cols) // errors surface at Flush
	for _, p := range pts {
		w.Write(p.cells(cols))
	}
	w.Flush() // a bytes.Buffer does not fail
	return buf.Bytes()
}

// MeasuredColumns are the columns of a measured table, in the order
// WriteMeasured writes them.
func MeasuredColumns() []string { return slices.Clone(tableColumns) }

// Cell is p's value of the measured-table column col as the table's text
// ("" for an empty cell), and false for no such column.
func (p MeasuredFailure) Cell(col string) (string, bool) {
	if !slices.Contains(tableColumns, col) {
		return "", false
	}
	return p.cells([]string{col})[0], true
}

// cells are p's values of cols as CSV text.
func (p MeasuredFailure) cells(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		switch {
		case slices.Contains(textColumns, c):
			out[i] = *p.text(c)
		case c == colCensored:
			out[i] = strconv.FormatBool(p.Censored)
		case slices.Contains(configColumns, c) && *p.field(c) == 0:
			out[i] = ""
		default:
			out[i] = formatNumber(*p.field(c))
		}
	}
	return out
}

func (p MeasuredFailure) empty(col string) bool {
	switch {
	case slices.Contains(textColumns, col):
		return *p.text(col) == ""
	case col == colCensored:
		return !p.Censored
	case slices.Contains(configColumns, col):
		return *p.field(col) == 0
	}
	return math.IsNaN(*p.field(col))
}

// formatNumber is the shortest text that parses back to v; NaN is empty.
func formatNumber(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
