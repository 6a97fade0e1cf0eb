package cat

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results/textfmt"
)

// jsonSource is a JSON file as key, value rows: one per number, string,
// boolean or null, in the file's order; nested keys are dotted
// (qos.latency_bound_ms, runs.demo.records_in) and array elements indexed
// (recovery_times_s[0]).
type jsonSource struct {
	rows  [][]string
	pos   int
	table bool
}

func openJSONSource(r io.Reader, table bool) (*jsonSource, error) {
	d := json.NewDecoder(r)
	d.UseNumber()
	s := &jsonSource{table: table}
	if err := s.value(d, ""); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not valid JSON: more after the first value")
	}
	return s, nil
}

// value reads one JSON value at key, flattening objects and arrays.
func (s *jsonSource) value(d *json.Decoder, key string) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		empty := true
		for i := 0; d.More(); i++ {
			empty = false
			child := key + "[" + strconv.Itoa(i) + "]"
			if t == '{' {
				k, err := d.Token()
				if err != nil {
					return err
				}
				child = strings.TrimPrefix(key+"."+k.(string), ".")
			}
			if err := s.value(d, child); err != nil {
				return err
			}
		}
		if _, err := d.Token(); err != nil { // the closing delimiter
			return err
		}
		if empty {
			s.add(key, map[json.Delim]string{'{': "{}", '[': "[]"}[t])
		}
	case json.Number:
		s.add(key, s.number(key, t))
	case string:
		s.add(key, formatText([]byte(t), !s.table))
	case bool:
		s.add(key, strconv.FormatBool(t))
	case nil:
		s.add(key, map[bool]string{true: nullText, false: ""}[s.table])
	}
	return nil
}

// number is exact for CSV; the table shows a number written as an integer
// as one (seed, faults), and formats any other by its figure's name (the
// last part of the key, qos.x as qos_x): a count as a whole number, a time
// in s to the millisecond.
func (s *jsonSource) number(key string, n json.Number) string {
	x, err := n.Float64()
	if !s.table || err != nil {
		return n.String()
	}
	if !strings.ContainsAny(n.String(), ".eE") {
		return textfmt.Count(x)
	}
	parts := strings.Split(key, ".")
	name, _, _ := strings.Cut(parts[len(parts)-1], "[")
	if len(parts) > 1 && parts[len(parts)-2] == "qos" {
		name = "qos_" + name
	}
	return catFigure(name, x)
}

func (s *jsonSource) add(key, value string) { s.rows = append(s.rows, []string{key, value}) }

func (s *jsonSource) header() []string { return []string{"key", "value"} }
func (s *jsonSource) numeric() []bool  { return []bool{false, true} }

func (s *jsonSource) next() ([]string, error) {
	if s.pos == len(s.rows) {
		return nil, io.EOF
	}
	s.pos++
	return s.rows[s.pos-1], nil
}

func (s *jsonSource) remaining() (int64, error) { return int64(len(s.rows) - s.pos), nil }

// csvSource is a CSV file whose first record is the header; the table
// formats the cells that are numbers.
type csvSource struct {
	r     *csv.Reader
	head  []string
	table bool
}

func openCSVSource(r io.Reader, table bool) (*csvSource, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // a short row is shown, not refused
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("not a CSV file: %w", err)
	}
	return &csvSource{r: cr, head: head, table: table}, nil
}

func (s *csvSource) header() []string { return s.head }
func (s *csvSource) numeric() []bool  { return nil }

func (s *csvSource) next() ([]string, error) {
	rec, err := s.r.Read()
	if err != nil {
		return nil, err
	}
	if s.table {
		for i, c := range rec {
			if x, err := strconv.ParseFloat(strings.TrimSpace(c), 64); err == nil && i < len(s.head) {
				rec[i] = catFigure(s.head[i], x)
			} else {
				rec[i] = formatText([]byte(c), false)
			}
		}
	}
	for len(rec) < len(s.head) {
		rec = append(rec, "")
	}
	return rec, nil
}

// remaining counts the records left by reading them.
func (s *csvSource) remaining() (int64, error) {
	var n int64
	for {
		_, err := s.r.Read()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}
