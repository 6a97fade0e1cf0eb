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
	"github.com/streamtwin/streamtwin/results/statistics"
)

// A CI change by stop-with-savepoint on the live cluster: a savepoint,
// then the job resubmitted from it. Its two parts are fitted on live runs
// other than the Khaos repeat, whose reconfigurations stay held out: the
// checkpoint's fixed asynchronous cost (checkpoint.async_base) on the
// completed checkpoints of the fault table's crash runs, and the
// resubmission (cluster.submit) on the CI change of the live end-to-end
// run (make live-test-reference).

// resubmitVariant is the fault-table variant whose checkpoints are fitted.
const resubmitVariant = "taskmanager"

var (
	asyncBaseRe = regexp.MustCompile(`\basync_base: [0-9.]+m?s`)
	submitRe    = regexp.MustCompile(`\bsubmit: [0-9.]+m?s`)
)

// resubmitFit is the fit, with what it was fitted on.
type resubmitFit struct {
	asyncBase, submit      float64
	liveCkpt, twinCkpt     float64 // median checkpoint durations, s
	checkpoints            int
	liveResubmit, twinRest float64 // savepoint → running, live; the twin's deployment and restore after the submit
}

// checkpointDurations lists the completed (not savepoint) checkpoints'
// durations of a run folder.
func checkpointDurations(dir string) ([]float64, error) {
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, e := range events {
		if e.Kind == results.KindCheckpointCompleted && e.DurationS != nil {
			out = append(out, *e.DurationS)
		}
	}
	return out, nil
}

// resubmits lists a run's stop-with-savepoint reconfigurations as the time
// from the savepoint's completion to the job running again.
func resubmits(dir string) ([]float64, error) {
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return nil, err
	}
	var out []float64
	saved := math.NaN()
	for _, e := range events {
		switch {
		case e.Kind == results.KindSavepoint:
			saved = e.TimeS
		case e.Kind == results.KindReconfigured && !math.IsNaN(saved):
			out, saved = append(out, e.TimeS-saved), math.NaN()
		}
	}
	return out, nil
}

func median(xs []float64) float64 { return statistics.Quantile(slices.Clone(xs), 0.5) }

// fitResubmit fits async_base and submit (see above) and fails, naming the
// values to set, when scenarios/live-khaos.yaml or the fault table's
// scenario holds others. async_base is clamped at 0: a local cluster's
// checkpoints of a few MiB can be shorter than the twin's alignment and
// synchronous phase alone.
func fitResubmit(c *Context) (resubmitFit, error) {
	var fit resubmitFit
	khaosText, err := os.ReadFile(c.Path(liveKhaosScenario))
	if err != nil {
		return fit, err
	}
	tableText, err := os.ReadFile(c.Path(faultTableScenario))
	if err != nil {
		return fit, err
	}
	for _, t := range []struct {
		file string
		text []byte
	}{{liveKhaosScenario, khaosText}, {faultTableScenario, tableText}} {
		if asyncBaseRe.Find(t.text) == nil {
			return fit, fmt.Errorf("%s: the fit needs job.checkpoint.async_base set", t.file)
		}
	}
	if submitRe.Find(khaosText) == nil {
		return fit, fmt.Errorf("%s: the fit needs job.cluster.submit set", liveKhaosScenario)
	}
	kf, err := scenario.Parse(c.Path(liveKhaosScenario), khaosText)
	if err != nil {
		return fit, err
	}
	tf, err := scenario.Parse(faultTableScenario, tableText)
	if err != nil {
		return fit, err
	}
	// the checkpoints: live against the twin, both on the crash variant
	runs, err := liveFaultRuns(c.Path(filepath.Join(faultTableRef, resubmitVariant)))
	if err != nil {
		return fit, err
	}
	var live []float64
	for _, r := range runs {
		d, err := checkpointDurations(r)
		if err != nil {
			return fit, err
		}
		live = append(live, d...)
	}
	if len(live) < 5 {
		return fit, fmt.Errorf("%s/%s: %d completed checkpoints, the fit needs 5", faultTableRef, resubmitVariant, len(live))
	}
	out := c.Out("resubmit-fit-table")
	if _, err := c.Streamtwin("run", c.Path(faultTableScenario), "--variant", resubmitVariant, "--out", out); err != nil {
		return fit, err
	}
	twin, err := checkpointDurations(filepath.Join(out, resubmitVariant))
	if err != nil {
		return fit, err
	}
	if len(twin) == 0 {
		return fit, fmt.Errorf("%s: the twin's %s variant completes no checkpoint", faultTableScenario, resubmitVariant)
	}
	fit.liveCkpt, fit.twinCkpt, fit.checkpoints = median(live), median(twin), len(live)
	tableAsync := float64(tf.Base.Job.Checkpoint.AsyncBase)
	fit.asyncBase = math.Max(0, tableAsync+fit.liveCkpt-fit.twinCkpt)
	// the resubmission: live end to end against the twin of live-khaos.yaml
	liveRe, err := resubmits(c.Path(liveTrafficRef))
	if err != nil {
		return fit, err
	}
	if len(liveRe) == 0 {
		return fit, fmt.Errorf("%s: no stop-with-savepoint reconfiguration to fit cluster.submit on", liveTrafficRef)
	}
	// the twin's deployment and restore at their mean (deploy_cv 0), not
	// one seed's draw; the copy runs from the work folder, so its policy's
	// profile is named from the scenario's folder
	nominal := deployCVRe.ReplaceAllString(string(khaosText), "")
	nominal = strings.Replace(nominal, "profile: ", "profile: "+filepath.Dir(c.Path(liveKhaosScenario))+"/", 1)
	out, err = c.RunText("resubmit-fit-khaos", filepath.Base(liveKhaosScenario), nominal)
	if err != nil {
		return fit, err
	}
	twinRe, err := resubmits(out)
	if err != nil {
		return fit, err
	}
	if len(twinRe) == 0 {
		return fit, fmt.Errorf("%s: the twin takes no stop-with-savepoint reconfiguration", liveKhaosScenario)
	}
	submit := float64(kf.Base.Job.Cluster.Submit)
	fit.liveResubmit, fit.twinRest = stat.Mean(liveRe, nil), stat.Mean(twinRe, nil)-submit
	if fit.liveResubmit <= fit.twinRest {
		return fit, fmt.Errorf("%s: the live resubmission takes %.2f s, no more than the twin's deployment and restore (%.2f s): no submit time fits", liveTrafficRef, fit.liveResubmit, fit.twinRest)
	}
	fit.submit = fit.liveResubmit - fit.twinRest
	khaosAsync := float64(kf.Base.Job.Checkpoint.AsyncBase)
	if math.Abs(khaosAsync-fit.asyncBase) > spreadTolCV || math.Abs(tableAsync-fit.asyncBase) > spreadTolCV || math.Abs(submit-fit.submit) > spreadTolS {
		return fit, fmt.Errorf("set job.checkpoint.async_base: %.2fs in %s and %s, and job.cluster.submit: %.2fs in %s (the fit to the %d checkpoints of %s/%s, median %.3f s live, and the resubmission of %s, %.2f s; they hold async_base %gs and %gs, submit %gs)",
			fit.asyncBase, liveKhaosScenario, faultTableScenario, fit.submit, liveKhaosScenario, fit.checkpoints, faultTableRef, resubmitVariant,
			fit.liveCkpt, liveTrafficRef, fit.liveResubmit, khaosAsync, tableAsync, submit)
	}
	return fit, nil
}
