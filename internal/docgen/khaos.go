package docgen

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/streamtwin/streamtwin/internal/profile"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/evaluation"
	"github.com/streamtwin/streamtwin/sim"
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
				return results.NoValue
			}
			return f(m)
		}
	}
	rec := "recoveries > " + khaosShort(r) + " s"
	row(rec+", twin", func(v khaosVariant) string { return results.FormatCount(float64(v.Violations)) })
	row(rec+", measured", measured(func(m khaosMeasured) string { return results.FormatCount(float64(m.over(r))) }))
	row("median recovery (s), twin", func(v khaosVariant) string { return results.FormatNumber(v.RecoveryMedianS, 0) })
	row("median recovery (s), measured", measured(func(m khaosMeasured) string { return results.FormatNumber(m.median(), 0) }))
	row("mean recovery (s), twin", func(v khaosVariant) string { return results.FormatNumber(v.RecoveryMeanS, 0) })
	row("mean recovery (s), measured", measured(func(m khaosMeasured) string { return results.FormatNumber(m.mean(), 0) }))
	row("latency-marker p99, 24 h mean (ms), twin", func(v khaosVariant) string { return results.FormatNumber(v.LatencyMeanMs, 0) })
	row("latency-marker p99, 24 h mean (ms), measured", measured(func(m khaosMeasured) string { return results.FormatNumber(m.LatencyMeanMs, 0) }))
	row("event-time mean outside recoveries (ms), twin", func(v khaosVariant) string { return results.FormatNumber(v.LatencySteadyMs, 0) })
	row("reconfigurations, twin", func(v khaosVariant) string { return v.reconfigurations() })
	row("mean CI, time-weighted (s), twin", func(v khaosVariant) string { return results.FormatNumber(v.CIMeanS, 0) })
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
		khaosShort(r), khaosStaticList(inTwin.below), khaosAgainst(k, inTwin.below, twin, results.FormatCount), khaosAgainst(k, inTwin.below, measuredOver, results.FormatCount))
	if len(inTwin.level) > 0 {
		fmt.Fprintf(&b, " It has as many as %s (%s).", khaosStaticList(inTwin.level), results.FormatCount(twin(k)))
	}
	if len(inTwin.above) > 0 {
		fmt.Fprintf(&b, " It has more than %s (%s).", khaosStaticList(inTwin.above), khaosAgainst(k, inTwin.above, twin, results.FormatCount))
	}
	latency := func(v khaosVariant) float64 { return v.LatencyMeanMs }
	fmt.Fprintf(&b, "\n- Khaos's 24 h mean latency, %s ms, is %s; measured, %s ms was %s.",
		results.FormatNumber(k.LatencyMeanMs, 0), khaosCompare(k, statics, latency).describe(latency),
		results.FormatNumber(measuredLatency(k), 0), khaosCompare(k, statics, measuredLatency).describe(measuredLatency))
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
		rate = fmt.Sprintf("the day's %s kills in %s h", results.FormatCount(float64(s.Faults)), khaosShort(s.DurationS/3600))
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
		each(func(v khaosVariant) string { return results.FormatNumber(v.Summary.CheckpointMeanS, 0) }),
		khaosShort(mtbf[0]/3600), rate, khaos.MinChange, 100*khaos.MinRelativeChange, khaos.MinUptime,
		each(func(v khaosVariant) string { return strconv.Itoa(v.Reconfigurations) }))
	fmt.Fprintf(&b, " %s of them in the first hour, the last at %s, and end at %s s (time-weighted mean CI %s s).",
		each(func(v khaosVariant) string { return strconv.Itoa(khaosFirstHour(v)) }),
		each(func(v khaosVariant) string { return khaosClock(v.Changes[len(v.Changes)-1].AtS) }),
		each(func(v khaosVariant) string { return khaosShort(v.Changes[len(v.Changes)-1].CIS) }),
		each(func(v khaosVariant) string { return results.FormatNumber(v.CIMeanS, 0) }))
	// The static CIs around where they settled.
	settled := func(v khaosVariant) float64 { return v.Changes[len(v.Changes)-1].CIS }
	low, high := min(settled(bs[0]), settled(bs[1])), max(settled(bs[0]), settled(bs[1]))
	var near []khaosVariant
	if i := slices.IndexFunc(statics, func(s khaosVariant) bool { return s.CIS >= high }); i > 0 && statics[i-1].CIS <= low {
		near = statics[i-1 : i+1]
	}
	violations := func(v khaosVariant) float64 { return float64(v.Violations) }
	fmt.Fprintf(&b, "\n  They have %s recoveries > %s s, against %s for Khaos",
		each(func(v khaosVariant) string { return results.FormatCount(violations(v)) }), khaosShort(k.RecoveryBoundS), results.FormatCount(violations(k)))
	if len(near) > 0 {
		fmt.Fprintf(&b, " and %s for %s, the static CIs around theirs", khaosValues(near, violations, results.FormatCount), khaosStaticList(near))
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
		return results.FormatLinear(intercept, results.Term{Coef: thr, Var: "thr"}, results.Term{Coef: ciMs, Var: "CI_ms"})
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
		results.FormatNumber(m.Recovery.R2, 0), results.FormatNumber(m.Recovery.Accuracy, 0),
		model(kr.intercept, kr.thr, kr.ci), results.FormatNumber(kr.r2, 0), results.FormatNumber(math.Abs(m.Recovery.CIms-kr.ci)/kr.ci*100, 0), slope,
		model(m.Latency.Intercept, m.Latency.Throughput, m.Latency.CIms), results.FormatNumber(m.Latency.R2, 0),
		model(kl.intercept, kl.thr, kl.ci), results.FormatNumber(kl.r2, 0),
		results.FormatNumber(m.Physics.DowntimeS, 0), results.FormatNumber(m.Physics.Capacity, 0),
		better, results.FormatNumber(cv.PhysicsAccuracy, 0), results.FormatNumber(cv.OLSAccuracy, 0)), nil
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
		twin = append(twin, results.FormatNumber(s.LatencyMeanMs, 0))
		measured = append(measured, results.FormatNumber(m.LatencyMeanMs, 0))
		steady = append(steady, results.FormatNumber(s.LatencySteadyMs, 0))
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
		return "", fmt.Errorf("claim no longer holds: the latency markers are high while a job catches up (%s ms, not above the 24 h means)", results.FormatNumber(catchUp, 0))
	}
	if catchUp <= khaosRealCatchUpMarkerMs {
		return "", fmt.Errorf("claim no longer holds: the real markers read lower during catch-up than the twin's (the twin's: %s ms, the real ones up to %g ms)", results.FormatNumber(catchUp, 0), khaosRealCatchUpMarkerMs)
	}
	return fmt.Sprintf("- What does not match: the twin's 24 h mean latency does not fall with the CI: %s ms for static %s s,\n"+
		"  against measured %s ms. Its steady-state latency does (%s ms), but its latency markers read\n"+
		"  %s s on average while a job catches up (full in-flight buffers; the static variants' recovering seconds),\n"+
		"  and the longer recoveries of long CIs outweigh the steady gain.",
		strings.Join(twin, ", "), strings.Join(cis, ", "), strings.Join(measured, ", "), strings.Join(steady, " → "),
		results.FormatNumber(catchUp/1000, 0)), nil
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
		khaosShort(k.RecoveryBoundS), results.FormatCount(violations(k)), cmp.describeCounts(violations),
		results.FormatNumber(k.LatencyMeanMs, 0), khaosCompare(k, statics, latency).describe(latency))
	for _, v := range vs {
		if v.Policy == "young" || v.Policy == "daly" {
			fmt.Fprintf(&b, " %s: %s recoveries > R, %s ms.", v.label(), results.FormatCount(violations(v)), results.FormatNumber(v.LatencyMeanMs, 0))
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

// A khaosVariant is one row of an evaluation's variants.csv, with its run's
// summary.json.
type khaosVariant struct {
	Name, Policy                   string
	CIS                            float64 // the CI at the start
	RecoveryBoundS                 float64
	Violations, Reconfigurations   int
	RecoveryMedianS, RecoveryMeanS float64
	LatencyMeanMs, LatencySteadyMs float64
	Changes                        []khaosCIChange
	CIMeanS                        float64 // time-weighted
	Summary                        results.Summary
}

// A khaosCIChange is a CI a policy set (variants.csv's ci_changes).
type khaosCIChange struct{ AtS, CIS float64 }

// label names a variant as the tables do: "CI 10 s" for a static CI, the
// policy's name ("Khaos", "Young") otherwise.
func (v khaosVariant) label() string {
	if v.Policy == "static" {
		return "CI " + khaosShort(v.CIS) + " s"
	}
	return strings.ToUpper(v.Policy[:1]) + v.Policy[1:]
}

// key matches a variant to the measured data: the static CI, or the policy.
func (v khaosVariant) key() string {
	if v.Policy == "static" {
		return "static " + khaosShort(v.CIS)
	}
	return v.Policy
}

// path is the CIs in force, the start first: "119 → 19 s", with the
// middle of more than three changes cut: "60 → 90.9 → … → 94.32 s".
func (v khaosVariant) path() string {
	cis := []string{khaosShort(v.CIS)}
	for i, ch := range v.Changes {
		switch {
		case len(v.Changes) <= 3 || i == 0 || i == len(v.Changes)-1:
			cis = append(cis, khaosShort(ch.CIS))
		case i == 1:
			cis = append(cis, "…")
		}
	}
	return strings.Join(cis, " → ") + " s"
}

// reconfigurations is the table cell: the count, and where the CI went.
func (v khaosVariant) reconfigurations() string {
	n := strconv.Itoa(v.Reconfigurations)
	if len(v.Changes) == 0 {
		return n
	}
	cis := []string{khaosShort(v.CIS)}
	if len(v.Changes) > 1 {
		cis = append(cis, "…")
	}
	cis = append(cis, khaosShort(v.Changes[len(v.Changes)-1].CIS))
	return n + " (" + strings.Join(cis, " → ") + " s)"
}

// khaosVariants runs and evaluates scenarios/NAME.yaml and reads its
// variants.csv and the runs' summary.json.
func khaosVariants(c *Context, name string) ([]khaosVariant, error) {
	dir, err := evaluated(c, name)
	if err != nil {
		return nil, err
	}
	rows, err := khaosReadCSV(filepath.Join(dir, evaluation.VariantsCSV))
	if err != nil {
		return nil, err
	}
	var vs []khaosVariant
	for _, row := range rows {
		v := khaosVariant{Name: row.text("variant"), Policy: row.text("policy")}
		for col, x := range map[string]*float64{
			"checkpoint_interval_s": &v.CIS, "recovery_bound_s": &v.RecoveryBoundS,
			"recovery_median_s": &v.RecoveryMedianS, "recovery_mean_s": &v.RecoveryMeanS,
			"latency_mean_ms": &v.LatencyMeanMs, "latency_steady_mean_ms": &v.LatencySteadyMs,
			"checkpoint_interval_mean_s": &v.CIMeanS,
		} {
			*x = row.number(col)
		}
		v.Violations, v.Reconfigurations = int(row.number("recovery_violations")), int(row.number("reconfigurations"))
		v.Changes = row.changes("ci_changes")
		if row.err != nil {
			return nil, fmt.Errorf("%s/%s: %w", name, evaluation.VariantsCSV, row.err)
		}
		if v.Summary, err = results.ReadSummary(filepath.Join(dir, v.Name)); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// khaosAndStatics are the Khaos variant and the static ones, by CI.
func khaosAndStatics(vs []khaosVariant) (khaosVariant, []khaosVariant, error) {
	var k []khaosVariant
	var statics []khaosVariant
	for _, v := range vs {
		switch v.Policy {
		case "khaos":
			k = append(k, v)
		case "static":
			statics = append(statics, v)
		}
	}
	if len(k) != 1 || len(statics) == 0 {
		return khaosVariant{}, nil, fmt.Errorf("want one khaos variant and static ones, have %d and %d", len(k), len(statics))
	}
	slices.SortStableFunc(statics, func(a, b khaosVariant) int { return cmp.Compare(a.CIS, b.CIS) })
	return k[0], statics, nil
}

// khaosLatencyIsMarker checks that the evaluation's latency series is the
// latency-marker p99 (what Khaos recorded, and what the measured 24 h
// latencies are): its mean is the summary's latency_marker_mean_ms.
func khaosLatencyIsMarker(vs []khaosVariant) error {
	for _, v := range vs {
		if m := v.Summary.LatencyMarkerMeanMs; math.Abs(v.LatencyMeanMs-m) > 1e-6*m {
			return fmt.Errorf("claim no longer holds: the 24 h latency is the latency-marker p99, as Khaos's: %s's evaluated mean is %g ms, its latency_marker_mean_ms %g ms", v.Name, v.LatencyMeanMs, m)
		}
	}
	return nil
}

// khaosMTBF is policy.mtbf of a run's scenario.yaml, in s.
func khaosMTBF(path string) (float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var sc struct {
		Policy struct {
			MTBF *sim.Duration `yaml:"mtbf"`
		} `yaml:"policy"`
	}
	if err := yaml.Unmarshal(data, &sc); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if sc.Policy.MTBF == nil {
		return 0, fmt.Errorf("%s: no policy.mtbf (the text says it is configured)", path)
	}
	return sc.Policy.MTBF.Seconds(), nil
}

// A khaosMeasured is what was measured on the cluster for one variant.
type khaosMeasured struct {
	RecoveriesS   []float64
	LatencyMeanMs float64 // the 24 h mean of the latency markers; NaN if unknown
}

func (m khaosMeasured) over(r float64) int {
	n := 0
	for _, x := range m.RecoveriesS {
		if x > r {
			n++
		}
	}
	return n
}

func (m khaosMeasured) median() float64 { return results.Quantile(slices.Clone(m.RecoveriesS), 0.5) }

func (m khaosMeasured) mean() float64 {
	s := 0.0
	for _, x := range m.RecoveriesS {
		s += x
	}
	return s / float64(len(m.RecoveriesS))
}

// khaosYSBMeasured is the measured YSB evaluation by variant key: the
// static CIs' recoveries from the committed measured table; Khaos's
// recoveries and every 24 h latency mean from reference/khaos.md §12,
// whose static recoveries must agree with the table.
func khaosYSBMeasured(c *Context) (map[string]khaosMeasured, error) {
	pts, err := results.ReadMeasured(c.Path(measured["khaos-ysb"]))
	if err != nil {
		return nil, err
	}
	out := map[string]khaosMeasured{}
	for _, p := range pts {
		k := "static " + khaosShort(p.CheckpointIntervalS)
		m := out[k]
		m.RecoveriesS = append(m.RecoveriesS, p.RecoveryS)
		m.LatencyMeanMs = math.NaN()
		out[k] = m
	}
	ref, err := os.ReadFile(c.Path(khaosReference))
	if err != nil {
		return nil, err
	}
	failures, err := refTableAfter(string(ref), "**Per-failure measurements**")
	if err != nil {
		return nil, fmt.Errorf("%s §12: %w", khaosReference, err)
	}
	recs, err := failures.recoveries()
	if err != nil {
		return nil, fmt.Errorf("%s §12: %w", khaosReference, err)
	}
	for k, rs := range recs {
		if k == "khaos" {
			out[k] = khaosMeasured{RecoveriesS: rs, LatencyMeanMs: math.NaN()}
			continue
		}
		a, b := slices.Sorted(slices.Values(rs)), slices.Sorted(slices.Values(out[k].RecoveriesS))
		if !slices.Equal(a, b) {
			return nil, fmt.Errorf("claim no longer holds: the measured table %s holds the recoveries of %s §12: %s has %v there, %v in the table",
				measured["khaos-ysb"], khaosReference, k, a, b)
		}
	}
	if _, ok := out["khaos"]; !ok {
		return nil, fmt.Errorf("%s §12: the per-failure table has no Khaos column", khaosReference)
	}
	lat, err := refTableAfter(string(ref), "**24 h latency series**")
	if err != nil {
		return nil, fmt.Errorf("%s §12: %w", khaosReference, err)
	}
	for _, h := range lat.header[1:] {
		k := khaosRefKey(h)
		m, ok := out[k]
		if !ok {
			return nil, fmt.Errorf("%s §12: the 24 h latency table's column %q is no measured variant", khaosReference, h)
		}
		cell, err := lat.cell("mean (ms)", h)
		if err == nil {
			m.LatencyMeanMs, err = khaosRefNumber(cell)
		}
		if err != nil {
			return nil, fmt.Errorf("%s §12: %w", khaosReference, err)
		}
		out[k] = m
	}
	return out, nil
}

// A khaosComparison sorts the static variants by whether a figure of Khaos is
// below, level with or above theirs.
type khaosComparison struct{ below, level, above []khaosVariant }

func khaosCompare(k khaosVariant, statics []khaosVariant, f func(khaosVariant) float64) khaosComparison {
	var c khaosComparison
	for _, s := range statics {
		switch x, y := f(k), f(s); {
		case math.IsNaN(x) || math.IsNaN(y):
		case x < y:
			c.below = append(c.below, s)
		case x == y:
			c.level = append(c.level, s)
		default:
			c.above = append(c.above, s)
		}
	}
	return c
}

// describe: "below static 10 and 90 s (659.7 / 634.7 ms) and above static
// 30 s (612.2 ms)", for a latency.
func (c khaosComparison) describe(f func(khaosVariant) float64) string {
	num := func(x float64) string { return results.FormatNumber(x, 0) }
	var parts []string
	for _, p := range []struct {
		word string
		vs   []khaosVariant
	}{{"below", c.below}, {"level with", c.level}, {"above", c.above}} {
		if len(p.vs) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s (%s ms)", p.word, khaosStaticList(p.vs), khaosValues(p.vs, f, num)))
		}
	}
	return khaosAnd(parts)
}

// describeCounts: "fewer than static 60 and 90 s (2 / 4), as many as
// static 10 s", for counts.
func (c khaosComparison) describeCounts(f func(khaosVariant) float64) string {
	var parts []string
	for _, p := range []struct {
		word string
		vs   []khaosVariant
	}{{"fewer than", c.below}, {"as many as", c.level}, {"more than", c.above}} {
		if len(p.vs) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", p.word, khaosStaticList(p.vs), khaosValues(p.vs, f, results.FormatCount)))
		}
	}
	return khaosAnd(parts)
}

// against: "1 against 4 / 6 / 8".
func khaosAgainst(k khaosVariant, vs []khaosVariant, f func(khaosVariant) float64, format func(float64) string) string {
	return format(f(k)) + " against " + khaosValues(vs, f, format)
}

func khaosValues(vs []khaosVariant, f func(khaosVariant) float64, format func(float64) string) string {
	var out []string
	for _, v := range vs {
		out = append(out, format(f(v)))
	}
	return strings.Join(out, " / ")
}

// staticList: "static 60, 90 and 120 s".
func khaosStaticList(vs []khaosVariant) string {
	var cis []string
	for _, v := range vs {
		cis = append(cis, khaosShort(v.CIS))
	}
	return "static " + khaosAnd(cis) + " s"
}

// khaosAndList joins "a", "a and b", "a, b and c".
func khaosAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func khaosTimes(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.Itoa(n) + " times"
}

// khaosFalling reports whether xs strictly decreases.
func khaosFalling(xs []float64) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] >= xs[i-1] {
			return false
		}
	}
	return true
}

// khaosShort is results.FormatNumber without trailing zeros after the point, for
// checkpoint intervals and bounds that are mostly whole seconds: 119, 19,
// 94.32, 0.5.
func khaosShort(x float64) string {
	s := results.FormatNumber(x, 0)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// khaosClock formats seconds since the run start as h:mm:ss.
func khaosClock(s float64) string {
	t := int(math.Round(s))
	return fmt.Sprintf("%d:%02d:%02d", t/3600, t/60%60, t%60)
}

// khaosMarkdownTable writes rows (the header first) as a markdown table.
func khaosMarkdownTable(rows [][]string) string {
	var b strings.Builder
	for i, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			b.WriteString(strings.Repeat("|---", len(r)) + "|\n")
		}
	}
	return b.String()
}

// An refTable is a markdown table of a reference document.
type refTable struct {
	header []string
	rows   [][]string
}

// refTableAfter is the first markdown table after the first line of text that
// contains anchor.
func refTableAfter(text, anchor string) (refTable, error) {
	lines := strings.Split(text, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, anchor) })
	if i < 0 {
		return refTable{}, fmt.Errorf("no line contains %q", anchor)
	}
	for i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "|") {
		i++
	}
	var t refTable
	for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
		l := strings.TrimSpace(lines[i])
		l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
		cells := strings.Split(l, "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		switch {
		case t.header == nil:
			t.header = cells
		case strings.Trim(l, "|-: ") == "":
			// the separator line
		default:
			if len(cells) != len(t.header) {
				return refTable{}, fmt.Errorf("the table after %q: a row has %d cells, the header %d", anchor, len(cells), len(t.header))
			}
			t.rows = append(t.rows, cells)
		}
	}
	if t.header == nil {
		return refTable{}, fmt.Errorf("no table after %q", anchor)
	}
	return t, nil
}

// cell is the cell of the row whose first cell is row, in column col.
func (t refTable) cell(row, col string) (string, error) {
	j := slices.Index(t.header, col)
	if j < 0 {
		return "", fmt.Errorf("no column %q (columns: %s)", col, strings.Join(t.header, ", "))
	}
	for _, r := range t.rows {
		if r[0] == row {
			return r[j], nil
		}
	}
	return "", fmt.Errorf("no row %q", row)
}

// recoveries are the recoveries of a per-failure table (rows numbered 1,
// 2, …; cells "throughput/latency/recovery (pred …)") by column key.
func (t refTable) recoveries() (map[string][]float64, error) {
	out := map[string][]float64{}
	for _, r := range t.rows {
		if _, err := strconv.Atoi(r[0]); err != nil {
			continue // a derived row
		}
		for j, h := range t.header[1:] {
			k := khaosRefKey(h)
			if k == "" {
				return nil, fmt.Errorf("column %q names no variant", h)
			}
			parts := strings.Split(r[j+1], "/")
			if len(parts) != 3 {
				return nil, fmt.Errorf("row %s, column %s: %q is not throughput/latency/recovery", r[0], h, r[j+1])
			}
			x, err := khaosRefNumber(parts[2])
			if err != nil {
				return nil, fmt.Errorf("row %s, column %s: %w", r[0], h, err)
			}
			out[k] = append(out[k], x)
		}
	}
	return out, nil
}

// khaosRefKey is the variant key of a reference table's column: "CI 10 s" and
// "10 s" are "static 10", "Khaos" is "khaos"; "" for anything else.
func khaosRefKey(h string) string {
	if strings.EqualFold(h, "khaos") {
		return "khaos"
	}
	s, ok := strings.CutSuffix(strings.TrimPrefix(h, "CI "), " s")
	if !ok {
		return ""
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return ""
	}
	return "static " + khaosShort(x)
}

// khaosRefNumber reads the number a reference cell begins with: "−0.00081438",
// "0.2817 (0.2630)", "205 (pred 202)".
func khaosRefNumber(cell string) (float64, error) {
	f := strings.Fields(strings.ReplaceAll(cell, "−", "-"))
	if len(f) == 0 {
		return 0, errors.New("an empty cell")
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("%q does not begin with a number", cell)
	}
	return x, nil
}

// csvRows are the rows of a CSV file by column; the first failed lookup is
// kept in err.
type khaosCSVRow struct {
	cells map[string]string
	err   error
}

func khaosReadCSV(path string) ([]*khaosCSVRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	var rows []*khaosCSVRow
	for _, rec := range recs[1:] {
		r := &khaosCSVRow{cells: map[string]string{}}
		for i, h := range recs[0] {
			r.cells[h] = rec[i]
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func (r *khaosCSVRow) text(col string) string {
	s, ok := r.cells[col]
	if !ok && r.err == nil {
		r.err = fmt.Errorf("no column %s", col)
	}
	return s
}

func (r *khaosCSVRow) number(col string) float64 {
	s := r.text(col)
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("column %s: %q is not a number", col, s)
	}
	return x
}

// changes reads a ci_changes cell: "at_s:ci_s;at_s:ci_s", "" for none.
func (r *khaosCSVRow) changes(col string) []khaosCIChange {
	s := r.text(col)
	if s == "" {
		return nil
	}
	var out []khaosCIChange
	for _, p := range strings.Split(s, ";") {
		at, ci, ok := strings.Cut(p, ":")
		a, err1 := strconv.ParseFloat(at, 64)
		c, err2 := strconv.ParseFloat(ci, 64)
		if !ok || err1 != nil || err2 != nil {
			if r.err == nil {
				r.err = fmt.Errorf("column %s: %q is not at_s:ci_s", col, p)
			}
			return nil
		}
		out = append(out, khaosCIChange{a, c})
	}
	return out
}
