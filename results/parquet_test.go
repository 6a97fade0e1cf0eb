package results

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestWriteParquetFileNaNStats: the NaN columns carry no min/max, so DuckDB
// does not conclude they hold no NaN.
func TestWriteParquetFileNaNStats(t *testing.T) {
	type row struct {
		A float64 `parquet:"a"`
		B float64 `parquet:"b"`
	}
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := WriteParquetFile(path, []row{{1, math.NaN()}, {2, 3}}, "b"); err != nil {
		t.Fatal(err)
	}
	f, pf, err := openParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cols := pf.Metadata().RowGroups[0].Columns
	if st := cols[1].MetaData.Statistics; len(st.MinValue)+len(st.MaxValue)+len(st.Min)+len(st.Max) != 0 {
		t.Errorf("column b has statistics %+v", st)
	}
	if st := cols[0].MetaData.Statistics; len(st.MaxValue) == 0 {
		t.Errorf("column a lost its statistics")
	}
	if pf.Metadata().CreatedBy != "streamtwin" {
		t.Errorf("created_by %q", pf.Metadata().CreatedBy)
	}
	rows, err := parquet.ReadFile[row](path)
	if err != nil || len(rows) != 2 || !math.IsNaN(rows[0].B) {
		t.Errorf("read back %v, %v", rows, err)
	}
}
