package docgen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/cat"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// The per-kind fault table: the live runs of make live-faults (one folder
// per variant of scenarios/live-fault-table.yaml, or run-N folders of one
// variant run several times) against the twin on the same variants over
// seeds. Each live fault is set against the twin's values of the same
// fault (its index in the run) over the seeds: the twin's mean there is
// its prediction, the 5–95 % quantiles its 90 % interval.
const (
	faultTableScenario = "scenarios/live-fault-table.yaml"
	faultTableRef      = "results/reference/live/faults"
	// faultTableSeeds: the twin's replications of each variant
	faultTableSeeds = 30
	// faultTableEarlierRef holds the first measurement of the variants
	// with downtimes (2026-12-05), whose samples were labelled a second
	// early: their downtimes (Flink's own job-status times) pool with the
	// current runs' into the live spread, as one run's spread depends on
	// its heartbeat phases; their recoveries are not used.
	faultTableEarlierRef = "results/reference/live/faults-2026-12-05"
)

// faultTableVariants are the variants in the table's order, with what
// each shows.
var faultTableVariants = []struct{ name, what string }{
	{"taskmanager", "TaskManager crash (SIGKILL)"},
	{"freeze", "freeze 4 s, below the heartbeat timeout"},
	{"freeze-long", "freeze 20 s, beyond it"},
	{"cpu_throttle", "CPU throttled to 2 % for 15 s"},
	{"kafka_broker", "Kafka broker down 10 s"},
	{"checkpoint_storage", "checkpoint storage read-only 15 s"},
	{"jobmanager", "JobManager crash, no HA"},
}

// faultOutcome is one fault of one run: its measured recovery (NaN when
// unrecovered), its downtime (NaN without a failover), and when, after
// the fault, Flink detected a failure and the job ran again (NaN: never).
type faultOutcome struct{ at, recovery, downtime, detected, running float64 }

// faultOutcomes reads the faults of run folder dir in time order
// (cat.FaultSummaries).
func faultOutcomes(dir string) ([]faultOutcome, error) {
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return nil, err
	}
	var out []faultOutcome
	for _, f := range cat.FaultSummaries(events) {
		out = append(out, faultOutcome{at: f.AtS, recovery: f.RecoveryS, downtime: f.DowntimeS, detected: f.DetectedAtS, running: f.RunningAtS})
	}
	return out, nil
}

// downtimes are the downtimes of a run's faults that failed the job over.
func downtimes(fs []faultOutcome) []float64 {
	var out []float64
	for _, f := range fs {
		if !math.IsNaN(f.downtime) {
			out = append(out, f.downtime)
		}
	}
	return out
}

// liveFaultRuns lists the run folders of one variant's live runs.
func liveFaultRuns(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, results.SummaryFile)); err == nil {
		return []string{dir}, nil
	}
	runs, err := filepath.Glob(filepath.Join(dir, "run-*"))
	if err != nil || len(runs) == 0 {
		return nil, fmt.Errorf("%s: no live run (make live-faults)", dir)
	}
	slices.Sort(runs)
	return runs, nil
}

// meanSD formats a sample's mean and standard deviation ("–" when empty).
func meanSD(xs []float64) string {
	switch len(xs) {
	case 0:
		return "–"
	case 1:
		return seconds(xs[0])
	}
	m, s := stat.MeanStdDev(xs, nil)
	return seconds(m) + " ± " + num(s)
}

// spreadCell formats the mean of every run's values with the spread one
// run shows (runSpread's root mean square) and each run's s.d. ("–" when
// empty, meanSD for a single run).
func spreadCell(runs [][]float64) string {
	var all []float64
	for _, xs := range runs {
		all = append(all, xs...)
	}
	rms, _, _, n := runSpread(runs)
	if n < 2 {
		return meanSD(all)
	}
	var sds []string
	for _, xs := range runs {
		if len(xs) > 1 {
			sds = append(sds, num(stat.StdDev(xs, nil)))
		}
	}
	return fmt.Sprintf("%s ± %s (runs: %s)", seconds(stat.Mean(all, nil)), num(rms), strings.Join(sds, ", "))
}

// gridTolS absorbs the rounding of times written in milliseconds when a
// live recovered instant is compared with the twin's.
const gridTolS = 1e-3

// withinRunSD formats the twin's mean of value over every fault of every
// seed, with the standard deviation one run shows (runSpread over the
// seeds; in brackets the range where one live run's s.d. should fall).
// The live table's spread is that of the faults of one run, so the
// twin's is too; the spread between seeds (a run's heartbeat phases, say)
// would widen it. NaN values are left out.
func withinRunSD(twin [][]faultOutcome, value func(faultOutcome) float64) string {
	var all []float64
	var bySeed [][]float64
	for _, at := range twin {
		for s, f := range at {
			if s == len(bySeed) {
				bySeed = append(bySeed, nil)
			}
			if v := value(f); !math.IsNaN(v) {
				all, bySeed[s] = append(all, v), append(bySeed[s], v)
			}
		}
	}
	if len(all) == 0 {
		return "–"
	}
	rms, lo, hi, n := runSpread(bySeed)
	if n == 0 {
		return seconds(stat.Mean(all, nil))
	}
	return fmt.Sprintf("%s ± %s (%s–%s)", seconds(stat.Mean(all, nil)), num(rms), num(lo), num(hi))
}

// runSpread is the spread one run shows, from each run's values: the root
// mean square of the runs' standard deviations, and the 5–95 % range of
// those, where one more run's should fall. Runs with fewer than two values
// are left out; n counts the others.
func runSpread(runs [][]float64) (rms, lo, hi float64, n int) {
	var sds []float64
	var ss float64
	for _, xs := range runs {
		if len(xs) > 1 {
			v := stat.Variance(xs, nil)
			ss += v
			sds = append(sds, math.Sqrt(v))
		}
	}
	if len(sds) == 0 {
		return 0, 0, 0, 0
	}
	return math.Sqrt(ss / float64(len(sds))), statistics.Quantile(sds, 0.05), statistics.Quantile(sds, 0.95), len(sds)
}

// faultDeploys are the fitted deployments of the table: the restart's
// on a fresh JVM (cluster.deploy and deploy_cv, on the crashes) and the
// share of it a restart in place takes (cluster.in_place_share, on the
// failures of read-only checkpoint storage, which kill no process).
type faultDeploys struct {
	deploy, cv, share float64
	crashes, inPlace  int
}

// inPlaceRe finds cluster.in_place_share in a scenario's text.
var inPlaceRe = regexp.MustCompile(`, in_place_share: [0-9.]+`)

// fitFaultDeploy fits the restart's deployments, as liveDeploySpread does
// on the soak: cluster.deploy to the crashes' mean time from detection to
// every task running, less the restart delay and the twin's restore on
// this schedule, deploy_cv to its coefficient of variation; then
// in_place_share to the checkpoint_storage variant's mean time from
// detection to running, less the restart delay, over the twin's (deploy
// and restore) at a share of 1. It fails, naming the values to set, when
// the scenario holds others.
func fitFaultDeploy(c *Context) (faultDeploys, error) {
	var fit faultDeploys
	b, err := os.ReadFile(c.Path(faultTableScenario))
	if err != nil {
		return fit, err
	}
	text := string(b)
	f, err := scenario.Parse(faultTableScenario, b)
	if err != nil {
		return fit, err
	}
	job := f.Base.Job
	if job.Restart.Strategy != "fixed-delay" || deployRe.FindString(text) == "" || deployCVRe.FindString(text) == "" || inPlaceRe.FindString(text) == "" {
		return fit, fmt.Errorf("%s: the fit needs restart.strategy fixed-delay, and cluster.deploy, deploy_cv and in_place_share set", faultTableScenario)
	}
	// the twin without spread and restarting in place as from scratch
	exact, err := c.RunText("fault-table-exact", "live-fault-table.yaml", inPlaceRe.ReplaceAllString(deployCVRe.ReplaceAllString(text, ""), ""))
	if err != nil {
		return fit, err
	}
	delay := float64(job.Restart.Delay)
	// deployments: the mean and CV of a variant's times from detection to
	// running less the restart delay, live and in the exact twin
	deployments := func(variant string) (live, liveCV, twin float64, n int, err error) {
		runs, err := liveFaultRuns(c.Path(filepath.Join(faultTableRef, variant)))
		if err != nil {
			return 0, 0, 0, 0, err
		}
		var ks []killTimes
		for _, r := range runs {
			k, err := kills(r, delay)
			if err != nil {
				return 0, 0, 0, 0, err
			}
			ks = append(ks, k...)
		}
		if len(ks) < 3 {
			return 0, 0, 0, 0, fmt.Errorf("%s/%s: %d failures detected and running again, the fit needs 3", faultTableRef, variant, len(ks))
		}
		m, s := stat.MeanStdDev(field(ks, func(k killTimes) float64 { return k.deploy }), nil)
		tw, err := kills(filepath.Join(exact, variant), delay)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		if len(tw) == 0 {
			return 0, 0, 0, 0, fmt.Errorf("%s: the twin's %s variant restarts no job", faultTableScenario, variant)
		}
		return m, s / m, stat.Mean(field(tw, func(k killTimes) float64 { return k.deploy }), nil), len(ks), nil
	}
	live, cv, twin, n, err := deployments("taskmanager")
	if err != nil {
		return fit, err
	}
	restore := twin - float64(job.Cluster.Deploy)
	if live-restore <= 0 {
		return fit, fmt.Errorf("%s/taskmanager: live deployments take %.2f s, less than the twin's restore (%.2f s): no deploy time fits", faultTableRef, live, restore)
	}
	fit.deploy, fit.cv, fit.crashes = live-restore, cv, n
	// the exact twin ran with the scenario's deploy: rescale its in-place
	// deployments to the fitted one
	live, _, twin, n, err = deployments("checkpoint_storage")
	if err != nil {
		return fit, err
	}
	twin += fit.deploy - float64(job.Cluster.Deploy)
	fit.share, fit.inPlace = math.Min(1, live/twin), n
	if math.Abs(float64(job.Cluster.Deploy)-fit.deploy) > spreadTolS || math.Abs(job.Cluster.DeployCV-fit.cv) > spreadTolCV ||
		math.Abs(job.Cluster.InPlaceShare-fit.share) > spreadTolCV {
		return fit, fmt.Errorf("%s: set job.cluster.deploy: %.2fs, deploy_cv: %.2f and in_place_share: %.2f (the fit to the %d crashes of %s/taskmanager and the %d restarts in place of %s/checkpoint_storage; the scenario has %v, %g and %g)",
			faultTableScenario, fit.deploy, fit.cv, fit.share, fit.crashes, faultTableRef, fit.inPlace, faultTableRef, job.Cluster.Deploy, job.Cluster.DeployCV, job.Cluster.InPlaceShare)
	}
	return fit, nil
}

func liveFaultTable(c *Context) (string, error) {
	fit, err := fitFaultDeploy(c)
	if err != nil {
		return "", err
	}
	rows := [][]string{{"fault (5 per kind)", "recovery live", "recovery twin", "MAPE", "live in the twin's 90 % interval",
		"downtime live", "downtime twin", "unrecovered live / twin"}}
	inAll, judgedAll := 0, 0
	for _, v := range faultTableVariants {
		live, liveIdx, ld, err := readLiveFaults(c, v.name)
		if err != nil {
			return "", err
		}
		twin, err := runTwinFaults(c, v.name)
		if err != nil {
			return "", err
		}
		row, in, judged := faultTableRow(v.name, v.what, live, liveIdx, ld, twin)
		inAll, judgedAll = inAll+in, judgedAll+judged
		rows = append(rows, row)
	}
	intro := fmt.Sprintf("Live: the committed runs of `make live-faults` (`%s`). Twin: the same variants of `%s` over %d seeds, "+
		"with the restart's deployment fitted on the %d crashes (`cluster.deploy: %.2fs`, `deploy_cv: %.2f`, as the soak's "+
		"are fitted above) and the share a restart in place takes on the %d restarts after failed checkpoints (`in_place_share: %.2f`), "+
		"the job's capacity, warm-up and restore taken from `make calibration-live`; every other kind is held out. "+
		"Each live fault is set against the twin's values of the same fault of the run (its mean is the prediction, "+
		"its 5–95 %% quantiles the interval). A recovery ends on the 1-s sample grid and a live fault lands a few milliseconds "+
		"after its scheduled time, the injector's latency: the interval holds the twin's recovery instants, and each live one "+
		"is set on the twin's clock. Recovery and downtime as mean ± s.d. over the faults of a run: the twin's s.d. is that "+
		"within a seed (the root mean square over the seeds, and in brackets the 5–95 %% range of the seeds' s.d.s, where "+
		"one run's should fall), leaving out what differs between runs, such as the phases of Flink's heartbeat loops. "+
		"One run's spread of downtimes depends on those phases, so the live downtimes pool the runs above with the first "+
		"measurement of the kinds that fail the job over (`%s`): the root mean square of the runs' s.d.s, each run's in "+
		"brackets. A recovery of 0 s "+
		"(a fault the detector does not see) is left out of the MAPE; an unrecovered fault counts in the last column only. "+
		"Over all kinds, %d of %d live recoveries lie in the twin's 90 %% interval (%s).",
		faultTableRef, faultTableScenario, faultTableSeeds, fit.crashes, fit.deploy, fit.cv, fit.inPlace, fit.share,
		faultTableEarlierRef, inAll, judgedAll, percent(float64(inAll)/float64(max(1, judgedAll))))
	return wrap(intro, liveWidth) + "\n\n" + strings.TrimRight(khaosMarkdownTable(rows), "\n"), nil
}

// readLiveFaults reads the live faults of variant name: each fault with its
// index in its run, and each run's downtimes, the earlier measurement's
// runs too.
func readLiveFaults(c *Context, name string) (live []faultOutcome, liveIdx []int, ld [][]float64, err error) {
	runs, err := liveFaultRuns(c.Path(filepath.Join(faultTableRef, name)))
	if err != nil {
		return nil, nil, nil, err
	}
	for _, r := range runs {
		fs, err := faultOutcomes(r)
		if err != nil {
			return nil, nil, nil, err
		}
		for i, f := range fs {
			live, liveIdx = append(live, f), append(liveIdx, i)
		}
		ld = append(ld, downtimes(fs))
	}
	if earlier, err := liveFaultRuns(c.Path(filepath.Join(faultTableEarlierRef, name))); err == nil {
		for _, r := range earlier {
			fs, err := faultOutcomes(r)
			if err != nil {
				return nil, nil, nil, err
			}
			ld = append(ld, downtimes(fs))
		}
	}
	return live, liveIdx, ld, nil
}

// runTwinFaults runs variant name on the twin over the seeds: per fault
// index, its outcomes over the seeds.
func runTwinFaults(c *Context, name string) ([][]faultOutcome, error) {
	var twin [][]faultOutcome
	for seed := 1; seed <= faultTableSeeds; seed++ {
		out := c.Out(fmt.Sprintf("fault-table-%s-%d", name, seed))
		if _, err := c.Streamtwin("run", c.Path(faultTableScenario), "--variant", name, "--seed", fmt.Sprint(seed), "--out", out); err != nil {
			return nil, err
		}
		fs, err := faultOutcomes(filepath.Join(out, name)) // a variant's run writes into its own folder
		if err != nil {
			return nil, err
		}
		for i, f := range fs {
			if i == len(twin) {
				twin = append(twin, nil)
			}
			twin[i] = append(twin[i], f)
		}
	}
	return twin, nil
}

// faultTableRow is the table's row of a variant: each live fault set
// against the twin's outcomes of the same fault, and how many of the judged
// live recoveries lie in the twin's 90 % interval.
func faultTableRow(name, what string, live []faultOutcome, liveIdx []int, ld [][]float64, twin [][]faultOutcome) (row []string, in, judged int) {
	var lr, ape []float64
	lostLive, lostTwin, twinN := 0, 0, 0
	for _, at := range twin {
		for _, f := range at {
			twinN++
			if math.IsNaN(f.recovery) {
				lostTwin++
			}
		}
	}
	for k, f := range live {
		if math.IsNaN(f.recovery) {
			lostLive++
			continue
		}
		lr = append(lr, f.recovery)
		if liveIdx[k] >= len(twin) {
			continue
		}
		var at []float64
		for _, t := range twin[liveIdx[k]] {
			if !math.IsNaN(t.recovery) {
				at = append(at, t.recovery)
			}
		}
		if len(at) == 0 {
			continue
		}
		slices.Sort(at)
		judged++
		// the recovery ends on the sample grid, the live fault a few
		// milliseconds after its scheduled time (the injector's
		// latency): the interval is the twin's recovered instants, and
		// the live one is set on the twin's clock
		shifted := f.recovery + f.at - twin[liveIdx[k]][0].at
		if lo, hi := stat.Quantile(0.05, stat.Empirical, at, nil), stat.Quantile(0.95, stat.Empirical, at, nil); shifted >= lo-gridTolS && shifted <= hi+gridTolS {
			in++
		}
		if f.recovery > 0 {
			ape = append(ape, math.Abs(stat.Mean(at, nil)-f.recovery)/f.recovery)
		}
	}
	mape, inside := "–", "–"
	if len(ape) > 0 {
		mape = percent(stat.Mean(ape, nil))
	}
	if judged > 0 {
		inside = fmt.Sprintf("%d of %d", in, judged)
	}
	if name == "taskmanager" || name == "checkpoint_storage" {
		what += " (fitted)"
	}
	row = []string{what, meanSD(lr), withinRunSD(twin, func(f faultOutcome) float64 { return f.recovery }), mape, inside,
		spreadCell(ld), withinRunSD(twin, func(f faultOutcome) float64 { return f.downtime }),
		fmt.Sprintf("%d of %d / %s", lostLive, len(live), percent(float64(lostTwin)/float64(max(1, twinN))))}
	return row, in, judged
}
