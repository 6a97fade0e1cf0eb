package docgen

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/compare"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// figuresBlocks are the generated blocks of docs/figures.md: the numbers
// the captions and the paragraphs under the figures read off them.
func figuresBlocks() []Block {
	return []Block{
		{"demo figure", demoFigure},
		{"demo fault zoom", demoFaultZoom},
		{"khaos-ysb panels", khaosYSBPanels},
		{"khaos-ysb faults", khaosYSBFaults},
		{"khaos-ysb latency", khaosYSBLatency},
	}
}

// recoveryLabels are a run's faults as its figure labels them: the
// recovery time, or how long it had not recovered.
func recoveryLabels(dir string) ([]string, []measure.FaultRecovery, error) {
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return nil, nil, err
	}
	faults := measure.FaultRecoveries(events)
	var labels []string
	for _, f := range faults {
		labels = append(labels, figures.RecoveryText(f))
	}
	return labels, faults, nil
}

func demoFigure(c *Context) (string, error) {
	dir, err := demoRun(c)
	if err != nil {
		return "", err
	}
	labels, _, err := recoveryLabels(dir)
	if err != nil {
		return "", err
	}
	samples, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
	if err != nil {
		return "", err
	}
	for _, s := range samples {
		if s.CheckpointIntervalS != 30 {
			return "", fmt.Errorf("claim no longer holds: the demo checkpoints every 30 s throughout (%g s at %g s)", s.CheckpointIntervalS, s.TimeS)
		}
	}
	return fmt.Sprintf("![The demo run over two hours: input rate and throughput (means per minute), lag, and latency with the p99 band drawn over the p50's; the checkpoint interval (30 s throughout) noted under the panels; %s numbered above the panels, their recoveries shaded and timed %s](figures/demo.png)",
		textfmt.Plural(len(labels), "fault"), andList(labels)), nil
}

func demoFaultZoom(c *Context) (string, error) {
	dir, err := demoRun(c)
	if err != nil {
		return "", err
	}
	labels, faults, err := recoveryLabels(dir)
	if err != nil {
		return "", err
	}
	if len(faults) == 0 || !faults[0].Recovered() {
		return "", fmt.Errorf("claim no longer holds: the demo's first fault recovers (the caption describes its recovery)")
	}
	// The lag peak is compare's, the one measurement of a fault's peak.
	outcomes, err := compare.FaultOutcomes(dir)
	if err != nil {
		return "", err
	}
	peak := outcomes[0].LagPeak
	samples, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
	if err != nil {
		return "", err
	}
	f := faults[0]
	minThr := math.Inf(1)
	for _, s := range samples {
		if s.TimeS > f.AtS && s.TimeS <= f.AtS+f.RecoveryS {
			minThr = min(minThr, s.Throughput)
		}
	}
	if minThr != 0 {
		return "", fmt.Errorf("claim no longer holds: throughput drops to 0 after the demo's first fault (lowest %g records/s)", minThr)
	}
	return fmt.Sprintf("![The demo's first fault, zoomed: throughput drops to 0, lag climbs to %s records and drains; recovery %s](figures/demo-fault1.png)",
		textfmt.Count(peak), labels[0]), nil
}

// variantRuns are the summaries of a run set's variant folders, by name,
// and the names sorted.
func variantRuns(dir string) (map[string]results.Summary, []string, error) {
	runs, err := compare.ReadRunSummaries(dir)
	if err != nil {
		return nil, nil, err
	}
	return runs, slices.Sorted(maps.Keys(runs)), nil
}

// staticByCI are the static variants of khaos-ysb, shortest interval first.
var staticByCI = []string{"ci10", "ci30", "ci60", "ci90", "ci120"}

func khaosYSBPanels(c *Context) (string, error) {
	dir, err := evaluated(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	runs, _, err := variantRuns(dir)
	if err != nil {
		return "", err
	}
	lo, hi := runs[staticByCI[0]], runs[staticByCI[len(staticByCI)-1]]
	if hi.LagMax <= lo.LagMax {
		return "", fmt.Errorf("claim no longer holds: ci120's largest lag (%d) is above ci10's (%d)", hi.LagMax, lo.LagMax)
	}
	return fmt.Sprintf("**`evaluation-panels`**: one row per variant, one column per series, on a shared time axis, with the\n"+
		"same y axis down each column so rows compare at a glance (ci120's lag peaks at %s records,\n"+
		"ci10's at %s). Each row marks its own faults (a small red triangle on the top edge, shared by faults\n"+
		"closer than its width, and a hairline) and shades their recoveries; the latency column switches to log\n"+
		"past a factor 10, over whole decades, its p99 band outlined in the row's colour, so the steady latency\n"+
		"and the catch-up spikes both show. At single-column width only the lag and latency columns are drawn;\n"+
		"a checkpoint interval constant in every row is not drawn, and the key says so. The old single set of\n"+
		"axes is `plot panels --overlay`.",
		textfmt.Count(float64(hi.LagMax)), textfmt.Count(float64(lo.LagMax))), nil
}

// khaosYSBFaults describes the fault whose fastest recovery is the slowest
// of the day: the one every variant finds hardest.
func khaosYSBFaults(c *Context) (string, error) {
	dir, err := evaluated(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	_, names, err := variantRuns(dir)
	if err != nil {
		return "", err
	}
	type rec struct {
		variant string
		s       float64 // recovery; +Inf when unrecovered
	}
	var perFault [][]rec
	bound := 0.0
	for _, n := range names {
		s, err := results.ReadSummary(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		bound = s.QoS.RecoveryBoundS
		_, faults, err := recoveryLabels(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		for i, f := range faults {
			if i >= len(perFault) {
				perFault = append(perFault, nil)
			}
			r := math.Inf(1)
			if f.Recovered() {
				r = f.RecoveryS
			}
			perFault[i] = append(perFault[i], rec{n, r})
		}
	}
	worst, worstMin := -1, 0.0
	for i, rs := range perFault {
		m := slices.MinFunc(rs, func(a, b rec) int { return cmpFloat(a.s, b.s) })
		if worst < 0 || m.s > worstMin {
			worst, worstMin = i, m.s
		}
	}
	if worst < 0 {
		return "", fmt.Errorf("khaos-ysb has no faults")
	}
	rs := perFault[worst]
	lo := slices.MinFunc(rs, func(a, b rec) int { return cmpFloat(a.s, b.s) })
	hi := slices.MaxFunc(rs, func(a, b rec) int { return cmpFloat(a.s, b.s) })
	beyond := 0
	for _, r := range rs {
		if r.s > bound {
			beyond++
		}
	}
	which := fmt.Sprintf("%d of %d variants", beyond, len(rs))
	if beyond == len(rs) {
		which = "all"
	}
	recovery := func(r rec) string {
		if math.IsInf(r.s, 1) {
			return "unrecovered"
		}
		return seconds(r.s)
	}
	return fmt.Sprintf("**`evaluation-faults`**: one cell per fault (the N'th fault of every variant in cell N), aligned at\n"+
		"the fault and titled with its time as the tables print it (h:mm:ss). On top each variant's lag and a\n"+
		"marker where it recovered; under it a strip with a row per variant, fastest on top and unrecovered\n"+
		"last, a bar from the fault to the recovery, named with its time on the left, and the recovery bound R\n"+
		"of the runs' QoS dashed across both. Here the hardest fault, fault %d, takes from %s (%s) to %s (%s)\n"+
		"to recover, %s beyond R = %s. At most 24 cells; `plot faults --fault N` draws any one.",
		worst+1, recovery(lo), lo.variant, recovery(hi), hi.variant, which, seconds(bound)), nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// khaosYSBLatency reads the latency-marker p99 series the figure draws:
// the median interval, the share of intervals above the bound per
// variant, and the largest value.
func khaosYSBLatency(c *Context) (string, error) {
	dir, err := evaluated(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	runs, names, err := variantRuns(dir)
	if err != nil {
		return "", err
	}
	above := map[string]float64{}
	values := map[string][]float64{}
	var medians, ceilings []float64
	bound := 0.0
	for _, n := range names {
		bound = runs[n].QoS.LatencyBoundMs
		samples, err := results.ReadSamples(filepath.Join(dir, n, results.TimeseriesFile))
		if err != nil {
			return "", err
		}
		var xs []float64
		for _, s := range samples {
			xs = statistics.AppendFinite(xs, s.Latency("marker"))
		}
		if len(xs) == 0 {
			return "", fmt.Errorf("%s: no latency-marker p99", n)
		}
		over := 0
		for _, x := range xs {
			if x > bound {
				over++
			}
		}
		above[n] = float64(over) / float64(len(xs))
		values[n] = xs
		medians = append(medians, statistics.Quantile(xs, 0.5))
		ceilings = append(ceilings, slices.Max(xs))
	}
	long := staticByCI[1:]
	longLo, longHi := math.Inf(1), math.Inf(-1)
	for _, n := range long {
		longLo, longHi = min(longLo, above[n]), max(longHi, above[n])
	}
	if above["ci10"] <= longHi || above["khaos"] <= longHi {
		return "", fmt.Errorf("claim no longer holds: ci10 (%g) and khaos (%g) spend more intervals above the bound than the longer static intervals (up to %g)", above["ci10"], above["khaos"], longHi)
	}
	ceilLo, ceilHi := slices.Min(ceilings), slices.Max(ceilings)
	ceiling := "the same " + seconds(ceilHi/1000) + " ceiling"
	if num(ceilLo/1000) != num(ceilHi/1000) {
		ceiling = "a ceiling of " + num(ceilLo/1000) + "–" + seconds(ceilHi/1000)
	}
	// The figure's left panel: each variant's quantiles minus khaos's.
	q := func(n string, p float64) float64 { return statistics.Quantile(values[n], p) }
	ci10p90 := q("ci10", 0.9) - q("khaos", 0.9)
	others := 0.0
	for _, n := range names {
		for _, p := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
			if n != "ci10" && n != "khaos" {
				others = max(others, math.Abs(q(n, p)-q("khaos", p)))
			}
		}
	}
	if ci10p90 <= others {
		return "", fmt.Errorf("claim no longer holds: ci10's p90 is %g ms above khaos's, no more than another variant's largest difference (%g ms)", ci10p90, others)
	}
	return fmt.Sprintf("**`evaluation-latency`**: on the left each variant's latency-marker p99 minus the first variant's (khaos,\n"+
		"as the scenario lists it) at the median, p90, p99, p99.9 and the largest of its per-second intervals;\n"+
		"on the right the tails of all variants on one log axis, the share of intervals above each latency down\n"+
		"to 1/n, with the 1 %% and 0.1 %% levels dotted. Boxes of these distributions would look alike (most\n"+
		"intervals are steady, medians %s–%s ms); their differences do not: ci10 pays %s ms more than khaos at\n"+
		"p90, where the catch-ups after the kills sit, and every other variant stays within %s ms of khaos at\n"+
		"every quantile. Of the intervals, ci10 spends %s above %s and khaos %s, against %s to %s for the\n"+
		"longer static intervals; every variant meets %s of the latency markers during catch-up.",
		num(slices.Min(medians)), num(slices.Max(medians)), num(ci10p90), num(others),
		percent(above["ci10"]), seconds(bound/1000), percent(above["khaos"]), percent(longLo), percent(longHi), ceiling), nil
}
