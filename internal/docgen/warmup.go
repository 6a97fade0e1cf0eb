package docgen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/flink"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

// The live warm-up block (make live-warmup, issue 33): what a restart
// under a backlog costs, live against the twin. One quarter-core
// TaskManager falls behind, then the job restarts: scaled up to three
// TaskManagers (up3, fitted), to two (up2, held out), or its CI changed on
// the same warm TaskManager (ci20, held out). Three of the twin's
// parameters are fitted to up3, each to one quantity:
//   - job.state_per_lag: the live checkpoints' size beyond the twin's
//     steady state (the baseline run's checkpoint at the same input rate),
//     by least squares through the origin in the lag at their trigger;
//   - cluster.restore_bandwidth: the checkpoint the restart restored over
//     the restart's downtime less the twin's deploy time and restore base;
//   - rescale.up_warmup, up_warmup_start: while the job drains, its
//     throughput is what it can process; read as a share of the twin's
//     full capacity at that parallelism, it is the ramp
//     min(1, s0 + (1 − s0)·τ/W) at τ seconds after the restart, fitted by
//     least squares on a grid.
// The baseline is the twin before them (no lag state, restore at
// warmupBaselineBandwidth, no ramp). The block fails, naming the values to
// set, when the scenario's are not the fit.

const (
	warmupRef      = "results/reference/live/warmup"
	warmupScenario = "scenarios/live-warmup.yaml"
	warmupFitted   = "up3"
	warmupWindow   = 120.0 // s after the restart the drain is read over
	warmupEarly    = 30.0  // s: the early drain rate is read over the first this many
	warmupGridW    = 1.0   // s: the grid of W, from 0 to warmupMaxW
	warmupMaxW     = 600.0 // s: the longest ramp fitted (the run lasts 270 s)
	warmupGridS    = 0.01  // the grid of s0, from 0 to 0.99
	// scenarios/live-traffic-calibrated.yaml's restore bandwidth, measured
	// on TaskManagers without a CPU limit: the baseline's
	warmupBaselineBandwidth = "4.5MiB/s"
	warmupFitTol            = 0.01 // state_per_lag and restore_bandwidth within this share of the fit
	warmupLagGrid           = 1000 // records: the grid of state_lag_scale
	warmupLagMax            = 2e6  // records: its largest value
)

var warmupVariants = []string{"up3", "up2", "ci20"}

// warmupCheckpoint is one completed checkpoint or savepoint of a run, with
// the lag and input rate of the second it was triggered in.
type warmupCheckpoint struct {
	trigger, size, lag, rate float64
}

// warmupRun is what the block reads of one run: the restart (the job
// RUNNING again), its downtime, the catch-up after it, the checkpoints
// completed before it went down and the savepoint it stopped with (the
// last one is what it restored), and its per-second samples.
type warmupRun struct {
	restart, downtime, catchUp float64 // s; catchUp NaN: never
	before                     []warmupCheckpoint
	all                        []warmupCheckpoint // every completed checkpoint and savepoint
	samples                    []results.Sample
}

func readWarmupRun(dir string) (warmupRun, error) {
	r := warmupRun{restart: math.NaN(), downtime: math.NaN(), catchUp: math.NaN()}
	var err error
	if r.samples, err = results.ReadSamples(filepath.Join(dir, results.TimeseriesFile)); err != nil {
		return r, err
	}
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return r, err
	}
	var cks []results.Event
	for _, e := range events {
		switch {
		case e.Kind == results.KindReconfigured && math.IsNaN(r.restart):
			r.restart = e.TimeS
			if e.DurationS != nil {
				r.downtime = *e.DurationS
			}
		case e.Kind == results.KindRecovered && !math.IsNaN(r.restart) && math.IsNaN(r.catchUp) && strings.HasPrefix(e.Reason, "reconfiguration"):
			r.catchUp = e.TimeS - r.restart
		case (e.Kind == results.KindCheckpointCompleted || e.Kind == results.KindSavepoint) && e.SizeBytes != nil && e.DurationS != nil:
			cks = append(cks, e)
		}
	}
	if math.IsNaN(r.restart) || math.IsNaN(r.downtime) {
		return r, fmt.Errorf("%s: no reconfiguration with its downtime: the run did not restart", dir)
	}
	for _, e := range cks {
		trigger := e.TimeS - *e.DurationS
		s := r.sampleAt(trigger)
		c := warmupCheckpoint{trigger: trigger, size: *e.SizeBytes, lag: s.Lag, rate: s.InputRate}
		r.all = append(r.all, c)
		// a checkpoint completes before the job goes down, a savepoint
		// while it stops
		if e.TimeS <= r.restart-r.downtime || (e.Kind == results.KindSavepoint && e.TimeS <= r.restart) {
			r.before = append(r.before, c)
		}
	}
	if len(r.before) == 0 {
		return r, fmt.Errorf("%s: no checkpoint completed before the restart", dir)
	}
	return r, nil
}

// sampleAt is the sample of the second holding time t.
func (r warmupRun) sampleAt(t float64) results.Sample {
	for _, s := range r.samples {
		if s.TimeS >= t {
			return s
		}
	}
	return r.samples[len(r.samples)-1]
}

// restored is the size of the checkpoint the restart restored (bytes).
func (r warmupRun) restored() float64 { return r.before[len(r.before)-1].size }

// steadyState is the baseline twin's checkpoint size at input rate
// rate, the one triggered nearest to t among those at that rate: its
// operators' state, which the lag does not grow (NaN: none at that rate).
func (r warmupRun) steadyState(t, rate float64) float64 {
	best, size := math.Inf(1), math.NaN()
	for _, c := range r.before {
		if math.Abs(c.rate-rate) < 1 && math.Abs(c.trigger-t) < best {
			best, size = math.Abs(c.trigger-t), c.size
		}
	}
	return size
}

// leagueCheckpoints are the completed checkpoints and savepoints of
// every committed live run of the autoscaling league (live and its
// repeat), each with the lag and input rate of the second it was
// triggered in: data the lag state's fit never sees.
func leagueCheckpoints(c *Context) ([]warmupCheckpoint, error) {
	dirs, err := filepath.Glob(c.Path(filepath.Join(leagueRef, "live*", "*", results.EventsFile)))
	if err != nil {
		return nil, err
	}
	var out []warmupCheckpoint
	for _, f := range dirs {
		events, err := results.ReadEvents(f)
		if err != nil {
			return nil, err
		}
		r := warmupRun{}
		if r.samples, err = results.ReadSamples(filepath.Join(filepath.Dir(f), results.TimeseriesFile)); err != nil {
			return nil, err
		}
		for _, e := range events {
			if (e.Kind == results.KindCheckpointCompleted || e.Kind == results.KindSavepoint) && e.SizeBytes != nil && e.DurationS != nil {
				s := r.sampleAt(e.TimeS - *e.DurationS)
				out = append(out, warmupCheckpoint{trigger: e.TimeS - *e.DurationS, size: *e.SizeBytes, lag: s.Lag, rate: s.InputRate})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no live checkpoints", leagueRef)
	}
	return out, nil
}

// heldOutLagStateRMSE is the RMSE (bytes) of job's lag state on the
// checkpoints with a lag, beyond a steady state proportional to the input
// rate (least squares through the origin on those without a lag), and
// how many there are.
func heldOutLagStateRMSE(cks []warmupCheckpoint, job flink.JobConfig) (float64, int) {
	var xy, xx float64
	for _, c := range cks {
		if c.lag <= 0 {
			xy, xx = xy+c.size*c.rate, xx+c.rate*c.rate
		}
	}
	var sse float64
	n := 0
	for _, c := range cks {
		if c.lag > 0 && xx > 0 {
			d := c.size - c.rate*xy/xx - job.LagState(c.lag)
			sse, n = sse+d*d, n+1
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return math.Sqrt(sse / float64(n)), n
}

// lagStateSample is a run's checkpoints with a lag: their lag and their
// size beyond the baseline twin's steady state at the same input rate.
func lagStateSample(live, base warmupRun) (lag, excess []float64) {
	for _, c := range live.all {
		s0 := base.steadyState(c.trigger, c.rate)
		if c.lag <= 0 || math.IsNaN(s0) {
			continue
		}
		lag, excess = append(lag, c.lag), append(excess, c.size-s0)
	}
	return lag, excess
}

// fitLagState is the lag's state a·L·ln(1 + ℓ/L) that fits the live
// checkpoints' size beyond the baseline twin's steady state, by least
// squares: for each L on the grid (warmupLagGrid records up to
// warmupLagMax, and 0 for a line through the origin) the best a in
// closed form, and the L of the least squared error. perLag is a
// (bytes per record at a small lag), scale L.
func fitLagState(live, base warmupRun) (perLag, scale float64, n int) {
	lag, excess := lagStateSample(live, base)
	if len(lag) == 0 {
		return 0, 0, 0
	}
	best := math.Inf(1)
	for l := 0.0; l <= warmupLagMax; l += warmupLagGrid {
		var xy, xx float64
		x := make([]float64, len(lag))
		for i := range lag {
			x[i] = flink.JobConfig{StatePerLag: 1, StateLagScale: l}.LagState(lag[i])
			xy += x[i] * excess[i]
			xx += x[i] * x[i]
		}
		a := math.Max(0, xy/xx)
		var sse float64
		for i := range lag {
			sse += (excess[i] - a*x[i]) * (excess[i] - a*x[i])
		}
		if sse < best {
			best, perLag, scale = sse, a, l
		}
	}
	return perLag, scale, len(lag)
}

// fitLagLine is fitLagState's line through the origin (L = 0): bytes per
// record of lag.
func fitLagLine(live, base warmupRun) float64 {
	lag, excess := lagStateSample(live, base)
	var xy, xx float64
	for i := range lag {
		xy, xx = xy+lag[i]*excess[i], xx+lag[i]*lag[i]
	}
	if xx == 0 {
		return 0
	}
	return math.Max(0, xy/xx)
}

// lagStateRMSE is the root mean squared error of the checkpoints' size
// beyond the baseline's steady state against job's lag state (bytes).
func lagStateRMSE(live, base warmupRun, job flink.JobConfig) float64 {
	lag, excess := lagStateSample(live, base)
	if len(lag) == 0 {
		return math.NaN()
	}
	var sse float64
	for i := range lag {
		d := excess[i] - job.LagState(lag[i])
		sse += d * d
	}
	return math.Sqrt(sse / float64(len(lag)))
}

// draining are the seconds within warmupWindow after the restart at
// which the job was behind by more than a second of input, so that its
// throughput is what it could process: their time since the restart (at
// the second's middle) and throughput.
func (r warmupRun) draining() (tau, thr []float64) {
	for _, s := range r.samples {
		if s.TimeS-1 >= r.restart && s.TimeS <= r.restart+warmupWindow && s.Lag > s.InputRate {
			tau, thr = append(tau, s.TimeS-0.5-r.restart), append(thr, s.Throughput)
		}
	}
	return tau, thr
}

// earlyDrain is the mean throughput over the first warmupEarly seconds
// after the restart (records/s).
func (r warmupRun) earlyDrain() float64 {
	var xs []float64
	for _, s := range r.samples {
		if s.TimeS-1 >= r.restart && s.TimeS <= r.restart+warmupEarly {
			xs = append(xs, s.Throughput)
		}
	}
	return statistics.FiniteMean(xs)
}

// fullCapacity is the twin run's capacity at its last sample, long after
// any warm-up: what the job processes at its final parallelism.
func (r warmupRun) fullCapacity() float64 { return r.samples[len(r.samples)-1].Capacity }

// rampShare is the warm-up ramp's share of full capacity τ s after the
// restart.
func rampShare(tau, w, s0 float64) float64 {
	if w <= 0 || tau >= w {
		return 1
	}
	return s0 + (1-s0)*tau/w
}

// fitRamp is the (W, s0) on the grid least-squares closest to the shares
// y at times tau (the first on a tie).
func fitRamp(tau, y []float64) (w, s0 float64) {
	best := math.Inf(1)
	for i := 0; float64(i)*warmupGridW <= warmupMaxW; i++ {
		for k := 0; k < 100; k++ {
			cw, cs := float64(i)*warmupGridW, float64(k)*warmupGridS
			if cw == 0 && k > 0 {
				break // no ramp: s0 means nothing
			}
			sum := 0.0
			for j := range tau {
				d := y[j] - rampShare(tau[j], cw, cs)
				sum += d * d
			}
			if sum < best-1e-12 {
				best, w, s0 = sum, cw, cs
			}
		}
	}
	return w, s0
}

var (
	upWarmupRe      = regexp.MustCompile(`up_warmup: ([0-9.]+)s`)
	upWarmupStartRe = regexp.MustCompile(`up_warmup_start: ([0-9.]+)`)
	statePerLagRe   = regexp.MustCompile(`\n  state_per_lag: [^\n]*`)
	restoreBwRe     = regexp.MustCompile(`restore_bandwidth: [0-9.]+[KMG]?i?B/s`)
)

// warmupTwin runs the twin on every variant of the warm-up scenario's
// text and reads the runs.
func warmupTwin(c *Context, text, name string) (map[string]warmupRun, error) {
	out, err := c.RunText(name, "live-warmup.yaml", text)
	if err != nil {
		return nil, err
	}
	return readWarmupRuns(out)
}

func readWarmupRuns(dir string) (map[string]warmupRun, error) {
	runs := map[string]warmupRun{}
	for _, v := range warmupVariants {
		r, err := readWarmupRun(filepath.Join(dir, v))
		if err != nil {
			return nil, err
		}
		runs[v] = r
	}
	return runs, nil
}

// warmupFit is the block's fit to the fitted run, and the scenario's values.
type warmupFit struct {
	perLag, scale, bandwidth, w, s0 float64 // fitted: B/record, records, B/s, s, share
	line                            float64 // B/record: a line through the origin fitted the same way
	nCheckpoints, nSeconds          int
	full                            float64 // records/s: the twin's full capacity at the fitted run's parallelism
}

func liveWarmupTable(c *Context) (string, error) {
	live, err := readWarmupRuns(c.Path(warmupRef))
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(c.Path(warmupScenario))
	if err != nil {
		return "", err
	}
	text := string(b)
	f, err := scenario.Parse(warmupScenario, b)
	if err != nil {
		return "", err
	}
	job := f.Base.Job
	if statePerLagRe.FindString(text) == "" || restoreBwRe.FindString(text) == "" || upWarmupRe.FindString(text) == "" {
		return "", fmt.Errorf("%s: job.state_per_lag, cluster.restore_bandwidth and rescale.up_warmup must be set (the fit's values)", warmupScenario)
	}
	baseText := upWarmupRe.ReplaceAllString(text, "up_warmup: 0s")
	baseText = statePerLagRe.ReplaceAllString(baseText, "")
	baseText = restoreBwRe.ReplaceAllString(baseText, "restore_bandwidth: "+warmupBaselineBandwidth)
	base, err := warmupTwin(c, baseText, "live-warmup-baseline")
	if err != nil {
		return "", err
	}
	twin, err := warmupTwin(c, text, "live-warmup-twin")
	if err != nil {
		return "", err
	}

	lf, bf := live[warmupFitted], base[warmupFitted]
	var fit warmupFit
	fit.perLag, fit.scale, fit.nCheckpoints = fitLagState(lf, bf)
	// the restore: what the fitted run restored, over its downtime less
	// the twin's deploy and restore base
	restore := lf.downtime - float64(job.Rescale.UpDeploy) - float64(job.Cluster.RestoreBase)
	if restore <= 0 {
		return "", fmt.Errorf("%s/%s: down %.1f s, less than the twin's up_deploy and restore_base: no restore bandwidth fits", warmupRef, warmupFitted, lf.downtime)
	}
	fit.bandwidth = lf.restored() / restore
	tau, thr := lf.draining()
	if len(tau) < 5 {
		return "", fmt.Errorf("%s/%s: the job was behind for %d seconds after the restart: too few to fit a ramp to", warmupRef, warmupFitted, len(tau))
	}
	fit.nSeconds = len(tau)
	fit.full = bf.fullCapacity()
	y := make([]float64, len(thr))
	for i := range thr {
		y[i] = thr[i] / fit.full
	}
	fit.w, fit.s0 = fitRamp(tau, y)

	off := func(got, want float64) bool { return math.Abs(got-want) > warmupFitTol*math.Abs(want)+1e-9 }
	if off(float64(job.StatePerLag), fit.perLag) || job.StateLagScale != fit.scale || off(float64(job.Cluster.RestoreBandwidth), fit.bandwidth) ||
		math.Abs(float64(job.Rescale.UpWarmup)-fit.w) > warmupGridW/2 || math.Abs(job.Rescale.UpWarmupStart-fit.s0) > warmupGridS/2 {
		return "", fmt.Errorf("%s: set job.state_per_lag: %.0fB, state_lag_scale: %g, cluster.restore_bandwidth: %.0fB/s, rescale.up_warmup: %gs and up_warmup_start: %g "+
			"(the fit to %s/%s; the scenario has %v, %g, %v, %v and %g) there, in scenarios/live-autoscaling.yaml and scenarios/live-wordcount.yaml; "+
			"then make live-league-twin",
			warmupScenario, fit.perLag, fit.scale, fit.bandwidth, fit.w, fit.s0, warmupRef, warmupFitted,
			job.StatePerLag, job.StateLagScale, job.Cluster.RestoreBandwidth, job.Rescale.UpWarmup, job.Rescale.UpWarmupStart)
	}
	league, err := leagueCheckpoints(c)
	if err != nil {
		return "", err
	}
	fit.line = fitLagLine(lf, bf)
	return warmupReport(fit, job, live, twin, base, league), nil
}

func warmupReport(fit warmupFit, job flink.JobConfig, live, twin, base map[string]warmupRun, league []warmupCheckpoint) string {
	pct := func(a, b float64) string {
		if math.IsNaN(a) || math.IsNaN(b) {
			return "–"
		}
		return fmt.Sprintf("%+.0f %%", 100*(a-b)/b)
	}
	count := func(x float64) string { return textfmt.Count(math.Round(x)) }
	mb := func(x float64) string { return fmt.Sprintf("%.1f", x/1e6) }
	secs := func(x float64) string {
		if math.IsNaN(x) {
			return "not by the end"
		}
		return fmt.Sprintf("%.1f", x)
	}
	rows := [][]string{{"run", "role", "quantity", "live", "twin", "error", "baseline twin", "error"}}
	row := func(v, role, q string, f func(warmupRun) float64, show func(float64) string) []string {
		l, t, bl := f(live[v]), f(twin[v]), f(base[v])
		return []string{v, role, q, show(l), show(t), pct(t, l), show(bl), pct(bl, l)}
	}
	for _, v := range warmupVariants {
		role := "held out"
		if v == warmupFitted {
			role = "fitted"
		}
		_, excess := lagStateSample(live[v], base[v])
		rows = append(rows,
			[]string{v, role, fmt.Sprintf("state its %d checkpoints with a lag hold beyond the steady state, RMSE (MB)", len(excess)), "",
				mb(lagStateRMSE(live[v], base[v], job)), "", mb(lagStateRMSE(live[v], base[v], flink.JobConfig{})), ""},
			row(v, role, "checkpoint restored (MB)", warmupRun.restored, mb),
			row(v, role, "downtime of the restart (s)", func(r warmupRun) float64 { return r.downtime }, secs),
			row(v, role, fmt.Sprintf("records/s drained in the first %s after the restart", seconds(warmupEarly)), warmupRun.earlyDrain, count),
			row(v, "held out", "catch-up after the restart (s)", func(r warmupRun) float64 { return r.catchUp }, secs))
	}
	lt, n := heldOutLagStateRMSE(league, job)
	lb, _ := heldOutLagStateRMSE(league, flink.JobConfig{})
	ll, _ := heldOutLagStateRMSE(league, flink.JobConfig{StatePerLag: sim.Bytes(fit.line)})
	rows = append(rows, []string{"league", "held out", fmt.Sprintf("state its %d live checkpoints with a lag hold beyond the steady state, RMSE (MB)", n), "",
		mb(lt), "", mb(lb), ""})
	worse := ""
	if ll > lb {
		worse = ", more than no lag state at all"
	}
	beyond := ""
	if fit.w > warmupWindow {
		beyond = fmt.Sprintf(" The ramp is longer than the %s it is read over: its end is extrapolated.", seconds(warmupWindow))
	}
	intro := fmt.Sprintf("`make live-warmup` (`%s`, committed in `%s`): one quarter-core TaskManager falls behind at 12,000/s, "+
		"and at 120 s the job restarts with a backlog: scaled up to three TaskManagers (up3), to two (up2), or its checkpoint "+
		"interval changed by a savepoint on the same TaskManager (ci20). Three parts of the twin are fitted to up3, each to one "+
		"quantity, and held out on up2 and ci20. The state the lag holds: %s's %d checkpoints with a lag (before and after the "+
		"restart), beyond the twin's state at the same input rate, fit a·L·ln(1 + lag/L) at a = %s bytes per record of lag and "+
		"L = %s records (job.state_per_lag and state_lag_scale; least squares, a in closed form for each L on a grid of %s records "+
		"up to %s, and a line through the origin): a checkpoint holds ever less per record of lag as the lag grows. "+
		"On the autoscaling league's live checkpoints (`%s`), which the fit never sees, with their steady state proportional to "+
		"the input rate (least squares on those without a lag), the line through the origin fitted the same way (%s bytes per "+
		"record) errs by %s MB (RMSE)%s; the table gives the bent state's. "+
		"The restore: the checkpoint it restored over its downtime less the twin's deploy time gives %s MB/s "+
		"(cluster.restore_bandwidth). The drain: while the job is behind its throughput is what it can process; read as a share "+
		"of the twin's full capacity at three TaskManagers (%s records/s) over the %d seconds it was behind within %s of the "+
		"restart, it fits the ramp min(1, s0 + (1 − s0)·τ/W) at W = %s s, s0 = %s (rescale.up_warmup and up_warmup_start; "+
		"least squares on a grid of %s s up to %s and of %s).%s The baseline is the twin without the three (no lag state, "+
		"restores at %s, no ramp). The RMSE rows have no live value: they compare the model with the live checkpoints.",
		warmupScenario, warmupRef, warmupFitted, fit.nCheckpoints, num(fit.perLag), count(fit.scale), count(warmupLagGrid), count(warmupLagMax),
		leagueRef, num(fit.line), mb(ll), worse,
		num(fit.bandwidth/1e6), count(fit.full),
		fit.nSeconds, seconds(warmupWindow), num(fit.w), num(fit.s0), num(warmupGridW), seconds(warmupMaxW), num(warmupGridS),
		beyond, warmupBaselineBandwidth)
	return wrap(intro, liveWidth) + "\n\n" + strings.TrimRight(khaosMarkdownTable(rows), "\n")
}
