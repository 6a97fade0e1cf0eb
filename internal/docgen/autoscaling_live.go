package docgen

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// The live rescale profile's measured table (make live-rescale-profile)
// and its twin.
const (
	asLiveRescalesCSV = "scenarios/measured/live-rescales.csv"
	asRescaleScenario = "scenarios/live-rescale-calibrated.yaml"
	asLiveDaedalusDir = "results/reference/live/daedalus-live"
	asTwinDaedalusDir = "results/reference/live/daedalus-sim"
	asDeployTol       = 0.01 // s: the scenario's deploy times are the fit, rounded
)

// asReadRescalesCSV reads a table of `streamtwin results rescales`.
func asReadRescalesCSV(path string) ([]measure.Rescale, error) {
	cols := []string{"at_s", "from", "to", "input_rate", "delay_s", "downtime_s", "recovery_s"}
	var rs []measure.Rescale
	err := asReadCSV(path, cols, cols, func(cells map[string]string) error {
		var x measure.Rescale
		var err error
		for p, name := range map[*float64]string{&x.AtS: "at_s", &x.InputRate: "input_rate", &x.DelayS: "delay_s", &x.DowntimeS: "downtime_s", &x.RecoveryS: "recovery_s"} {
			if *p, err = asCSVFloat(cells[name]); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if x.From, err = strconv.Atoi(cells["from"]); err != nil {
			return err
		}
		x.To, err = strconv.Atoi(cells["to"])
		rs = append(rs, x)
		return err
	})
	return rs, err
}

// asRescaleProfile is the measured rescales, their loads in order, and the
// twin's fits: each load left out once, then all.
type asRescaleProfile struct {
	measured []measure.Rescale
	loads    []float64
	// twin's downtimes, by fold (a load left out; 0: the scenario as
	// committed, fitted on all)
	folds   map[float64][]measure.Rescale
	twin    []measure.Rescale // the scenario as committed
	upFit   float64           // up_deploy fitted on every load
	downFit float64
	scen    *scenario.File
}

// asDeployFit is the mean of measured − restore over the rescales in one
// direction at loads other than skip, at least 0: the deploy time that
// makes the twin's mean downtime the measured one.
func asDeployFit(measured, restore []measure.Rescale, up bool, skip float64) float64 {
	var sum float64
	n := 0
	for i, m := range measured {
		if m.Up() == up && m.InputRate != skip {
			sum += m.DowntimeS - restore[i].DowntimeS
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return max(0, sum/float64(n))
}

// asLiveRescaleProfile measures the twin against the live rescales: the
// scenario with no deploy time gives the twin's restore per rescale; each
// fold's deploy times are fitted on the other loads and the scenario is
// run with them.
func asLiveRescaleProfile(c *Context) (*asRescaleProfile, error) {
	p := &asRescaleProfile{folds: map[float64][]measure.Rescale{}}
	var err error
	if p.measured, err = asReadRescalesCSV(c.Path(asLiveRescalesCSV)); err != nil {
		return nil, err
	}
	for _, m := range p.measured {
		if !slices.Contains(p.loads, m.InputRate) {
			p.loads = append(p.loads, m.InputRate)
		}
	}
	if p.scen, err = scenario.Load(c.Path(asRescaleScenario)); err != nil {
		return nil, err
	}
	dir := c.Out("live-rescale-calibrated")
	if _, err := c.Streamtwin("run", asRescaleScenario, "--out", dir); err != nil {
		return nil, err
	}
	twin, err := asReadRun(dir)
	if err != nil {
		return nil, err
	}
	p.twin = twin.rescales
	// the twin's restore: no deploy time
	restore, err := asRescaleSweep(c, p, []float64{0}, []float64{0})
	if err != nil {
		return nil, err
	}
	zero := restore[[2]float64{0, 0}]
	ups, downs := []float64{0}, []float64{0}
	for _, l := range p.loads {
		ups = append(ups, asDeployFit(p.measured, zero, true, l))
		downs = append(downs, asDeployFit(p.measured, zero, false, l))
	}
	p.upFit, p.downFit = asDeployFit(p.measured, zero, true, -1), asDeployFit(p.measured, zero, false, -1)
	runs, err := asRescaleSweep(c, p, ups, downs)
	if err != nil {
		return nil, err
	}
	for i, l := range p.loads {
		p.folds[l] = runs[[2]float64{ups[i+1], downs[i+1]}]
	}
	return p, nil
}

// asRescaleSweep runs the rescale scenario over a grid of up_deploy ×
// down_deploy (s) and returns each run's rescales by (up, down); each must
// pair with the measured ones.
func asRescaleSweep(c *Context, p *asRescaleProfile, ups, downs []float64) (map[[2]float64][]measure.Rescale, error) {
	ups, downs = slices.Compact(slices.Sorted(slices.Values(ups))), slices.Compact(slices.Sorted(slices.Values(downs)))
	list := func(xs []float64) string {
		return "[" + strings.Join(asMap(xs, func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) + "s" }), ", ") + "]"
	}
	scen, err := filepath.Abs(c.Path(asRescaleScenario)) // the sweep file is elsewhere
	if err != nil {
		return nil, err
	}
	spec := fmt.Sprintf("scenario: %s\nparameters:\n  job.rescale.up_deploy: %s\n  job.rescale.down_deploy: %s\n",
		strconv.Quote(scen), list(ups), list(downs))
	// named by its content, so that a second call reuses the first's run
	h := fnv.New64a()
	h.Write([]byte(spec))
	name := fmt.Sprintf("rescale-folds-%x", h.Sum64())
	specPath := c.Out(name + ".yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		return nil, err
	}
	dir := c.Out(name)
	if _, err := c.Streamtwin("sweep", specPath, "--out", dir); err != nil {
		return nil, err
	}
	t, err := results.ReadTable(filepath.Join(dir, results.RunsFile))
	if err != nil {
		return nil, err
	}
	up, down, ids := t.Column("job.rescale.up_deploy"), t.Column("job.rescale.down_deploy"), t.Strings["run_id"]
	if up == nil || down == nil || ids == nil {
		return nil, fmt.Errorf("%s: no run_id or job.rescale.*_deploy column", results.RunsFile)
	}
	out := map[[2]float64][]measure.Rescale{}
	for i, id := range ids {
		r, err := asReadRun(filepath.Join(dir, "runs", id))
		if err != nil {
			return nil, err
		}
		if err := asPaired(p.measured, r.rescales); err != nil {
			return nil, fmt.Errorf("%s (up_deploy %gs, down_deploy %gs): %w", asRescaleScenario, up[i], down[i], err)
		}
		// the grid's values, as written, for the callers' keys
		key := [2]float64{asNearest(ups, up[i]), asNearest(downs, down[i])}
		out[key] = r.rescales
	}
	return out, nil
}

// asNearest is the x of xs closest to v (a parameter read back from a
// table in base units).
func asNearest(xs []float64, v float64) float64 {
	best := xs[0]
	for _, x := range xs {
		if math.Abs(x-v) < math.Abs(best-v) {
			best = x
		}
	}
	return best
}

// asPaired checks that the twin's rescales are the measured ones, in order.
func asPaired(measured, twin []measure.Rescale) error {
	if len(measured) != len(twin) {
		return fmt.Errorf("%d rescales, the measured table has %d", len(twin), len(measured))
	}
	for i := range measured {
		if measured[i].From != twin[i].From || measured[i].To != twin[i].To {
			return fmt.Errorf("rescale %d is %d → %d, measured %d → %d", i+1, twin[i].From, twin[i].To, measured[i].From, measured[i].To)
		}
	}
	return nil
}

// asMeanDowntime is the mean downtime of the rescales in one direction at
// load (any load: -1); the measured table's loads pick the twin's
// rescales, which pair with them.
func asMeanDowntime(measured, rs []measure.Rescale, up bool, load float64) float64 {
	var xs []float64
	for i, m := range measured {
		if m.Up() == up && (load < 0 || m.InputRate == load) {
			xs = append(xs, rs[i].DowntimeS)
		}
	}
	return statistics.FiniteMean(xs)
}

func asMeanDelay(rs []measure.Rescale, up bool) float64 {
	var xs []float64
	for _, r := range rs {
		if r.Up() == up {
			xs = append(xs, r.DelayS)
		}
	}
	return statistics.FiniteMean(xs)
}

// asValues is a field of the rescales in one direction.
func asValues(rs []measure.Rescale, up bool, f func(measure.Rescale) float64) []float64 {
	var xs []float64
	for _, r := range rs {
		if r.Up() == up {
			xs = append(xs, f(r))
		}
	}
	return xs
}

// asLiveRescales describes the measured rescales and the twin's fit.
func asLiveRescales(c *Context) (string, error) {
	p, err := asLiveRescaleProfile(c)
	if err != nil {
		return "", err
	}
	var cs asClaims
	// the same sequence of parallelisms at each load
	var seq []string
	byLoad := map[float64][][2]int{}
	for _, m := range p.measured {
		byLoad[m.InputRate] = append(byLoad[m.InputRate], [2]int{m.From, m.To})
		if m.InputRate == p.loads[0] {
			if len(seq) == 0 {
				seq = append(seq, strconv.Itoa(m.From))
			}
			seq = append(seq, strconv.Itoa(m.To))
		}
	}
	for _, l := range p.loads {
		cs.check(slices.Equal(byLoad[l], byLoad[p.loads[0]]), "the job rescaled alike at every load (%s/s)", num(l))
	}
	// whether the job is down longer at each higher load, per direction
	longer := map[bool]bool{}
	for _, up := range []bool{true, false} {
		longer[up] = true
		for i := 1; i < len(p.loads); i++ {
			if asMeanDowntime(p.measured, p.measured, up, p.loads[i]) <= asMeanDowntime(p.measured, p.measured, up, p.loads[i-1]) {
				longer[up] = false
			}
		}
	}
	trend := map[[2]bool]string{
		{true, true}:   "longer at higher load (more window state)",
		{true, false}:  "longer at higher load going up (more window state), not going down",
		{false, true}:  "longer at higher load going down (more window state), not going up",
		{false, false}: "with no steady trend in the load",
	}[[2]bool{longer[true], longer[false]}]
	rr := p.scen.Base.Job.Rescale
	cs.check(math.Abs(float64(rr.UpDeploy)-p.upFit) < asDeployTol && math.Abs(float64(rr.DownDeploy)-p.downFit) < asDeployTol,
		"%s's up_deploy and down_deploy (%s s, %s s) are the fit on every load (%s s, %s s)", asRescaleScenario,
		num(float64(rr.UpDeploy)), num(float64(rr.DownDeploy)), num(p.upFit), num(p.downFit))
	if err := cs.err(); err != nil {
		return "", err
	}
	ho, err := asRescaleHeldOut(c)
	if err != nil {
		return "", err
	}
	delay := func(r measure.Rescale) float64 { return r.DelayS }
	down := func(r measure.Rescale) float64 { return r.DowntimeS }
	loads := asMap(p.loads, num)
	return fmt.Sprintf(`The traffic-monitoring job rescaled %s at %s/s, %d rescales. Flink 2.2 restarted the job %s s after
a scale-up decision and %s s after a scale-down's; the job was down %s s going up and %s s going
down, %s. `+"`%s`"+` takes `+"`up_delay`"+` %s s,
`+"`down_delay`"+` %s s, `+"`up_deploy`"+` %s s and `+"`down_deploy`"+` %s s from it, fitted per direction by
`+"`streamtwin calibrate rescales`"+` (docs/calibration.md); each rescale left out once, the twin predicts a
scale-up's downtime within %s s on average (the mean of the other scale-ups: %s s) and a scale-down's
within %s s (%s s), while the delay, set by the checkpoint's phase, neither predicts (%s and %s s
against %s and %s s). `+"`rescale.on_checkpoint`"+` is the adaptive scheduler's wait for a checkpoint.
Its mean downtime per load, each load left out of the fit once:`,
		strings.Join(seq, " → "), asAnd(loads), len(p.measured),
		asSpan(asValues(p.measured, true, delay), num), asSpan(asValues(p.measured, false, delay), num),
		asSpan(asValues(p.measured, true, down), num), asSpan(asValues(p.measured, false, down), num), trend,
		asRescaleScenario, num(float64(rr.UpDelay)), num(float64(rr.DownDelay)), num(float64(rr.UpDeploy)), num(float64(rr.DownDeploy)),
		num(ho["up heldout downtime"]), num(ho["up mean downtime"]), num(ho["down heldout downtime"]), num(ho["down mean downtime"]),
		num(ho["up heldout delay"]), num(ho["down heldout delay"]), num(ho["up mean delay"]), num(ho["down mean delay"])), nil
}

// asRescaleFitReport is the committed report of streamtwin calibrate
// rescales for the rescale scenario.
const asRescaleFitReport = "scenarios/live-rescale-calibrated-fit/rescales.csv"

// asRescaleHeldOut is the mean absolute held-out error of the twin and of
// the per-direction mean, keyed "up heldout downtime", "down mean delay", …,
// from the committed fit report (one fit: the block reads it, never redoes it).
func asRescaleHeldOut(c *Context) (map[string]float64, error) {
	b, err := os.ReadFile(filepath.Join(c.Root, asRescaleFitReport))
	if err != nil {
		return nil, err
	}
	// every column of the report is known; the ones read are required
	header, _, _ := strings.Cut(string(b), "\n")
	required := []string{"direction"}
	for _, q := range []string{"delay", "downtime"} {
		required = append(required, "heldout_err_"+q+"_s", "mean_err_"+q+"_s")
	}
	sum, n := map[string]float64{}, map[string]float64{}
	err = ingest.ReadCSVTable(asRescaleFitReport, bytes.NewReader(b), strings.Split(strings.TrimSpace(header), ","), required, func(line int, cells map[string]string) error {
		for _, q := range []string{"delay", "downtime"} {
			for _, who := range []string{"heldout", "mean"} {
				v, err := strconv.ParseFloat(cells[who+"_err_"+q+"_s"], 64)
				if err != nil {
					return fmt.Errorf("%s:%d: %s_err_%s_s: %w", asRescaleFitReport, line, who, q, err)
				}
				k := cells["direction"] + " " + who + " " + q
				sum[k] += math.Abs(v)
				n[k]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range sum {
		sum[k] /= n[k]
	}
	if len(sum) != 8 {
		return nil, fmt.Errorf("%s: want up and down rescales, got %v", asRescaleFitReport, slices.Sorted(maps.Keys(sum)))
	}
	return sum, nil
}

// asLiveRescalesTable is the measured and the twin's mean downtime per
// load, and the delays.
func asLiveRescalesTable(c *Context) (string, error) {
	p, err := asLiveRescaleProfile(c)
	if err != nil {
		return "", err
	}
	cell := func(twin, measured float64) string {
		return num(twin) + " s (" + textfmt.SignedCount(100*(twin/measured-1)) + " %)"
	}
	var b strings.Builder
	b.WriteString("| load | up, measured | up, twin | down, measured | down, twin |\n|---|---|---|---|---|\n")
	row := func(label string, twin []measure.Rescale, load float64) {
		mu, md := asMeanDowntime(p.measured, p.measured, true, load), asMeanDowntime(p.measured, p.measured, false, load)
		tu, td := asMeanDowntime(p.measured, twin, true, load), asMeanDowntime(p.measured, twin, false, load)
		fmt.Fprintf(&b, "| %s | %s s | %s | %s s | %s |\n", label, num(mu), cell(tu, mu), num(md), cell(td, md))
	}
	for _, l := range p.loads {
		row(num(l)+"/s", p.folds[l], l)
	}
	row("all (fit on all)", p.twin, -1)
	mu, md := asMeanDelay(p.measured, true), asMeanDelay(p.measured, false)
	tu, td := asMeanDelay(p.twin, true), asMeanDelay(p.twin, false)
	fmt.Fprintf(&b, "\nThe delay from decision to restart is %s s up and %s s down measured, %s s and %s s in the twin", num(mu), num(md), num(tu), num(td))
	if md < td {
		// the twin's restart always waits for a checkpoint after its delay
		b.WriteString(":\nFlink sometimes restarts a scale-down without waiting for a checkpoint, the twin always waits.")
	} else {
		b.WriteString(".")
	}
	return b.String(), nil
}

// asDaedalusLive is the live Daedalus run against its twin, from the
// committed results of `make live-daedalus`.
func asDaedalusLive(c *Context) (string, error) {
	live, err := asReadRun(c.Path(asLiveDaedalusDir))
	if err != nil {
		return "", err
	}
	twin, err := asReadRun(c.Path(asTwinDaedalusDir))
	if err != nil {
		return "", err
	}
	var cs asClaims
	steps := func(r *asRun) string {
		var s []string
		for _, x := range r.rescales {
			s = append(s, fmt.Sprintf("%d → %d at %s s", x.From, x.To, num(x.AtS)))
		}
		return asAnd(s)
	}
	meanPar := func(r *asRun) float64 {
		var xs []float64
		for _, s := range r.samples {
			xs = append(xs, float64(s.Parallelism))
		}
		return statistics.FiniteMean(xs)
	}
	field := func(r *asRun, f func(measure.Rescale) float64) []string {
		var s []string
		for _, x := range r.rescales {
			s = append(s, num(f(x)))
		}
		return s
	}
	// decisions the run ended before carrying out
	var late []string
	for _, e := range live.events {
		if e.Kind != results.KindPolicyDecision || e.Value == nil || !strings.HasPrefix(e.Reason, "rescale:") ||
			slices.ContainsFunc(live.rescales, func(x measure.Rescale) bool { return x.AtS == e.TimeS }) {
			continue
		}
		from := 0
		for _, s := range live.samples {
			if s.TimeS <= e.TimeS {
				from = int(s.Parallelism)
			}
		}
		if from != int(*e.Value) {
			late = append(late, fmt.Sprintf("%d → %d at %s s", from, int(*e.Value), num(e.TimeS)))
		}
	}
	for _, x := range live.rescales {
		cs.check(!math.IsNaN(x.RecoveryS), "every live rescale recovered")
	}
	cs.check(len(live.rescales) > 0 && len(twin.rescales) > 0 && live.rescales[0].AtS != twin.rescales[0].AtS, "the first decisions diverge")
	top := 0
	for _, r := range []*asRun{live, twin} {
		for _, x := range r.rescales {
			top = max(top, x.To)
		}
	}
	for _, nr := range []struct {
		name string
		r    *asRun
	}{{"live", live}, {"twin", twin}} {
		name, r := nr.name, nr.r
		// both fall back to the maximum when no forecast is coverable
		// (Plan's reason for it)
		fallback := slices.ContainsFunc(r.events, func(e results.Event) bool {
			return e.Kind == results.KindPolicyDecision && e.Value != nil && int(*e.Value) == top &&
				strings.Contains(e.Reason, "no parallelism covers the forecast")
		})
		cs.check(fallback, "the %s run falls back to the maximum when no forecast is coverable", name)
		// both scale down after the morning peak and up for the evening one
		var dirs []bool
		for _, x := range r.rescales {
			dirs = append(dirs, x.Up())
		}
		cs.check(slices.Equal(dirs, []bool{true, false, true}), "the %s run scales up, down after the morning peak and up for the evening one", name)
	}
	cs.check(len(live.rescales) == len(twin.rescales), "live and twin rescale as often")
	for i := range min(len(live.rescales), len(twin.rescales)) {
		cs.check(live.rescales[i].DowntimeS > twin.rescales[i].DowntimeS, "quarter-core TaskManagers are down longer than the twin's (rescale %d)", i+1)
	}
	if err := cs.err(); err != nil {
		return "", err
	}
	lateText := ""
	if len(late) > 0 {
		lateText = " (and decided " + asAnd(late) + ", at the end of the run)"
	}
	restore := func(x measure.Rescale) float64 { return x.RecoveryS }
	down := func(x measure.Rescale) float64 { return x.DowntimeS }
	return fmt.Sprintf(`It scaled %s%s; every rescale recovered (%s s from the restart), the largest lag was %s records,
and the job ran on %s TaskManagers on average. The twin of the same schedule scaled %s, on %s on
average: the first decisions diverge (`+"`compare --decisions`"+`), both fall back to the maximum when no
forecast is coverable, both scale down after the morning peak and up for the evening one. The live
rescales of quarter-core TaskManagers were down %s s, against %s s in the twin, whose rescale
parameters come from full-speed TaskManagers: a CPU limit slows deployment and restore too.`,
		steps(live), lateText, asAnd(field(live, restore)), asWhole(float64(live.summary.LagMax)), num(meanPar(live)),
		steps(twin), num(meanPar(twin)), asAnd(field(live, down)), asAnd(field(twin, down))), nil
}
