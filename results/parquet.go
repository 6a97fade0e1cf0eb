package results

import (
	"bytes"
	"fmt"

	"github.com/parquet-go/parquet-go"
)

// WriteParquetFile writes rows as one parquet file, atomically, with the
// writer options of the run files (fixed created_by, zstd). nanColumns may
// hold NaN, so they get no min/max statistics (DuckDB would trust them to
// mean "no NaN here", see writerOptions).
func WriteParquetFile[T any](path string, rows []T, nanColumns ...string) error {
	data, err := ParquetBytes(rows, nanColumns...)
	if err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return WriteFileAtomic(path, data)
}

// ParquetBytes is WriteParquetFile's content, for a file that goes into a
// run folder with the run (run.Output.Files).
func ParquetBytes[T any](rows []T, nanColumns ...string) ([]byte, error) {
	opts := writerOptions()
	for _, c := range nanColumns {
		opts = append(opts, parquet.SkipPageBounds(c), parquet.SkipPageStatistics(c))
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	_, err := w.Write(rows)
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
