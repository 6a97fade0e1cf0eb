package docgen

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/compare"
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
// recovery time, or "unrecovered".
func recoveryLabels(dir string) ([]string, []measure.FaultRecovery, error) {
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return nil, nil, err
	}
	faults := measure.FaultRecoveries(events)
	var labels []string
	for _, f := range faults {
		if f.Recovered() {
			labels = append(labels, seconds(f.RecoveryS))
		} else {
			labels = append(labels, "unrecovered")
		}
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
	return fmt.Sprintf("![The demo run: input rate and throughput, lag, latency p50/p99 bands and the checkpoint interval over two hours; %s marked, their recoveries shaded and labelled %s](figures/demo.png)",
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
		"ci10's at %s). Each row marks its own faults (red triangles on the top edge and a hairline) and shades\n"+
		"their recoveries; the latency column switches to log past a factor 10, so the steady latency and the\n"+
		"catch-up spikes both show. The old single set of axes is `plot panels --overlay`.",
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
	return fmt.Sprintf("**`evaluation-faults`**: one panel per fault (the N'th fault of every variant in panel N), aligned at\n"+
		"the fault. Each variant's lag, a marker where it recovered, the recovery bound R of the runs' QoS\n"+
		"(dashed grey), and each variant's recovery time written in its colour. Here the hardest fault, fault %d,\n"+
		"takes from %s (%s) to %s (%s) to recover, %s beyond R = %s. At most 24 panels; `plot faults\n"+
		"--fault N` draws any one.",
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
	return fmt.Sprintf("**`evaluation-latency`**: on the left a letter-value plot (Hofmann, Wickham and Kafadar 2017): the box\n"+
		"of the quartiles, then of the eighths, sixteenths, … (up to 8 boxes, each narrower and lighter; the\n"+
		"last spans 1/512 … 511/512), the median as a black bar and the values beyond as points. A box plot of\n"+
		"these distributions collapses to a flat line near the median (%s–%s ms), since most intervals are steady;\n"+
		"the letter values show where the tail begins. On the right the tail itself: the share of intervals\n"+
		"above each latency, on a log axis down to 1/n, with the p99 and p99.9 levels dotted and a marker at\n"+
		"each variant's p99. Of the latency-marker p99 intervals, ci10 spends %s above %s and khaos %s, against\n"+
		"%s to %s for the longer intervals; every variant meets %s of the latency markers during\n"+
		"catch-up.",
		num(slices.Min(medians)), num(slices.Max(medians)),
		percent(above["ci10"]), seconds(bound/1000), percent(above["khaos"]), percent(longLo), percent(longHi), ceiling), nil
}
