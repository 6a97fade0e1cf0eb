package evaluation

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/figures"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/statistics"
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

// ErrNoRunFolders is returned (wrapped) by Runs and ScalingRunDirs for a
// folder that holds no run folders.
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
	Measured       []ingest.MeasuredFailure
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
	measured                       []ingest.MeasuredFailure
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
		return []string{runsDir}, []string{cmp.Or(s.Key(), filepath.Base(filepath.Clean(runsDir)))}, nil
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
	runs, err := figures.LabelRuns(runDirs, labels)
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

func evaluateRun(r figures.LabelledRun, ev *Evaluation, opt Options) (VariantEvaluation, error) {
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
// (measure.FaultRecoveries), and their recovery statistics.
func (v *VariantEvaluation) addFailures(events []results.Event, t, thr, p99, ci []float64, preS float64) {
	for _, fr := range measure.FaultRecoveries(events) {
		f := FailureEvaluation{Index: len(v.Failures) + 1, FaultAtS: fr.AtS, RecoveryS: fr.RecoveryS, CIS: math.NaN()}
		// The samples of (fault − preS, fault].
		lo := sort.Search(len(t), func(i int) bool { return t[i] > fr.AtS-preS })
		hi := sort.Search(len(t), func(i int) bool { return t[i] > fr.AtS })
		var thrs, lats []float64
		for i := lo; i < hi; i++ {
			thrs, lats = statistics.AppendFinite(thrs, thr[i]), statistics.AppendFinite(lats, p99[i])
		}
		f.ThroughputMean, f.LatencyMeanMs = statistics.FiniteMean(thrs), statistics.FiniteMean(lats)
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
	lat := statistics.FiniteValues(p99)
	if len(lat) == 0 {
		return
	}
	v.LatencyMeanMs = statistics.FiniteMean(lat)
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
		if v.LatencyBoundMs > 0 && statistics.FiniteMean(lat[k*w:(k+1)*w]) > v.LatencyBoundMs {
			v.LatencyWindowsOver++
		}
	}
	v.LatencyMedianMs = statistics.Quantile(lat, 0.5) // sorts lat: last
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
// with the file comes back as decode.Problems.
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
		return decode.Problems{decode.YAMLProblem(path, nil, err)}
	}
	if len(file.Docs) == 0 || file.Docs[0].Body == nil {
		return nil
	}
	var sc runScenario
	if err := yaml.NodeToValue(file.Docs[0].Body, &sc); err != nil {
		return decode.Problems{decode.YAMLProblem(path, file, err)}
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
				return decode.Problems{{File: path, Line: decode.LineOf(file, "policy.interval"), Field: "policy.interval", Msg: err.Error()}}
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
	median = statistics.Quantile(sorted, 0.5)
	return median, statistics.FiniteMean(sorted), sorted[len(sorted)-1]
}

func compareMeasured(vs []VariantEvaluation, ms []ingest.MeasuredFailure) []MeasuredComparison {
	byCI := map[float64][]ingest.MeasuredFailure{}
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

func newComparison(ci float64, ms []ingest.MeasuredFailure, idx int, v *VariantEvaluation) MeasuredComparison {
	mc := MeasuredComparison{CheckpointIntervalS: ci, MeasuredN: len(ms), measured: ms, variantIndex: idx,
		SimMedianS: math.NaN(), SimMeanS: math.NaN(), SimLatencyMs: math.NaN()}
	rec := make([]float64, len(ms))
	var lat []float64
	for i, m := range ms {
		rec[i] = m.RecoveryS
		lat = statistics.AppendFinite(lat, m.LatencyMs)
		if m.Censored {
			mc.MeasuredCensored++
		}
	}
	mc.MeasuredMedianS, mc.MeasuredMeanS, _ = medianMeanMax(rec)
	mc.MeasuredLatencyMs = statistics.FiniteMean(lat)
	if v == nil {
		return mc
	}
	mc.Variant, mc.RecoveryBoundS = v.Label, v.RecoveryBoundS
	mc.MeasuredOver = countOver(ms, v.RecoveryBoundS)
	mc.SimN, mc.SimMedianS, mc.SimMeanS, mc.SimOver = v.Recovered, v.RecoveryMedianS, v.RecoveryMeanS, v.RecoveryViolations
	var slat []float64
	for _, f := range v.Failures {
		slat = statistics.AppendFinite(slat, f.LatencyMeanMs)
	}
	mc.SimLatencyMs = statistics.FiniteMean(slat)
	return mc
}

func countOver(ms []ingest.MeasuredFailure, r float64) int {
	n := 0
	for _, m := range ms {
		if r > 0 && m.RecoveryS > r {
			n++
		}
	}
	return n
}
