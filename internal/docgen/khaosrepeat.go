package docgen

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/cat"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// The live Khaos scenario repeated (make live-khaos-repeat): its kills and
// savepoint reconfigurations, live and in the twin over seeds, kill by
// kill. Nothing of scenarios/live-khaos.yaml is fitted on these runs.
const (
	khaosRepeatRef   = "results/reference/live/live-khaos-repeat"
	khaosRepeatSeeds = 30
)

// khaosRepeatTimes collects, per fault of the run (by its index), the recovery,
// the time from the kill to the failure's detection and to the job running
// again, and every savepoint reconfiguration's downtime.
type khaosRepeatTimes struct {
	recovery, detect, running [][]float64
	unrecovered               int
	reconf                    []float64
}

func (k *khaosRepeatTimes) add(dir string) error {
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return err
	}
	for i, f := range cat.FaultSummaries(events) {
		for len(k.recovery) <= i {
			k.recovery, k.detect, k.running = append(k.recovery, nil), append(k.detect, nil), append(k.running, nil)
		}
		if math.IsNaN(f.RecoveryS) {
			k.unrecovered++
		} else {
			k.recovery[i] = append(k.recovery[i], f.RecoveryS)
		}
		k.detect[i] = statistics.AppendFinite(k.detect[i], f.DetectedAtS-f.AtS)
		k.running[i] = statistics.AppendFinite(k.running[i], f.RunningAtS-f.AtS)
	}
	for _, e := range events {
		if e.Kind == results.KindReconfigured && e.DurationS != nil {
			k.reconf = append(k.reconf, *e.DurationS)
		}
	}
	return nil
}

// liveKhaosRepeat: the table of the repeated live Khaos runs against the
// twin's seeds, with the error of the twin's mean against the live mean.
func liveKhaosRepeat(c *Context) (string, error) {
	fit, err := fitResubmit(c)
	if err != nil {
		return "", err
	}
	runs, err := liveFaultRuns(c.Path(khaosRepeatRef))
	if err != nil {
		return "", err
	}
	var live, twin khaosRepeatTimes
	for _, r := range runs {
		if err := live.add(r); err != nil {
			return "", err
		}
	}
	for seed := 1; seed <= khaosRepeatSeeds; seed++ {
		out := c.Out(fmt.Sprintf("khaos-repeat-%d", seed))
		if _, err := c.Streamtwin("run", c.Path(liveKhaosScenario), "--seed", fmt.Sprint(seed), "--out", out); err != nil {
			return "", err
		}
		if err := twin.add(out); err != nil {
			return "", err
		}
	}
	if len(live.recovery) == 0 || len(live.recovery) != len(twin.recovery) {
		return "", fmt.Errorf("%s: %d faults per run live, %d in the twin of %s; the repeat needs the same faults", khaosRepeatRef, len(live.recovery), len(twin.recovery), liveKhaosScenario)
	}
	rows := [][]string{{"time", "live (mean ± s.d.)", "twin (mean ± s.d.)", "twin − live", "bound", "met"}}
	row := func(what string, l, t []float64, bound float64) {
		if len(l) == 0 || len(t) == 0 {
			rows = append(rows, []string{what, meanSD(l) + fmt.Sprintf(" (%d)", len(l)), meanSD(t), "–", percent(bound), "–"})
			return
		}
		lm, tm := stat.Mean(l, nil), stat.Mean(t, nil)
		e := (tm - lm) / lm
		met := "yes"
		if math.Abs(e) > bound {
			met = "no"
		}
		rows = append(rows, []string{what, meanSD(l) + fmt.Sprintf(" (%d)", len(l)), meanSD(t),
			fmt.Sprintf("%+.1f %%", 100*e), "±" + percent(bound), met})
	}
	var allL, allT []float64
	for i := range live.recovery {
		row(fmt.Sprintf("recovery, kill %d", i+1), live.recovery[i], twin.recovery[i], 0.15)
		allL, allT = append(allL, live.recovery[i]...), append(allT, twin.recovery[i]...)
	}
	row("recovery, every kill", allL, allT, 0.15)
	flat := func(xs [][]float64) []float64 {
		var out []float64
		for _, x := range xs {
			out = append(out, x...)
		}
		return out
	}
	row("kill to failure detected", flat(live.detect), flat(twin.detect), 0.20)
	row("kill to RUNNING", flat(live.running), flat(twin.running), 0.20)
	row("savepoint reconfiguration, down", live.reconf, twin.reconf, 0.30)
	intro := fmt.Sprintf("Live: the %d committed runs of `make live-khaos-repeat` (`%s`, %d kills, %d unrecovered). "+
		"Twin: `%s` over %d seeds, with nothing fitted on these runs. The number of live values is in brackets; "+
		"the bound is how close to the live mean the project wants the twin's mean to be. "+
		"A savepoint reconfiguration is a savepoint, then the job resubmitted from it; both parts are fitted on other live runs: "+
		"`checkpoint.async_base: %gs` on the %d checkpoints of the fault table's crash runs (median %s live, %s in the twin; "+
		"clamped at 0, the twin's alignment and synchronous phase left as they are), and `cluster.submit: %.2fs` on the CI change "+
		"of `%s` (%s from the savepoint to running, of which the twin's deployment and restore take %s).",
		len(runs), khaosRepeatRef, len(allL)+live.unrecovered, live.unrecovered, liveKhaosScenario, khaosRepeatSeeds,
		math.Round(fit.asyncBase*100)/100, fit.checkpoints, seconds(fit.liveCkpt), seconds(fit.twinCkpt), fit.submit, liveTrafficRef,
		seconds(fit.liveResubmit), seconds(fit.twinRest))
	return wrap(intro, liveWidth) + "\n\n" + strings.TrimRight(khaosMarkdownTable(rows), "\n"), nil
}
