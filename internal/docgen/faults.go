package docgen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/streamtwin/streamtwin/models/scenario"
	"github.com/streamtwin/streamtwin/results"
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
// (results.FaultSummaries).
func faultOutcomes(dir string) ([]faultOutcome, error) {
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return nil, err
	}
	var out []faultOutcome
	for _, f := range results.FaultSummaries(events) {
		out = append(out, faultOutcome{at: f.AtS, recovery: f.RecoveryS, downtime: f.DowntimeS, detected: f.DetectedAtS, running: f.RunningAtS})
	}
	return out, nil
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

// fitFaultDeploy fits the restart's deployment on the crashes of the
// taskmanager variant, as liveDeploySpread does on the soak: deploy to
// the mean time from detection to every task running, less the restart
// delay and the twin's restore on this schedule, deploy_cv to its
// coefficient of variation. It fails, naming the values to set, when the
// scenario holds others.
func fitFaultDeploy(c *Context) (deploy, cv float64, n int, err error) {
	b, err := os.ReadFile(c.Path(faultTableScenario))
	if err != nil {
		return 0, 0, 0, err
	}
	text := string(b)
	f, err := scenario.Parse(faultTableScenario, b)
	if err != nil {
		return 0, 0, 0, err
	}
	job := f.Base.Job
	if job.Restart.Strategy != "fixed-delay" || deployRe.FindString(text) == "" || deployCVRe.FindString(text) == "" {
		return 0, 0, 0, fmt.Errorf("%s: the fit needs restart.strategy fixed-delay, and cluster.deploy and deploy_cv set", faultTableScenario)
	}
	delay := float64(job.Restart.Delay)
	runs, err := liveFaultRuns(c.Path(filepath.Join(faultTableRef, "taskmanager")))
	if err != nil {
		return 0, 0, 0, err
	}
	var live []killTimes
	for _, r := range runs {
		ks, err := kills(r, delay)
		if err != nil {
			return 0, 0, 0, err
		}
		live = append(live, ks...)
	}
	if len(live) < 3 {
		return 0, 0, 0, fmt.Errorf("%s/taskmanager: %d crashes detected and running again, the fit needs 3", faultTableRef, len(live))
	}
	m, s := stat.MeanStdDev(field(live, func(k killTimes) float64 { return k.deploy }), nil)
	exact, err := c.RunText("fault-table-exact", "live-fault-table.yaml", deployCVRe.ReplaceAllString(text, ""))
	if err != nil {
		return 0, 0, 0, err
	}
	twin, err := kills(filepath.Join(exact, "taskmanager"), delay)
	if err != nil {
		return 0, 0, 0, err
	}
	restore := stat.Mean(field(twin, func(k killTimes) float64 { return k.deploy }), nil) - float64(job.Cluster.Deploy)
	deploy, cv = m-restore, s/m
	if deploy <= 0 {
		return 0, 0, 0, fmt.Errorf("%s/taskmanager: live deployments take %.2f s, less than the twin's restore (%.2f s): no deploy time fits", faultTableRef, m, restore)
	}
	if math.Abs(float64(job.Cluster.Deploy)-deploy) > spreadTolS || math.Abs(job.Cluster.DeployCV-cv) > spreadTolCV {
		return 0, 0, 0, fmt.Errorf("%s: set job.cluster.deploy: %.2fs and deploy_cv: %.2f (the fit to the %d crashes of %s/taskmanager; the scenario has %v and %g)",
			faultTableScenario, deploy, cv, len(live), faultTableRef, job.Cluster.Deploy, job.Cluster.DeployCV)
	}
	return deploy, cv, len(live), nil
}

func liveFaultTable(c *Context) (string, error) {
	deploy, cv, crashes, err := fitFaultDeploy(c)
	if err != nil {
		return "", err
	}
	rows := [][]string{{"fault (5 per kind)", "recovery live", "recovery twin", "MAPE", "live in the twin's 90 % interval",
		"downtime live", "downtime twin", "unrecovered live / twin"}}
	for _, v := range faultTableVariants {
		runs, err := liveFaultRuns(c.Path(filepath.Join(faultTableRef, v.name)))
		if err != nil {
			return "", err
		}
		var live []faultOutcome
		var liveIdx []int // each live fault's index in its run
		for _, r := range runs {
			fs, err := faultOutcomes(r)
			if err != nil {
				return "", err
			}
			for i, f := range fs {
				live, liveIdx = append(live, f), append(liveIdx, i)
			}
		}
		// the twin: per fault index, its values over the seeds
		var twin [][]faultOutcome
		for seed := 1; seed <= faultTableSeeds; seed++ {
			out := c.Out(fmt.Sprintf("fault-table-%s-%d", v.name, seed))
			if _, err := c.Streamtwin("run", c.Path(faultTableScenario), "--variant", v.name, "--seed", fmt.Sprint(seed), "--out", out); err != nil {
				return "", err
			}
			fs, err := faultOutcomes(filepath.Join(out, v.name)) // a variant's run writes into its own folder
			if err != nil {
				return "", err
			}
			for i, f := range fs {
				if i == len(twin) {
					twin = append(twin, nil)
				}
				twin[i] = append(twin[i], f)
			}
		}
		var lr, tr, ld, td, ape []float64
		in, judged, lostLive, lostTwin, twinN := 0, 0, 0, 0, 0
		for _, at := range twin {
			for _, f := range at {
				twinN++
				if math.IsNaN(f.recovery) {
					lostTwin++
				} else {
					tr = append(tr, f.recovery)
				}
				if !math.IsNaN(f.downtime) {
					td = append(td, f.downtime)
				}
			}
		}
		for k, f := range live {
			if !math.IsNaN(f.downtime) {
				ld = append(ld, f.downtime)
			}
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
			if lo, hi := stat.Quantile(0.05, stat.Empirical, at, nil), stat.Quantile(0.95, stat.Empirical, at, nil); f.recovery >= lo && f.recovery <= hi {
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
		what := v.what
		if v.name == "taskmanager" {
			what += " (fitted)"
		}
		rows = append(rows, []string{what, meanSD(lr), meanSD(tr), mape, inside, meanSD(ld), meanSD(td),
			fmt.Sprintf("%d of %d / %s", lostLive, len(live), percent(float64(lostTwin)/float64(max(1, twinN))))})
	}
	intro := fmt.Sprintf("Live: the committed runs of `make live-faults` (`%s`). Twin: the same variants of `%s` over %d seeds, "+
		"with the restart's deployment fitted on the %d crashes alone (`cluster.deploy: %.2fs`, `deploy_cv: %.2f`, as the soak's "+
		"are fitted above) and the job's capacity, warm-up and restore taken from `make calibration-live`; every other kind is held out. "+
		"Each live fault is set against the twin's values of the same fault of the run (its mean is the prediction, "+
		"its 5–95 %% quantiles the interval). Recovery and downtime as mean ± s.d. over the faults; a recovery of 0 s "+
		"(a fault the detector does not see) is left out of the MAPE; an unrecovered fault counts in the last column only.",
		faultTableRef, faultTableScenario, faultTableSeeds, crashes, deploy, cv)
	return wrap(intro, liveWidth) + "\n\n" + strings.TrimRight(khaosMarkdownTable(rows), "\n"), nil
}
