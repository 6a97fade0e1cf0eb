package docgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/internal/profile"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// khaosBlocks are the generated blocks of docs/khaos.md: the YSB
// evaluation against the measured cluster, its findings, the profiled
// models and the IoT day. Measured values come from the committed measured
// table and from docs/reference/khaos.md (the Khaos column and the 24 h
// latencies, which the table does not hold); the twin's from the runs'
// variants.csv, summary.json, events.parquet and the profile's models.json.
func khaosBlocks() []Block {
	return []Block{
		{"khaos-ysb twin vs measured", khaosYSBTable},
		{"khaos-ysb findings", khaosWrapped(khaosYSBFindings)},
		{"khaos-ysb baselines", khaosWrapped(khaosYSBBaselines)},
		{"khaos-ysb profiling", khaosWrapped(khaosYSBProfiling)},
		{"khaos-ysb latency mismatch", khaosWrapped(khaosYSBMismatch)},
		{"khaos-iot findings", khaosWrapped(khaosIoTFindings)},
	}
}

// khaosWidth is the line width of the generated bullets, as the prose
// around them.
const khaosWidth = 105

// khaosWrapped wraps the bullets a block makes (khaosWrap).
func khaosWrapped(gen func(*Context) (string, error)) func(*Context) (string, error) {
	return func(c *Context) (string, error) {
		s, err := gen(c)
		return wrap(s, khaosWidth), err
	}
}

// khaosReference holds the measured facts the measured table lacks.
const khaosReference = "docs/reference/khaos.md"

// The YSB table: twin and measured, a column per variant.
func khaosYSBTable(c *Context) (string, error) {
	vs, err := khaosVariants(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	meas, err := khaosYSBMeasured(c)
	if err != nil {
		return "", err
	}
	if err := khaosLatencyIsMarker(vs); err != nil {
		return "", err
	}
	r := vs[0].RecoveryBoundS
	for _, v := range vs {
		if v.RecoveryBoundS != r {
			return "", fmt.Errorf("the variants have different recovery bounds (%s: %g s, %s: %g s): the table has one R", vs[0].Name, r, v.Name, v.RecoveryBoundS)
		}
	}
	rows := [][]string{{""}}
	for _, v := range vs {
		rows[0] = append(rows[0], v.label())
	}
	row := func(name string, cell func(v khaosVariant) string) {
		cells := []string{name}
		for _, v := range vs {
			cells = append(cells, cell(v))
		}
		rows = append(rows, cells)
	}
	measured := func(f func(m khaosMeasured) string) func(v khaosVariant) string {
		return func(v khaosVariant) string {
			m, ok := meas[v.key()]
			if !ok {
				return textfmt.NoValue
			}
			return f(m)
		}
	}
	rec := "recoveries > " + khaosShort(r) + " s"
	row(rec+", twin", func(v khaosVariant) string { return textfmt.Count(float64(v.Violations)) })
	row(rec+", measured", measured(func(m khaosMeasured) string { return textfmt.Count(float64(m.over(r))) }))
	row("median recovery (s), twin", func(v khaosVariant) string { return textfmt.Number(v.RecoveryMedianS, 0) })
	row("median recovery (s), measured", measured(func(m khaosMeasured) string { return textfmt.Number(m.median(), 0) }))
	row("mean recovery (s), twin", func(v khaosVariant) string { return textfmt.Number(v.RecoveryMeanS, 0) })
	row("mean recovery (s), measured", measured(func(m khaosMeasured) string { return textfmt.Number(m.mean(), 0) }))
	row("latency-marker p99, 24 h mean (ms), twin", func(v khaosVariant) string { return textfmt.Number(v.LatencyMeanMs, 0) })
	row("latency-marker p99, 24 h mean (ms), measured", measured(func(m khaosMeasured) string { return textfmt.Number(m.LatencyMeanMs, 0) }))
	row("event-time mean outside recoveries (ms), twin", func(v khaosVariant) string { return textfmt.Number(v.LatencySteadyMs, 0) })
	row("reconfigurations, twin", func(v khaosVariant) string { return v.reconfigurations() })
	row("mean CI, time-weighted (s), twin", func(v khaosVariant) string { return textfmt.Number(v.CIMeanS, 0) })
	return khaosMarkdownTable(rows), nil
}

// khaosYSBFindings: the paper's finding (fewer violations than the long
// static CIs) checked in the twin, the latencies, and what Khaos did.
func khaosYSBFindings(c *Context) (string, error) {
	vs, err := khaosVariants(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	meas, err := khaosYSBMeasured(c)
	if err != nil {
		return "", err
	}
	k, statics, err := khaosAndStatics(vs)
	if err != nil {
		return "", err
	}
	r := k.RecoveryBoundS
	twin := func(v khaosVariant) float64 { return float64(v.Violations) }
	measuredOver := func(v khaosVariant) float64 {
		if m, ok := meas[v.key()]; ok {
			return float64(m.over(r))
		}
		return math.NaN()
	}
	measuredLatency := func(v khaosVariant) float64 {
		if m, ok := meas[v.key()]; ok {
			return m.LatencyMeanMs
		}
		return math.NaN()
	}
	// The paper's finding: Khaos had fewer violations than these static CIs.
	paper := khaosCompare(k, statics, measuredOver)
	inTwin := khaosCompare(k, statics, twin)
	for _, s := range paper.below {
		if !slices.ContainsFunc(inTwin.below, func(t khaosVariant) bool { return t.Name == s.Name }) {
			return "", fmt.Errorf("claim no longer holds: the paper's finding holds in the twin: measured, Khaos had fewer recoveries > %s s than %s; in the twin it has %d against %d",
				khaosShort(r), s.label(), k.Violations, s.Violations)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- The paper's main finding holds in the twin: Khaos has fewer recoveries > %s s than %s (%s; measured %s).",
		khaosShort(r), khaosStaticList(inTwin.below), khaosAgainst(k, inTwin.below, twin, textfmt.Count), khaosAgainst(k, inTwin.below, measuredOver, textfmt.Count))
	if len(inTwin.level) > 0 {
		fmt.Fprintf(&b, " It has as many as %s (%s).", khaosStaticList(inTwin.level), textfmt.Count(twin(k)))
	}
	if len(inTwin.above) > 0 {
		fmt.Fprintf(&b, " It has more than %s (%s).", khaosStaticList(inTwin.above), khaosAgainst(k, inTwin.above, twin, textfmt.Count))
	}
	latency := func(v khaosVariant) float64 { return v.LatencyMeanMs }
	fmt.Fprintf(&b, "\n- Khaos's 24 h mean latency, %s ms, is %s; measured, %s ms was %s.",
		textfmt.Number(k.LatencyMeanMs, 0), khaosCompare(k, statics, latency).describe(latency),
		textfmt.Number(measuredLatency(k), 0), khaosCompare(k, statics, measuredLatency).describe(measuredLatency))
	moves, err := khaosMoves(c, "khaos-ysb", k, "\n- Khaos")
	if err != nil {
		return "", err
	}
	b.WriteString(moves)
	return b.String(), nil
}

// khaosYSBBaselines: what Young and Daly did with the observed C and the
// configured MTBF.
func khaosYSBBaselines(c *Context) (string, error) {
	vs, err := khaosVariants(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	dir, err := evaluated(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	k, statics, err := khaosAndStatics(vs)
	if err != nil {
		return "", err
	}
	var bs []khaosVariant
	for _, name := range []string{"young", "daly"} {
		i := slices.IndexFunc(vs, func(v khaosVariant) bool { return v.Policy == name })
		if i < 0 {
			return "", fmt.Errorf("no variant with policy %s", name)
		}
		if len(vs[i].Changes) == 0 {
			return "", fmt.Errorf("claim no longer holds: %s reconfigures: it never changed the CI", name)
		}
		bs = append(bs, vs[i])
	}
	each := func(f func(v khaosVariant) string) string {
		var out []string
		for _, v := range bs {
			out = append(out, f(v))
		}
		return strings.Join(out, " / ")
	}
	var mtbf []float64
	for _, v := range bs {
		m, err := khaosMTBF(filepath.Join(dir, v.Name, results.ScenarioFile))
		if err != nil {
			return "", err
		}
		mtbf = append(mtbf, m)
	}
	if mtbf[0] != mtbf[1] {
		return "", fmt.Errorf("young and daly have different MTBFs (%g s, %g s): the text names one", mtbf[0], mtbf[1])
	}
	s := bs[0].Summary
	rate := "configured"
	if s.Faults > 0 && math.Abs(s.DurationS/float64(s.Faults)-mtbf[0]) < 1e-9*mtbf[0] {
		rate = fmt.Sprintf("the day's %s kills in %s h", textfmt.Count(float64(s.Faults)), khaosShort(s.DurationS/3600))
	}
	var b strings.Builder
	// Khaos's rule for a change worth a restart (khaos.WorthChanging, the
	// uptime gate) holds the baselines to at most 4 restarts an hour
	for _, v := range bs {
		if n := khaosFirstHour(v); n > 4 {
			return "", fmt.Errorf("claim no longer holds: %s restarts at most 4 times in its first hour (%d)", v.Policy, n)
		}
	}
	fmt.Fprintf(&b, "- Young and Daly (C: the mean of the checkpoint durations observed so far, %s s over the whole day; MTBF %s h, %s) change the CI only when the move is worth a restart by Khaos's own rule (at least %v and more than %g %% of the CI, after %v of uptime; `khaos.WorthChanging`): %s times,",
		each(func(v khaosVariant) string { return textfmt.Number(v.Summary.CheckpointMeanS, 0) }),
		khaosShort(mtbf[0]/3600), rate, khaos.MinChange, 100*khaos.MinRelativeChange, khaos.MinUptime,
		each(func(v khaosVariant) string { return strconv.Itoa(v.Reconfigurations) }))
	fmt.Fprintf(&b, " %s of them in the first hour, the last at %s, and end at %s s (time-weighted mean CI %s s).",
		each(func(v khaosVariant) string { return strconv.Itoa(khaosFirstHour(v)) }),
		each(func(v khaosVariant) string { return khaosClock(v.Changes[len(v.Changes)-1].AtS) }),
		each(func(v khaosVariant) string { return khaosShort(v.Changes[len(v.Changes)-1].CIS) }),
		each(func(v khaosVariant) string { return textfmt.Number(v.CIMeanS, 0) }))
	// The static CIs around where they settled.
	settled := func(v khaosVariant) float64 { return v.Changes[len(v.Changes)-1].CIS }
	low, high := min(settled(bs[0]), settled(bs[1])), max(settled(bs[0]), settled(bs[1]))
	var near []khaosVariant
	if i := slices.IndexFunc(statics, func(s khaosVariant) bool { return s.CIS >= high }); i > 0 && statics[i-1].CIS <= low {
		near = statics[i-1 : i+1]
	}
	violations := func(v khaosVariant) float64 { return float64(v.Violations) }
	fmt.Fprintf(&b, "\n  They have %s recoveries > %s s, against %s for Khaos",
		each(func(v khaosVariant) string { return textfmt.Count(violations(v)) }), khaosShort(k.RecoveryBoundS), textfmt.Count(violations(k)))
	if len(near) > 0 {
		fmt.Fprintf(&b, " and %s for %s, the static CIs around theirs", khaosValues(near, violations, textfmt.Count), khaosStaticList(near))
	}
	b.WriteString(": they minimise the work lost to a failure, not the recovery time.")
	return b.String(), nil
}

// khaosFirstHour counts the CI changes of the run's first hour.
func khaosFirstHour(v khaosVariant) int {
	n := 0
	for _, ch := range v.Changes {
		if ch.AtS < 3600 {
			n++
		}
	}
	return n
}

// khaosYSBProfiling: the profiled models next to Khaos's fitted ones.
func khaosYSBProfiling(c *Context) (string, error) {
	dir, err := evaluated(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(dir, "profile", "models.json"))
	if err != nil {
		return "", err
	}
	var p profile.Result
	if err := json.Unmarshal(data, &p); err != nil {
		return "", fmt.Errorf("profile/models.json: %w", err)
	}
	m := p.Models
	if m.Physics == nil {
		return "", errors.New("profile/models.json has no physical model")
	}
	ref, err := os.ReadFile(c.Path(khaosReference))
	if err != nil {
		return "", err
	}
	t, err := refTableAfter(string(ref), "Fitted in the logged YSB run")
	if err != nil {
		return "", fmt.Errorf("%s §6: %w", khaosReference, err)
	}
	type fitted struct{ intercept, thr, ci, r2 float64 }
	khaos := map[string]fitted{}
	for _, name := range []string{"latency (ms)", "recovery (s)"} {
		var f fitted
		for col, x := range map[string]*float64{"intercept": &f.intercept, "throughput": &f.thr, "CI (ms)": &f.ci, "R² (adj.)": &f.r2} {
			cell, err := t.cell(name, col)
			if err == nil {
				*x, err = khaosRefNumber(cell)
			}
			if err != nil {
				return "", fmt.Errorf("%s §6: %w", khaosReference, err)
			}
		}
		khaos[name] = f
	}
	kr, kl := khaos["recovery (s)"], khaos["latency (ms)"]
	model := func(intercept, thr, ciMs float64) string {
		return textfmt.Linear(intercept, textfmt.Term{Coef: thr, Var: "thr"}, textfmt.Term{Coef: ciMs, Var: "CI_ms"})
	}
	cv := p.CV
	better := "better"
	if cv.PhysicsAccuracy <= cv.OLSAccuracy {
		better = "no better"
	}
	slope := "above"
	if m.Recovery.CIms < kr.ci {
		slope = "below"
	}
	return fmt.Sprintf("- Profiling (`streamtwin profile`: %d copies, %d failures in the recovery model): OLS recovery = %s (R² %s, accuracy %s;\n"+
		"  Khaos fitted %s, R² %s, on the real cluster, [reference §6](reference/khaos.md#6-models): the twin's CI slope is %s %% %s Khaos's);\n"+
		"  latency = %s (R² %s; Khaos %s, R² %s). The physical model (D %s s, μ %s records/s) predicts\n"+
		"  held-out CIs %s: leave-one-CI-out accuracy %s against the OLS model's %s.",
		len(p.CIs), m.Recovery.N, model(m.Recovery.Intercept, m.Recovery.Throughput, m.Recovery.CIms),
		textfmt.Number(m.Recovery.R2, 0), textfmt.Number(m.Recovery.Accuracy, 0),
		model(kr.intercept, kr.thr, kr.ci), textfmt.Number(kr.r2, 0), textfmt.Number(math.Abs(m.Recovery.CIms-kr.ci)/kr.ci*100, 0), slope,
		model(m.Latency.Intercept, m.Latency.Throughput, m.Latency.CIms), textfmt.Number(m.Latency.R2, 0),
		model(kl.intercept, kl.thr, kl.ci), textfmt.Number(kl.r2, 0),
		textfmt.Number(m.Physics.DowntimeS, 0), textfmt.Number(m.Physics.Capacity, 0),
		better, textfmt.Number(cv.PhysicsAccuracy, 0), textfmt.Number(cv.OLSAccuracy, 0)), nil
}

// khaosRealCatchUpMarkerMs is the highest latency-marker p99 the real YSB
// jobs read during a catch-up, an external fact: the hand-written bullet
// after the "khaos-ysb latency mismatch" block of docs/khaos.md (≈ 2.6–2.9 s,
// read in Khaos's data/ysb/ysb_lat_*.csv at K@HEAD), which says the real
// markers read lower than the twin's.
const khaosRealCatchUpMarkerMs = 2900.0

// khaosYSBMismatch: the latency that does not match, and why.
func khaosYSBMismatch(c *Context) (string, error) {
	vs, err := khaosVariants(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	meas, err := khaosYSBMeasured(c)
	if err != nil {
		return "", err
	}
	_, statics, err := khaosAndStatics(vs)
	if err != nil {
		return "", err
	}
	var cis, twin, measured, steady []string
	var tw, me, st []float64
	for _, s := range statics {
		m, ok := meas[s.key()]
		if !ok || math.IsNaN(m.LatencyMeanMs) {
			continue
		}
		cis = append(cis, khaosShort(s.CIS))
		tw, me, st = append(tw, s.LatencyMeanMs), append(me, m.LatencyMeanMs), append(st, s.LatencySteadyMs)
		twin = append(twin, textfmt.Number(s.LatencyMeanMs, 0))
		measured = append(measured, textfmt.Number(m.LatencyMeanMs, 0))
		steady = append(steady, textfmt.Number(s.LatencySteadyMs, 0))
	}
	switch {
	case len(me) < 2:
		return "", errors.New("fewer than two static CIs have a measured 24 h latency")
	case !khaosFalling(me):
		return "", fmt.Errorf("claim no longer holds: the measured 24 h mean latency falls with the CI (%s ms)", strings.Join(measured, ", "))
	case khaosFalling(tw):
		return "", fmt.Errorf("claim no longer holds: the twin's 24 h mean latency does not fall with the CI (%s ms)", strings.Join(twin, ", "))
	case !khaosFalling(st):
		return "", fmt.Errorf("claim no longer holds: the twin's steady-state latency falls with the CI (%s ms)", strings.Join(steady, ", "))
	}
	dir, err := evaluated(c, "khaos-ysb")
	if err != nil {
		return "", err
	}
	var sum, n float64
	for _, s := range statics {
		samples, err := results.ReadSamples(filepath.Join(dir, s.Name, results.TimeseriesFile))
		if err != nil {
			return "", err
		}
		for _, x := range samples {
			if x.Recovering && !math.IsNaN(x.LatencyMarkerP99Ms) {
				sum, n = sum+x.LatencyMarkerP99Ms, n+1
			}
		}
	}
	catchUp := sum / n
	if catchUp <= slices.Max(tw) {
		return "", fmt.Errorf("claim no longer holds: the latency markers are high while a job catches up (%s ms, not above the 24 h means)", textfmt.Number(catchUp, 0))
	}
	if catchUp <= khaosRealCatchUpMarkerMs {
		return "", fmt.Errorf("claim no longer holds: the real markers read lower during catch-up than the twin's (the twin's: %s ms, the real ones up to %g ms)", textfmt.Number(catchUp, 0), khaosRealCatchUpMarkerMs)
	}
	return fmt.Sprintf("- What does not match: the twin's 24 h mean latency does not fall with the CI: %s ms for static %s s,\n"+
		"  against measured %s ms. Its steady-state latency does (%s ms), but its latency markers read\n"+
		"  %s s on average while a job catches up (full in-flight buffers; the static variants' recovering seconds),\n"+
		"  and the longer recoveries of long CIs outweigh the steady gain.",
		strings.Join(twin, ", "), strings.Join(cis, ", "), strings.Join(measured, ", "), strings.Join(steady, " → "),
		textfmt.Number(catchUp/1000, 0)), nil
}

// khaosIoTFindings: the same khaosComparison on the IoT day (no measured data).
func khaosIoTFindings(c *Context) (string, error) {
	vs, err := khaosVariants(c, "khaos-iot")
	if err != nil {
		return "", err
	}
	k, statics, err := khaosAndStatics(vs)
	if err != nil {
		return "", err
	}
	violations := func(v khaosVariant) float64 { return float64(v.Violations) }
	latency := func(v khaosVariant) float64 { return v.LatencyMeanMs }
	cmp := khaosCompare(k, statics, violations)
	var b strings.Builder
	fmt.Fprintf(&b, "- `scenarios/khaos-iot.yaml` (R = %s s): Khaos has %s recoveries > R, %s; its 24 h mean latency, %s ms, is %s.",
		khaosShort(k.RecoveryBoundS), textfmt.Count(violations(k)), cmp.describeCounts(violations),
		textfmt.Number(k.LatencyMeanMs, 0), khaosCompare(k, statics, latency).describe(latency))
	for _, v := range vs {
		if v.Policy == "young" || v.Policy == "daly" {
			fmt.Fprintf(&b, " %s: %s recoveries > R, %s ms.", v.label(), textfmt.Count(violations(v)), textfmt.Number(v.LatencyMeanMs, 0))
		}
	}
	moves, err := khaosMoves(c, "khaos-iot", k, "\n  It")
	if err != nil {
		return "", err
	}
	b.WriteString(moves)
	return b.String(), nil
}

// khaosMoves says when Khaos changed the CI and quotes why, as its
// events.parquet records it, and the notes it recorded instead of a change;
// subject begins the text: "\n- Khaos" for a bullet of its own, "\n  It" to
// go on with the one before.
func khaosMoves(c *Context, name string, k khaosVariant, subject string) (string, error) {
	dir, err := evaluated(c, name)
	if err != nil {
		return "", err
	}
	events, err := results.ReadEvents(filepath.Join(dir, k.Name, results.EventsFile))
	if err != nil {
		return "", err
	}
	var reasons, notes []string
	var noteAt []float64
	for _, e := range events {
		if e.Kind != results.KindPolicyDecision {
			continue
		}
		if r, ok := strings.CutPrefix(e.Reason, "set_checkpoint_interval: "); ok && !strings.Contains(r, "(rejected") {
			reasons = append(reasons, r)
		} else if strings.HasPrefix(e.Reason, "note: ") {
			notes, noteAt = append(notes, e.Reason), append(noteAt, e.TimeS)
		}
	}
	if len(reasons) != len(k.Changes) {
		return "", fmt.Errorf("%s/%s: %d CI changes in variants.csv, %d set_checkpoint_interval decisions in events.parquet", name, k.Name, len(k.Changes), len(reasons))
	}
	var b strings.Builder
	if len(k.Changes) == 0 {
		fmt.Fprintf(&b, "%s kept the CI at %s s all day.", subject, khaosShort(k.CIS))
	} else {
		when := "at " + khaosClock(k.Changes[0].AtS)
		if n := len(k.Changes); n > 1 {
			when = "from " + when[3:] + " to " + khaosClock(k.Changes[n-1].AtS)
		}
		fmt.Fprintf(&b, "%s changed the CI %s, %s (%s); why, as `events.parquet` records it:", subject, khaosTimes(len(k.Changes)), when, k.path())
		for _, r := range reasons {
			fmt.Fprintf(&b, "\n  `%s`", r)
		}
		b.WriteString(".")
	}
	if len(notes) > 0 {
		what := "a note instead of a change at " + khaosClock(noteAt[0])
		if n := len(notes); n > 1 {
			what = fmt.Sprintf("%d notes instead of a change (%s–%s), the first", n, khaosClock(noteAt[0]), khaosClock(noteAt[n-1]))
		}
		fmt.Fprintf(&b, "\n  It recorded %s:\n  `%s`.", what, notes[0])
	}
	return b.String(), nil
}
