package cat

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/streamtwin/streamtwin/results"
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
