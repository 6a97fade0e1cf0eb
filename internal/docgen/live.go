package docgen

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/ingest"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

// liveBlocks are the generated blocks of docs/live.md. Twin numbers come
// from running streamtwin on the committed scenarios; live numbers from the
// committed live outputs (results/reference/live/, scenarios/measured/),
// never from a cluster: make docs runs without one. Live numbers whose
// data is not committed yet stay hand-typed in the documents, marked "not
// yet regenerated", and their blocks wait in pendingLiveBlocks.
func liveBlocks() []Block {
	return []Block{
		{"live marker latency", liveMarkerLatency},
		{"live calibration", liveCalibration},
		{"live-khaos prediction", liveKhaosPrediction},
		{"live-khaos compare", liveKhaosCompare},
		{"live-khaos decisions", liveKhaosDecisions},
		{"live-khaos repeat", liveKhaosRepeat},
		{"live host profile", liveHostProfile},
		{"live soak", liveSoakTable},
		{"live deployment spread", liveDeploySpread},
		{"live soak sweep spread", liveSoakSweepSpread},
		{"live fault table", liveFaultTable},
		{"readme live soak", readmeLiveSoak},
		{"live end-to-end", liveEndToEnd},
		{"live prometheus sampler run", livePrometheusRun},
		{"live capacity", liveCapacityTable},
		{"live warm-up", liveWarmupTable},
		{"live autoscaling league", liveAutoscalingLeague},
		{"live against live", liveAgainstLive},
		{"live wordcount", liveWordcount},
		{"readme live wordcount", readmeLiveWordcount},
	}
}

// A pendingBlock is a block whose live data is not committed yet: Data
// (relative to the repository root) is what Target copies there. Until it
// exists the document keeps the hand-typed numbers, marked "not yet
// regenerated"; once it does, TestPendingLiveData fails until the block's
// markers replace them and the block moves to liveBlocks (or
// monitoringBlocks).
type pendingBlock struct {
	Block
	Data, Doc, Target string
}

// pendingLiveBlocks wait for their live data (see pendingBlock).
func pendingLiveBlocks() []pendingBlock {
	return nil
}

// The committed live outputs.
const (
	liveKhaosRef      = "results/reference/live/live-khaos"
	liveTolerance     = "results/reference/live/twin-vs-live.yaml"
	liveSoakRef       = "results/reference/live/live-soak"
	liveTrafficRef    = "results/reference/live/live-traffic"
	liveMonitoringRef = "results/reference/live/live-monitoring"
	livePrometheusRef = "results/reference/live/live-prometheus/sampler-run.csv"
	liveKhaosScenario = "scenarios/live-khaos.yaml"
	liveKhaosModels   = "scenarios/live-khaos-profile/models.json"
	liveTrafficFails  = "scenarios/measured/live-traffic-failures.csv"
	liveCalibratedFit = "scenarios/live-traffic-calibrated-fit/fit.json"
	liveCalibrated    = "scenarios/live-traffic-calibrated.yaml"
	liveSeedsSweep    = "scenarios/sweeps/live-traffic-seeds.yaml"
	liveWidth         = 103
)

// span is "lo–hi unit", or one value when both read the same.
func liveSpan(lo, hi float64, unit string) string {
	if num(lo) == num(hi) {
		return num(lo) + unit
	}
	return num(lo) + "–" + num(hi) + unit
}

// liveMarkerLatency: the latency markers of the committed live Khaos run,
// at steady state and during a catch-up.
func liveMarkerLatency(c *Context) (string, error) {
	samples, err := results.ReadSamples(c.Path(filepath.Join(liveKhaosRef, results.TimeseriesFile)))
	if err != nil {
		return "", err
	}
	var steady, catchUp, rates []float64
	for _, s := range samples {
		m := s.Latency("marker")
		switch {
		case s.Recovering:
			catchUp = statistics.AppendFinite(catchUp, m)
		case s.JobState == "RUNNING":
			steady = statistics.AppendFinite(steady, m)
			rates = append(rates, s.InputRate)
		}
	}
	if len(steady) == 0 || len(catchUp) == 0 {
		return "", fmt.Errorf("%s: no latency markers at steady state or during a catch-up", liveKhaosRef)
	}
	lo, hi := statistics.Quantile(slices.Clone(steady), 0.05), statistics.Quantile(slices.Clone(steady), 0.95)
	peak := slices.Max(catchUp)
	if peak <= hi {
		return "", fmt.Errorf("claim no longer holds: the markers rise during a catch-up (%g ms, steady p95 %g ms)", peak, hi)
	}
	return wrap(fmt.Sprintf("In the committed live Khaos run (`%s`, %s events/s) the latency-marker p99 is %s at steady state "+
		"(5th to 95th percentile of the seconds outside recoveries) and up to %s during a catch-up.",
		liveKhaosRef, textfmt.Count(statistics.Quantile(rates, 0.5)), liveSpan(lo, hi, " ms"), seconds(peak/1000)), liveWidth), nil
}

// calibrationFit is the part of a calibration's fit.json the docs quote.
type calibrationFit struct {
	Holdout    string `json:"holdout"`
	Parameters []struct {
		Name  string   `json:"name"`
		Unit  string   `json:"unit"`
		Value float64  `json:"value"`
		Flags []string `json:"flags"`
	} `json:"parameters"`
	CapacityBefore float64            `json:"capacity_before_records_per_s"`
	CapacityAfter  float64            `json:"capacity_after_records_per_s"`
	Fit            map[string]float64 `json:"fit"`
	HeldOut        map[string]float64 `json:"held_out"`
}

// seedSweep is the calibrated twin of the end-to-end schedule over 30
// seeds: the recovery of each run.
func seedSweep(c *Context) ([]float64, error) {
	dir := c.Out("live-traffic-seeds")
	if _, err := c.Streamtwin("sweep", liveSeedsSweep, "--out", dir); err != nil {
		return nil, err
	}
	names, err := results.RunSubfolders(filepath.Join(dir, "runs"))
	if err != nil {
		return nil, err
	}
	var rec []float64
	for _, n := range names {
		s, err := results.ReadSummary(filepath.Join(dir, "runs", n))
		if err != nil {
			return nil, err
		}
		if s.Faults != 1 || s.Recoveries != 1 {
			return nil, fmt.Errorf("claim no longer holds: every seed of %s recovers from its one kill (%s: %d faults, %d recovered)", liveSeedsSweep, n, s.Faults, s.Recoveries)
		}
		rec = append(rec, s.RecoveryMeanS)
	}
	if len(rec) == 0 {
		return nil, fmt.Errorf("%s: no runs", liveSeedsSweep)
	}
	return rec, nil
}

// eventDuration is the duration of the first event of a kind whose reason
// starts with prefix (any reason for "").
func eventDuration(events []results.Event, kind, prefix string) (float64, bool) {
	for _, e := range events {
		if e.Kind == kind && e.DurationS != nil && strings.HasPrefix(e.Reason, prefix) {
			return *e.DurationS, true
		}
	}
	return 0, false
}

// liveCalibration: the committed live profile, what make calibration-live
// fitted on it, and the calibrated twin on the end-to-end schedule.
func liveCalibration(c *Context) (string, error) {
	meas, err := ingest.ReadMeasured(c.Path(liveTrafficFails))
	if err != nil {
		return "", err
	}
	var levels, cis, rec []float64
	for _, m := range meas {
		if !(m.RecoveryS > 0) || math.IsInf(m.RecoveryS, 0) {
			return "", fmt.Errorf("claim no longer holds: every kill of %s recovered (line %d: %g s)", liveTrafficFails, m.Line, m.RecoveryS)
		}
		levels = append(levels, 1000*math.Round(m.Throughput/1000))
		cis = append(cis, m.CheckpointIntervalS)
		rec = append(rec, m.RecoveryS)
	}
	slices.Sort(levels)
	slices.Sort(cis)
	levels, cis = slices.Compact(levels), slices.Compact(cis)
	data, err := os.ReadFile(c.Path(liveCalibratedFit))
	if err != nil {
		return "", err
	}
	var fit calibrationFit
	if err := json.Unmarshal(data, &fit); err != nil {
		return "", fmt.Errorf("%s: %w", liveCalibratedFit, err)
	}
	held, err := sim.ParseDuration(fit.Holdout)
	if err != nil {
		return "", fmt.Errorf("%s: holdout %q: %w", liveCalibratedFit, fit.Holdout, err)
	}
	var fitted, heldOut []string
	for _, ci := range cis {
		if ci == held.Seconds() {
			heldOut = append(heldOut, num(ci))
		} else {
			fitted = append(fitted, num(ci))
		}
	}
	if len(heldOut) != 1 {
		return "", fmt.Errorf("%s holds out CI %s, which %s does not have", liveCalibratedFit, fit.Holdout, liveTrafficFails)
	}
	var params, flagged []string
	for _, p := range fit.Parameters {
		v := num(p.Value)
		if p.Unit != "" {
			v += " " + p.Unit
		}
		params = append(params, fmt.Sprintf("`%s` %s", p.Name, v))
		if len(p.Flags) > 0 {
			flagged = append(flagged, fmt.Sprintf("`%s` (%s)", p.Name, strings.Join(p.Flags, "; ")))
		}
	}
	if len(fit.Parameters) == 0 {
		return "", fmt.Errorf("%s fitted nothing", liveCalibratedFit)
	}
	flags := ""
	if len(flagged) > 0 {
		flags = " Its report flags " + andList(flagged) + "."
	}
	if fit.Fit["n"]+fit.HeldOut["n"] != float64(len(meas)) {
		return "", fmt.Errorf("%s fitted %g and held out %g kills, %s has %d: re-run make calibration-live", liveCalibratedFit, fit.Fit["n"], fit.HeldOut["n"], liveTrafficFails, len(meas))
	}
	seeds, err := seedSweep(c)
	if err != nil {
		return "", err
	}
	mean, _, sd := statistics.MeanCI(seeds)
	// the scenario's own seed: its downtime and its CI change
	dir := c.Out("live-traffic-calibrated")
	if _, err := c.Streamtwin("run", liveCalibrated, "--out", dir); err != nil {
		return "", err
	}
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return "", err
	}
	samples, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
	if err != nil {
		return "", err
	}
	var rates []float64
	for _, s := range samples {
		rates = append(rates, s.InputRate)
	}
	down, okDown := eventDuration(events, results.KindRunning, "")
	reconf, okReconf := eventDuration(events, results.KindReconfigured, "")
	if !okDown || !okReconf || len(samples) == 0 {
		return "", fmt.Errorf("%s: no restart after the kill, or no CI change", liveCalibrated)
	}
	s := fmt.Sprintf("The committed profile (`%s`) holds %s at %s records/s and CI %s s, every one recovered, in %s "+
		"(median %s). `make calibration-live` fitted %s on the %s kills at CI %s s and held out the %s at CI %s s: "+
		"recovery MAPE %s %% on the fitted kills and %s %% on the held-out ones, against %s %% and %s %% for the closed "+
		"form and %s %% and %s %% for Khaos's OLS (`%s`).%s The job's capacity, %s records/s with the template's "+
		"operator costs, becomes %s records/s.\n\n"+
		"On the end-to-end schedule (`%s`: %s records/s, CI %s, one kill 3 s before a checkpoint, one CI change) the "+
		"calibrated twin recovers in %s ± %s over %s seeds (%s; `streamtwin sweep %s`); with the scenario's own seed "+
		"the job runs again %s after the kill, and the CI change by stop-with-savepoint and resubmit takes %s.",
		liveTrafficFails, textfmt.Plural(len(meas), "kill"), andList(liveCounts(levels)), andList(liveNums(cis)),
		liveSpan(slices.Min(rec), slices.Max(rec), " s"), seconds(statistics.Quantile(slices.Clone(rec), 0.5)),
		andList(params), textfmt.Count(fit.Fit["n"]), andList(fitted), textfmt.Count(fit.HeldOut["n"]), heldOut[0],
		num(fit.Fit["recovery_mape_pct"]), num(fit.HeldOut["recovery_mape_pct"]),
		num(fit.Fit["closed_form_recovery_mape_pct"]), num(fit.HeldOut["closed_form_recovery_mape_pct"]),
		num(fit.Fit["ols_recovery_mape_pct"]), num(fit.HeldOut["ols_recovery_mape_pct"]),
		filepath.Dir(liveCalibratedFit)+"/", flags,
		textfmt.Count(fit.CapacityBefore), textfmt.Count(fit.CapacityAfter),
		liveCalibrated, textfmt.Count(statistics.Quantile(rates, 0.5)), seconds(samples[0].CheckpointIntervalS),
		num(mean), seconds(sd), textfmt.Count(float64(len(seeds))), liveSpan(slices.Min(seeds), slices.Max(seeds), " s"), liveSeedsSweep,
		seconds(down), seconds(reconf))
	return wrap(s, liveWidth), nil
}

func liveNums(xs []float64) []string {
	var out []string
	for _, x := range xs {
		out = append(out, num(x))
	}
	return out
}

func liveCounts(xs []float64) []string {
	var out []string
	for _, x := range xs {
		out = append(out, textfmt.Count(x))
	}
	return out
}

// liveHostProfile: the committed live host table (make live-host-profile),
// level by level.
func liveHostProfile(c *Context) (string, error) {
	cols, err := ingest.ReadHostMeasured(c.Path(hostMeasured))
	if err != nil {
		return "", err
	}
	head, err := os.ReadFile(c.Path(hostMeasured))
	if err != nil {
		return "", err
	}
	date := regexp.MustCompile(`measured (\d{4}-\d\d-\d\d)`).FindSubmatch(head)
	if date == nil {
		return "", fmt.Errorf("%s: its comment line names no date (\"measured YYYY-MM-DD\")", hostMeasured)
	}
	n := len(cols["time_s"])
	missing := 0
	for _, name := range ingest.HostMeasuredColumns {
		if len(cols[name]) != n {
			return "", fmt.Errorf("%s: no column %s", hostMeasured, name)
		}
		for _, x := range cols[name] {
			if math.IsNaN(x) {
				missing++
			}
		}
	}
	if missing > 0 {
		return "", fmt.Errorf("claim no longer holds: %s misses no value (%d missing)", hostMeasured, missing)
	}
	// the levels: runs of one input rate, their first 10 s left out
	type level struct {
		rate                                    float64
		in, thr, cpu, mem, write, read, network []float64
	}
	var levels []*level
	for i := 0; i < n; i++ {
		r := cols["input_rate"][i]
		if r == 0 {
			continue
		}
		if len(levels) == 0 || levels[len(levels)-1].rate != r {
			levels = append(levels, &level{rate: r})
		}
		l := levels[len(levels)-1]
		l.in = append(l.in, r)
		if len(l.in) <= 10 {
			continue
		}
		l.thr = append(l.thr, cols["throughput"][i])
		l.cpu = append(l.cpu, cols["cpu_pct"][i])
		l.mem = append(l.mem, cols["mem_pct"][i])
		l.write = append(l.write, cols["disk_write_bps"][i])
		l.read = append(l.read, cols["disk_read_bps"][i])
		l.network = append(l.network, cols["net_rx_bps"][i])
	}
	mean := func(xs []float64) float64 {
		m, _, _ := statistics.MeanCI(xs)
		return m
	}
	if len(levels) < 3 {
		return "", fmt.Errorf("%s: %d load levels", hostMeasured, len(levels))
	}
	for _, l := range levels {
		if mean(l.thr) < 0.97*l.rate {
			return "", fmt.Errorf("claim no longer holds: the job kept up at every level (%g records/s of %g)", mean(l.thr), l.rate)
		}
	}
	first, second, last := levels[0], levels[1], levels[len(levels)-1]
	mb := func(x float64) string { return num(x/1e6) + " MB/s" }
	pct := func(x float64) string { return num(x) + " %" }
	type metric struct {
		name   string
		xs     func(*level) []float64
		format func(float64) string
	}
	var grows, start []string
	for _, f := range []metric{
		{"CPU", func(l *level) []float64 { return l.cpu }, pct},
		{"memory", func(l *level) []float64 { return l.mem }, pct},
		{"disk writes", func(l *level) []float64 { return l.write }, mb},
		{"network", func(l *level) []float64 { return l.network }, mb},
	} {
		lo, hi, at := mean(f.xs(second)), mean(f.xs(last)), mean(f.xs(first))
		if hi <= lo {
			return "", fmt.Errorf("claim no longer holds: %s grows with the load (%g at %g records/s, %g at %g)", f.name, lo, second.rate, hi, last.rate)
		}
		grows = append(grows, fmt.Sprintf("%s %s → %s", f.name, strings.TrimSuffix(strings.TrimSuffix(f.format(lo), " %"), " MB/s"), f.format(hi)))
		if at > lo {
			start = append(start, fmt.Sprintf("%s %s", f.name, f.format(at)))
		}
	}
	if len(start) == 0 {
		return "", fmt.Errorf("claim no longer holds: the first level, the JVMs' start, is busier than the second")
	}
	reads := 0
	for _, x := range cols["disk_read_bps"] {
		if x > 0 {
			reads++
		}
	}
	return wrap(fmt.Sprintf("Measured on %s: %s, no value missing, the job kept up at every level. Per level (its first "+
		"10 s left out), from %s to %s vehicles/s: %s (disk writes in bursts: checkpoints, writeback); the first level, %s, "+
		"shows the JVMs' start (%s). Disk reads in only %s of the %s seconds. The table of means, the units and how the rows "+
		"are aligned are in [scenarios/measured/live-host-metrics.md](../scenarios/measured/live-host-metrics.md).",
		date[1], textfmt.Plural(n, "row"), textfmt.Count(second.rate), textfmt.Count(last.rate), andList(grows),
		textfmt.Count(first.rate), andList(start), textfmt.Count(float64(reads)), textfmt.Count(float64(n))), liveWidth), nil
}

// liveSoak is the committed run of make live-soak, checked against what
// TestLiveSoak requires (the target commits it only when the test passed).
type liveSoak struct {
	sum      results.Summary
	audit    results.SinkAudit
	gapS     float64 // between kills
	rec      []float64
	mean, sd float64
}

func readLiveSoak(c *Context) (*liveSoak, error) {
	dir := c.Path(liveSoakRef)
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return nil, err
	}
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return nil, err
	}
	s := &liveSoak{sum: sum, rec: slices.Clone(sum.RecoveryTimesS)}
	switch {
	case sum.SinkAudit == nil:
		return nil, fmt.Errorf("%s: summary.json has no sink_audit", liveSoakRef)
	case sum.Faults == 0 || sum.Recoveries != sum.Faults || sum.UnrecoveredFaults != 0 || sum.FinalState != "RUNNING":
		return nil, fmt.Errorf("claim no longer holds: every kill of the soak recovered (%d faults, %d recovered, final state %s)", sum.Faults, sum.Recoveries, sum.FinalState)
	case sum.SinkAudit.RecordsLost != 0 || sum.SinkAudit.RecordsDuplicated != 0 || sum.SinkAudit.WindowsMissing != 0 || sum.SinkAudit.WindowsDuplicated != 0:
		return nil, fmt.Errorf("claim no longer holds: the soak's sink lost and duplicated nothing (%+v)", *sum.SinkAudit)
	case len(s.rec) != sum.Faults:
		return nil, fmt.Errorf("%s: %d recovery times for %d faults", liveSoakRef, len(s.rec), sum.Faults)
	}
	s.audit = *sum.SinkAudit
	var at []float64
	for _, e := range events {
		if e.Kind == results.KindFault {
			at = append(at, e.TimeS)
		}
	}
	var gaps []float64
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i]-at[i-1])
	}
	if len(gaps) > 0 {
		s.gapS = math.Round(statistics.Quantile(gaps, 0.5))
	}
	s.mean, _, s.sd = statistics.MeanCI(s.rec)
	return s, nil
}

func liveSoakTable(c *Context) (string, error) {
	s, err := readLiveSoak(c)
	if err != nil {
		return "", err
	}
	q := func(p float64) string { return seconds(statistics.Quantile(slices.Clone(s.rec), p)) }
	a := s.audit
	rows := [][2]string{
		{"kills recovered", fmt.Sprintf("%d of %d, none unrecovered, job %s at the end", s.sum.Recoveries, s.sum.Faults, s.sum.FinalState)},
		{"recovery time (Khaos's definition)", fmt.Sprintf("min %s, p25 %s, median %s, p75 %s, max %s; mean %s, s.d. %s",
			q(0), q(0.25), q(0.5), q(0.75), q(1), seconds(s.mean), seconds(s.sd))},
		{"downtime", fmt.Sprintf("%s in all, %s per kill (kill → all tasks running)", seconds(s.sum.DowntimeS), seconds(s.sum.DowntimeS/float64(s.sum.Faults)))},
		{"checkpoints", fmt.Sprintf("%s completed, %s failed (those in flight at a kill)",
			textfmt.Count(float64(s.sum.CheckpointsCompleted)), textfmt.Count(float64(s.sum.CheckpointsFailed)))},
		{"sink audit", fmt.Sprintf("%s input records, %s views in %s (campaign, window) pairs: %s lost, %s counted twice, %s windows missing, %s emitted twice",
			textfmt.Count(float64(a.InputRecords)), textfmt.Count(float64(a.RecordsIn)), textfmt.Count(float64(a.Windows)),
			textfmt.Count(float64(a.RecordsLost)), textfmt.Count(float64(a.RecordsDuplicated)),
			textfmt.Count(float64(a.WindowsMissing)), textfmt.Count(float64(a.WindowsDuplicated)))},
		{"left behind", "no process, no listening port (`TestLiveSoak` fails otherwise, and `make live-soak` commits the run only when it passes)"},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The committed run (`%s`, `make live-soak` on the 2-core VM):\n\n| | |\n|---|---|\n", liveSoakRef)
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], r[1])
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func readmeLiveSoak(c *Context) (string, error) {
	s, err := readLiveSoak(c)
	if err != nil {
		return "", err
	}
	return wrap(fmt.Sprintf("- **Live soak**: `make live-soak` (about 13 min, not in `make test`) kills the TaskManager "+
		"running the sink of a YSB job %d times, %s apart, with an exactly-once Kafka sink, then audits the sink topic against "+
		"the input. Its committed run: %d of %d kills recovered (recovery %s, median %s, mean %s, s.d. %s; %s down per kill), "+
		"%s views in %s windows, %s lost, %s counted twice, no process or port left ([docs/live.md](docs/live.md#the-live-soak)).",
		s.sum.Faults, seconds(s.gapS), s.sum.Recoveries, s.sum.Faults, liveSpan(slices.Min(s.rec), slices.Max(s.rec), " s"),
		seconds(statistics.Quantile(slices.Clone(s.rec), 0.5)), seconds(s.mean), seconds(s.sd), seconds(s.sum.DowntimeS/float64(s.sum.Faults)),
		textfmt.Count(float64(s.audit.RecordsIn)), textfmt.Count(float64(s.audit.Windows)),
		textfmt.Count(float64(s.audit.RecordsLost)), textfmt.Count(float64(s.audit.RecordsDuplicated))), liveWidth), nil
}

// liveEndToEnd: the committed live run of the end-to-end schedule
// (TestLiveEndToEnd) beside the calibrated twin over 30 seeds.
func liveEndToEnd(c *Context) (string, error) {
	dir := c.Path(liveTrafficRef)
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return "", err
	}
	faults := measure.FaultRecoveries(events)
	if len(faults) != 1 || !faults[0].Recovered() {
		return "", fmt.Errorf("claim no longer holds: the live end-to-end run recovers from its one kill (%d faults)", len(faults))
	}
	down, okDown := eventDuration(events, results.KindRunning, "")
	reconf, okReconf := eventDuration(events, results.KindReconfigured, "")
	if !okDown || !okReconf {
		return "", fmt.Errorf("%s: no restart after the kill, or no CI change", liveTrafficRef)
	}
	seeds, err := seedSweep(c)
	if err != nil {
		return "", err
	}
	// the calibrated twin's CI change, with the scenario's own seed (the
	// run of liveCalibration)
	twinDir := c.Out("live-traffic-calibrated")
	if _, err := c.Streamtwin("run", liveCalibrated, "--out", twinDir); err != nil {
		return "", err
	}
	twinEvents, err := results.ReadEvents(filepath.Join(twinDir, results.EventsFile))
	if err != nil {
		return "", err
	}
	twinReconf, ok := eventDuration(twinEvents, results.KindReconfigured, "")
	if !ok {
		return "", fmt.Errorf("%s: no CI change", liveCalibrated)
	}
	if twinReconf <= reconf {
		return "", fmt.Errorf("claim no longer holds: the twin's reconfiguration takes longer than the live one (twin %g s, live %g s)", twinReconf, reconf)
	}
	mean, _, _ := statistics.MeanCI(seeds)
	live := faults[0].RecoveryS
	off := (mean - live) / live
	goal := "within the goal of ±20 %"
	if math.Abs(off) > 0.2 {
		goal = "beyond the goal of ±20 %"
	}
	lo, hi := slices.Min(seeds), slices.Max(seeds)
	where := "within the twin's range over those seeds"
	switch {
	case live > hi:
		where = "longer than the twin's recovery with any of those seeds"
	case live < lo:
		where = "shorter than the twin's recovery with any of those seeds"
	}
	return wrap(fmt.Sprintf("The committed live run of this schedule (`%s`, `make live-test-reference` after `make live-test`) "+
		"recovered from its kill in %s (running again after %s; the CI change took %s, %s in the calibrated twin). The calibrated twin's mean over %s "+
		"seeds, %s, is %s off it, %s, and the live recovery is %s (%s).",
		liveTrafficRef, seconds(live), seconds(down), seconds(reconf), seconds(twinReconf), textfmt.Count(float64(len(seeds))), seconds(mean),
		signedPercent(off), goal, where, liveSpan(lo, hi, " s")), liveWidth), nil
}

// signedPercent is a relative difference in prose: "+8 %", "−24 %".
func signedPercent(x float64) string {
	s := percent(x)
	if x > 0 {
		return "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}

// livePrometheusRun: the sampler run of TestLivePrometheus, as the test
// wrote it (STREAMTWIN_LIVE_PROMETHEUS_OUT).
func livePrometheusRun(c *Context) (string, error) {
	f, err := os.Open(c.Path(livePrometheusRef))
	if err != nil {
		return "", err
	}
	defer f.Close()
	cols := []string{"metric", "families", "seconds", "scraped_seconds", "toggles", "series", "samples", "run_share", "stored_share"}
	var parts []string
	err = ingest.ReadCSVTable(livePrometheusRef, f, cols, cols, func(line int, cells map[string]string) error {
		x := map[string]float64{}
		for _, k := range cols[2:] {
			v, err := strconv.ParseFloat(cells[k], 64)
			if err != nil {
				return fmt.Errorf("%s: %q is not a number", k, cells[k])
			}
			x[k] = v
		}
		if math.Abs(x["stored_share"]-x["run_share"]) > 0.1*x["run_share"] {
			return fmt.Errorf("claim no longer holds: the stored share of %s is within 10 %% of the run's (%g, %g)", cells["metric"], x["stored_share"], x["run_share"])
		}
		parts = append(parts, fmt.Sprintf("%s samples of `%s` (%s × %s: share %s, the run's %s)",
			textfmt.Count(x["samples"]), cells["metric"], textfmt.Count(x["series"])+" series", seconds(x["scraped_seconds"]),
			num(x["stored_share"]), num(x["run_share"])))
		return nil
	})
	if err != nil {
		return "", err
	}
	return wrap(fmt.Sprintf("In the committed sampler run (`%s`, `make live-test-reference` after `make live-test`) the TSDB stored %s.",
		livePrometheusRef, andList(parts)), liveWidth), nil
}
