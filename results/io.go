package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// File names inside a run folder.
const (
	TimeseriesFile = "timeseries.parquet"
	EventsFile     = "events.parquet"
	SummaryFile    = "summary.json"
	ScenarioFile   = "scenario.yaml"
)

// Figure file names inside a run folder, drawn by results/figures (PlotRun,
// `streamtwin run --plot`).
const (
	FigurePNG = "figure.png"
	figureSVG = "figure.svg"
)

const (
	// rowGroupRows bounds how many rows parquet-go buffers in memory before
	// it writes a row group: ~50k rows x 18 columns stays at a few MiB, so a
	// 7-day 1-s run (604800 rows) streams in flat memory.
	rowGroupRows = 50_000
	// batchRows amortises the per-call cost of GenericWriter.Write, which is
	// built for slices, while WriteSample takes one row at a time.
	batchRows = 1024
)

// zstdCodec is shared so its pooled encoders are reused across files.
var zstdCodec = &zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}

// writerOptions are shared by both files. CreatedBy is fixed because the
// default embeds the parquet-go module version from the build info, so files
// written by binaries built against different versions would differ. zstd is
// deterministic for a given input and level; parquet-go writes no timestamps
// and sorts key/value metadata, so equal rows give equal bytes.
func writerOptions() []parquet.WriterOption {
	opts := []parquet.WriterOption{
		createdBy("streamtwin"),
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(rowGroupRows),
	}
	// parquet-go leaves NaN out of min/max statistics, and DuckDB then
	// trusts them to mean "no NaN here" (isnan() counts 0, filters break).
	// The latency columns are NaN while the job is down, so they carry no
	// bounds at all.
	for _, c := range nanColumns {
		opts = append(opts, parquet.SkipPageBounds(c), parquet.SkipPageStatistics(c))
	}
	return opts
}

// nanColumns are the timeseries columns that hold NaN.
var nanColumns = []string{"latency_mean_ms", "latency_p50_ms", "latency_p99_ms", "latency_marker_p99_ms"}

// createdBy sets the footer's created_by verbatim; parquet.CreatedBy forces
// the "<app> version <v>(build <b>)" form.
type createdBy string

func (c createdBy) ConfigureWriter(config *parquet.WriterConfig) { config.CreatedBy = string(c) }

// table streams rows of one type into one parquet file, in batches, starting
// a new row group every rowGroupRows rows.
type table[T any] struct {
	f       *os.File
	w       *parquet.GenericWriter[T]
	buf     []T
	inGroup int
}

func newTable[T any](path string) (*table[T], error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &table[T]{f: f, w: parquet.NewGenericWriter[T](f, writerOptions()...), buf: make([]T, 0, batchRows)}, nil
}

func (t *table[T]) add(row T) error {
	t.buf = append(t.buf, row)
	if len(t.buf) == cap(t.buf) || t.inGroup+len(t.buf) >= rowGroupRows {
		return t.drain()
	}
	return nil
}

// drain writes the batch and cuts a row group when it is full. Groups are
// cut by row count only, so their boundaries are deterministic too.
func (t *table[T]) drain() error {
	if len(t.buf) == 0 {
		return nil
	}
	if _, err := t.w.Write(t.buf); err != nil {
		return fmt.Errorf("%s: %w", t.f.Name(), err)
	}
	t.inGroup += len(t.buf)
	clear(t.buf) // drop string references held by the batch
	t.buf = t.buf[:0]
	if t.inGroup >= rowGroupRows {
		if err := t.w.Flush(); err != nil {
			return fmt.Errorf("%s: %w", t.f.Name(), err)
		}
		t.inGroup = 0
	}
	return nil
}

// finish writes the footer and, if durable, syncs the file before the rename.
func (t *table[T]) finish(durable bool) error {
	err := t.drain()
	if err == nil {
		err = t.w.Close()
	}
	if err == nil && durable {
		err = t.f.Sync()
	}
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", t.f.Name(), err)
	}
	return nil
}

// RunWriter writes one run folder. It is not safe for concurrent use.
type RunWriter struct {
	dir, tmp string
	samples  *table[Sample]
	events   *table[Event]
	closed   bool
	volatile bool
	lock     *folderLock
	keep     []string // entries of dir no run writes: left as they are
}

// SkipSync makes Commit skip the fsyncs: the folder still appears whole or
// not at all to any process (the rename is atomic), but a power loss may
// leave it truncated. Sweeps use it, since fsyncs were a third of a short
// run's cost and a resumed sweep re-runs a folder it cannot read
// (runs.parquet itself is always synced).
func (w *RunWriter) SkipSync() { w.volatile = true }

// ScratchSuffix names the sibling folder a run is written into before it
// is moved into place (dir + ScratchSuffix); oldSuffix the one an existing
// run folder is moved to while being replaced. Both are streamtwin's own:
// CreateRun removes them as a killed writer's leftovers.
const (
	ScratchSuffix = ".streamtwin-tmp"
	oldSuffix     = ".streamtwin-old"
)

// CreateRun prepares a run folder. Everything is written into a sibling temp
// folder (dir + ScratchSuffix) and only Commit moves it into place, so a
// crashed or aborted run never leaves a half-written folder that looks
// complete. Abort removes the temp folder; it is a no-op after Commit, so
// `defer w.Abort()` is the intended pattern.
//
// The user's files are never touched: dir must be new, empty or a run
// folder (markerFile, or only the run's own files); anything else is a
// *RefusedError unless force, which writes the run's files beside the
// foreign ones. A flock on dir+".lock" refuses a second concurrent writer.
func CreateRun(dir string, force bool) (*RunWriter, error) {
	dir = filepath.Clean(dir)
	// The lock makes us dir's only writer, so the temp and old names need
	// not be unique; fixed names also spare a scan of the parent for a
	// killed writer's leftovers (a sweep's runs/ holds thousands of
	// folders, and the scan held up the other workers' renames there).
	tmp := dir + ScratchSuffix
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("results: create run %s: %w", dir, err)
	}
	lock, err := lockFolder(dir)
	if err != nil {
		return nil, err
	}
	keep, err := inspectOut(dir, force)
	if err != nil {
		lock.release()
		return nil, err
	}
	// Holding the lock, a temp or old sibling of dir is a leftover of a
	// killed writer: remove them.
	for _, left := range []string{tmp, dir + oldSuffix} {
		if err := os.RemoveAll(left); err != nil {
			lock.release()
			return nil, fmt.Errorf("results: create run %s: %w", dir, err)
		}
	}
	if err := os.Mkdir(tmp, 0o755); err != nil {
		lock.release()
		return nil, fmt.Errorf("results: create run %s: %w", dir, err)
	}
	w := &RunWriter{dir: dir, tmp: tmp, lock: lock, keep: keep}
	if w.samples, err = newTable[Sample](filepath.Join(tmp, TimeseriesFile)); err == nil {
		w.events, err = newTable[Event](filepath.Join(tmp, EventsFile))
	}
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("results: create run %s: %w", dir, err)
	}
	return w, nil
}

// Dir returns the final run folder (it exists only after Commit).
func (w *RunWriter) Dir() string { return w.dir }

// WriteSample appends one row to timeseries.parquet. The lag and the
// offsets, expected counts in the twin's fluid model, are written as whole
// records (and so without float noise such as a lag of 3e-08).
func (w *RunWriter) WriteSample(s Sample) error {
	if w.closed {
		return errors.New("results: WriteSample after Commit or Abort")
	}
	s.Lag, s.EndOffset, s.CommittedOffset = math.Round(s.Lag), math.Round(s.EndOffset), math.Round(s.CommittedOffset)
	return w.samples.add(s)
}

// WriteEvent appends one row to events.parquet; a backlog (the value of
// running and reconfigured events) is written as whole records.
func (w *RunWriter) WriteEvent(e Event) error {
	if w.closed {
		return errors.New("results: WriteEvent after Commit or Abort")
	}
	if (e.Kind == KindRunning || e.Kind == KindReconfigured) && e.Value != nil {
		v := math.Round(*e.Value)
		e.Value = &v
	}
	return w.events.add(e)
}

// WriteFile adds a file of the caller's to the run (a sweep's params.json):
// written into the temp folder, it appears with the run folder, or not at
// all. Only the files a run folder may hold besides the writer's own are
// accepted (the marker lists them, so a later run may replace them).
func (w *RunWriter) WriteFile(name string, data []byte) error {
	if w.closed {
		return errors.New("results: WriteFile after Commit or Abort")
	}
	switch name {
	case TimeseriesFile, EventsFile, SummaryFile, ScenarioFile, markerFile:
		return fmt.Errorf("results: %s is written by the run itself", name)
	}
	if !runFileNames[name] {
		return fmt.Errorf("results: %q cannot be added to a run folder (only a sweep's params.json, a monitoring section's files or a figure)", name)
	}
	return writeSynced(filepath.Join(w.tmp, name), data, !w.volatile)
}

// Commit closes the parquet files, writes summary.json and scenario.yaml,
// fsyncs everything and renames the temp folder to the run folder. On error
// the temp folder is removed and any existing run folder is left as it was.
func (w *RunWriter) Commit(s Summary, scenarioYAML []byte) error {
	if w.closed {
		return errors.New("results: Commit after Commit or Abort")
	}
	err := w.commit(s, scenarioYAML)
	if err != nil {
		w.Abort()
		return fmt.Errorf("results: commit %s: %w", w.dir, err)
	}
	return nil
}

func (w *RunWriter) commit(s Summary, scenarioYAML []byte) error {
	durable := !w.volatile
	if err := w.samples.finish(durable); err != nil {
		return err
	}
	if err := w.events.finish(durable); err != nil {
		return err
	}
	js, err := s.Marshal()
	if err != nil {
		return err
	}
	if err := writeSynced(filepath.Join(w.tmp, SummaryFile), js, durable); err != nil {
		return err
	}
	if err := writeSynced(filepath.Join(w.tmp, ScenarioFile), scenarioYAML, durable); err != nil {
		return err
	}
	if err := markFolder(w.tmp, "streamtwin (run folder)", durable); err != nil {
		return err
	}
	if durable {
		if err := syncDir(w.tmp); err != nil {
			return err
		}
	}
	move := replaceDir
	if len(w.keep) > 0 {
		move = mergeDir
	}
	if err := move(w.tmp, w.dir); err != nil {
		return err
	}
	w.closed = true
	w.lock.release()
	if !durable {
		return nil
	}
	return syncDir(filepath.Dir(w.dir))
}

// Abort discards everything written so far. Safe to call more than once and
// after Commit (then it does nothing).
func (w *RunWriter) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	defer w.lock.release()
	// Close errors are irrelevant: the files are deleted next.
	for _, f := range []*os.File{fileOf(w.samples), fileOf(w.events)} {
		if f != nil {
			f.Close()
		}
	}
	os.RemoveAll(w.tmp)
}

func fileOf[T any](t *table[T]) *os.File {
	if t == nil {
		return nil
	}
	return t.f
}

// Marshal renders summary.json: indented, trailing newline, and
// recovery_times_s as [] rather than null so readers see a list either way.
// encoding/json rejects NaN and Inf, so a summary must hold finite numbers.
func (s Summary) Marshal() ([]byte, error) {
	if s.RecoveryTimesS == nil {
		s.RecoveryTimesS = []float64{}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SummaryFile, err)
	}
	return append(b, '\n'), nil
}

// replaceDir moves tmp to dir. A directory cannot be renamed over a non-empty
// one, so an existing dir is first moved aside and deleted after the swap;
// if the second rename fails the old folder is put back.
// mergeDir moves the run files of tmp into dir, which holds files of the
// user's: the results first, the marker last, then removes the run files
// dir had that tmp does not (an old figure). Each file is replaced
// atomically; the set is complete once the marker is there.
func mergeDir(tmp, dir string) error {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	fresh := map[string]bool{}
	for _, e := range entries {
		fresh[e.Name()] = true
		if e.Name() != markerFile {
			if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.Rename(filepath.Join(tmp, markerFile), filepath.Join(dir, markerFile)); err != nil {
		return err
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range old {
		if runFileNames[e.Name()] && !fresh[e.Name()] && !e.IsDir() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.Remove(tmp)
}

func replaceDir(tmp, dir string) error {
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = dir + oldSuffix
		if err := os.RemoveAll(old); err != nil {
			return err
		}
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// ReadSamples loads a whole timeseries.parquet. It is meant for tests and
// tools; the simulator itself never reads its output back.
func ReadSamples(path string) ([]Sample, error) {
	rows, err := parquet.ReadFile[Sample](path)
	if err != nil {
		return nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	return rows, nil
}

// ReadEvents loads a whole events.parquet; absent optionals come back nil.
func ReadEvents(path string) ([]Event, error) {
	rows, err := parquet.ReadFile[Event](path)
	if err != nil {
		return nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	return rows, nil
}

// ReadSummary parses runDir/summary.json.
func ReadSummary(runDir string) (Summary, error) {
	var s Summary
	path := filepath.Join(runDir, SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("results: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("results: parse %s: %w", path, err)
	}
	return s, nil
}

// WriteFileAtomic writes data to a temp file next to path, fsyncs it and
// renames it over path, so readers see either the old or the new content.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes 0600 files
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return nil
}

func writeSynced(path string, data []byte, durable bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename or create in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
