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
)

// The live soak's kills are where the twin's deployment time and its
// spread (cluster.deploy and deploy_cv) are fitted: each kill's
// deployment is the time from Flink's detection of the failure to its last
// subtask RUNNING (Flink's own timestamps, to the millisecond), less the
// restart strategy's fixed delay. The first half of the kills is fitted,
// the second half held out.
const (
	spreadScenario = "scenarios/live-soak.yaml"
	// spreadSeeds: the twin's replications of the soak for its intervals
	spreadSeeds = 20
	// spreadTolS, spreadTolCV: how far the scenario's values may lie from
	// the fit before make docs asks to set them
	spreadTolS  = 0.05
	spreadTolCV = 0.01
)

var (
	deployRe   = regexp.MustCompile(`\bdeploy: [0-9.]+m?s`)
	deployCVRe = regexp.MustCompile(`, deploy_cv: [0-9.]+`)
)

// killTimes is one kill's outage, in s: fault → detection, the deployment
// (detection → every task running, less the restart delay) and the
// downtime (fault → every task running).
type killTimes struct{ detect, deploy, down float64 }

// kills reads the outages of a run's faults that were detected and ran
// again.
func kills(dir string, restartDelay float64) ([]killTimes, error) {
	fs, err := faultOutcomes(dir)
	if err != nil {
		return nil, err
	}
	var out []killTimes
	for _, f := range fs {
		if math.IsNaN(f.detected) || math.IsNaN(f.running) {
			continue
		}
		out = append(out, killTimes{detect: f.detected - f.at, deploy: f.running - f.detected - restartDelay, down: f.running - f.at})
	}
	return out, nil
}

func field(ks []killTimes, get func(killTimes) float64) []float64 {
	out := make([]float64, len(ks))
	for i, k := range ks {
		out[i] = get(k)
	}
	return out
}

func liveDeploySpread(c *Context) (string, error) {
	b, err := os.ReadFile(c.Path(spreadScenario))
	if err != nil {
		return "", err
	}
	text := string(b)
	f, err := scenario.Parse(spreadScenario, b)
	if err != nil {
		return "", err
	}
	job := f.Base.Job
	if job.Restart.Strategy != "fixed-delay" || deployRe.FindString(text) == "" {
		return "", fmt.Errorf("%s: the fit needs restart.strategy fixed-delay and cluster.deploy set", spreadScenario)
	}
	delay := float64(job.Restart.Delay)
	live, err := kills(c.Path(liveSoakRef), delay)
	if err != nil {
		return "", err
	}
	if len(live) < 10 {
		return "", fmt.Errorf("%s: %d kills detected and running again, the fit needs 10", liveSoakRef, len(live))
	}
	fitted, held := live[:len(live)/2], live[len(live)/2:]
	m, s := stat.MeanStdDev(field(fitted, func(k killTimes) float64 { return k.deploy }), nil)

	// the twin's restore on this schedule: its deployment less cluster.deploy
	exact, err := c.RunText("live-soak-exact", "live-soak.yaml", deployCVRe.ReplaceAllString(text, ""))
	if err != nil {
		return "", err
	}
	twinExact, err := kills(exact, delay)
	if err != nil {
		return "", err
	}
	restore := stat.Mean(field(twinExact, func(k killTimes) float64 { return k.deploy }), nil) - float64(job.Cluster.Deploy)
	deploy, cv := m-restore, s/m
	if deploy <= 0 {
		return "", fmt.Errorf("%s: live deployments take %.2f s, less than the twin's restore (%.2f s): no deploy time fits", liveSoakRef, m, restore)
	}
	if math.Abs(float64(job.Cluster.Deploy)-deploy) > spreadTolS || math.Abs(job.Cluster.DeployCV-cv) > spreadTolCV {
		return "", fmt.Errorf("%s: set job.cluster.deploy: %.2fs and deploy_cv: %.2f (the fit to the first %d kills of %s; the scenario has %v and %g)",
			spreadScenario, deploy, cv, len(fitted), liveSoakRef, job.Cluster.Deploy, job.Cluster.DeployCV)
	}

	// held out: the second half's kills against the twin's, over seeds
	var twin [][]killTimes // per seed
	for seed := 1; seed <= spreadSeeds; seed++ {
		out := c.Out(fmt.Sprintf("live-soak-seed-%d", seed))
		if _, err := c.Streamtwin("run", c.Path(spreadScenario), "--seed", fmt.Sprint(seed), "--out", out); err != nil {
			return "", err
		}
		ks, err := kills(out, delay)
		if err != nil {
			return "", err
		}
		twin = append(twin, ks[len(ks)/2:])
	}
	rows := [][]string{{"held out (kills " + fmt.Sprintf("%d–%d", len(fitted)+1, len(live)) + ")", "live: mean, s.d.",
		fmt.Sprintf("twin (%d seeds): mean, s.d. within a run", spreadSeeds), "live inside the twin's 90 % interval (all seeds)"}}
	for _, q := range []struct {
		name string
		get  func(killTimes) float64
	}{
		{"detection (kill → failure detected)", func(k killTimes) float64 { return k.detect }},
		{"deployment (detected → every task running, less the restart delay)", func(k killTimes) float64 { return k.deploy }},
		{"downtime (kill → every task running)", func(k killTimes) float64 { return k.down }},
	} {
		l := field(held, q.get)
		lm, ls := stat.MeanStdDev(l, nil)
		// a run's spread, as the live run shows one: the heartbeat phase is
		// drawn once per run
		var t, sds []float64
		for _, run := range twin {
			x := field(run, q.get)
			_, sd := stat.MeanStdDev(x, nil)
			sds, t = append(sds, sd), append(t, x...)
		}
		tm, ts := stat.Mean(t, nil), stat.Mean(sds, nil)
		slices.Sort(t)
		lo, hi := stat.Quantile(0.05, stat.Empirical, t, nil), stat.Quantile(0.95, stat.Empirical, t, nil)
		in := 0
		for _, x := range l {
			if x >= lo && x <= hi {
				in++
			}
		}
		rows = append(rows, []string{q.name, seconds(lm) + ", " + seconds(ls), seconds(tm) + ", " + seconds(ts),
			fmt.Sprintf("%d of %d (%s–%s)", in, len(l), seconds(lo), seconds(hi))})
	}
	intro := fmt.Sprintf("Fitted to the first %d kills of the committed soak (deployment mean %s, s.d. %s; the twin restores in %s "+
		"on this schedule): `cluster.deploy: %.2fs`, `deploy_cv: %.2f`, set in `%s`. The other %d kills are held out:",
		len(fitted), seconds(m), seconds(s), seconds(restore), deploy, cv, spreadScenario, len(held))
	return wrap(intro, liveWidth) + "\n\n" + strings.TrimRight(khaosMarkdownTable(rows), "\n"), nil
}

// soakSweep is the 120-run sweep whose downtimes are set against the live
// soak's.
const soakSweep = "scenarios/sweeps/live-soak-ci.yaml"

// liveSoakSweepSpread sets the spread of the downtimes in the twin's runs
// of the soak sweep against the live soak's: the s.d. over the kills of
// one run (each run's, then their root mean square and 5–95 % range, the
// range one live run's should fall in), and over every kill of every run
// (which adds what differs between runs: the heartbeat phases, whose mean
// a live run draws once).
func liveSoakSweepSpread(c *Context) (string, error) {
	out := c.Out("live-soak-ci")
	if _, err := c.Streamtwin("sweep", c.Path(soakSweep), "--out", out, "--workers", "2"); err != nil {
		return "", err
	}
	live, err := faultOutcomes(c.Path(liveSoakRef))
	if err != nil {
		return "", err
	}
	down := func(fs []faultOutcome) []float64 {
		var xs []float64
		for _, f := range fs {
			if !math.IsNaN(f.downtime) {
				xs = append(xs, f.downtime)
			}
		}
		return xs
	}
	liveDown := down(live)
	if len(liveDown) < 3 {
		return "", fmt.Errorf("%s: %d kills ran again, the comparison needs 3", liveSoakRef, len(liveDown))
	}
	dir := filepath.Join(out, "runs")
	runs, err := results.RunSubfolders(dir)
	if err != nil {
		return "", err
	}
	var all []float64
	var perRun [][]float64
	for _, r := range runs {
		fs, err := faultOutcomes(filepath.Join(dir, r))
		if err != nil {
			return "", err
		}
		xs := down(fs)
		if len(xs) < 2 {
			return "", fmt.Errorf("%s: %d faults ran again, want 2 or more", r, len(xs))
		}
		all, perRun = append(all, xs...), append(perRun, xs)
	}
	rms, lo, hi, _ := runSpread(perRun)
	lm, ls := stat.MeanStdDev(liveDown, nil)
	tm, ts := stat.MeanStdDev(all, nil)
	rows := [][]string{
		{"downtime per kill (kill → every task running)", "live soak", fmt.Sprintf("twin, %d runs", len(runs)), "twin − live"},
		{"mean", seconds(lm), seconds(tm), percent((tm - lm) / lm)},
		{"s.d. over the kills of a run", seconds(ls), fmt.Sprintf("%s (5–95 %%: %s–%s)", seconds(rms), seconds(lo), seconds(hi)), percent((rms - ls) / ls)},
		{"s.d. over every kill of every run", "–", seconds(ts), "–"},
	}
	intro := fmt.Sprintf("`streamtwin sweep %s` (%d runs: five checkpoint intervals × 24 seeds of `%s`) against the %d kills of the "+
		"committed soak (`%s`). A downtime does not depend on the checkpoint interval; it varies with the deployment drawn "+
		"for each restart (`deploy_cv`) and, between runs, with the phases of the heartbeat loops.",
		soakSweep, len(runs), spreadScenario, len(liveDown), liveSoakRef)
	return wrap(intro, liveWidth) + "\n\n" + strings.TrimRight(khaosMarkdownTable(rows), "\n"), nil
}
