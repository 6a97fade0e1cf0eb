package calibrate

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// The rescale fit's report files.
const (
	RescaleReportRows = "rescales.csv" // one row per measured rescale
	RescaleReportText = "report.md"
)

// rescaleQuantities are the three measured quantities of a rescale, in
// the order of the report's columns.
var rescaleQuantities = []struct {
	name string
	of   func(measure.Rescale) float64
}{
	{"delay_s", func(r measure.Rescale) float64 { return r.DelayS }},
	{"downtime_s", func(r measure.Rescale) float64 { return r.DowntimeS }},
	{"recovery_s", func(r measure.Rescale) float64 { return r.RecoveryS }},
}

// RescaleRowsCSV is the per-rescale table: at_s, from, to, direction,
// input_rate, then for each of delay_s, downtime_s and recovery_s the
// measured value, the twin fitted on every rescale (fit_), the twin fitted
// without this one (heldout_) and its error (heldout_err_: predicted −
// measured), the baseline's held-out prediction (mean_: the other
// rescales of the direction) and its error (mean_err_). Seconds; an
// empty cell is a value that does not exist (a recovery never measured).
func RescaleRowsCSV(r *RescaleResult) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := []string{"at_s", "from", "to", "direction", "input_rate"}
	for _, q := range rescaleQuantities {
		head = append(head, "measured_"+q.name, "fit_"+q.name, "heldout_"+q.name, "heldout_err_"+q.name, "mean_"+q.name, "mean_err_"+q.name)
	}
	w.Write(head)
	for _, row := range r.Rows {
		m := row.Measured
		rec := []string{num(m.AtS), strconv.Itoa(m.From), strconv.Itoa(m.To), row.Direction(), num(m.InputRate)}
		for _, q := range rescaleQuantities {
			v := q.of(m)
			rec = append(rec, num(v), num(q.of(row.Fitted)), num(q.of(row.Held)), num(q.of(row.Held)-v), num(q.of(row.Mean)), num(q.of(row.Mean)-v))
		}
		w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

// RescaleLine is the fitted job.rescale as one scenario-file line.
func (r *RescaleResult) RescaleLine() string {
	var parts []string
	parts = append(parts, "mode: checkpoint")
	for _, v := range r.Values {
		parts = append(parts, v.Name+": "+v.Text(v.Fitted))
	}
	rs := r.Scenario.Job.Rescale
	if rs.Release > 0 {
		parts = append(parts, "release: "+strconv.FormatFloat(float64(rs.Release), 'f', -1, 64)+"s")
	}
	if rs.UpWarmup > 0 { // not fitted here (make live-warmup), but kept
		parts = append(parts, "up_warmup: "+strconv.FormatFloat(float64(rs.UpWarmup), 'f', -1, 64)+"s",
			"up_warmup_start: "+strconv.FormatFloat(rs.UpWarmupStart, 'f', -1, 64))
	}
	return "rescale: {" + strings.Join(parts, ", ") + "}"
}

// RescaleReportInfo names the fit's inputs for the report.
type RescaleReportInfo struct {
	Scenario, Measured string
	Command            string // the command line that made it
}

// WriteRescaleReport writes rescales.csv and report.md into dir.
func WriteRescaleReport(dir string, r *RescaleResult, info RescaleReportInfo) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	written := []string{filepath.Join(dir, RescaleReportRows), filepath.Join(dir, RescaleReportText)}
	for i, data := range [][]byte{RescaleRowsCSV(r), rescaleReportText(r, info)} {
		if err := results.WriteFileAtomic(written[i], data); err != nil {
			return nil, err
		}
	}
	return written, nil
}

func rescaleReportText(r *RescaleResult, info RescaleReportInfo) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Rescale fit\n\n`%s`\n\n", info.Command)
	fmt.Fprintf(&b, "Base scenario %s, measured rescales %s (%d: %d up, %d down). Each direction's delay and deploy time were fitted by Nelder–Mead to the squared errors of delay and downtime, simulating the measured schedule on the twin (the recovery, downtime plus catch-up, is predicted: the catch-up follows from the twin's capacity and the input read again); %d simulations, the leave-one-out folds included.\n\n",
		info.Scenario, info.Measured, len(r.Rows), countDir(r, DirectionUp), countDir(r, DirectionDown), r.Evaluations)
	b.WriteString("| parameter | initial | fitted | flags |\n|---|---|---|---|\n")
	for _, v := range r.Values {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", v.Name, v.Text(v.Initial), v.Text(v.Fitted), strings.Join(v.Flags, "; "))
	}
	fmt.Fprintf(&b, "\nIn a scenario file:\n\n    %s\n\n", r.RescaleLine())
	b.WriteString("## Held-out error (leave one rescale out)\n\nMean absolute error in seconds of each rescale predicted by the twin fitted without it, and by the baseline: the mean of the other measured rescales of its direction.\n\n")
	b.WriteString("| direction | n | twin delay | twin downtime | twin recovery | mean delay | mean downtime | mean recovery |\n|---|---|---|---|---|---|---|---|\n")
	for _, d := range []string{DirectionUp, DirectionDown, ""} {
		t, m := r.HeldOutErrors(d)
		name := d
		if d == "" {
			name = "all"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", name, t.N, sec(t.DelayS), sec(t.DowntimeS), sec(t.RecoveryS), sec(m.DelayS), sec(m.DowntimeS), sec(m.RecoveryS))
	}
	b.WriteString("\n## Per rescale (s; measured / twin held out / mean of the others)\n\n| at | from → to | rate (records/s) | delay | downtime | recovery |\n|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		m := row.Measured
		cell := func(of func(measure.Rescale) float64) string {
			return sec(of(m)) + " / " + sec(of(row.Held)) + " / " + sec(of(row.Mean))
		}
		fmt.Fprintf(&b, "| %s | %d → %d | %s | %s | %s | %s |\n", sec(m.AtS), m.From, m.To, strconv.FormatFloat(m.InputRate, 'f', 0, 64),
			cell(rescaleQuantities[0].of), cell(rescaleQuantities[1].of), cell(rescaleQuantities[2].of))
	}
	fmt.Fprintf(&b, "\nEvery row, with the errors: %s.\n", RescaleReportRows)
	return []byte(b.String())
}

func countDir(r *RescaleResult, d string) int {
	n := 0
	for _, row := range r.Rows {
		if row.Direction() == d {
			n++
		}
	}
	return n
}

// sec is seconds to two decimals, or – when the value does not exist.
func sec(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// WriteRescaleScenario writes base's file (text src) with the fitted
// rescale values patched in, under a comment naming the fit, atomically.
func WriteRescaleScenario(out string, src []byte, r *RescaleResult, info RescaleReportInfo) error {
	var sets []scenario.Set
	for _, v := range r.Values {
		sets = append(sets, scenario.Set{Path: v.Path, Value: v.Text(v.Fitted)})
	}
	patched, err := scenario.Patch(info.Scenario, src, sets)
	if err != nil {
		return err
	}
	header := fmt.Sprintf("# job.rescale fitted by `%s`\n", info.Command)
	return results.WriteFileAtomic(out, append([]byte(header), patched...))
}
