package docgen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/streamtwin/streamtwin/results"
)

// The live warm-up block (make live-warmup, issue 33): how fast a job
// drains a backlog right after it restarts, live against the twin. One
// quarter-core TaskManager falls behind, then the job restarts: scaled up
// to three TaskManagers (up3, fitted), to two (up2, held out), or its CI
// changed on the same warm TaskManager (ci20, held out). While the job
// drains, its throughput is what it can process; read as a share of the
// twin's full capacity at that parallelism, it is the warm-up ramp
// min(1, s0 + (1 − s0)·τ/W) at τ seconds after the restart, fitted by
// least squares on a grid to up3's seconds (rescale.up_warmup = W,
// up_warmup_start = s0). The baseline is the twin without the ramp. The
// block fails, naming the values to set, when the scenario's are not the
// fit.

const (
	warmupRef      = "results/reference/live/warmup"
	warmupScenario = "scenarios/live-warmup.yaml"
	warmupFitted   = "up3"
	warmupWindow   = 120.0 // s after the restart the drain is read over
	warmupEarly    = 30.0  // s: the early drain rate is read over the first this many
	warmupGridW    = 1.0   // s: the grid of W, from 0 to warmupMaxW
	warmupMaxW     = 600.0 // s: the longest ramp fitted (the run lasts 270 s)
	warmupGridS    = 0.01  // the grid of s0, from 0 to 0.99
)

var warmupVariants = []string{"up3", "up2", "ci20"}

// warmupRun is what the block reads of one run: the restart (the job
// RUNNING again), the catch-up after it, and its per-second samples.
type warmupRun struct {
	restart, downtime, catchUp float64 // s; catchUp NaN: never
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
	for _, e := range events {
		switch {
		case e.Kind == results.KindReconfigured && math.IsNaN(r.restart):
			r.restart = e.TimeS
			if e.DurationS != nil {
				r.downtime = *e.DurationS
			}
		case e.Kind == results.KindRecovered && !math.IsNaN(r.restart) && math.IsNaN(r.catchUp) && strings.HasPrefix(e.Reason, "reconfiguration"):
			r.catchUp = e.TimeS - r.restart
		}
	}
	if math.IsNaN(r.restart) {
		return r, fmt.Errorf("%s: no reconfiguration: the run did not restart", dir)
	}
	return r, nil
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
	return results.FiniteMean(xs)
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
)

// upWarmupOf is rescale.up_warmup and up_warmup_start of a scenario's text.
func upWarmupOf(text string) (w, s0 float64, err error) {
	m, n := upWarmupRe.FindStringSubmatch(text), upWarmupStartRe.FindStringSubmatch(text)
	if m == nil || n == nil {
		return 0, 0, fmt.Errorf("no rescale.up_warmup and up_warmup_start")
	}
	if _, err := fmt.Sscan(m[1], &w); err != nil {
		return 0, 0, err
	}
	if _, err := fmt.Sscan(n[1], &s0); err != nil {
		return 0, 0, err
	}
	return w, s0, nil
}

// warmupTwin runs the twin on every variant of the warm-up scenario's
// text and reads the runs.
func warmupTwin(c *Context, text, name string) (map[string]warmupRun, error) {
	sc := filepath.Join(c.Out(name+"-scenario"), "live-warmup.yaml")
	if err := os.MkdirAll(filepath.Dir(sc), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(sc, []byte(text), 0o644); err != nil {
		return nil, err
	}
	out := c.Out(name)
	if _, err := c.Streamtwin("run", sc, "--out", out); err != nil {
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
	w, s0, err := upWarmupOf(text)
	if err != nil {
		return "", fmt.Errorf("%s: %w", warmupScenario, err)
	}
	twin, err := warmupTwin(c, text, "live-warmup-twin")
	if err != nil {
		return "", err
	}
	base, err := warmupTwin(c, upWarmupRe.ReplaceAllString(text, "up_warmup: 0s"), "live-warmup-baseline")
	if err != nil {
		return "", err
	}
	tau, thr := live[warmupFitted].draining()
	if len(tau) < 5 {
		return "", fmt.Errorf("%s/%s: the job was behind for %d seconds after the restart: too few to fit a ramp to", warmupRef, warmupFitted, len(tau))
	}
	full := base[warmupFitted].fullCapacity()
	y := make([]float64, len(thr))
	for i := range thr {
		y[i] = thr[i] / full
	}
	fw, fs := fitRamp(tau, y)
	if math.Abs(fw-w) > warmupGridW/2 || math.Abs(fs-s0) > warmupGridS/2 {
		return "", fmt.Errorf("%s: rescale.up_warmup %gs, up_warmup_start %g are not the fit to %s/%s (%gs, %g): set them there, "+
			"in scenarios/live-autoscaling.yaml, scenarios/live-wordcount.yaml and scenarios/live-rescale-calibrated.yaml",
			warmupScenario, w, s0, warmupRef, warmupFitted, fw, fs)
	}
	pct := func(a, b float64) string {
		if math.IsNaN(a) || math.IsNaN(b) {
			return "–"
		}
		return fmt.Sprintf("%+.0f %%", 100*(a-b)/b)
	}
	count := func(x float64) string { return results.FormatCount(math.Round(x)) }
	secs := func(x float64) string {
		if math.IsNaN(x) {
			return "not by the end"
		}
		return fmt.Sprintf("%.1f", x)
	}
	rows := [][]string{{"run", "role", "quantity", "live", "twin", "error", "baseline twin", "error"}}
	for _, v := range warmupVariants {
		role := "held out"
		if v == warmupFitted {
			role = "fitted"
		}
		l, t, bl := live[v], twin[v], base[v]
		rows = append(rows,
			[]string{v, "held out", "downtime of the restart (s)", secs(l.downtime), secs(t.downtime), pct(t.downtime, l.downtime), secs(bl.downtime), pct(bl.downtime, l.downtime)},
			[]string{v, role, fmt.Sprintf("records/s drained in the first %s after the restart", seconds(warmupEarly)),
				count(l.earlyDrain()), count(t.earlyDrain()), pct(t.earlyDrain(), l.earlyDrain()), count(bl.earlyDrain()), pct(bl.earlyDrain(), l.earlyDrain())},
			[]string{v, role, "catch-up after the restart (s)", secs(l.catchUp), secs(t.catchUp), pct(t.catchUp, l.catchUp), secs(bl.catchUp), pct(bl.catchUp, l.catchUp)})
	}
	beyond := ""
	if fw > warmupWindow {
		beyond = fmt.Sprintf(" The ramp is longer than the %s it is read over: its end is extrapolated.", seconds(warmupWindow))
	}
	intro := fmt.Sprintf("`make live-warmup` (`%s`, committed in `%s`): one quarter-core TaskManager falls behind at 12,000/s, "+
		"and at 120 s the job restarts with a backlog: scaled up to three TaskManagers (up3), to two (up2), or its checkpoint "+
		"interval changed on the same TaskManager (ci20). While the job is behind, its throughput is what it can process. "+
		"Read as a share of the twin's full capacity at three TaskManagers (%s records/s) over the %d seconds up3 was behind "+
		"within %s of its restart, it fits the ramp min(1, s0 + (1 − s0)·τ/W) at W = %s s, s0 = %s (least squares on a grid "+
		"of %s s up to %s and of %s): the twin's rescale.up_warmup and up_warmup_start after a scale-up.%s The baseline is "+
		"the twin without the ramp. The downtime is the rescale line's (make live-rescale-profile, at 1,000–3,000/s), held out here.",
		warmupScenario, warmupRef, count(full), len(tau), seconds(warmupWindow), num(fw), num(fs), num(warmupGridW), seconds(warmupMaxW),
		num(warmupGridS), beyond)
	return wrap(intro, liveWidth) + "\n\n" + strings.TrimRight(khaosMarkdownTable(rows), "\n"), nil
}
