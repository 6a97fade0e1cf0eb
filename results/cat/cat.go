package cat

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
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// tableWidthRows is how many rows the table view looks at to size its
// columns; later rows reuse those widths so big files still stream.
const tableWidthRows = 1000

// DefaultRows is how many rows the table view prints when no --head,
// --tail or --all is given; a note says how many more there are.
const DefaultRows = 50

// Options choose what Print prints.
type Options struct {
	CSV  bool // CSV with exact values instead of an aligned table
	Head int  // only the first Head rows (0: not set)
	Tail int  // only the last Tail rows (0: not set)
	// All prints every row of the table view; without it, and without
	// Head or Tail, the table stops after DefaultRows. CSV always
	// prints every row unless Head or Tail is set.
	All bool
	// Kinds keeps only the rows whose kind column holds one of them (an
	// events file; each one of EventKinds); nil keeps every row. Head,
	// Tail and the default limit count the rows kept.
	Kinds []string
	// Summary prints one row per fault of an events file instead of its
	// rows (FaultSummaries); not with Head, Tail, All or Kinds.
	Summary bool
}

// EventKinds are the kinds of events.parquet (the Kind constants of
// schema.go), in the order a run meets them: what Options.Kinds takes.
var EventKinds = []string{
	results.KindFault, results.KindDetected, results.KindRestart, results.KindTaskManagerUp, results.KindRunning, results.KindRecovered, results.KindUnrecovered,
	results.KindCheckpointCompleted, results.KindCheckpointFailed, results.KindSavepoint, results.KindReconfigured,
	results.KindPolicyDecision, results.KindPolicyError, results.KindRunEnd, results.KindModelRecovered,
}

// Extensions are the file name extensions Print reads (any case): Parquet,
// JSON and CSV. A file with another extension (a scenario's YAML, a PNG) is
// refused with an ErrNotResultFile, whatever it holds: read as CSV, a YAML
// file would print as a one-column table.
var Extensions = []string{".parquet", ".json", ".csv"}

// ErrNotResultFile is returned (wrapped) by Print for a file whose extension
// is not one of Extensions.
var ErrNotResultFile = errors.New("not a result file: results cat reads Parquet (.parquet), JSON (.json) and CSV (.csv) files")

// ErrNoKindColumn is returned (wrapped) by Print when Kinds or Summary is
// given for a file without the kind and time_s columns of an events file.
var ErrNoKindColumn = errors.New("not an events file (no kind and time_s columns); --kind and --summary read events.parquet")

// Print prints a result file as an aligned text table or (CSV) as CSV. It
// reads Parquet (through the file's own schema: nested or repeated columns
// as [a b ...]), JSON (summary.json, fit.json, reference files: one key,
// value row per number or string, nested keys dotted) and CSV; the kind is
// told from the content. The table formats numbers by the one table rule
// (textfmt.Number; counts whole) except times in s (a column or key named
// …_s, not …_per_s), which keep the millisecond (2,101.380), NaN as "–"
// and nulls as "null"; CSV keeps every value exact, nulls empty and NaN
// as NaN. When the table of an events file stops at DefaultRows, the
// note counts the rows left by kind.
func Print(w io.Writer, path string, opt Options) error {
	if err := cat(w, path, opt); err != nil {
		return fmt.Errorf("results: cat %s: %w", path, err)
	}
	return nil
}

func cat(w io.Writer, path string, opt Options) error {
	if opt.Head < 0 || opt.Tail < 0 || opt.Head > 0 && opt.Tail > 0 {
		return errors.New("give one of head or tail, a number of rows > 0")
	}
	if opt.Summary && (opt.Head > 0 || opt.Tail > 0 || opt.All || len(opt.Kinds) > 0) {
		return errors.New("the fault summary has one row per fault: give it without head, tail, all or kinds")
	}
	if err := CheckEventKinds(opt.Kinds); err != nil {
		return err
	}
	if err := checkCatExtension(path); err != nil {
		return err
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
	kindCol := eventsKindColumn(src.header())
	if (opt.Summary || len(opt.Kinds) > 0) && kindCol < 0 {
		return ErrNoKindColumn
	}
	if opt.Summary {
		if _, ok := src.(*parquetSource); !ok {
			return fmt.Errorf("%w, not a CSV or JSON file", ErrNoKindColumn)
		}
		events, err := results.ReadEvents(path)
		if err != nil {
			return err
		}
		return writeFaultSummary(w, FaultSummaries(events), opt.CSV)
	}
	if len(opt.Kinds) > 0 {
		keep := map[string]bool{}
		for _, k := range opt.Kinds {
			keep[k] = true
		}
		src = &kindFilter{rowSource: src, col: kindCol, keep: keep}
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
		limit = DefaultRows
	}
	var left []string // the first row after the limit
	if opt.Tail > 0 {
		err = copyTail(out, src, opt.Tail)
	} else {
		left, err = copyHead(out, src, limit)
	}
	if err != nil {
		return err
	}
	if err := out.flush(); err != nil {
		return err
	}
	if left != nil && limit == DefaultRows && opt.Head == 0 {
		note, err := moreRowsNote(src, left, kindCol)
		if err != nil {
			return err
		}
		bw.WriteString(note + "\n")
	}
	return bw.Flush()
}

// checkCatExtension refuses a file whose extension is not a result file's
// (Extensions), naming the kinds read; a YAML file is probably a
// scenario or a sweep, which scenario print shows.
func checkCatExtension(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if slices.Contains(Extensions, ext) {
		return nil
	}
	switch ext {
	case "":
		return fmt.Errorf("%w, not a file without an extension", ErrNotResultFile)
	case ".yaml", ".yml":
		return fmt.Errorf("%w, not YAML; a scenario prints with streamtwin scenario print %s", ErrNotResultFile, path)
	}
	return fmt.Errorf("%w, not a %s file", ErrNotResultFile, ext)
}

// moreRowsNote says how many rows the default table left out (first, the
// first of them, already read, and the rest of src); for an events file by
// kind, pointing at the options that find the faults.
func moreRowsNote(src rowSource, first []string, kindCol int) (string, error) {
	if kindCol < 0 {
		more, err := src.remaining()
		return fmt.Sprintf("… %s (use --head N, --tail N or --all)", textfmt.Plural(int(1+more), "more row")), err
	}
	count := map[string]int{}
	var order []string
	more := 0
	for r := first; ; {
		k := ""
		if kindCol < len(r) {
			k = r[kindCol]
		}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
		more++
		var err error
		if r, err = src.next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return "", err
		}
	}
	// the kinds of a run in EventKinds's order (faults first), any other after
	rank := func(k string) int {
		if i := slices.Index(EventKinds, k); i >= 0 {
			return i
		}
		return len(EventKinds) + slices.Index(order, k)
	}
	slices.SortFunc(order, func(a, b string) int { return rank(a) - rank(b) })
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = textfmt.Count(float64(count[k])) + " " + k
	}
	return fmt.Sprintf("… %s: %s (--kind KIND,… keeps those kinds, --summary prints one line per fault; --head N, --tail N or --all)",
		textfmt.Plural(more, "more row"), strings.Join(parts, ", ")), nil
}

// FaultSummary is one fault of a run and how the job came back from it.
// The recovery is FaultRecoveries's, the one pairing of a fault with its
// recovered (or unrecovered) event; the detection and the return to
// running are the first failure_detected and the first running event
// after the fault and before the next one. They may come after the
// recovery: live, a job can read its backlog before its last subtask
// reports RUNNING. Times in s since the run start; NaN when there is no
// such event.
type FaultSummary struct {
	measure.FaultRecovery
	TaskManager             *int32 // the TaskManager killed, nil if the event names none
	Reason                  string
	DetectedAtS, RunningAtS float64
	RecoveredAtS            float64 // AtS + RecoveryS
	// DowntimeS is the running event's duration: the outage the run's
	// summary adds up (downtime_s), from the fault, or from the failure
	// it caused when it did not stop the job itself
	DowntimeS float64
}

// FaultSummaries lists the faults of events in time order, each with its
// detection, return to running and recovery.
func FaultSummaries(events []results.Event) []FaultSummary {
	sorted := slices.Clone(events)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].TimeS < sorted[j].TimeS })
	var faults []results.Event
	for _, e := range sorted {
		if e.Kind == results.KindFault {
			faults = append(faults, e)
		}
	}
	recs := measure.FaultRecoveries(events) // the same faults in the same order
	out := make([]FaultSummary, len(faults))
	for i, f := range faults {
		fs := FaultSummary{FaultRecovery: recs[i], TaskManager: f.TaskManager, Reason: f.Reason,
			DetectedAtS: math.NaN(), RunningAtS: math.NaN(), RecoveredAtS: math.NaN(), DowntimeS: math.NaN()}
		if fs.Recovered() {
			fs.RecoveredAtS = fs.AtS + fs.RecoveryS
		}
		next := math.Inf(1)
		if i+1 < len(faults) {
			next = faults[i+1].TimeS
		}
		for _, e := range sorted {
			if e.TimeS < fs.AtS || e.TimeS >= next {
				continue
			}
			switch {
			case e.Kind == results.KindDetected && math.IsNaN(fs.DetectedAtS):
				fs.DetectedAtS = e.TimeS
			case e.Kind == results.KindRunning && math.IsNaN(fs.RunningAtS):
				fs.RunningAtS = e.TimeS
				if e.DurationS != nil {
					fs.DowntimeS = *e.DurationS
				}
			}
		}
		out[i] = fs
	}
	return out
}

// writeFaultSummary prints one row per fault: an aligned table with a
// closing count, or CSV with exact values (empty for none).
func writeFaultSummary(w io.Writer, faults []FaultSummary, asCSV bool) error {
	header := []string{"fault", "at_s", "taskmanager", "detected_s", "running_s", "recovered_s", "recovery_s"}
	if asCSV {
		cw := csv.NewWriter(w)
		cw.Write(append(header, "unrecovered_s", "reason"))
		num := func(x float64) string {
			if math.IsNaN(x) {
				return ""
			}
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		for i, f := range faults {
			tm := ""
			if f.TaskManager != nil {
				tm = strconv.Itoa(int(*f.TaskManager))
			}
			cw.Write([]string{strconv.Itoa(i + 1), num(f.AtS), tm, num(f.DetectedAtS), num(f.RunningAtS),
				num(f.RecoveredAtS), num(f.RecoveryS), num(f.UnrecoveredS), f.Reason})
		}
		cw.Flush()
		return cw.Error()
	}
	if len(faults) == 0 {
		_, err := io.WriteString(w, "no faults\n")
		return err
	}
	// a time with its delay after the fault: 2,102.384 (+1.000)
	at := func(t, fault float64) string {
		if math.IsNaN(t) {
			return textfmt.NoValue
		}
		return catFigure("time_s", t) + " (+" + catFigure("time_s", t-fault) + ")"
	}
	rows := [][]string{append(header, "reason")}
	recovered, unrecovered, neither := 0, 0, 0
	for i, f := range faults {
		tm := textfmt.NoValue
		if f.TaskManager != nil {
			tm = strconv.Itoa(int(*f.TaskManager))
		}
		rec := textfmt.NoValue
		switch {
		case f.Recovered():
			rec = catFigure("recovery_s", f.RecoveryS)
			recovered++
		case !math.IsNaN(f.UnrecoveredS):
			rec = "unrecovered (>" + catFigure("recovery_s", f.UnrecoveredS) + ")"
			unrecovered++
		default:
			neither++
		}
		recAt := textfmt.NoValue
		if f.Recovered() {
			recAt = catFigure("time_s", f.RecoveredAtS)
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), catFigure("time_s", f.AtS), tm,
			at(f.DetectedAtS, f.AtS), at(f.RunningAtS, f.AtS), recAt, rec, formatText([]byte(f.Reason), false)})
	}
	right := []bool{true, true, true, true, true, true, true, false}
	var b strings.Builder
	textfmt.WriteAligned(&b, rows, right)
	fmt.Fprintf(&b, "%s: %s recovered, %s unrecovered", textfmt.Plural(len(faults), "fault"), textfmt.Count(float64(recovered)), textfmt.Count(float64(unrecovered)))
	if neither > 0 {
		fmt.Fprintf(&b, ", %s with neither (no recovered or unrecovered event began at the fault: e.g. a TaskManager already down or running no task)", textfmt.Count(float64(neither)))
	}
	b.WriteString("\n")
	if unrecovered > 0 {
		b.WriteString("unrecovered (>T): still recovering when the run ended, T s after the fault; its recovery time is longer\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CheckEventKinds refuses a kind that is none of EventKinds, listing them.
func CheckEventKinds(kinds []string) error {
	for _, k := range kinds {
		if !slices.Contains(EventKinds, k) {
			return fmt.Errorf("unknown event kind %q (kinds: %s)", k, strings.Join(EventKinds, ", "))
		}
	}
	return nil
}

// eventsKindColumn is the index of the kind column of a header that also
// has time_s (an events file), else -1.
func eventsKindColumn(header []string) int {
	if !slices.Contains(header, "time_s") {
		return -1
	}
	return slices.Index(header, "kind")
}

// kindFilter passes on the rows whose kind is kept. It hides the source's
// seeking, so a tail streams through the kept rows.
type kindFilter struct {
	rowSource
	col  int
	keep map[string]bool
}

func (f *kindFilter) next() ([]string, error) {
	for {
		r, err := f.rowSource.next()
		if err != nil {
			return nil, err
		}
		if f.col < len(r) && f.keep[r[f.col]] {
			return r, nil
		}
	}
}

// remaining counts the kept rows left by reading them.
func (f *kindFilter) remaining() (int64, error) {
	var n int64
	for {
		_, err := f.next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// copyHead copies the first limit rows (all for 0). When rows are left
// after them, it returns the first of those (read, not copied).
func copyHead(out rowSink, src rowSource, limit int) (next []string, err error) {
	for n := 0; ; n++ {
		r, err := src.next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if limit > 0 && n == limit {
			return r, nil
		}
		if err := out.row(r); err != nil {
			return nil, err
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
