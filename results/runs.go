package results

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// RunsFile is the table of a sweep: one row per run.
const RunsFile = "runs.parquet"

// ParamValue is one swept parameter of one run. Numbers are in base units
// (seconds, records/s, bytes); anything else is kept as text.
type ParamValue struct {
	Name     string
	Text     string // as written in the sweep (10s, 25k/s, static)
	Number   float64
	IsNumber bool
}

// RunRecord is one row of runs.parquet.
type RunRecord struct {
	RunID       string
	Index       int
	Replication int
	Seed        uint64
	Params      []ParamValue
	Summary     Summary
}

// countType is Count: the int64 fields that are figures (the sink audit's
// are not: it is a nested pointer, and live only).
var countType = reflect.TypeOf(Count(0))

// Figures flattens the summary into its numeric figures, in a fixed order:
// the JSON names, qos.* as qos_*, without fields summary.json leaves out
// (the wall time) and without the list of recovery times.
func (s Summary) Figures() ([]string, []float64) {
	var names []string
	var values []float64
	var walk func(prefix string, v reflect.Value, t reflect.Type)
	walk = func(prefix string, v reflect.Value, t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if jsonName(f) == "-" {
				continue
			}
			name := prefix + jsonName(f)
			switch f.Type.Kind() {
			case reflect.Struct:
				walk(name+"_", v.Field(i), f.Type)
			case reflect.Float64:
				names, values = append(names, name), append(values, v.Field(i).Float())
			case reflect.Int:
				names, values = append(names, name), append(values, float64(v.Field(i).Int()))
			case reflect.Int64:
				if f.Type == countType {
					names, values = append(names, name), append(values, float64(v.Field(i).Int()))
				}
			}
		}
	}
	walk("", reflect.ValueOf(s), reflect.TypeOf(s))
	return names, values
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	for i := range tag {
		if tag[i] == ',' {
			return tag[:i]
		}
	}
	if tag == "" {
		return f.Name
	}
	return tag
}

// StreamRunsTable writes runs.parquet from an iterator, holding one row at
// a time: a sweep of any size collects in flat memory. params and numeric
// give the parameter columns and their types.
func StreamRunsTable(path string, params []string, numeric map[string]bool, next func() (RunRecord, bool, error)) error {
	figNames, _ := Summary{}.Figures()
	fields := []reflect.StructField{
		{Name: "RunID", Type: reflect.TypeOf(""), Tag: `parquet:"run_id"`},
		{Name: "RunIndex", Type: reflect.TypeOf(int64(0)), Tag: `parquet:"run_index"`},
		{Name: "Replication", Type: reflect.TypeOf(int64(0)), Tag: `parquet:"replication"`},
		{Name: "Seed", Type: reflect.TypeOf(int64(0)), Tag: `parquet:"seed"`},
	}
	for i, p := range params {
		t := reflect.TypeOf(0.0)
		if !numeric[p] {
			t = reflect.TypeOf("")
		}
		fields = append(fields, reflect.StructField{Name: "P" + strconv.Itoa(i), Type: t, Tag: reflect.StructTag(`parquet:"` + p + `"`)})
	}
	for i, f := range figNames {
		fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(i), Type: reflect.TypeOf(0.0), Tag: reflect.StructTag(`parquet:"` + f + `"`)})
	}
	rowType := reflect.StructOf(fields)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	w := parquet.NewWriter(tmp, append(writerOptions(), parquet.SchemaOf(reflect.New(rowType).Interface()))...)
	v := reflect.New(rowType).Elem()
	for {
		r, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		v.SetZero()
		v.Field(0).SetString(r.RunID)
		v.Field(1).SetInt(int64(r.Index))
		v.Field(2).SetInt(int64(r.Replication))
		v.Field(3).SetInt(int64(r.Seed))
		for i, p := range r.Params {
			if numeric[p.Name] {
				v.Field(4 + i).SetFloat(p.Number)
			} else {
				v.Field(4 + i).SetString(p.Text)
			}
		}
		_, values := r.Summary.Figures()
		for i, x := range values {
			v.Field(4 + len(params) + i).SetFloat(x)
		}
		if err := w.Write(v.Addr().Interface()); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Table is a parquet file read column by column: numeric columns as
// float64 (nulls NaN), the others as strings.
type Table struct {
	Names   []string
	Floats  map[string][]float64
	Strings map[string][]string
	Rows    int
}

// ReadTable reads any flat parquet file (runs.parquet, timeseries.parquet).
func ReadTable(path string) (*Table, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &Table{Floats: map[string][]float64{}, Strings: map[string][]string{}, Rows: int(pf.NumRows())}
	var numericNames []string
	for _, field := range pf.Schema().Fields() {
		name := field.Name()
		t.Names = append(t.Names, name)
		switch field.Type().Kind() {
		case parquet.ByteArray, parquet.FixedLenByteArray:
			t.Strings[name] = make([]string, 0, t.Rows)
		default:
			numericNames = append(numericNames, name)
		}
	}
	cols, err := ReadFloatColumns(path, numericNames...)
	if err != nil {
		return nil, err
	}
	for i, n := range numericNames {
		t.Floats[n] = cols[i]
	}
	if len(t.Strings) > 0 {
		rows := make([]parquet.Row, 256)
		leafIndex := map[int]string{}
		for name := range t.Strings {
			leaf, _ := pf.Schema().Lookup(name)
			leafIndex[leaf.ColumnIndex] = name
		}
		r := parquet.NewReader(f, pf.Schema())
		for {
			n, err := r.ReadRows(rows)
			for _, row := range rows[:n] {
				for _, v := range row {
					if name, ok := leafIndex[v.Column()]; ok {
						t.Strings[name] = append(t.Strings[name], v.String())
					}
				}
			}
			if err != nil {
				break
			}
		}
	}
	return t, nil
}

// Column returns a numeric column, or nil.
func (t *Table) Column(name string) []float64 { return t.Floats[name] }

// Key is row i of a column as a group key: a number in its shortest exact
// form in plain decimals (strconv 'f', -1: 10, 1000000, 0.25), NaN as "",
// text as it is. Two runs are in one group only if their values are equal.
func (t *Table) Key(name string, i int) string {
	if c, ok := t.Floats[name]; ok {
		if math.IsNaN(c[i]) {
			return ""
		}
		return strconv.FormatFloat(c[i], 'f', -1, 64)
	}
	return t.Strings[name][i]
}

// Value formats row i of a column for printing.
func (t *Table) Value(name string, i int) string {
	if c, ok := t.Floats[name]; ok {
		if math.IsNaN(c[i]) {
			return ""
		}
		return strconv.FormatFloat(c[i], 'g', 6, 64)
	}
	return t.Strings[name][i]
}

// WriteParquetRows writes rows, a slice of a struct type made at run time
// (reflect.StructOf: a table whose columns depend on its content, such as
// results summarize's statistics), as one parquet file, atomically, with
// the writer options of the run files.
func WriteParquetRows(path string, rows reflect.Value) error {
	rt := rows.Type().Elem()
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, append(writerOptions(), parquet.SchemaOf(reflect.New(rt).Interface()))...)
	for i := 0; i < rows.Len(); i++ {
		if err := w.Write(rows.Index(i).Addr().Interface()); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFileAtomic(path, buf.Bytes())
}
