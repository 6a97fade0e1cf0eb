package docgen

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/hostmetrics"
	"github.com/streamtwin/streamtwin/models/monitor"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// monitoringBlocks are the generated blocks of docs/monitoring.md, and the
// README's paragraph on where the forecast rule does not win: the twin's
// compressed IoT week (`make monitoring`) and the relations fitted on the
// committed live host profile. The live sampler's run is not committed
// yet: see pendingLiveBlocks.
func monitoringBlocks() []Block {
	return []Block{
		{"monitoring live host fit", monitoringHostFit},
		{"monitoring iot zero points", monitoringIoTZero},
		{"monitoring iot table", monitoringIoTTable},
		{"monitoring iot findings", monitoringIoTFindings},
		{"readme monitoring", readmeMonitoring},
		{"monitoring live table", monitoringLiveTable},
		{"monitoring live findings", monitoringLiveFindings},
		{"readme monitoring live", readmeMonitoringLive},
	}
}

const (
	iotScenario      = "scenarios/monitoring-iot.yaml"
	hostMeasured     = "scenarios/measured/live-host-metrics.csv"
	liveMonScenario  = "scenarios/live-monitoring.yaml"
	monitoringWidth  = 103
	compressedDayS   = 1440
	compressedWeekS  = 10080
	monitoringAllRow = "all"
	// liveSamplerSuffix ends the rows of a live run's live sampler
	// (live/scrape.LiveSuffix).
	liveSamplerSuffix = "-live"
)

// tradeoffPoint is one sampler at one parameter value, metric "all".
type tradeoffPoint struct {
	results.TradeoffRow
	label string // e.g. "AdaM γ 0.5"
}

// monSampler is a sampler of a monitoring section: its rows' name, how the
// prose calls it, and how its parameter is written (prefix, value, suffix).
type monSampler struct {
	name, label    string
	prefix, suffix string
}

// param is a parameter value as the prose writes it: "5 s", "γ 0.5".
func (s monSampler) param(x float64) string { return s.prefix + num(x) + s.suffix }

// monSamplers names a section's samplers for the prose: the forecast
// rule's seasonal forecasters by their period (a compressed day or week).
func monSamplers(spec monitor.Spec) map[string]monSampler {
	out := map[string]monSampler{}
	for _, s := range spec.Samplers {
		m := monSampler{name: s.Name}
		switch s.Kind {
		case "fixed":
			m.label, m.suffix = "fixed", " s"
		case "adam":
			m.label, m.prefix = "AdaM", "γ "
		default:
			m.label, m.prefix = "forecast rule, "+s.Forecaster, "threshold "
			if s.Forecaster == "seasonal" {
				switch s.Period {
				case compressedDayS:
					m.label = "forecast rule, daily seasonal"
				case compressedWeekS:
					m.label = "forecast rule, weekly seasonal"
				default:
					m.label = "forecast rule"
				}
			}
			if s.Fill == "median" {
				m.label += ", median stand-in"
			}
		}
		out[s.Name] = m
	}
	return out
}

// iotWeek is the compressed IoT week's trade-off, metric "all", by sampler
// (rows in parameter order), with its scenario's monitoring section.
type iotWeek struct {
	spec     monitor.Spec
	samplers map[string]monSampler
	order    []string // samplers in the section's order
	points   map[string][]tradeoffPoint
	rows     []results.TradeoffRow // every row, every metric
	seed     uint64
	dir      string
}

func readIoTWeek(c *Context) (*iotWeek, error) {
	dir, err := monitoringRun(c)
	if err != nil {
		return nil, err
	}
	f, err := scenario.Load(c.Path(iotScenario))
	if err != nil {
		return nil, err
	}
	if f.Base.Monitoring == nil {
		return nil, fmt.Errorf("%s has no monitoring section", iotScenario)
	}
	w, err := readTradeoff(dir, f.Base.Monitoring.WithDefaults())
	if err != nil {
		return nil, err
	}
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return nil, err
	}
	w.seed = sum.Seed
	return w, nil
}

// readTradeoff reads a run folder's tradeoff.parquet.
func readTradeoff(dir string, spec monitor.Spec) (*iotWeek, error) {
	rows, err := results.ReadTradeoff(filepath.Join(dir, results.TradeoffParquet))
	if err != nil {
		return nil, err
	}
	w := &iotWeek{spec: spec, samplers: monSamplers(spec), points: map[string][]tradeoffPoint{}, rows: rows, dir: dir}
	for _, s := range spec.Samplers {
		w.order = append(w.order, s.Name)
	}
	for _, r := range rows {
		if r.Metric != monitoringAllRow {
			continue
		}
		s, ok := w.samplers[r.Sampler]
		if !ok {
			s = monSampler{name: r.Sampler, label: r.Sampler}
			if base, ok := w.samplers[strings.TrimSuffix(r.Sampler, liveSamplerSuffix)]; ok {
				s.prefix, s.suffix = base.prefix, base.suffix
			}
			w.samplers[r.Sampler] = s
			w.order = append(w.order, r.Sampler)
		}
		sep := " "
		if s.prefix == "threshold " {
			sep = " at "
		}
		w.points[r.Sampler] = append(w.points[r.Sampler], tradeoffPoint{r, s.label + sep + s.param(r.Param)})
	}
	for _, ps := range w.points {
		slices.SortFunc(ps, func(a, b tradeoffPoint) int { return cmpFloat(a.Param, b.Param) })
	}
	return w, nil
}

// point is one sampler's row at one parameter value.
func (w *iotWeek) point(sampler string, param float64) (tradeoffPoint, error) {
	for _, p := range w.points[sampler] {
		if p.Param == param {
			return p, nil
		}
	}
	return tradeoffPoint{}, fmt.Errorf("the documents quote %s at %g, which the run no longer has (its scenario changed): update internal/docgen/monitoring.go", sampler, param)
}

// baselines are fixed-rate sampling's and AdaM's points that transmit less
// than everything.
func (w *iotWeek) baselines() []tradeoffPoint {
	var out []tradeoffPoint
	for _, s := range []string{"fixed", "adam"} {
		for _, p := range w.points[s] {
			if p.BytesShare < 1 {
				out = append(out, p)
			}
		}
	}
	return out
}

// front is the points no other point beats in both data and error, by
// MAPE.
func paretoFront(ps []tradeoffPoint) []tradeoffPoint {
	var out []tradeoffPoint
	for _, p := range ps {
		dominated := false
		for _, q := range ps {
			if q.MAPE <= p.MAPE && q.BytesShare <= p.BytesShare && (q.MAPE < p.MAPE || q.BytesShare < p.BytesShare) {
				dominated = true
				break
			}
		}
		if !dominated && !math.IsNaN(p.MAPE) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b tradeoffPoint) int { return cmpFloat(a.MAPE, b.MAPE) })
	return slices.CompactFunc(out, func(a, b tradeoffPoint) bool { return a.MAPE == b.MAPE && a.BytesShare == b.BytesShare })
}

// bytesAt is the share of the data a sampler needs for an error of mape:
// on its front, between two neighbouring parameter values on the straight
// line (alternating between them gets that mix); +Inf below its smallest
// error.
func frontBytesAt(fr []tradeoffPoint, mape float64) float64 {
	if len(fr) == 0 || mape < fr[0].MAPE {
		return math.Inf(1)
	}
	for i := len(fr) - 1; i >= 0; i-- {
		if fr[i].MAPE <= mape {
			if i == len(fr)-1 || fr[i].MAPE == mape {
				return fr[i].BytesShare
			}
			a, b := fr[i], fr[i+1]
			return a.BytesShare + (mape-a.MAPE)/(b.MAPE-a.MAPE)*(b.BytesShare-a.BytesShare)
		}
	}
	return math.Inf(1)
}

// cheapestWithin is a sampler's point with the least data whose MAPE is at
// most mape (the smallest error among equals).
func cheapestWithin(ps []tradeoffPoint, mape float64) (tradeoffPoint, bool) {
	var best tradeoffPoint
	found := false
	for _, p := range ps {
		if p.MAPE > mape {
			continue
		}
		if !found || p.BytesShare < best.BytesShare || (p.BytesShare == best.BytesShare && p.MAPE < best.MAPE) {
			best, found = p, true
		}
	}
	return best, found
}

// dataPercent is a share of the data in the tables: a percentage.
func dataPercent(share float64) string { return num(100 * share) }

// monTableRow is one line of a trade-off table: a sampler at some of its
// parameter values.
type monTableRow struct {
	sampler string
	params  []float64
	label   string // "": the sampler's
}

// tradeoffTable is a markdown table of metric "all": per sampler, its
// parameter values, the data transmitted, the MAPE and the peaks missed.
func (w *iotWeek) tradeoffTable(lines []monTableRow) (string, error) {
	var b strings.Builder
	b.WriteString("| sampler | parameter | data transmitted | MAPE | peaks missed |\n|---|---|---|---|---|\n")
	peaks := -1
	for i, l := range lines {
		s := w.samplers[l.sampler]
		var params, data, mape, missed []string
		for _, x := range l.params {
			p, err := w.point(l.sampler, x)
			if err != nil {
				return "", err
			}
			if peaks >= 0 && int(p.Peaks) != peaks {
				return "", fmt.Errorf("the rows count different peaks (%d, %d): the table's \"of N\" no longer holds", peaks, p.Peaks)
			}
			peaks = int(p.Peaks)
			params = append(params, num(x)+s.suffix)
			data = append(data, dataPercent(p.BytesShare))
			mape = append(mape, num(p.MAPE))
			missed = append(missed, textfmt.Count(float64(p.MissedPeaks)))
		}
		miss := strings.Join(missed, " / ")
		if i == 0 {
			miss += " of " + textfmt.Count(float64(peaks))
		}
		label := s.label
		if l.label != "" {
			label = l.label
		} else if i > 0 && strings.HasPrefix(label, w.samplers[lines[i-1].sampler].label+",") {
			label = "the same," + strings.TrimPrefix(label, w.samplers[lines[i-1].sampler].label+",")
		}
		fmt.Fprintf(&b, "| %s | %s%s | %s %% | %s %% | %s |\n", label, s.prefix, strings.Join(params, " / "),
			strings.Join(data, " / "), strings.Join(mape, " / "), miss)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// The compressed IoT week's table: three parameter values per sampler,
// chosen to show each one's range; the prose below quotes them.
var iotTableRows = []monTableRow{
	{"fixed", []float64{5, 15, 60}, ""},
	{"adam", []float64{0.5, 0.7, 0.9}, ""},
	{"forecast-seasonal", []float64{0.01, 0.025, 0.03}, ""},
	{"forecast-weekly", []float64{0.0275, 0.03, 0.0475}, ""},
	{"forecast-weekly-median", []float64{0.0275, 0.03, 0.0475}, ""},
}

func monitoringIoTTable(c *Context) (string, error) {
	w, err := readIoTWeek(c)
	if err != nil {
		return "", err
	}
	metrics, params := map[string]bool{}, map[string]bool{}
	for _, r := range w.rows {
		if r.Metric != monitoringAllRow {
			metrics[r.Metric] = true
		}
		params[r.Sampler+"\x00"+strconv.FormatFloat(r.Param, 'g', -1, 64)] = true
	}
	table, err := w.tradeoffTable(iotTableRows)
	if err != nil {
		return "", err
	}
	head := fmt.Sprintf("Metric `all` (`streamtwin run %s`, seed %d; %s at %s on %s), three parameter values of each:",
		iotScenario, w.seed, textfmt.Plural(len(w.points), "sampler"), textfmt.Plural(len(params), "parameter value"), textfmt.Plural(len(metrics), "metric"))
	return wrap(head, monitoringWidth) + "\n\n" + table, nil
}

// monitoringIoTZero: the points drawn at the tick "0" of the figure.
func monitoringIoTZero(c *Context) (string, error) {
	w, err := readIoTWeek(c)
	if err != nil {
		return "", err
	}
	type zeros struct {
		n, of    int
		lo, hi   float64
		min, max float64 // over the single metrics
	}
	z := map[string]zeros{}
	for _, name := range w.order {
		ps := w.points[name]
		r := zeros{of: len(ps), lo: math.Inf(1), hi: math.Inf(-1), min: math.Inf(1), max: math.Inf(-1)}
		for _, p := range ps {
			if p.BytesShare == 0 {
				r.n++
				r.lo, r.hi = min(r.lo, p.MAPE), max(r.hi, p.MAPE)
			}
		}
		for _, row := range w.rows {
			if row.Sampler == name && row.Metric != monitoringAllRow && row.BytesShare == 0 {
				r.min, r.max = min(r.min, row.MAPE), max(r.max, row.MAPE)
			}
		}
		z[name] = r
	}
	daily, weekly, median := z["forecast-seasonal"], z["forecast-weekly"], z["forecast-weekly-median"]
	if daily.n == 0 || weekly.n == 0 || median.n == 0 {
		return "", fmt.Errorf("claim no longer holds: the daily and the weekly seasonal forecasters each transmit nothing at some threshold (%d, %d, %d thresholds)", daily.n, weekly.n, median.n)
	}
	if daily.lo <= max(weekly.hi, median.hi) {
		return "", fmt.Errorf("claim no longer holds: the daily forecaster's stand-ins cost more than the weekly one's (%g %% against %g %%)", daily.lo, weekly.hi)
	}
	for _, name := range []string{"fixed", "adam"} {
		if z[name].n > 0 {
			return "", fmt.Errorf("claim no longer holds: only the forecast rule transmits nothing (%s does at %d values)", name, z[name].n)
		}
	}
	pctSpan := func(lo, hi float64) string { return liveSpan(lo, hi, " %") }
	s := fmt.Sprintf("Points at the tick \"0\" are parameter values at which a sampler transmitted nothing; only the "+
		"forecast rule ever does. The daily seasonal forecaster is confident on every metric at %d of its %d thresholds, "+
		"and its chained stand-ins then cost %s MAPE (%s on the single metrics, where it goes silent sooner); the weekly "+
		"one, at its %d largest thresholds, only %s (%s with the median stand-in), since the evaluated week repeats the "+
		"training week (below).",
		daily.n, daily.of, pctSpan(daily.lo, daily.hi), pctSpan(daily.min, daily.max), weekly.n, pctSpan(weekly.lo, weekly.hi), pctSpan(median.lo, median.hi))
	s = wrap(s, monitoringWidth)
	return s, nil
}

// iotFindings are the comparisons the prose draws on the IoT week.
type iotFindings struct {
	f15, f60, adamMid      tradeoffPoint // fixed 15 s, fixed 60 s, AdaM γ 0.5
	dailyNeed              tradeoffPoint // the daily rule's cheapest point within 1 MAPE point of fixed 15 s
	weeklyMid              tradeoffPoint // the weekly rule at the table's first threshold
	weeklyNeed             tradeoffPoint // the weekly rule's cheapest point within 1 MAPE point of fixed 60 s
	weeklyFrom             tradeoffPoint // the baseline with the smallest error the weekly rule beats from there up
	weeklyLoses            []tradeoffPoint
	peakMissLo, peakMissHi float64 // shares of the peaks missed by points sending under 20 %
	peaks                  int
}

// iotCompare draws the comparisons and checks the claims they carry.
func iotCompare(w *iotWeek) (*iotFindings, error) {
	var f iotFindings
	var err error
	if f.f15, err = w.point("fixed", 15); err != nil {
		return nil, err
	}
	if f.f60, err = w.point("fixed", 60); err != nil {
		return nil, err
	}
	if f.adamMid, err = w.point("adam", 0.5); err != nil {
		return nil, err
	}
	if f.weeklyMid, err = w.point("forecast-weekly", iotTableRows[3].params[0]); err != nil {
		return nil, err
	}
	base := w.baselines()
	// the daily rule: more data than fixed-rate and AdaM at every error they reach
	daily := w.points["forecast-seasonal"]
	worst := 0.0
	for _, b := range base {
		worst = max(worst, b.MAPE)
	}
	for _, d := range daily {
		if d.BytesShare >= 1 || d.MAPE > worst {
			continue
		}
		beaten := false
		for _, b := range base {
			if b.MAPE <= d.MAPE && b.BytesShare < d.BytesShare {
				beaten = true
			}
		}
		if !beaten {
			return nil, fmt.Errorf("claim no longer holds: the daily seasonal rule transmits more than fixed-rate sampling or AdaM at equal error (%s: %s %% of the data at MAPE %s %%, which none of them beats)", d.label, dataPercent(d.BytesShare), num(d.MAPE))
		}
	}
	var ok bool
	if f.dailyNeed, ok = cheapestWithin(daily, f.f15.MAPE+1); !ok || f.dailyNeed.BytesShare <= f.f15.BytesShare {
		return nil, fmt.Errorf("claim no longer holds: within 1 MAPE point of fixed 15 s the daily rule needs more data than it (%+v)", f.dailyNeed)
	}
	// the weekly rule: less data than both from some error level up
	weekly := w.points["forecast-weekly"]
	fr := paretoFront(weekly)
	var wins []tradeoffPoint
	for _, b := range base {
		if frontBytesAt(fr, b.MAPE) < b.BytesShare {
			wins = append(wins, b)
		} else {
			f.weeklyLoses = append(f.weeklyLoses, b)
		}
	}
	if len(wins) == 0 {
		return nil, fmt.Errorf("claim no longer holds: the weekly seasonal rule transmits less than fixed-rate sampling or AdaM somewhere")
	}
	f.weeklyFrom = slices.MinFunc(wins, func(a, b tradeoffPoint) int { return cmpFloat(a.MAPE, b.MAPE) })
	for _, l := range f.weeklyLoses {
		if l.MAPE >= f.weeklyFrom.MAPE {
			return nil, fmt.Errorf("claim no longer holds: the weekly rule transmits less than fixed-rate sampling and AdaM at every error level from %s %% up (%s sends less at %s %%)", num(f.weeklyFrom.MAPE), l.label, num(l.MAPE))
		}
	}
	slices.SortFunc(f.weeklyLoses, func(a, b tradeoffPoint) int { return cmpFloat(b.MAPE, a.MAPE) })
	if f.weeklyMid.BytesShare >= f.adamMid.BytesShare || f.weeklyMid.MAPE-f.adamMid.MAPE > 0.5 {
		return nil, fmt.Errorf("claim no longer holds: %s sends less than AdaM γ 0.5 at about its error (%+v, %+v)", f.weeklyMid.label, f.weeklyMid, f.adamMid)
	}
	if f.weeklyNeed, ok = cheapestWithin(weekly, f.f60.MAPE+1); !ok || f.weeklyNeed.BytesShare >= f.f60.BytesShare {
		return nil, fmt.Errorf("claim no longer holds: within 1 MAPE point of fixed 60 s the weekly rule needs less data than it")
	}
	// peaks: every point sending under 20 % misses many
	f.peakMissLo, f.peakMissHi = math.Inf(1), math.Inf(-1)
	for _, name := range w.order {
		for _, p := range w.points[name] {
			if p.BytesShare < 0.2 && p.Peaks > 0 {
				s := float64(p.MissedPeaks) / float64(p.Peaks)
				f.peakMissLo, f.peakMissHi = min(f.peakMissLo, s), max(f.peakMissHi, s)
				f.peaks = int(p.Peaks)
			}
		}
	}
	if !(f.peakMissLo >= 0.25) {
		return nil, fmt.Errorf("claim no longer holds: MAPE hides peaks (every point sending under 20 %% misses at least a quarter of them; one misses %s)", percent(f.peakMissLo))
	}
	return &f, nil
}

func monitoringIoTFindings(c *Context) (string, error) {
	w, err := readIoTWeek(c)
	if err != nil {
		return "", err
	}
	f, err := iotCompare(w)
	if err != nil {
		return "", err
	}
	// the noise floor of CPU: E|ε| = sd·√(2/π) of the mean CPU
	var cpu hostmetrics.Relation
	for _, m := range w.spec.Metrics {
		if m.Name == "cpu_rate" {
			cpu = m
		}
	}
	host, err := results.ReadHostSamples(filepath.Join(w.dir, results.HostMetricsFile))
	if err != nil {
		return "", err
	}
	var xs []float64
	for _, h := range host {
		if h.Metric == "cpu_rate" && h.TimeS > float64(w.spec.Train) {
			xs = append(xs, h.Value)
		}
	}
	if cpu.Name == "" || len(xs) == 0 {
		return "", fmt.Errorf("%s: no cpu_rate", w.dir)
	}
	mean := 0.0
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	k := math.Sqrt(2 / math.Pi)
	floor := k * cpu.SD / mean
	loses := ""
	if len(f.weeklyLoses) > 0 {
		var ls []string
		for _, l := range f.weeklyLoses {
			ls = append(ls, fmt.Sprintf("%s (%s %% for %s %%)", l.label, dataPercent(l.BytesShare), num(l.MAPE)))
		}
		loses = fmt.Sprintf("; below, %s send less than it needs for their error", andList(ls))
		if len(ls) == 1 {
			loses = fmt.Sprintf("; below, %s sends less than it needs for that error", ls[0])
		}
	}
	s := fmt.Sprintf("**Where the probabilistic sampler wins, and where it does not.** With the daily seasonal\n"+
		"forecaster, the forecast rule transmits *more* than fixed-rate sampling and AdaM at equal error:\n"+
		"within 1 MAPE point of fixed 15 s (%s %% of the data, MAPE %s %%) the rule needs %s %% of the data.\n"+
		"Its stand-ins are forecasts chained from its own draws, two compressed days back, across weekdays and\n"+
		"weekend days, and they drift; linear interpolation between even sparse samples of a metric that\n"+
		"follows a smooth load does better. With the weekly seasonal forecaster the rule transmits less than\n"+
		"both at every error level from %s %% MAPE (%s's) up: at MAPE %s %% it sends %s %% of the data, where\n"+
		"AdaM γ 0.5 needs %s %% for %s %%, and within 1 point of fixed 60 s (%s %% of the data at MAPE %s %%) %s,\n"+
		"at %s %%%s. But the weekly rule wins only because the evaluated week's load repeats the training\n"+
		"week's, as the reference's dataset of 24 concatenated copies of one week does: it is an upper bound,\n"+
		"not an expectation for new weeks. The metrics' white noise (the testbed's residual sd) sets a floor\n"+
		"under the error of every second that is not scraped: for CPU, E|ε|/mean = √(2/π) × %s / %s ≈ %s\n"+
		"MAPE. MAPE also hides peaks: every sampler that sends under 20 %% misses %s to %s of the %s peaks\n"+
		"above the 95th percentile.",
		dataPercent(f.f15.BytesShare), num(f.f15.MAPE), dataPercent(f.dailyNeed.BytesShare),
		num(f.weeklyFrom.MAPE), f.weeklyFrom.label, num(f.weeklyMid.MAPE), dataPercent(f.weeklyMid.BytesShare),
		dataPercent(f.adamMid.BytesShare), num(f.adamMid.MAPE), dataPercent(f.f60.BytesShare), num(f.f60.MAPE),
		monSends(f.weeklyNeed), num(f.weeklyNeed.MAPE), loses,
		num(cpu.SD), num(mean), percent(floor),
		percent(f.peakMissLo), percent(f.peakMissHi), textfmt.Count(float64(f.peaks)))
	if w.spec.PeakQuantile != 0.95 {
		return "", fmt.Errorf("claim no longer holds: the peaks are above the 95th percentile (peak_quantile %g)", w.spec.PeakQuantile)
	}
	return wrap(s, monitoringWidth), nil
}

// sends is what a point transmits, in prose.
func monSends(p tradeoffPoint) string {
	if p.BytesShare == 0 {
		return "it sends nothing at all"
	}
	return fmt.Sprintf("it sends %s %% of the data", dataPercent(p.BytesShare))
}

// readmeMonitoring is the README's paragraph on where the forecast rule
// does not win, on the twin's IoT week; its live sentence follows it.
func readmeMonitoring(c *Context) (string, error) {
	w, err := readIoTWeek(c)
	if err != nil {
		return "", err
	}
	f, err := iotCompare(w)
	if err != nil {
		return "", err
	}
	s := fmt.Sprintf("Where the forecast rule does not win: with a daily seasonal forecaster it transmits more than\n"+
		"fixed-rate sampling and AdaM at equal error (%s %% of the data within 1 MAPE point of fixed 15 s's\n"+
		"%s %%). With a weekly one it transmits less at every error level from %s %% MAPE up, but only because\n"+
		"the evaluated week's load repeats the training week's, as in the reference's dataset: an upper bound.",
		dataPercent(f.dailyNeed.BytesShare), dataPercent(f.f15.BytesShare), num(f.weeklyFrom.MAPE))
	return wrap(s, monitoringWidth), nil
}
