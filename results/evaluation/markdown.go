package evaluation

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// LatencyDefinition names what a timeseries latency column measures, for
// the labels of tables and figures: "latency-marker p99" for
// latency_marker_p99_ms, "event-time p99", "event-time p50" and
// "event-time mean" for latency_p99_ms, latency_p50_ms and latency_mean_ms;
// any other column by its readable name. The figures' axes name them the
// same way: it is figures.ReadableName.
func LatencyDefinition(column string) string { return figures.ReadableName(column) }

// latencyMeaning says in words what the latencies of LatencyDefinition are.
func latencyMeaning(column string) string {
	switch column {
	case "latency_marker_p99_ms":
		return "what Flink's latency markers report at the sinks: source-to-sink transit, without the wait in Kafka or in windows; Khaos's latency"
	case "latency_p99_ms", "latency_p50_ms", "latency_mean_ms":
		return "end-to-end from each event's time, the wait in Kafka included"
	}
	return "a column of timeseries.parquet"
}

// latencyShortName is LatencyDefinition as a column header word:
// marker_p99, event_p99, event_p50, event_mean, or the column's name.
func latencyShortName(column string) string {
	switch column {
	case "latency_marker_p99_ms":
		return "marker_p99"
	case "latency_p99_ms":
		return "event_p99"
	case "latency_p50_ms":
		return "event_p50"
	case "latency_mean_ms":
		return "event_mean"
	}
	return strings.TrimSuffix(column, "_ms")
}

// The steady latency of summary.json (latency_steady_mean_ms), which is
// no statistic of the evaluated column.
const (
	steadyLatencyName  = "steady-state event-time mean (the record-weighted mean of `latency_mean_ms` outside recoveries, summary latency_steady_mean_ms: end-to-end from each event's time, the wait in Kafka included)"
	steadyLatencyLabel = "event-time mean outside recoveries, record-weighted (ms)"
)

// commonBound is the value every variant shares, or NaN.
func (ev *Evaluation) commonBound(get func(VariantEvaluation) float64) float64 {
	if len(ev.Variants) == 0 {
		return math.NaN()
	}
	b := get(ev.Variants[0])
	for _, v := range ev.Variants[1:] {
		if get(v) != b {
			return math.NaN()
		}
	}
	return b
}

func (ev *Evaluation) overLabel(what string) string {
	if r := ev.commonBound(func(v VariantEvaluation) float64 { return v.RecoveryBoundS }); r > 0 {
		return fmt.Sprintf("# %s > %s s", what, fmtG(r))
	}
	return "# " + what + " > R"
}

func (ev *Evaluation) latLabel(format string) string {
	if l := ev.commonBound(func(v VariantEvaluation) float64 { return v.LatencyBoundMs }); l > 0 {
		return fmt.Sprintf(format, fmtG(l)+" ms")
	}
	return fmt.Sprintf(format, "L")
}

// WriteMarkdown writes evaluation.md.
func (ev *Evaluation) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	title := "Evaluation"
	if ev.Scenario != "" {
		title += ": " + ev.Scenario
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	names := make([]string, len(ev.Variants))
	for i, v := range ev.Variants {
		names[i] = v.Label
	}
	source := func(given bool) string {
		if given {
			return "given"
		}
		return "the runs' qos"
	}
	r := ev.commonBound(func(v VariantEvaluation) float64 { return v.RecoveryBoundS })
	l := ev.commonBound(func(v VariantEvaluation) float64 { return v.LatencyBoundMs })
	fmt.Fprintf(&b, "%s: %s. Recovery bound R = %s (%s), latency bound L = %s (%s).\n\n",
		textfmt.Plural(len(names), "variant"), strings.Join(names, ", "), boundText(r, "s"), source(ev.RecoveryBoundGiven),
		boundText(l, "ms"), source(ev.LatencyBoundGiven))

	ev.writeFailuresMarkdown(&b, names, r)
	ev.writeLatencyMarkdown(&b, names, l)
	ev.writeVariantsMarkdown(&b, names)

	if ev.Measured != nil {
		ev.writeMeasuredMarkdown(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// variantTable collects the rows of a markdown table with one column per
// variant.
type variantTable struct {
	variants []VariantEvaluation
	rows     [][]string
}

// row adds a row: the cells of lead, then get of each variant.
func (t *variantTable) row(lead []string, get func(VariantEvaluation) string) {
	row := slices.Clone(lead)
	for _, v := range t.variants {
		row = append(row, get(v))
	}
	t.rows = append(t.rows, row)
}

// metric adds a row led by its label.
func (t *variantTable) metric(label string, get func(VariantEvaluation) string) {
	t.row([]string{label}, get)
}

// writeFailuresMarkdown writes the per-failure measurements of variants
// names, as Khaos's table, under recovery bound r (NaN: the variants'
// differ).
func (ev *Evaluation) writeFailuresMarkdown(b *strings.Builder, names []string, r float64) {
	latName := LatencyDefinition(ev.LatencyColumn)
	t := &variantTable{variants: ev.Variants}
	b.WriteString("## Per-failure measurements\n\n")
	fmt.Fprintf(b, "Cell = throughput before failure (k records/s) / %s before failure (ms: the mean of `%s`, %s) / recovery time (s); "+
		"before = the %s s up to the fault, intervals without output skipped. Rows in time order; "+
		"*at* = the fault time (h:mm:ss) in the first variant that has that failure. n/r = not recovered by the end of the run; "+
		"(CI …) = the CI in force at the fault, for variants whose CI changed.\n\n",
		latName, ev.LatencyColumn, latencyMeaning(ev.LatencyColumn), fmtG(ev.PreFailureS))
	nRows := 0
	for _, v := range ev.Variants {
		nRows = max(nRows, len(v.Failures))
	}
	for k := range nRows {
		at := ""
		for _, v := range ev.Variants {
			if k < len(v.Failures) {
				at = textfmt.Clock(v.Failures[k].FaultAtS)
				break
			}
		}
		t.row([]string{strconv.Itoa(k + 1), at}, func(v VariantEvaluation) string {
			if k >= len(v.Failures) {
				return "–"
			}
			f := v.Failures[k]
			rec := "n/r"
			if !math.IsNaN(f.RecoveryS) {
				rec = fmtNum(f.RecoveryS)
			}
			cell := fmtThousands(f.ThroughputMean) + "/" + fmtNum(f.LatencyMeanMs) + "/" + rec
			if v.DynamicCI && !math.IsNaN(f.CIS) {
				cell += " (CI " + fmtCI(f.CIS) + " s)"
			}
			return cell
		})
	}
	t.row([]string{"median rec (s)", ""}, func(v VariantEvaluation) string { return fmtNum(v.RecoveryMedianS) })
	t.row([]string{"mean rec (s)", ""}, func(v VariantEvaluation) string { return fmtNum(v.RecoveryMeanS) })
	t.row([]string{ev.overLabel("rec"), ""}, func(v VariantEvaluation) string { return strconv.Itoa(v.RecoveryViolations) })
	if math.IsNaN(r) {
		t.row([]string{"R (s)", ""}, func(v VariantEvaluation) string { return fmtG(v.RecoveryBoundS) })
	}
	writeMarkdownTable(b, append([]string{"#", "at"}, names...), t.rows)
}

// writeLatencyMarkdown writes the statistics of the latency series, as
// Khaos's "24 h latency series", under latency bound l (NaN: the variants'
// differ).
func (ev *Evaluation) writeLatencyMarkdown(b *strings.Builder, names []string, l float64) {
	latName := LatencyDefinition(ev.LatencyColumn)
	t := &variantTable{variants: ev.Variants}
	fmt.Fprintf(b, "\n## Latency series (%s): %s\n\n", fmtSpan(ev.maxDuration()), latName)
	fmt.Fprintf(b, "The per-interval %s (`%s`, %s) over the whole run, failure periods included, intervals without output dropped "+
		"(as in Khaos's series); a window is %s s of consecutive intervals with output, counted out of all full windows. "+
		"The last row is another latency, the %s.\n\n",
		latName, ev.LatencyColumn, latencyMeaning(ev.LatencyColumn), fmtG(ev.WindowS), steadyLatencyName)
	t.metric(latName+", mean over intervals (ms)", func(v VariantEvaluation) string { return fmtNum(v.LatencyMeanMs) })
	t.metric(latName+", median over intervals (ms)", func(v VariantEvaluation) string { return fmtNum(v.LatencyMedianMs) })
	t.metric(latName+", "+ev.latLabel("%% of intervals > %s"), func(v VariantEvaluation) string { return fmtPct(v.LatencyOverPct) })
	t.metric(latName+", "+ev.latLabel(fmtG(ev.WindowS)+"-s windows with mean > %s"), func(v VariantEvaluation) string {
		return fmt.Sprintf("%d/%d", v.LatencyWindowsOver, v.LatencyWindows)
	})
	t.metric(steadyLatencyLabel, func(v VariantEvaluation) string { return fmtNum(v.LatencySteadyMeanMs) })
	if math.IsNaN(l) {
		t.metric("L (ms)", func(v VariantEvaluation) string { return fmtG(v.LatencyBoundMs) })
	}
	writeMarkdownTable(b, append([]string{"Metric"}, names...), t.rows)
}

// writeVariantsMarkdown writes the table of the variants: policy, CIs,
// recoveries and cost.
func (ev *Evaluation) writeVariantsMarkdown(b *strings.Builder, names []string) {
	t := &variantTable{variants: ev.Variants}
	b.WriteString("\n## Variants\n\n")
	t.metric("policy", func(v VariantEvaluation) string { return cmp.Or(v.Policy, "–") })
	t.metric("checkpoint interval at start (s)", func(v VariantEvaluation) string { return fmtG(v.CheckpointIntervalS) })
	t.metric("failures", func(v VariantEvaluation) string { return strconv.Itoa(len(v.Failures)) })
	t.metric("recovered", func(v VariantEvaluation) string { return strconv.Itoa(v.Recovered) })
	t.metric("recovery median (s)", func(v VariantEvaluation) string { return fmtNum(v.RecoveryMedianS) })
	t.metric("recovery mean (s)", func(v VariantEvaluation) string { return fmtNum(v.RecoveryMeanS) })
	t.metric("recovery max (s)", func(v VariantEvaluation) string { return fmtNum(v.RecoveryMaxS) })
	t.metric("violations: "+ev.overLabel("recoveries"), func(v VariantEvaluation) string { return strconv.Itoa(v.RecoveryViolations) })
	t.metric("reconfigurations", func(v VariantEvaluation) string { return strconv.Itoa(v.Reconfigurations) })
	t.metric("CI changes (h:mm:ss → new CI s)", func(v VariantEvaluation) string {
		if len(v.CIChanges) == 0 {
			return "–"
		}
		var parts []string
		for i, c := range v.CIChanges {
			// A long list is cut to its ends; variants.csv has them all.
			if n := len(v.CIChanges); n > maxCIChanges && i >= maxCIChanges-2 && i < n-2 {
				if i == maxCIChanges-2 {
					parts = append(parts, fmt.Sprintf("… (%d in all)", n))
				}
				continue
			}
			parts = append(parts, textfmt.Clock(c.AtS)+" → "+fmtCI(c.CheckpointIntervalS))
		}
		return strings.Join(parts, "; ")
	})
	t.metric("mean CI, time-weighted (s)", func(v VariantEvaluation) string { return fmtNum(v.CheckpointIntervalMeanS) })
	t.metric("worker-seconds (TaskManager-s)", func(v VariantEvaluation) string { return fmtNum(v.WorkerSeconds) })
	writeMarkdownTable(b, append([]string{"Metric"}, names...), t.rows)
}

func (ev *Evaluation) writeMeasuredMarkdown(b *strings.Builder) {
	src := cmp.Or(ev.MeasuredSource, "the measured table")
	fmt.Fprintf(b, "\n## Measured vs simulated\n\n")
	fmt.Fprintf(b, "Measured failures of %s per checkpoint interval, next to the variant with that static CI "+
		"(job.checkpoint.interval of its scenario.yaml, static policy). Recovery times in s; latency = the mean over the failures of the "+
		"latency before each (ms): measured, the table's latency_ms (Khaos recorded the latency-marker p99); simulated, the %s (`%s`).\n\n",
		src, LatencyDefinition(ev.LatencyColumn), ev.LatencyColumn)
	withLat := false
	for _, m := range ev.Measured {
		withLat = withLat || !math.IsNaN(m.MeasuredLatencyMs)
	}
	over := ev.overLabel("rec")
	header := []string{"CI (s)", "variant", "measured n", "measured median rec (s)", "measured mean rec (s)", "measured " + over,
		"sim n", "sim median rec (s)", "sim mean rec (s)", "sim " + over}
	if withLat {
		header = append(header, "measured pre-failure latency (ms)", "sim pre-failure "+LatencyDefinition(ev.LatencyColumn)+" (ms)")
	}
	var rows [][]string
	for _, m := range ev.Measured {
		n, atLeast := strconv.Itoa(m.MeasuredN), ""
		if m.MeasuredCensored > 0 { // lower bounds: the statistics are too
			n, atLeast = fmt.Sprintf("%d (%d censored)", m.MeasuredN, m.MeasuredCensored), "≥ "
		}
		row := []string{fmtG(m.CheckpointIntervalS), cmp.Or(m.Variant, "–"), n,
			atLeast + fmtNum(m.MeasuredMedianS), atLeast + fmtNum(m.MeasuredMeanS), atLeast + strconv.Itoa(m.MeasuredOver)}
		if m.Variant == "" {
			row = append(row, "–", "–", "–", "–")
		} else {
			row = append(row, strconv.Itoa(m.SimN), fmtNum(m.SimMedianS), fmtNum(m.SimMeanS), strconv.Itoa(m.SimOver))
		}
		if withLat {
			row = append(row, fmtNum(m.MeasuredLatencyMs), fmtNum(m.SimLatencyMs))
		}
		rows = append(rows, row)
	}
	writeMarkdownTable(b, header, rows)
	var unmatched []string
	for i, v := range ev.Variants {
		if !slices.ContainsFunc(ev.Measured, func(m MeasuredComparison) bool { return m.variantIndex == i }) {
			unmatched = append(unmatched, v.Label)
		}
	}
	if len(unmatched) > 0 {
		fmt.Fprintf(b, "\nNo measured CI for: %s.\n", strings.Join(unmatched, ", "))
	}
}

func writeMarkdownTable(b *strings.Builder, header []string, rows [][]string) {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString(strings.Repeat("|---", len(header)) + "|\n")
	for _, r := range rows {
		line(r)
	}
}

func boundText(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "per variant"
	case v <= 0:
		return "none"
	}
	return fmtG(v) + " " + unit
}

func fmtG(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// fmtCI is a checkpoint interval to 0.1 s: policies like Daly's compute
// them to the millisecond.
func fmtCI(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// fmtNum is a measured number by the one table format of the tree
// (textfmt.Number: 4 significant digits, thousands separated).
func fmtNum(v float64) string { return textfmt.Number(v, 0) }

// fmtPct is a percentage with its sign: 0.5522 % (of the intervals), so it
// does not read as a fraction.
func fmtPct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmtNum(v) + " %"
}

// fmtThousands is a rate in thousands (56.90 for 56 900).
func fmtThousands(v float64) string { return fmtNum(v / 1000) }

func fmtSpan(s float64) string {
	switch {
	case s >= 3600 && math.Mod(s, 3600) == 0:
		return fmtG(s/3600) + " h"
	case s >= 60 && math.Mod(s, 60) == 0:
		return fmtG(s/60) + " min"
	}
	return fmtG(s) + " s"
}

func csvNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
