package measure

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
)

// Rescale is one change of parallelism of a run, read from its events and
// samples the same way for the simulator and a live cluster.
type Rescale struct {
	AtS      float64 // the decision (a policy's or the scenario's)
	From, To int     // parallelism before and after
	// InputRate is the input rate (records/s) of the sample at the decision.
	InputRate float64
	// DelayS is from the decision to the restart (the job kept running);
	// DowntimeS from the restart until the job ran again; RecoveryS from
	// the restart until the backlog was read (NaN: never, by the end).
	DelayS, DowntimeS, RecoveryS float64
}

// Up tells a scale-up.
func (r Rescale) Up() bool { return r.To > r.From }

// Rescales pairs each rescale decision with the reconfiguration that
// carried it out and the recovery that closed it. A decision that changed
// nothing (refused, or to the parallelism in force) has none and is left
// out; checkpoint-interval changes are not rescales, nor is a change of
// some vertices' own parallelism that keeps the largest.
func Rescales(samples []results.Sample, events []results.Event) []Rescale {
	sort.SliceStable(events, func(i, j int) bool { return events[i].TimeS < events[j].TimeS })
	// the last sample before the decision (the one closing at its moment
	// may already show its effect)
	parAt := func(t float64) (int, float64) {
		i := sort.Search(len(samples), func(i int) bool { return samples[i].TimeS >= t }) - 1
		if i < 0 {
			return 0, math.NaN()
		}
		return int(samples[i].Parallelism), samples[i].InputRate
	}
	// a rescale_vertices decision's value is its largest parallelism
	isRescale := func(e results.Event) bool {
		return e.Kind == results.KindPolicyDecision && e.Value != nil && (strings.HasPrefix(e.Reason, "rescale:") || strings.HasPrefix(e.Reason, "rescale_vertices:"))
	}
	var out []Rescale
	for i, e := range events {
		if !isRescale(e) || strings.Contains(e.Reason, "(rejected:") {
			continue
		}
		from, rate := parAt(e.TimeS)
		r := Rescale{AtS: e.TimeS, From: from, To: int(*e.Value), InputRate: rate, RecoveryS: math.NaN()}
		if r.From == r.To {
			continue
		}
		// the next reconfiguration, before any later decision
		for _, f := range events[i+1:] {
			if isRescale(f) {
				break
			}
			if f.Kind == results.KindReconfigured && f.DurationS != nil {
				r.DowntimeS = *f.DurationS
				r.DelayS = f.TimeS - *f.DurationS - r.AtS
				restart := f.TimeS - *f.DurationS
				for _, g := range events {
					if g.Kind == results.KindRecovered && g.DurationS != nil && g.IsReconfiguration() && math.Abs(g.TimeS-*g.DurationS-restart) < 1e-3 {
						r.RecoveryS = *g.DurationS
					}
				}
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// WriteRescalesCSV writes rescales as CSV: at_s, from, to, input_rate,
// delay_s, downtime_s, recovery_s (empty when it never recovered).
func WriteRescalesCSV(w io.Writer, rs []Rescale) error {
	cw := csv.NewWriter(w)
	cw.Write(rescaleColumns)
	f := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	for _, r := range rs {
		cw.Write([]string{f(r.AtS), strconv.Itoa(r.From), strconv.Itoa(r.To), f(r.InputRate), f(r.DelayS), f(r.DowntimeS), f(r.RecoveryS)})
	}
	cw.Flush()
	return cw.Error()
}

// ReadRescalesCSV reads what WriteRescalesCSV writes (an empty recovery_s
// is NaN: never recovered). Columns are found by name, so a table with
// more columns reads too.
func ReadRescalesCSV(r io.Reader) ([]Rescale, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("empty rescales table; want the header %s", strings.Join(rescaleColumns, ","))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.TrimSpace(h)] = i
	}
	for _, c := range rescaleColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("rescales table: no column %s (want %s, as `streamtwin results rescales` writes)", c, strings.Join(rescaleColumns, ","))
		}
	}
	var out []Rescale
	for n, row := range rows[1:] {
		num := func(c string, empty float64) (float64, error) {
			s := strings.TrimSpace(row[col[c]])
			if s == "" {
				return empty, nil
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return 0, fmt.Errorf("rescales table row %d: %s %q is not a number", n+2, c, s)
			}
			return v, nil
		}
		var v [7]float64
		for i, c := range rescaleColumns {
			empty := math.NaN()
			if c != "recovery_s" {
				empty = math.Inf(1) // a required number: rejected below
			}
			x, err := num(c, empty)
			if err != nil {
				return nil, err
			}
			if math.IsInf(x, 1) {
				return nil, fmt.Errorf("rescales table row %d: %s is empty", n+2, c)
			}
			v[i] = x
		}
		if v[1] != math.Trunc(v[1]) || v[2] != math.Trunc(v[2]) || v[1] < 1 || v[2] < 1 || v[1] == v[2] {
			return nil, fmt.Errorf("rescales table row %d: from %g and to %g must be different parallelisms ≥ 1", n+2, v[1], v[2])
		}
		out = append(out, Rescale{AtS: v[0], From: int(v[1]), To: int(v[2]), InputRate: v[3], DelayS: v[4], DowntimeS: v[5], RecoveryS: v[6]})
	}
	return out, nil
}

// rescaleColumns are the rescales table's columns, in order.
var rescaleColumns = []string{"at_s", "from", "to", "input_rate", "delay_s", "downtime_s", "recovery_s"}
