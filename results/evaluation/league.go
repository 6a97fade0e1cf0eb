package evaluation

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/compare"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// The live autoscaling league (issue 33): the policies of one scenario run
// on the twin and on the live cluster, each figure ranked in both
// backends, Kendall's τ-b between the rankings, the decision logs side by
// side, and a verdict against the acceptance criteria.

// Files a league writes.
const (
	LeagueMarkdown  = "league.md"
	LeagueCSV       = "league.csv"         // one row per policy and backend
	LeagueRanksCSV  = "league-ranks.csv"   // one row per figure and policy
	LeagueTauCSV    = "league-tau.csv"     // one row per figure
	LeagueVerdict   = "league-verdict.csv" // one row per criterion and subject
	LeagueDecisions = "league-decisions.txt"
)

// LeagueFigures are the league's figures, in table order. Lower is better
// for each, so rank 1 is the lowest value.
//   - worker_seconds: summary.json worker_seconds (TaskManager-seconds alive)
//   - latency_p95_ms: the 95th percentile over the run's seconds of the
//     per-second event-time p99 (the autoscaling comparison's
//     latency_p99_p95_ms, ScalingLatencyColumn)
//   - latency_p99_ms: summary.json latency_p99_ms, the 99th percentile of
//     the same per-second p99
//   - lag_max: summary.json lag_max (records)
//   - rescales: summary.json reconfigurations (completed rescales)
//   - downtime_s: summary.json downtime_s (no source consuming)
var LeagueFigures = []string{"worker_seconds", "latency_p95_ms", "latency_p99_ms", "lag_max", "rescales", "downtime_s"}

// leagueLabels are the figures' table headings.
var leagueLabels = map[string]string{
	"worker_seconds": "worker-seconds (TM-s)", "latency_p95_ms": "p95 latency (s)", "latency_p99_ms": "p99 latency (s)",
	"lag_max": "lag peak (k records)", "rescales": "rescales", "downtime_s": "downtime (s)"}

// leagueScale turns a figure into its table unit (ms → s, records → k records).
var leagueScale = map[string]float64{"latency_p95_ms": 1000, "latency_p99_ms": 1000, "lag_max": 1000}

// LeagueCriteria is the acceptance of issue 33's live league.
type LeagueCriteria struct {
	// TauWorkerSeconds and TauP95 are the least Kendall τ-b between the
	// backends' rankings on worker-seconds and on p95 latency.
	TauWorkerSeconds, TauP95 float64
	// MinPolicies is the least number of policies run in both backends.
	MinPolicies int
	// WorkerSecondsRel and P95Rel bound |twin − live| / live per policy
	// (fractions).
	WorkerSecondsRel, P95Rel float64
	// Decisions is how many of each policy's first rescale decisions must
	// agree in direction and lie within one policy interval.
	Decisions int
}

// DefaultLeagueCriteria is issue 33's acceptance: τ = 1 on worker-seconds
// and ≥ 0.8 on p95 latency over at least 5 policies; per policy
// worker-seconds within 10 % and p95 latency within 35 % of live; the first
// 3 decisions agree.
func DefaultLeagueCriteria() LeagueCriteria {
	return LeagueCriteria{TauWorkerSeconds: 1, TauP95: 0.8, MinPolicies: 5, WorkerSecondsRel: 0.10, P95Rel: 0.35, Decisions: 3}
}

// LeagueOptions configure a league.
type LeagueOptions struct {
	// Repeat is a second live run folder of one of the policies: the
	// spread of each figure between it and that policy's live run is the
	// live noise below which two policies tie.
	Repeat string
	// Interval returns the decision interval (s) of the policy of a run
	// folder (the controller's period: HPA's sync, Daedalus's loop, …).
	// The CLI builds the policy from the folder's scenario.yaml.
	Interval func(runDir string) (float64, error)
	// Baseline names a policy every other is set against on p95 latency
	// (the latency penalty, e.g. Daedalus against static on WordCount);
	// "" for none.
	Baseline string
	Criteria LeagueCriteria
}

// Penalty is a policy's p95 latency against the baseline's in both
// backends: Ratio = policy / baseline; it Holds in a backend when the
// policy's p95 is above the baseline's (live: by more than the live
// spread).
type Penalty struct {
	Policy, Baseline     string
	TwinRatio, LiveRatio float64
	HoldsTwin, HoldsLive bool
}

// LeagueRun is one policy's run in one backend.
type LeagueRun struct {
	Variant, Dir string
	Values       map[string]float64 // by figure (LeagueFigures)
	Decisions    []compare.Decision
	CI           []compare.CIStep
	// StartParallelism is the parallelism of the run's first sample: the
	// level the first rescale decision moves from.
	StartParallelism float64
}

// Tau is Kendall's τ-b between two rankings of N items.
type Tau struct {
	N, Pairs, Concordant, Discordant int
	// TiedA and TiedB are the pairs tied in the first and the second
	// ranking (a pair may be tied in both).
	TiedA, TiedB int
	TauB         float64 // NaN when no pair orders the items in both rankings
}

// KendallTauB is Kendall's τ-b = (C − D) / √((P − Ta)(P − Tb)) over the
// P = n(n−1)/2 pairs of items, with C concordant and D discordant pairs
// and Ta, Tb the pairs tied in a and in b; a pair tied in either is
// neither. tieA(i, j) and tieB(i, j) say whether items i and j tie (nil:
// their values are equal). Own code: gonum's stat.Kendall is τ-a, counts a
// tie as concordant, and takes no tie rule.
func KendallTauB(a, b []float64, tieA, tieB func(i, j int) bool) Tau {
	if tieA == nil {
		tieA = func(i, j int) bool { return a[i] == a[j] }
	}
	if tieB == nil {
		tieB = func(i, j int) bool { return b[i] == b[j] }
	}
	n := min(len(a), len(b))
	t := Tau{N: n, Pairs: n * (n - 1) / 2}
	for i := range n {
		for j := i + 1; j < n; j++ {
			ta, tb := tieA(i, j), tieB(i, j)
			if ta {
				t.TiedA++
			}
			if tb {
				t.TiedB++
			}
			switch {
			case ta || tb:
			case (a[i] < a[j]) == (b[i] < b[j]):
				t.Concordant++
			default:
				t.Discordant++
			}
		}
	}
	t.TauB = math.NaN()
	if d := math.Sqrt(float64(t.Pairs-t.TiedA) * float64(t.Pairs-t.TiedB)); d > 0 {
		t.TauB = float64(t.Concordant-t.Discordant) / d
	}
	return t
}

// LeagueFigure is one figure's rankings in both backends.
type LeagueFigure struct {
	Name string
	// Spread is |live − repeat| of the repeated policy (NaN without a
	// repeat): two live values closer than it are a tie.
	Spread    float64
	TwinRanks []float64 // by League.Policies; ties share the mean rank
	LiveRanks []float64
	Tau       Tau
}

// LeagueCheck is one criterion on one subject (a figure or a policy).
type LeagueCheck struct {
	Criterion, Subject string
	Value, Bound       float64
	Pass               bool
	Detail             string
}

// League is the comparison.
type League struct {
	Scenario string
	// Policies ran in both backends, in the twin folder's order; Twin[i]
	// and Live[i] are policy i's runs.
	Policies   []string
	Twin, Live []LeagueRun
	// NoLive are the twin's policies without a live run (a live variant
	// that failed); NoTwin the other way round.
	NoLive, NoTwin []string
	Repeat         *LeagueRun
	Figures        []LeagueFigure
	Intervals      []float64 // policy decision interval (s) by Policies; NaN unknown
	Checks         []LeagueCheck
	Criteria       LeagueCriteria
	Penalties      []Penalty // with LeagueOptions.Baseline
}

// EvaluateLeague reads the twin's and the live runs (each a folder of
// <variant>/ run folders, as `streamtwin run` and `live run --out
// DIR/<variant>` write them) and computes the league.
func EvaluateLeague(twinDir, liveDir string, opt LeagueOptions) (*League, error) {
	l := &League{Criteria: opt.Criteria}
	read := func(dir string) (map[string]LeagueRun, []string, error) {
		dirs, err := ScalingRunDirs(dir)
		if err != nil {
			return nil, nil, err
		}
		runs := map[string]LeagueRun{}
		var order []string
		for _, d := range dirs {
			r, scen, err := leagueRun(d)
			if err != nil {
				return nil, nil, err
			}
			if _, dup := runs[r.Variant]; dup {
				return nil, nil, fmt.Errorf("%s: two runs of variant %s; a league takes one run per policy and backend (the live repeat goes to --repeat)", dir, r.Variant)
			}
			l.Scenario = cmp.Or(l.Scenario, scen)
			runs[r.Variant] = r
			order = append(order, r.Variant)
		}
		return runs, order, nil
	}
	twin, order, err := read(twinDir)
	if err != nil {
		return nil, err
	}
	live, liveOrder, err := read(liveDir)
	if err != nil {
		return nil, err
	}
	for _, v := range order {
		lr, ok := live[v]
		if !ok {
			l.NoLive = append(l.NoLive, v)
			continue
		}
		l.Policies = append(l.Policies, v)
		l.Twin, l.Live = append(l.Twin, twin[v]), append(l.Live, lr)
	}
	for _, v := range liveOrder {
		if _, ok := twin[v]; !ok {
			l.NoTwin = append(l.NoTwin, v)
		}
	}
	if len(l.Policies) == 0 {
		return nil, fmt.Errorf("no policy ran in both %s and %s: the league needs the same variants on both sides", twinDir, liveDir)
	}
	rep := -1
	if opt.Repeat != "" {
		r, _, err := leagueRun(opt.Repeat)
		if err != nil {
			return nil, err
		}
		if rep = slices.Index(l.Policies, r.Variant); rep < 0 {
			return nil, fmt.Errorf("--repeat %s is variant %s, which has no run in both backends (%s)", opt.Repeat, r.Variant, strings.Join(l.Policies, ", "))
		}
		l.Repeat = &r
	}
	for _, r := range l.Twin {
		iv := math.NaN()
		if opt.Interval != nil {
			if iv, err = opt.Interval(r.Dir); err != nil {
				return nil, fmt.Errorf("%s: the policy's interval: %w", r.Dir, err)
			}
		}
		l.Intervals = append(l.Intervals, iv)
	}
	for _, f := range LeagueFigures {
		lf := LeagueFigure{Name: f, Spread: math.NaN()}
		if rep >= 0 {
			lf.Spread = math.Abs(l.Live[rep].Values[f] - l.Repeat.Values[f])
		}
		tw, lv := l.column(l.Twin, f), l.column(l.Live, f)
		lf.TwinRanks, lf.LiveRanks = Ranks(tw), Ranks(lv)
		lf.Tau = leagueTau(tw, lv, lf.Spread)
		l.Figures = append(l.Figures, lf)
	}
	if opt.Baseline != "" {
		b := slices.Index(l.Policies, opt.Baseline)
		if b < 0 {
			return nil, fmt.Errorf("--baseline %s ran in not both backends (%s)", opt.Baseline, strings.Join(l.Policies, ", "))
		}
		const f = "latency_p95_ms"
		spread := l.Figures[slices.Index(LeagueFigures, f)].Spread
		for i, p := range l.Policies {
			if i == b {
				continue
			}
			tw, tb, lv, lb := l.Twin[i].Values[f], l.Twin[b].Values[f], l.Live[i].Values[f], l.Live[b].Values[f]
			l.Penalties = append(l.Penalties, Penalty{Policy: p, Baseline: opt.Baseline, TwinRatio: tw / tb, LiveRatio: lv / lb,
				HoldsTwin: tw > tb, HoldsLive: lv-lb > cmp.Or(spread, 0) || (math.IsNaN(spread) && lv > lb)})
		}
	}
	l.check()
	return l, nil
}

// leagueTau is τ-b between the twin's and the live values, over the
// policies with a finite value in both. A pair whose live values differ by
// less than spread (the live noise; NaN: none measured) counts as a tie in
// both rankings: the live cluster does not order it, so it is neither
// agreement nor disagreement. Otherwise a pair ties where its values are
// equal (the twin is deterministic).
func leagueTau(twin, live []float64, spread float64) Tau {
	var a, b []float64
	for i := range twin {
		if !math.IsNaN(twin[i]) && !math.IsNaN(live[i]) {
			a, b = append(a, twin[i]), append(b, live[i])
		}
	}
	liveTie := func(i, j int) bool { return b[i] == b[j] || math.Abs(b[i]-b[j]) < spread }
	return KendallTauB(a, b, func(i, j int) bool { return a[i] == a[j] || liveTie(i, j) }, liveTie)
}

func (l *League) column(runs []LeagueRun, f string) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.Values[f]
	}
	return out
}

// Ranks ranks xs ascending from 1; equal values share their mean rank;
// NaN has rank NaN.
func Ranks(xs []float64) []float64 {
	idx := make([]int, 0, len(xs))
	for i, x := range xs {
		if !math.IsNaN(x) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(xs[i], xs[j]) })
	out := make([]float64, len(xs))
	for i := range out {
		out[i] = math.NaN()
	}
	for k := 0; k < len(idx); {
		m := k
		for m < len(idx) && xs[idx[m]] == xs[idx[k]] {
			m++
		}
		for q := k; q < m; q++ {
			out[idx[q]] = float64(k+m+1) / 2 // mean of ranks k+1 … m
		}
		k = m
	}
	return out
}

// leagueRun reads one run folder's figures, decisions and CI timeline.
func leagueRun(dir string) (LeagueRun, string, error) {
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return LeagueRun{}, "", err
	}
	sr, scen, err := scalingRun(dir) // the p95 latency: the autoscaling comparison's definition
	if err != nil {
		return LeagueRun{}, "", err
	}
	r := LeagueRun{Variant: sum.Variant, Dir: dir, StartParallelism: math.NaN(), Values: map[string]float64{
		"worker_seconds": sum.WorkerSeconds, "latency_p95_ms": sr.LatencyP99P95Ms, "latency_p99_ms": sum.LatencyP99Ms,
		"lag_max": float64(sum.LagMax), "rescales": float64(sum.Reconfigurations), "downtime_s": sum.DowntimeS}}
	if r.Decisions, err = compare.Decisions(dir); err != nil {
		return LeagueRun{}, "", err
	}
	samples, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
	if err != nil {
		return LeagueRun{}, "", err
	}
	r.CI = compare.CITimeline(samples)
	if len(samples) > 0 {
		r.StartParallelism = float64(samples[0].Parallelism)
	}
	return r, scen, nil
}

// rescaleSteps are a run's rescale decisions with the direction of each
// (+1 up, −1 down, 0 to the parallelism in force), from the run's first
// parallelism on; a rejected rescale keeps the parallelism where it was.
func rescaleSteps(r LeagueRun) (steps []compare.Decision, dirs []int) {
	cur := r.StartParallelism
	for _, d := range r.Decisions {
		if d.Kind != "rescale" {
			continue
		}
		steps = append(steps, d)
		dirs = append(dirs, cmp.Compare(d.Value, cur))
		if !d.Rejected {
			cur = d.Value
		}
	}
	return steps, dirs
}

// decisionsAgree checks a policy's first n rescale decisions: both
// backends take each, in the same direction, within interval seconds of
// each other. It returns the number compared, the largest time difference
// (s) and, when they do not agree, why.
func decisionsAgree(twin, live LeagueRun, n int, interval float64) (int, float64, string) {
	ts, td := rescaleSteps(twin)
	ls, ld := rescaleSteps(live)
	k := min(n, max(len(ts), len(ls)))
	dir := map[int]string{1: "up", -1: "down", 0: "to the same parallelism"}
	worst := 0.0
	for i := range k {
		if i >= len(ts) || i >= len(ls) {
			return k, worst, fmt.Sprintf("decision %d: twin %s, live %s", i+1, stepText(ts, td, i), stepText(ls, ld, i))
		}
		// to the second, the sampling's resolution: a live decision comes
		// a few milliseconds after its tick (150.004 s against the twin's
		// 120 s is one 30 s interval apart)
		dt := math.Round(math.Abs(ls[i].TimeS - ts[i].TimeS))
		worst = max(worst, dt)
		if td[i] != ld[i] {
			return k, worst, fmt.Sprintf("decision %d: twin %s, live %s", i+1, dir[td[i]], dir[ld[i]])
		}
		if !(dt <= interval) {
			return k, worst, fmt.Sprintf("decision %d: %s s apart, the policy decides every %s s", i+1, textfmt.Number(dt, 0), textfmt.Number(interval, 0))
		}
	}
	return k, worst, ""
}

func stepText(s []compare.Decision, d []int, i int) string {
	if i >= len(s) {
		return "none"
	}
	return fmt.Sprintf("rescale to %g at %s s", s[i].Value, textfmt.Number(s[i].TimeS, 0))
}

// leagueNum is a number by the one format: whole numbers (ranks, counts,
// exact bounds) as counts, the rest to 4 significant digits.
func leagueNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return textfmt.Count(x)
	}
	return textfmt.Number(x, 0)
}

// relErr is |twin − live| / |live| (NaN when live is 0 or missing).
func relErr(twin, live float64) float64 {
	if live == 0 || math.IsNaN(live) || math.IsNaN(twin) {
		return math.NaN()
	}
	return math.Abs(twin-live) / math.Abs(live)
}

// check sets the verdict: each criterion of l.Criteria as pass or fail
// with its number. A missing number (a NaN) fails: nothing passes
// unmeasured.
func (l *League) check() {
	c := l.Criteria
	add := func(crit, subj string, v, bound float64, pass bool, detail string) {
		l.Checks = append(l.Checks, LeagueCheck{crit, subj, v, bound, pass && !math.IsNaN(v), detail})
	}
	n := float64(len(l.Policies))
	add("policies in both backends", "league", n, float64(c.MinPolicies), len(l.Policies) >= c.MinPolicies, "")
	for _, v := range l.NoLive {
		add("live run present", v, math.NaN(), math.NaN(), false, "the twin ran it, the live run is missing (failed?)")
	}
	if l.Repeat == nil {
		add("live spread measured", "league", math.NaN(), math.NaN(), false, "no live repeat (--repeat): ties only on equal live values")
	} else {
		add("live spread measured", l.Repeat.Variant, 1, 1, true, "the repeated policy")
	}
	for _, f := range l.Figures {
		bound := math.NaN()
		switch f.Name {
		case "worker_seconds":
			bound = c.TauWorkerSeconds
		case "latency_p95_ms":
			bound = c.TauP95
		default:
			continue
		}
		add("Kendall τ-b ≥ bound", f.Name, f.Tau.TauB, bound, f.Tau.TauB >= bound-1e-12,
			fmt.Sprintf("%d concordant, %d discordant, %d tied twin, %d tied live of %s", f.Tau.Concordant, f.Tau.Discordant, f.Tau.TiedA, f.Tau.TiedB, textfmt.Plural(f.Tau.Pairs, "pair")))
	}
	for _, pn := range l.Penalties {
		add(fmt.Sprintf("twin agrees with live whether the p95 latency is above %s's", pn.Baseline), pn.Policy, pn.LiveRatio, math.NaN(), pn.HoldsTwin == pn.HoldsLive,
			fmt.Sprintf("p95 ÷ %s's: twin %s (%s), live %s (%s)", pn.Baseline, leagueNum(pn.TwinRatio), holds(pn.HoldsTwin), leagueNum(pn.LiveRatio), holds(pn.HoldsLive)))
	}
	for i, p := range l.Policies {
		for _, b := range []struct {
			fig   string
			bound float64
		}{{"worker_seconds", c.WorkerSecondsRel}, {"latency_p95_ms", c.P95Rel}} {
			e := relErr(l.Twin[i].Values[b.fig], l.Live[i].Values[b.fig])
			add("|twin − live| / live ≤ bound: "+b.fig, p, e, b.bound, e <= b.bound, "")
		}
		k, worst, why := decisionsAgree(l.Twin[i], l.Live[i], c.Decisions, l.Intervals[i])
		detail := fmt.Sprintf("%s compared, policy interval %s s", textfmt.Plural(k, "decision"), leagueNum(l.Intervals[i]))
		if why != "" {
			detail += "; " + why
		}
		v := worst
		if k == 0 {
			v, detail = 0, "no rescale decision in either backend"
		}
		add(fmt.Sprintf("first %d decisions agree in direction, within one interval (largest Δt, s)", c.Decisions), p, v, l.Intervals[i],
			why == "" && (k == 0 || !math.IsNaN(l.Intervals[i])), detail)
	}
}

func holds(h bool) string {
	if h {
		return "above"
	}
	return "not above"
}

// Passed is whether every criterion passes.
func (l *League) Passed() bool {
	for _, ch := range l.Checks {
		if !ch.Pass {
			return false
		}
	}
	return true
}

// WriteLeague writes league.md, the CSV tables and the decision logs into
// out and returns the files written.
func WriteLeague(l *League, out string) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var files []string
	write := func(name, text string) error {
		p := filepath.Join(out, name)
		files = append(files, p)
		return results.WriteFileAtomic(p, []byte(text))
	}
	table := func(header []string, rows [][]string) string {
		var b strings.Builder
		w := csv.NewWriter(&b)
		w.Write(header)
		w.WriteAll(rows)
		return b.String()
	}
	var rows [][]string
	for i, p := range l.Policies {
		for _, r := range []struct {
			backend string
			run     LeagueRun
		}{{"twin", l.Twin[i]}, {"live", l.Live[i]}} {
			row := []string{p, r.backend}
			for _, f := range LeagueFigures {
				row = append(row, csvNum(r.run.Values[f]))
			}
			rows = append(rows, append(row, r.run.Dir))
		}
	}
	if l.Repeat != nil {
		row := []string{l.Repeat.Variant, "live-repeat"}
		for _, f := range LeagueFigures {
			row = append(row, csvNum(l.Repeat.Values[f]))
		}
		rows = append(rows, append(row, l.Repeat.Dir))
	}
	if err := write(LeagueCSV, table(slices.Concat([]string{"policy", "backend"}, LeagueFigures, []string{"run_dir"}), rows)); err != nil {
		return nil, err
	}
	rows = nil
	for _, f := range l.Figures {
		for i, p := range l.Policies {
			rows = append(rows, []string{f.Name, p, csvNum(l.Twin[i].Values[f.Name]), csvNum(l.Live[i].Values[f.Name]), csvNum(f.TwinRanks[i]), csvNum(f.LiveRanks[i])})
		}
	}
	if err := write(LeagueRanksCSV, table([]string{"figure", "policy", "twin", "live", "twin_rank", "live_rank"}, rows)); err != nil {
		return nil, err
	}
	rows = nil
	for _, f := range l.Figures {
		t := f.Tau
		rows = append(rows, []string{f.Name, strconv.Itoa(t.N), csvNum(f.Spread), strconv.Itoa(t.Pairs), strconv.Itoa(t.Concordant), strconv.Itoa(t.Discordant),
			strconv.Itoa(t.TiedA), strconv.Itoa(t.TiedB), csvNum(t.TauB)})
	}
	if err := write(LeagueTauCSV, table([]string{"figure", "policies", "live_spread", "pairs", "concordant", "discordant", "tied_twin", "tied_live", "tau_b"}, rows)); err != nil {
		return nil, err
	}
	rows = nil
	for _, ch := range l.Checks {
		rows = append(rows, []string{ch.Criterion, ch.Subject, csvNum(ch.Value), csvNum(ch.Bound), map[bool]string{true: "pass", false: "fail"}[ch.Pass], ch.Detail})
	}
	if err := write(LeagueVerdict, table([]string{"criterion", "subject", "value", "bound", "result", "detail"}, rows)); err != nil {
		return nil, err
	}
	var b strings.Builder
	for i, p := range l.Policies {
		fmt.Fprintf(&b, "== %s ==\n", p)
		if err := compare.WriteDecisionTable(&b, l.Twin[i].Decisions, l.Live[i].Decisions, l.Twin[i].CI, l.Live[i].CI, l.Twin[i].Dir, l.Live[i].Dir); err != nil {
			return nil, err
		}
		b.WriteString("\n")
	}
	if err := write(LeagueDecisions, b.String()); err != nil {
		return nil, err
	}
	if err := write(LeagueMarkdown, l.Markdown()); err != nil {
		return nil, err
	}
	return files, nil
}

// Markdown is the league's report: the figures per policy and backend, the
// ranks and τ per figure, the live spread, and the verdict.
func (l *League) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Autoscaling league: %s, twin against live\n\n", cmp.Or(l.Scenario, "runs"))
	b.WriteString(l.FiguresTable())
	b.WriteString("\n")
	b.WriteString(l.TauTable())
	b.WriteString("\n## Verdict\n\n")
	b.WriteString(l.VerdictText())
	fmt.Fprintf(&b, "\nThe decision logs side by side, with the first divergence of each policy: %s.\n", LeagueDecisions)
	return b.String()
}

// FiguresTable is one row per policy: each figure as twin / live.
func (l *League) FiguresTable() string {
	var b strings.Builder
	b.WriteString("| policy |")
	for _, f := range LeagueFigures {
		b.WriteString(" " + leagueLabels[f] + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(LeagueFigures)) + "\n")
	cell := func(x, ref, scale float64) string {
		if math.IsNaN(x) {
			return textfmt.NoValue
		}
		if scale == 1 {
			return leagueNum(x)
		}
		return textfmt.Number(x/scale, ref/scale)
	}
	for i, p := range l.Policies {
		fmt.Fprintf(&b, "| %s |", p)
		for _, f := range LeagueFigures {
			s := cmp.Or(leagueScale[f], 1)
			tw, lv := l.Twin[i].Values[f], l.Live[i].Values[f]
			fmt.Fprintf(&b, " %s / %s |", cell(tw, tw, s), cell(lv, lv, s))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nEach cell is twin / live. Worker-seconds are TaskManager-seconds alive; p95 latency is the 95th percentile over the run's seconds of the per-second event-time p99, p99 latency the 99th; the lag peak is the largest consumer lag; rescales are completed reconfigurations; downtime is the time no source consumed.\n")
	if len(l.NoLive) > 0 {
		fmt.Fprintf(&b, "\nNo live run (failed or not run): %s.\n", strings.Join(l.NoLive, ", "))
	}
	if len(l.NoTwin) > 0 {
		fmt.Fprintf(&b, "\nNo twin run: %s.\n", strings.Join(l.NoTwin, ", "))
	}
	return b.String()
}

// TauTable is one row per figure: the ranks in both backends, the live
// spread and Kendall's τ-b.
func (l *League) TauTable() string {
	var b strings.Builder
	if l.Repeat != nil {
		fmt.Fprintf(&b, "The live spread is |live − repeat| of %s, run twice live; two policies whose live values differ by less than it tie in both rankings.\n\n", l.Repeat.Variant)
	} else {
		b.WriteString("No live repeat: the live spread is unmeasured, and policies tie only on equal values.\n\n")
	}
	b.WriteString("| figure | twin ranks | live ranks | live spread | Kendall τ-b |\n|---|---|---|---|---|\n")
	for _, f := range l.Figures {
		ranks := func(rs []float64) string {
			idx := make([]int, len(rs))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(rs[i], rs[j]) })
			parts := make([]string, len(idx))
			for k, i := range idx {
				parts[k] = fmt.Sprintf("%s %s", l.Policies[i], leagueNum(rs[i]))
			}
			return strings.Join(parts, ", ")
		}
		s := cmp.Or(leagueScale[f.Name], 1)
		spread := textfmt.NoValue
		if !math.IsNaN(f.Spread) {
			spread = textfmt.Number(f.Spread/s, 0)
		}
		tau := textfmt.NoValue
		if !math.IsNaN(f.Tau.TauB) {
			tau = leagueNum(f.Tau.TauB)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s (%d C, %d D, %d/%d tied, %s) |\n", leagueLabels[f.Name], ranks(f.TwinRanks), ranks(f.LiveRanks), spread, tau,
			f.Tau.Concordant, f.Tau.Discordant, f.Tau.TiedA, f.Tau.TiedB, textfmt.Plural(f.Tau.Pairs, "pair"))
	}
	b.WriteString("\nRank 1 is the lowest value; equal values share their mean rank. C, D: concordant and discordant pairs; tied: pairs tied in the twin / live ranking.\n")
	return b.String()
}

// VerdictText is every criterion as PASS or FAIL with its number, one per
// line, and the overall result.
func (l *League) VerdictText() string {
	var b strings.Builder
	fails := 0
	for _, ch := range l.Checks {
		res := "PASS"
		if !ch.Pass {
			res, fails = "FAIL", fails+1
		}
		fmt.Fprintf(&b, "- %s %s: %s", res, ch.Subject, ch.Criterion)
		if !math.IsNaN(ch.Value) {
			fmt.Fprintf(&b, ": %s", leagueNum(ch.Value))
			if !math.IsNaN(ch.Bound) {
				fmt.Fprintf(&b, " (bound %s)", leagueNum(ch.Bound))
			}
		}
		if ch.Detail != "" {
			fmt.Fprintf(&b, "; %s", ch.Detail)
		}
		b.WriteString("\n")
	}
	if fails == 0 {
		fmt.Fprintf(&b, "\nAll %s pass.\n", textfmt.Plural(len(l.Checks), "check"))
	} else {
		fmt.Fprintf(&b, "\n%d of %s fail.\n", fails, textfmt.Plural(len(l.Checks), "check"))
	}
	return b.String()
}
