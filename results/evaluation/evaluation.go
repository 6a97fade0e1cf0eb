package evaluation

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/sim"
)

// Policy comparison evaluation: the tables of the Khaos paper's evaluation
// (docs/reference/khaos.md §12, "Per-failure measurements" and "24 h latency
// series") computed from the run folders of a scenario's variants, so a
// simulated comparison can be put next to the measured one.

// Files written by (*Evaluation).Write.
const (
	MarkdownFile = "evaluation.md"
	FailuresCSV  = "failures.csv"
	VariantsCSV  = "variants.csv"
	// Figure bases, each written as .png, .svg and .pdf.
	RecoveryFigure = "evaluation-recovery"
	LatencyFigure  = "evaluation-latency"
	PanelsFigure   = "evaluation-panels"
	FaultsFigure   = "evaluation-faults"
)

// maxCIChanges is the most CI changes listed in evaluation.md.
const maxCIChanges = 6

// ErrNoRunFolders is returned (wrapped) by Runs for a folder that
// holds no run folders.
var ErrNoRunFolders = errors.New("no run folders (summary.json)")

// Options tune Evaluate; zero values take the defaults.
type Options struct {
	// RecoveryBoundS (R) and LatencyBoundMs (L), when > 0, replace every
	// run's own bounds (summary.json qos.recovery_bound_s / latency_bound_ms).
	RecoveryBoundS float64
	LatencyBoundMs float64
	// PreFailureS is the window before a fault over which throughput and
	// latency are averaged (default 300, Khaos's).
	PreFailureS float64
	// WindowS is the window of the latency-series count (default 300).
	WindowS float64
	// LatencyColumn is the timeseries latency column of the pre-failure
	// latency, the latency series and the latency figure (default
	// DefaultLatencyColumn); evaluate takes one of LatencyColumns.
	LatencyColumn string
	// Measured, if not nil, adds the measured-vs-simulated block, matched by
	// checkpoint interval; MeasuredSource names the table in evaluation.md.
	Measured       []results.MeasuredFailure
	MeasuredSource string
}

// DefaultLatencyColumn is the latency an evaluation reads when Options
// name none: the latency-marker p99, what Khaos recorded (Flink's latency
// markers: source-to-sink transit, without the wait in Kafka).
const DefaultLatencyColumn = "latency_marker_p99_ms"

// LatencyColumns are the latency columns of timeseries.parquet an
// evaluation can read (LatencyDefinition names each), the default first.
var LatencyColumns = []string{DefaultLatencyColumn, "latency_p99_ms", "latency_p50_ms", "latency_mean_ms"}

// Evaluation is the evaluation of the variants of one policy comparison.
type Evaluation struct {
	Scenario string // the runs' scenario name; "" if they differ
	// backends is the figures' tag of the runs' backends (figures.BackendTag:
	// " (twin)", " (live)", " (twin vs live)"), so a live evaluation's
	// figures do not carry a twin one's title.
	backends string
	Variants []VariantEvaluation // in the order given to Evaluate
	// Measured compares a measured table with the variants of the same
	// static CI: one row per (measured CI, matching variant), or one row
	// with no variant for a CI no variant has. Nil without a measured table.
	Measured       []MeasuredComparison
	MeasuredSource string
	// Given is true for the bounds set by Options (not the runs').
	RecoveryBoundGiven, LatencyBoundGiven bool
	WindowS, PreFailureS                  float64
	LatencyColumn                         string
}

// VariantEvaluation is the evaluation of one run.
type VariantEvaluation struct {
	Label, Dir string
	// Policy is policy.name of the run's scenario.yaml ("" if unknown);
	// CheckpointIntervalS is job.checkpoint.interval, NaN if unknown.
	Policy              string
	CheckpointIntervalS float64
	// StaticCIS is the CI a static policy holds (policy.interval, else
	// job.checkpoint.interval); NaN for other policies. Measured tables
	// are matched on it.
	StaticCIS float64
	// DynamicCI is true when the CI in force changed during the run.
	DynamicCI bool

	RecoveryBoundS, LatencyBoundMs float64
	DurationS                      float64

	Failures []FailureEvaluation // faults in time order
	// Over the recovered failures; NaN when none recovered.
	Recovered                                    int
	RecoveryMedianS, RecoveryMeanS, RecoveryMaxS float64
	// RecoveryViolations counts recoveries > R, and failures not recovered
	// by the end of the run when more than R was left after them.
	RecoveryViolations int

	// Over the whole run's latency (LatencyColumn), intervals without output
	// (NaN) dropped as in Khaos's series: mean, median, % of intervals
	// > L, and windows of WindowS worth of consecutive intervals whose mean
	// is > L out of all full windows.
	LatencyMeanMs, LatencyMedianMs, LatencyOverPct float64
	LatencyWindowsOver, LatencyWindows             int

	// LatencySteadyMeanMs is summary latency_steady_mean_ms: the
	// record-weighted event-time mean (latency_mean_ms) outside recoveries,
	// whatever LatencyColumn is.
	LatencySteadyMeanMs     float64
	Reconfigurations        int // summary reconfigurations
	CIChanges               []CIChange
	CheckpointIntervalMeanS float64 // summary checkpoint_interval_mean_s (time-weighted)
	WorkerSeconds           float64 // summary worker_seconds
}

// FailureEvaluation is one fault of a run.
type FailureEvaluation struct {
	Index    int     // 1-based, in time order
	FaultAtS float64 // s since the run start
	// Means over the PreFailureS before the fault (samples with
	// time_s in (fault − PreFailureS, fault]); NaN values skipped, NaN if none.
	ThroughputMean float64 // records/s
	LatencyMeanMs  float64 // of the latency column (latency_p99_ms)
	CIS            float64 // CI in force at the fault (last sample before it), NaN if none
	RecoveryS      float64 // from the matching recovered event; NaN if not recovered
}

// CIChange is a checkpoint interval a policy set: a policy_decision event
// set_checkpoint_interval (not rejected), with its new CI.
type CIChange struct {
	AtS float64 // decision time
	// InForceAtS is the first reconfigured event at or after AtS: the
	// resubmitted job runs with the new CI. NaN if none followed.
	InForceAtS          float64
	CheckpointIntervalS float64
}

// MeasuredComparison puts the measured failures of one CI next to a
// simulated variant with that CI. The Sim* fields are NaN/0 and Variant ""
// when no variant has the CI.
type MeasuredComparison struct {
	CheckpointIntervalS float64
	Variant             string
	RecoveryBoundS      float64

	MeasuredN int
	// MeasuredCensored counts the measured recoveries at their
	// measurement's cap (the table's censored column): lower bounds, so the
	// measured median, mean and count over R are lower bounds with any.
	MeasuredCensored               int
	MeasuredMedianS, MeasuredMeanS float64
	MeasuredOver                   int
	MeasuredLatencyMs              float64 // mean pre-failure latency; NaN if the table has none
	SimN                           int     // recovered failures
	SimMedianS, SimMeanS           float64
	SimOver                        int
	SimLatencyMs                   float64
	measured                       []results.MeasuredFailure
	variantIndex                   int // into Evaluation.Variants; -1 for none
}

// Runs lists the run folders of a `streamtwin run` output folder
// and their labels (folder names): in the order of the scenario's variants
// when the first run's scenario.yaml lists them, else in natural order
// (ci10, ci30, ci120) with a variant named "khaos" first. A folder that is
// itself a run folder is one run, labelled by its variant or scenario.
// A folder without run folders gives an error wrapping ErrNoRunFolders.
func Runs(runsDir string) (dirs, labels []string, err error) {
	st, err := os.Stat(runsDir)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: no such folder", runsDir)
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("%s: not a folder", runsDir)
	}
	if _, err := os.Stat(filepath.Join(runsDir, results.SummaryFile)); err == nil {
		s, err := results.ReadSummary(runsDir)
		if err != nil {
			return nil, nil, err
		}
		return []string{runsDir}, []string{cmp.Or(results.RunKey(s), filepath.Base(filepath.Clean(runsDir)))}, nil
	}
	subs, err := results.RunSubfolders(runsDir)
	if err != nil {
		return nil, nil, err
	}
	if len(subs) == 0 {
		return nil, nil, fmt.Errorf("%s: %w", runsDir, ErrNoRunFolders)
	}
	var listed struct {
		Variants []struct {
			Name string `yaml:"name"`
		} `yaml:"variants"`
	}
	rank := map[string]int{}
	if b, err := os.ReadFile(filepath.Join(runsDir, subs[0], results.ScenarioFile)); err == nil && yaml.Unmarshal(b, &listed) == nil {
		for i, v := range listed.Variants {
			if _, dup := rank[v.Name]; !dup {
				rank[v.Name] = i
			}
		}
	}
	slices.SortStableFunc(subs, func(a, b string) int {
		ra, oka := rank[a]
		rb, okb := rank[b]
		switch {
		case oka && okb:
			return cmp.Compare(ra, rb)
		case oka != okb: // listed variants first
			if oka {
				return -1
			}
			return 1
		case (a == "khaos") != (b == "khaos"):
			if a == "khaos" {
				return -1
			}
			return 1
		}
		return compareNatural(a, b)
	})
	for _, s := range subs {
		dirs = append(dirs, filepath.Join(runsDir, s))
		labels = append(labels, s)
	}
	return dirs, labels, nil
}

// compareNatural orders strings with their digit runs compared as numbers.
func compareNatural(a, b string) int {
	digits := func(s string) string {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return s[:i]
	}
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da != "" && db != "" {
			na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// Evaluate evaluates the runs in runDirs (each with summary.json,
// timeseries.parquet and events.parquet; scenario.yaml optional), labelled
// by labels (nil: folder names).
func Evaluate(runDirs []string, labels []string, opt Options) (*Evaluation, error) {
	if opt.RecoveryBoundS < 0 || opt.LatencyBoundMs < 0 || opt.PreFailureS < 0 || opt.WindowS < 0 {
		return nil, errors.New("results: evaluate: bounds and windows must not be negative")
	}
	runs, err := results.LabelRuns(runDirs, labels)
	if err != nil {
		return nil, fmt.Errorf("results: evaluate: %w", err)
	}
	ev := &Evaluation{
		RecoveryBoundGiven: opt.RecoveryBoundS > 0, LatencyBoundGiven: opt.LatencyBoundMs > 0,
		PreFailureS: cmp.Or(opt.PreFailureS, 300), WindowS: cmp.Or(opt.WindowS, 300),
		LatencyColumn:  cmp.Or(opt.LatencyColumn, DefaultLatencyColumn),
		MeasuredSource: opt.MeasuredSource,
	}
	var sums []*results.Summary
	for i, r := range runs {
		if r.Summary == nil {
			return nil, fmt.Errorf("results: evaluate: %s: no %s", r.Dir, results.SummaryFile)
		}
		sums = append(sums, r.Summary)
		v, err := evaluateRun(r, ev, opt)
		if err != nil {
			return nil, fmt.Errorf("results: evaluate %s: %w", r.Dir, err)
		}
		ev.Variants = append(ev.Variants, v)
		if i == 0 {
			ev.Scenario = r.Summary.Scenario
		} else if r.Summary.Scenario != ev.Scenario {
			ev.Scenario = ""
		}
	}
	ev.backends = figures.BackendTag(sums...)
	if opt.Measured != nil {
		ev.Measured = compareMeasured(ev.Variants, opt.Measured)
	}
	return ev, nil
}

// runScenario is the little of scenario.yaml the evaluation reads.
type runScenario struct {
	Job struct {
		Checkpoint struct {
			Interval *sim.Duration `yaml:"interval"`
		} `yaml:"checkpoint"`
	} `yaml:"job"`
	Policy map[string]any `yaml:"policy"`
}

func evaluateRun(r results.LabelledRun, ev *Evaluation, opt Options) (VariantEvaluation, error) {
	s := *r.Summary
	v := VariantEvaluation{
		Label: r.Label, Dir: r.Dir,
		CheckpointIntervalS: math.NaN(), StaticCIS: math.NaN(),
		RecoveryBoundS: cmp.Or(opt.RecoveryBoundS, s.QoS.RecoveryBoundS),
		LatencyBoundMs: cmp.Or(opt.LatencyBoundMs, s.QoS.LatencyBoundMs),
		DurationS:      s.DurationS, LatencySteadyMeanMs: s.LatencySteadyMeanMs,
		Reconfigurations: s.Reconfigurations, CheckpointIntervalMeanS: s.CheckpointIntervalMeanS,
		WorkerSeconds: s.WorkerSeconds,
	}
	if err := v.readScenario(filepath.Join(r.Dir, results.ScenarioFile)); err != nil {
		return v, err
	}
	cols, err := results.ReadRunColumns(r.Dir, "time_s", "throughput", ev.LatencyColumn, "checkpoint_interval_s")
	if err != nil {
		return v, err
	}
	t, thr, p99, ci := cols[0], cols[1], cols[2], cols[3]
	for i := 1; i < len(t); i++ {
		if !(t[i] > t[i-1]) {
			return v, fmt.Errorf("%s: time_s not increasing at row %d (%g after %g)", results.TimeseriesFile, i, t[i], t[i-1])
		}
	}
	for i := 1; i < len(ci); i++ {
		if ci[i] != ci[0] {
			v.DynamicCI = true
			break
		}
	}
	if len(t) > 0 {
		v.DurationS = max(v.DurationS, t[len(t)-1])
	}
	events, err := results.ReadEvents(filepath.Join(r.Dir, results.EventsFile))
	if err != nil {
		return v, err
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].TimeS < events[j].TimeS })
	v.addFailures(events, t, thr, p99, ci, ev.PreFailureS)
	v.addLatencySeries(t, p99, ev.WindowS)
	v.addCIChanges(events)
	return v, nil
}

// addFailures evaluates the faults in time order, each with its recovery
// (results.FaultRecoveries), and their recovery statistics.
func (v *VariantEvaluation) addFailures(events []results.Event, t, thr, p99, ci []float64, preS float64) {
	for _, fr := range results.FaultRecoveries(events) {
		f := FailureEvaluation{Index: len(v.Failures) + 1, FaultAtS: fr.AtS, RecoveryS: fr.RecoveryS, CIS: math.NaN()}
		// The samples of (fault − preS, fault].
		lo := sort.Search(len(t), func(i int) bool { return t[i] > fr.AtS-preS })
		hi := sort.Search(len(t), func(i int) bool { return t[i] > fr.AtS })
		var thrs, lats []float64
		for i := lo; i < hi; i++ {
			thrs, lats = results.AppendFinite(thrs, thr[i]), results.AppendFinite(lats, p99[i])
		}
		f.ThroughputMean, f.LatencyMeanMs = results.FiniteMean(thrs), results.FiniteMean(lats)
		if hi > 0 {
			f.CIS = ci[hi-1]
		}
		v.Failures = append(v.Failures, f)
	}
	var recs []float64
	for _, f := range v.Failures {
		switch {
		case !math.IsNaN(f.RecoveryS):
			recs = append(recs, f.RecoveryS)
			if v.RecoveryBoundS > 0 && f.RecoveryS > v.RecoveryBoundS {
				v.RecoveryViolations++
			}
		case v.RecoveryBoundS > 0 && v.DurationS-f.FaultAtS > v.RecoveryBoundS:
			v.RecoveryViolations++ // still not recovered more than R later
		}
	}
	v.Recovered = len(recs)
	v.RecoveryMedianS, v.RecoveryMeanS, v.RecoveryMaxS = medianMeanMax(recs)
}

// addLatencySeries computes the statistics of the whole latency series,
// NaN intervals dropped.
func (v *VariantEvaluation) addLatencySeries(t, p99 []float64, windowS float64) {
	v.LatencyMeanMs, v.LatencyMedianMs, v.LatencyOverPct = math.NaN(), math.NaN(), math.NaN()
	lat := results.FiniteValues(p99)
	if len(lat) == 0 {
		return
	}
	v.LatencyMeanMs = results.FiniteMean(lat)
	if v.LatencyBoundMs > 0 {
		over := 0
		for _, x := range lat {
			if x > v.LatencyBoundMs {
				over++
			}
		}
		v.LatencyOverPct = 100 * float64(over) / float64(len(lat))
	}
	// A window is windowS worth of intervals (the metric interval from the
	// series' spacing): Khaos's 300 rows of its 1-s files.
	step := 1.0
	if len(t) > 1 {
		step = (t[len(t)-1] - t[0]) / float64(len(t)-1)
	}
	w := max(1, int(math.Round(windowS/step)))
	v.LatencyWindows = len(lat) / w
	for k := range v.LatencyWindows {
		if v.LatencyBoundMs > 0 && results.FiniteMean(lat[k*w:(k+1)*w]) > v.LatencyBoundMs {
			v.LatencyWindowsOver++
		}
	}
	v.LatencyMedianMs = results.Quantile(lat, 0.5) // sorts lat: last
}

// addCIChanges lists the CIs a policy set (the reconfigured event's Value
// is the backlog, not the CI, so the decision carries it).
func (v *VariantEvaluation) addCIChanges(events []results.Event) {
	for j, e := range events {
		if e.Kind != results.KindPolicyDecision || e.Value == nil || !strings.HasPrefix(e.Reason, "set_checkpoint_interval:") || strings.Contains(e.Reason, "(rejected") {
			continue
		}
		c := CIChange{AtS: e.TimeS, InForceAtS: math.NaN(), CheckpointIntervalS: *e.Value}
		for _, r := range events[j:] {
			if r.Kind == results.KindReconfigured {
				c.InForceAtS = r.TimeS
				break
			}
		}
		v.CIChanges = append(v.CIChanges, c)
	}
}

// readScenario fills the policy and CI fields from the run's scenario.yaml;
// a run without one (or with an empty one) keeps them unknown. What is wrong
// with the file comes back as sim.Problems.
func (v *VariantEvaluation) readScenario(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	file, err := parser.ParseBytes(b, 0)
	if err != nil {
		return sim.Problems{sim.YAMLProblem(path, nil, err)}
	}
	if len(file.Docs) == 0 || file.Docs[0].Body == nil {
		return nil
	}
	var sc runScenario
	if err := yaml.NodeToValue(file.Docs[0].Body, &sc); err != nil {
		return sim.Problems{sim.YAMLProblem(path, file, err)}
	}
	if iv := sc.Job.Checkpoint.Interval; iv != nil {
		v.CheckpointIntervalS = iv.Seconds()
	}
	v.Policy, _ = sc.Policy["name"].(string)
	if v.Policy == "" || v.Policy == "static" {
		v.StaticCIS = v.CheckpointIntervalS
		if iv, ok := sc.Policy["interval"]; ok && iv != nil {
			d, err := sim.ParseDuration(fmt.Sprint(iv))
			if err != nil {
				return sim.Problems{{File: path, Line: sim.LineOf(file, "policy.interval"), Field: "policy.interval", Msg: err.Error()}}
			}
			if d > 0 {
				v.StaticCIS = d.Seconds()
			}
		}
	}
	return nil
}

// medianMeanMax of xs (NaN for none); xs is not changed.
func medianMeanMax(xs []float64) (median, mean, maximum float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	sorted := slices.Clone(xs)
	median = results.Quantile(sorted, 0.5)
	return median, results.FiniteMean(sorted), sorted[len(sorted)-1]
}

func compareMeasured(vs []VariantEvaluation, ms []results.MeasuredFailure) []MeasuredComparison {
	byCI := map[float64][]results.MeasuredFailure{}
	for _, m := range ms {
		byCI[m.CheckpointIntervalS] = append(byCI[m.CheckpointIntervalS], m)
	}
	cis := make([]float64, 0, len(byCI))
	for c := range byCI {
		cis = append(cis, c)
	}
	sort.Float64s(cis)
	defaultR := math.NaN()
	if len(vs) > 0 {
		defaultR = vs[0].RecoveryBoundS
	}
	var out []MeasuredComparison
	for _, c := range cis {
		matched := false
		for i, v := range vs {
			if math.Abs(v.StaticCIS-c) <= 1e-9*max(1, c) {
				out = append(out, newComparison(c, byCI[c], i, &vs[i]))
				matched = true
			}
		}
		if !matched {
			mc := newComparison(c, byCI[c], -1, nil)
			mc.RecoveryBoundS = defaultR
			mc.MeasuredOver = countOver(mc.measured, defaultR)
			out = append(out, mc)
		}
	}
	return out
}

func newComparison(ci float64, ms []results.MeasuredFailure, idx int, v *VariantEvaluation) MeasuredComparison {
	mc := MeasuredComparison{CheckpointIntervalS: ci, MeasuredN: len(ms), measured: ms, variantIndex: idx,
		SimMedianS: math.NaN(), SimMeanS: math.NaN(), SimLatencyMs: math.NaN()}
	rec := make([]float64, len(ms))
	var lat []float64
	for i, m := range ms {
		rec[i] = m.RecoveryS
		lat = results.AppendFinite(lat, m.LatencyMs)
		if m.Censored {
			mc.MeasuredCensored++
		}
	}
	mc.MeasuredMedianS, mc.MeasuredMeanS, _ = medianMeanMax(rec)
	mc.MeasuredLatencyMs = results.FiniteMean(lat)
	if v == nil {
		return mc
	}
	mc.Variant, mc.RecoveryBoundS = v.Label, v.RecoveryBoundS
	mc.MeasuredOver = countOver(ms, v.RecoveryBoundS)
	mc.SimN, mc.SimMedianS, mc.SimMeanS, mc.SimOver = v.Recovered, v.RecoveryMedianS, v.RecoveryMeanS, v.RecoveryViolations
	var slat []float64
	for _, f := range v.Failures {
		slat = results.AppendFinite(slat, f.LatencyMeanMs)
	}
	mc.SimLatencyMs = results.FiniteMean(slat)
	return mc
}

func countOver(ms []results.MeasuredFailure, r float64) int {
	n := 0
	for _, m := range ms {
		if r > 0 && m.RecoveryS > r {
			n++
		}
	}
	return n
}

// ---------------------------------------------------------------------------
// Output

// Write writes evaluation.md, failures.csv, variants.csv and the figures
// evaluation-recovery, evaluation-latency (letter values beside the tail),
// evaluation-panels (small multiples, a row per variant) and
// evaluation-faults (a zoom per fault; none without faults), each .png,
// .svg and .pdf, into dir and returns their paths.
func (ev *Evaluation) Write(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results: evaluation: %w", err)
	}
	var paths []string
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{MarkdownFile, ev.WriteMarkdown},
		{FailuresCSV, ev.writeFailuresCSV},
		{VariantsCSV, ev.writeVariantsCSV},
	} {
		var b strings.Builder
		if err := f.write(&b); err != nil {
			return paths, fmt.Errorf("results: evaluation: %s: %w", f.name, err)
		}
		p := filepath.Join(dir, f.name)
		if err := results.WriteFileAtomic(p, []byte(b.String())); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	figs, err := ev.plotRecovery(filepath.Join(dir, RecoveryFigure))
	if err != nil {
		return paths, err
	}
	paths = append(paths, figs...)
	dirs, labels := make([]string, len(ev.Variants)), make([]string, len(ev.Variants))
	for i, v := range ev.Variants {
		dirs[i], labels[i] = v.Dir, v.Label
	}
	title := []figures.Option{figures.WithTitle(ev.figureTitle())}
	latOpts := append(slices.Clone(title), figures.WithLatencyColumn(ev.LatencyColumn))
	if figs, err = figures.PlotLatencyDistributions(dirs, labels, filepath.Join(dir, LatencyFigure), figures.LatencyOverview, latOpts...); err != nil {
		return paths, err
	}
	paths = append(paths, figs...)
	if figs, err = figures.PlotPanels(dirs, labels, filepath.Join(dir, PanelsFigure), title...); err != nil {
		return paths, err
	}
	paths = append(paths, figs...)
	// No figure when no variant had a fault.
	if figs, err = figures.PlotFaults(dirs, labels, filepath.Join(dir, FaultsFigure), title...); err != nil {
		return paths, err
	}
	return append(paths, figs...), nil
}

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
		results.Plural(len(names), "variant"), strings.Join(names, ", "), boundText(r, "s"), source(ev.RecoveryBoundGiven),
		boundText(l, "ms"), source(ev.LatencyBoundGiven))

	// A table with one column per variant; lead holds the cells before them.
	var rows [][]string
	stat := func(lead []string, get func(VariantEvaluation) string) {
		row := slices.Clone(lead)
		for _, v := range ev.Variants {
			row = append(row, get(v))
		}
		rows = append(rows, row)
	}
	metric := func(label string, get func(VariantEvaluation) string) { stat([]string{label}, get) }
	metricHeader := append([]string{"Metric"}, names...)

	// Per-failure measurements, as Khaos's table.
	b.WriteString("## Per-failure measurements\n\n")
	latName := LatencyDefinition(ev.LatencyColumn)
	fmt.Fprintf(&b, "Cell = throughput before failure (k records/s) / %s before failure (ms: the mean of `%s`, %s) / recovery time (s); "+
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
				at = fmtClock(v.Failures[k].FaultAtS)
				break
			}
		}
		stat([]string{strconv.Itoa(k + 1), at}, func(v VariantEvaluation) string {
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
	stat([]string{"median rec (s)", ""}, func(v VariantEvaluation) string { return fmtNum(v.RecoveryMedianS) })
	stat([]string{"mean rec (s)", ""}, func(v VariantEvaluation) string { return fmtNum(v.RecoveryMeanS) })
	stat([]string{ev.overLabel("rec"), ""}, func(v VariantEvaluation) string { return strconv.Itoa(v.RecoveryViolations) })
	if math.IsNaN(r) {
		stat([]string{"R (s)", ""}, func(v VariantEvaluation) string { return fmtG(v.RecoveryBoundS) })
	}
	writeMarkdownTable(&b, append([]string{"#", "at"}, names...), rows)

	// The latency series, as Khaos's "24 h latency series".
	rows = nil
	fmt.Fprintf(&b, "\n## Latency series (%s): %s\n\n", fmtSpan(ev.maxDuration()), latName)
	fmt.Fprintf(&b, "The per-interval %s (`%s`, %s) over the whole run, failure periods included, intervals without output dropped "+
		"(as in Khaos's series); a window is %s s of consecutive intervals with output, counted out of all full windows. "+
		"The last row is another latency, the %s.\n\n",
		latName, ev.LatencyColumn, latencyMeaning(ev.LatencyColumn), fmtG(ev.WindowS), steadyLatencyName)
	metric(latName+", mean over intervals (ms)", func(v VariantEvaluation) string { return fmtNum(v.LatencyMeanMs) })
	metric(latName+", median over intervals (ms)", func(v VariantEvaluation) string { return fmtNum(v.LatencyMedianMs) })
	metric(latName+", "+ev.latLabel("%% of intervals > %s"), func(v VariantEvaluation) string { return fmtPct(v.LatencyOverPct) })
	metric(latName+", "+ev.latLabel(fmtG(ev.WindowS)+"-s windows with mean > %s"), func(v VariantEvaluation) string {
		return fmt.Sprintf("%d/%d", v.LatencyWindowsOver, v.LatencyWindows)
	})
	metric(steadyLatencyLabel, func(v VariantEvaluation) string { return fmtNum(v.LatencySteadyMeanMs) })
	if math.IsNaN(l) {
		metric("L (ms)", func(v VariantEvaluation) string { return fmtG(v.LatencyBoundMs) })
	}
	writeMarkdownTable(&b, metricHeader, rows)

	// Per variant.
	rows = nil
	b.WriteString("\n## Variants\n\n")
	metric("policy", func(v VariantEvaluation) string { return cmp.Or(v.Policy, "–") })
	metric("checkpoint interval at start (s)", func(v VariantEvaluation) string { return fmtG(v.CheckpointIntervalS) })
	metric("failures", func(v VariantEvaluation) string { return strconv.Itoa(len(v.Failures)) })
	metric("recovered", func(v VariantEvaluation) string { return strconv.Itoa(v.Recovered) })
	metric("recovery median (s)", func(v VariantEvaluation) string { return fmtNum(v.RecoveryMedianS) })
	metric("recovery mean (s)", func(v VariantEvaluation) string { return fmtNum(v.RecoveryMeanS) })
	metric("recovery max (s)", func(v VariantEvaluation) string { return fmtNum(v.RecoveryMaxS) })
	metric("violations: "+ev.overLabel("recoveries"), func(v VariantEvaluation) string { return strconv.Itoa(v.RecoveryViolations) })
	metric("reconfigurations", func(v VariantEvaluation) string { return strconv.Itoa(v.Reconfigurations) })
	metric("CI changes (h:mm:ss → new CI s)", func(v VariantEvaluation) string {
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
			parts = append(parts, fmtClock(c.AtS)+" → "+fmtCI(c.CheckpointIntervalS))
		}
		return strings.Join(parts, "; ")
	})
	metric("mean CI, time-weighted (s)", func(v VariantEvaluation) string { return fmtNum(v.CheckpointIntervalMeanS) })
	metric("worker-seconds (TaskManager-s)", func(v VariantEvaluation) string { return fmtNum(v.WorkerSeconds) })
	writeMarkdownTable(&b, metricHeader, rows)

	if ev.Measured != nil {
		ev.writeMeasuredMarkdown(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// WriteSummaryTable prints one aligned line per variant: the figures of
// variants.csv that fit a terminal. The latency columns are named by their
// definition: the series' (latency-marker p99 by default: marker_p99_…) and
// the steady event-time mean.
func (ev *Evaluation) WriteSummaryTable(w io.Writer) error {
	lat := latencyShortName(ev.LatencyColumn)
	rows := [][]string{{"variant", "CI_s", "failures", "rec_median_s", "rec_mean_s", "rec_max_s", ">R",
		lat + "_mean_ms", lat + "_median_ms", lat + ">L", "windows>L", "steady_event_mean_ms", "reconf", "CI_mean_s", "worker_s"}}
	for _, v := range ev.Variants {
		rows = append(rows, []string{v.Label, fmtG(v.CheckpointIntervalS), strconv.Itoa(len(v.Failures)),
			fmtNum(v.RecoveryMedianS), fmtNum(v.RecoveryMeanS), fmtNum(v.RecoveryMaxS),
			strconv.Itoa(v.RecoveryViolations), fmtNum(v.LatencyMeanMs), fmtNum(v.LatencyMedianMs),
			fmtPct(v.LatencyOverPct), fmt.Sprintf("%d/%d", v.LatencyWindowsOver, v.LatencyWindows),
			fmtNum(v.LatencySteadyMeanMs), strconv.Itoa(v.Reconfigurations), fmtNum(v.CheckpointIntervalMeanS),
			fmtNum(v.WorkerSeconds)})
	}
	right := make([]bool, len(rows[0]))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	var b strings.Builder
	results.WriteAligned(&b, rows, right)
	_, err := io.WriteString(w, b.String())
	return err
}

func (ev *Evaluation) writeFailuresCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"variant", "failure", "fault_at_s", "throughput", "latency_ms", "recovery_s", "checkpoint_interval_s", "latency_column"})
	for _, v := range ev.Variants {
		for _, f := range v.Failures {
			cw.Write([]string{v.Label, strconv.Itoa(f.Index), csvNum(f.FaultAtS), csvNum(f.ThroughputMean),
				csvNum(f.LatencyMeanMs), csvNum(f.RecoveryS), csvNum(f.CIS), ev.LatencyColumn})
		}
	}
	cw.Flush()
	return cw.Error()
}

func (ev *Evaluation) writeVariantsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"variant", "policy", "checkpoint_interval_s", "failures", "recovered",
		"recovery_median_s", "recovery_mean_s", "recovery_max_s", "recovery_bound_s", "recovery_violations",
		"latency_bound_ms", "latency_mean_ms", "latency_median_ms", "latency_over_bound_pct",
		"latency_windows_over", "latency_windows", "latency_steady_mean_ms",
		"reconfigurations", "ci_changes", "checkpoint_interval_mean_s", "worker_seconds", "latency_column"})
	for _, v := range ev.Variants {
		changes := make([]string, len(v.CIChanges))
		for i, c := range v.CIChanges {
			changes[i] = csvNum(c.AtS) + ":" + csvNum(c.CheckpointIntervalS)
		}
		cw.Write([]string{v.Label, v.Policy, csvNum(v.CheckpointIntervalS), strconv.Itoa(len(v.Failures)), strconv.Itoa(v.Recovered),
			csvNum(v.RecoveryMedianS), csvNum(v.RecoveryMeanS), csvNum(v.RecoveryMaxS), csvNum(v.RecoveryBoundS), strconv.Itoa(v.RecoveryViolations),
			csvNum(v.LatencyBoundMs), csvNum(v.LatencyMeanMs), csvNum(v.LatencyMedianMs), csvNum(v.LatencyOverPct),
			strconv.Itoa(v.LatencyWindowsOver), strconv.Itoa(v.LatencyWindows), csvNum(v.LatencySteadyMeanMs),
			strconv.Itoa(v.Reconfigurations), strings.Join(changes, ";"), csvNum(v.CheckpointIntervalMeanS), csvNum(v.WorkerSeconds),
			ev.LatencyColumn})
	}
	cw.Flush()
	return cw.Error()
}

func (ev *Evaluation) maxDuration() float64 {
	d := 0.0
	for _, v := range ev.Variants {
		d = max(d, v.DurationS)
	}
	return d
}

// ---------------------------------------------------------------------------
// Recovery figure

// plotRecovery draws recovery time against the throughput before each
// failure (figures.PlotRecovery): a line and filled markers per variant,
// the measured failures matched to a variant as hollow markers of its
// colour, and R as a labelled dashed line.
func (ev *Evaluation) plotRecovery(base string) ([]string, error) {
	variants := make([]figures.RecoveryVariant, len(ev.Variants))
	for i, v := range ev.Variants {
		pts := make([]figures.RecoveryPoint, len(v.Failures))
		for j, f := range v.Failures {
			pts[j] = figures.RecoveryPoint{Throughput: f.ThroughputMean, RecoveryS: f.RecoveryS}
		}
		variants[i] = figures.RecoveryVariant{Label: v.Label, Points: pts, BoundS: v.RecoveryBoundS}
	}
	var measured []figures.MeasuredRecoveries
	for _, m := range ev.Measured {
		if m.variantIndex < 0 {
			continue
		}
		pts := make([]figures.RecoveryPoint, len(m.measured))
		for j, f := range m.measured {
			pts[j] = figures.RecoveryPoint{Throughput: f.Throughput, RecoveryS: f.RecoveryS}
		}
		measured = append(measured, figures.MeasuredRecoveries{Label: "measured CI " + fmtCI(m.CheckpointIntervalS) + " s", Variant: m.variantIndex, Points: pts})
	}
	title := "recovery per failure"
	if t := ev.figureTitle(); t != "" {
		title = t + ": " + title
	}
	return figures.PlotRecovery(base, title, variants, measured)
}

// figureTitle is what the figures are titled by: the scenario and the
// runs' backends, "khaos-ysb (twin)"; "" when the runs' scenarios differ.
func (ev *Evaluation) figureTitle() string {
	if ev.Scenario == "" {
		return ""
	}
	return ev.Scenario + ev.backends
}

// ---------------------------------------------------------------------------
// Formatting

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
// (results.FormatNumber: 4 significant digits, thousands separated).
func fmtNum(v float64) string { return results.FormatNumber(v, 0) }

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

// fmtClock is h:mm:ss, rounded to the second.
func fmtClock(s float64) string {
	n := int64(math.Round(s))
	return fmt.Sprintf("%d:%02d:%02d", n/3600, n/60%60, n%60)
}

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
