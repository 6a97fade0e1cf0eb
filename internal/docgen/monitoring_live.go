package docgen

import (
	"fmt"
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
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// liveMonitoring is the committed live run of scenarios/live-monitoring.yaml
// (TestLivePrometheus): every sampler replayed on the host's real metrics,
// the live sampler's measured rows, and its books (monitoring-live.csv).
type liveMonitoring struct {
	*iotWeek
	live  tradeoffPoint       // the live sampler, metric all
	books []map[string]string // monitoring-live.csv, one per metric
}

func readLiveMonitoring(c *Context) (*liveMonitoring, error) {
	f, err := scenario.Load(c.Path(liveMonScenario))
	if err != nil {
		return nil, err
	}
	if f.Base.Monitoring == nil || f.Base.Monitoring.Live == nil {
		return nil, fmt.Errorf("%s has no monitoring section with a live sampler", liveMonScenario)
	}
	spec := f.Base.Monitoring.WithDefaults()
	w, err := readTradeoff(c.Path(liveMonitoringRef), spec)
	if err != nil {
		return nil, err
	}
	m := &liveMonitoring{iotWeek: w}
	if m.live, err = w.point(spec.Live.Sampler+liveSamplerSuffix, spec.Live.Param); err != nil {
		return nil, err
	}
	base := w.samplers[spec.Live.Sampler]
	m.live.label = "the live " + base.label + " at " + base.param(spec.Live.Param)
	file, err := os.Open(c.Path(filepath.Join(liveMonitoringRef, results.MonitoringLiveCSV)))
	if err != nil {
		return nil, err
	}
	defer file.Close()
	cols := []string{"sampler", "param", "metric", "families", "seconds", "reloads", "steps", "toggles", "scraped_seconds", "run_share",
		"series", "samples", "stored_share", "points", "mae", "mape", "missed_peaks", "peaks", "replay_share", "decisions_agree"}
	err = ingest.ReadCSVTable(results.MonitoringLiveCSV, file, cols, []string{"metric", "scraped_seconds", "series", "samples", "stored_share", "run_share", "decisions_agree"},
		func(line int, cells map[string]string) error {
			m.books = append(m.books, maps.Clone(cells))
			return nil
		})
	return m, err
}

// liveRows are the live table's lines: every value of fixed (1 s left
// out), AdaM and the forecast rule replayed, and the live sampler.
func (m *liveMonitoring) liveRows() []monTableRow {
	var rows []monTableRow
	for _, s := range m.spec.Samplers {
		r := monTableRow{sampler: s.Name}
		switch s.Kind {
		case "fixed":
			for _, x := range s.Intervals {
				if x > 1 {
					r.params = append(r.params, float64(x))
				}
			}
		case "adam":
			r.params = slices.Clone(s.Gammas)
		default:
			r.params, r.label = slices.Clone(s.Thresholds), m.samplers[s.Name].label+" (replayed)"
		}
		rows = append(rows, r)
	}
	return append(rows, monTableRow{m.spec.Live.Sampler + liveSamplerSuffix, []float64{m.spec.Live.Param}, m.samplers[m.spec.Live.Sampler].label + ", **live**"})
}

func monitoringLiveTable(c *Context) (string, error) {
	m, err := readLiveMonitoring(c)
	if err != nil {
		return "", err
	}
	table, err := m.tradeoffTable(m.liveRows())
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("The committed run (`%s`, `make live-test-reference` after `make live-test`), metric `all`; the live\n"+
		"sampler's data transmitted is what the TSDB stored:\n\n%s", liveMonitoringRef, table), nil
}

// ruleWin is a point of the forecast rule (replayed, or live) that
// transmits less than a point of fixed-rate sampling or AdaM at an error
// within 1 MAPE point of it.
type ruleWin struct{ rule, baseline tradeoffPoint }

// liveWins are the forecast rule's wins on the live cluster.
func (m *liveMonitoring) liveWins() []ruleWin {
	var wins []ruleWin
	rule := append(slices.Clone(m.points[m.spec.Live.Sampler]), m.live)
	for _, p := range rule {
		for _, b := range m.baselines() {
			if p.BytesShare < b.BytesShare && p.MAPE <= b.MAPE+1 {
				wins = append(wins, ruleWin{p, b})
				break
			}
		}
	}
	return wins
}

// savesData: the rule wins only where it sends at least half the data.
const savesData = 0.5

func monitoringLiveFindings(c *Context) (string, error) {
	m, err := readLiveMonitoring(c)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := m.writeBooks(&b); err != nil {
		return "", err
	}
	replay, err := m.point(m.spec.Live.Sampler, m.spec.Live.Param)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "; its MAPE, %s %% against the replay's %s %%, differs by what job `node`'s scrapes read against job `node-truth`'s. ",
		num(m.live.MAPE), num(replay.MAPE))
	adam, err := m.point("adam", 0.5)
	if err != nil {
		return "", err
	}
	fixed, err := m.point("fixed", 5)
	if err != nil {
		return "", err
	}
	m.writeWins(&b, adam, fixed)
	fmt.Fprintf(&b, " At threshold %s the live sampler misses %s of the %s peaks.", num(m.live.Param),
		textfmt.Count(float64(m.live.MissedPeaks)), textfmt.Count(float64(m.live.Peaks)))
	if err := m.writeHardMetric(c, &b); err != nil {
		return "", err
	}
	b.WriteString(" The run is short, and the numbers vary from run to run with the host's load.")
	return wrap(b.String(), monitoringWidth), nil
}

// writeBooks writes what the live sampler's books say per metric: what it
// scraped, what the TSDB stored, and whether its decisions matched its
// replay.
func (m *liveMonitoring) writeBooks(b *strings.Builder) error {
	var scraped, never, stored, agree []string
	allAgree := true
	for _, book := range m.books {
		name := "`" + book["metric"] + "`"
		sec, _ := strconv.Atoi(book["scraped_seconds"])
		total, _ := strconv.Atoi(book["seconds"])
		samples, _ := strconv.Atoi(book["samples"])
		series, _ := strconv.Atoi(book["series"])
		st, _ := strconv.ParseFloat(book["stored_share"], 64)
		run, _ := strconv.ParseFloat(book["run_share"], 64)
		ag, _ := strconv.ParseFloat(book["decisions_agree"], 64)
		if sec == 0 {
			never = append(never, name)
			if samples != 0 {
				return fmt.Errorf("claim no longer holds: the TSDB stored nothing of %s, which the live sampler never scraped (%d samples)", name, samples)
			}
		} else {
			scraped = append(scraped, fmt.Sprintf("%s in %s of the %s", name, textfmt.Count(float64(sec)), seconds(float64(total))))
			stored = append(stored, fmt.Sprintf("%s samples of the %s series of %s, a share of %s (its books: %s)",
				textfmt.Count(float64(samples)), textfmt.Count(float64(series)), name, num(st), num(run)))
		}
		allAgree = allAgree && ag == 1
		agree = append(agree, fmt.Sprintf("%s of the seconds of %s", percent(ag), name))
	}
	fmt.Fprintf(b, "The live forecast rule scraped %s", andList(scraped))
	if len(never) > 0 {
		fmt.Fprintf(b, " and never %s", strings.Replace(andList(never), " and ", " or ", 1))
	}
	fmt.Fprintf(b, "; the TSDB stored %s", andList(stored))
	if len(never) > 0 {
		b.WriteString(", and nothing of the others")
	}
	b.WriteString(". ")
	if allAgree {
		b.WriteString("Its decisions matched its replay on the truth in every second (`decisions_agree` 1 for each metric)")
	} else {
		fmt.Fprintf(b, "Its decisions matched its replay on the truth in %s", andList(agree))
	}
	return nil
}

// writeWins writes where the forecast rule transmits less than fixed-rate
// sampling or AdaM (adam, fixed) at about their error, or that it does not.
func (m *liveMonitoring) writeWins(b *strings.Builder, adam, fixed tradeoffPoint) {
	wins := m.liveWins()
	if len(wins) == 0 {
		fmt.Fprintf(b, "On this host and this short run the forecast rule does not transmit less than AdaM or fixed sampling at "+
			"equal error: none of its points lies within 1 MAPE point of theirs with less data (AdaM γ 0.5 gets %s %% with %s %% "+
			"of the data, fixed 5 s %s %% with %s %%).", num(adam.MAPE), dataPercent(adam.BytesShare), num(fixed.MAPE), dataPercent(fixed.BytesShare))
	} else {
		// the wins, those against one baseline together, and the sparsest
		var groups []string
		sparsest := wins[0].rule
		for i := 0; i < len(wins); {
			var rules []string
			j := i
			for ; j < len(wins) && wins[j].baseline.label == wins[i].baseline.label; j++ {
				w := wins[j].rule
				rules = append(rules, fmt.Sprintf("%s (%s %% of the data at MAPE %s %%)", w.label, dataPercent(w.BytesShare), num(w.MAPE)))
				if w.BytesShare < sparsest.BytesShare {
					sparsest = w
				}
			}
			base := wins[i].baseline
			groups = append(groups, fmt.Sprintf("%s against %s (%s %% for %s %%)", andList(rules), base.label, dataPercent(base.BytesShare), num(base.MAPE)))
			i = j
		}
		fmt.Fprintf(b, "On this host and this short run the forecast rule transmits less than fixed-rate sampling or AdaM at an "+
			"error within 1 MAPE point of theirs: %s. ", strings.Join(groups, "; "))
		var sparser, cheaper []string
		for _, p := range append(slices.Clone(m.points[m.spec.Live.Sampler]), m.live) {
			if p.BytesShare < sparsest.BytesShare {
				sparser = append(sparser, fmt.Sprintf("%s (%s %% at MAPE %s %%)", p.label, dataPercent(p.BytesShare), num(p.MAPE)))
			}
		}
		for _, p := range []tradeoffPoint{adam, fixed} {
			if p.BytesShare < sparsest.BytesShare {
				cheaper = append(cheaper, fmt.Sprintf("%s gets %s %% with %s %% of the data", p.label, num(p.MAPE), dataPercent(p.BytesShare)))
			}
		}
		if len(sparser) > 0 {
			fmt.Fprintf(b, "With less data than %s %% it wins nothing: %s", dataPercent(sparsest.BytesShare), andList(sparser))
		} else {
			fmt.Fprintf(b, "It has no point with less data than %s %%", dataPercent(sparsest.BytesShare))
		}
		if len(cheaper) > 0 {
			fmt.Fprintf(b, ", where %s", andList(cheaper))
		}
		b.WriteString(".")
	}
}

// writeHardMetric writes that CPU, the live sampler's hardest metric, is
// hard because of its real noise.
func (m *liveMonitoring) writeHardMetric(c *Context, b *strings.Builder) error {
	// CPU: its noise (the fit's sd) on its mean over the evaluated part
	host, err := results.ReadHostSamples(c.Path(filepath.Join(liveMonitoringRef, results.HostMetricsFile)))
	if err != nil {
		return err
	}
	var cpu []float64
	for _, h := range host {
		if h.Metric == "cpu_pct" && h.TimeS > float64(m.spec.Train) {
			cpu = append(cpu, h.Value)
		}
	}
	// the hard metric: the live sampler's highest MAPE
	hardest, hardestMAPE := "", math.Inf(-1)
	for _, bk := range m.books {
		if x, err := strconv.ParseFloat(bk["mape"], 64); err == nil && x > hardestMAPE {
			hardest, hardestMAPE = bk["metric"], x
		}
	}
	for _, r := range m.spec.Metrics {
		if r.Name == "cpu_pct" && len(cpu) > 0 {
			if hardest != "cpu_pct" {
				return fmt.Errorf("claim no longer holds: CPU is the live sampler's hardest metric (%s has the highest MAPE, %g %%)", hardest, hardestMAPE)
			}
			mean, _, _ := statistics.MeanCI(cpu)
			fmt.Fprintf(b, " CPU is the hard metric: its real noise (sd %s points on the host profile) on a mean of %s %% is what "+
				"the forecast's spread measures.", num(r.SD), num(mean))
		}
	}
	return nil
}

// readmeMonitoringLive is the README's sentence on the live cluster,
// after readmeMonitoring: what the live sampler's own point did.
func readmeMonitoringLive(c *Context) (string, error) {
	m, err := readLiveMonitoring(c)
	if err != nil {
		return "", err
	}
	adam, err := m.point("adam", 0.5)
	if err != nil {
		return "", err
	}
	fixed, err := m.point("fixed", 5)
	if err != nil {
		return "", err
	}
	wins := m.liveWins()
	var beaten *tradeoffPoint
	for _, w := range wins {
		if w.rule.Sampler == m.live.Sampler {
			beaten = &w.baseline
		}
	}
	link := " ([docs/monitoring.md](docs/monitoring.md#live))."
	if beaten == nil {
		for _, w := range wins {
			if w.rule.BytesShare < savesData {
				return "", fmt.Errorf("claim no longer holds: on the live cluster the forecast rule does not win where it saves data (%s does)", w.rule.label)
			}
		}
		return wrap(fmt.Sprintf("On the live cluster's real metrics it does not win either where it saves data: %s %% of the data at MAPE %s %%, "+
			"where AdaM sends %s %% for %s %% and fixed 5 s %s %% for %s %%",
			dataPercent(m.live.BytesShare), num(m.live.MAPE), dataPercent(adam.BytesShare), num(adam.MAPE),
			dataPercent(fixed.BytesShare), num(fixed.MAPE))+link, monitoringWidth), nil
	}
	for _, w := range wins {
		if w.rule.BytesShare < m.live.BytesShare {
			return "", fmt.Errorf("claim no longer holds: on the live cluster no threshold of the forecast rule wins with less data than its live sampler (%s does)", w.rule.label)
		}
	}
	for _, p := range []tradeoffPoint{adam, fixed} {
		if p.BytesShare >= m.live.BytesShare {
			return "", fmt.Errorf("claim no longer holds: %s sends less data than the live sampler (%s %%, %s %%)", p.label, dataPercent(p.BytesShare), dataPercent(m.live.BytesShare))
		}
	}
	how := "within 1 MAPE point of"
	if m.live.MAPE <= beaten.MAPE {
		how = "at a lower error than"
	}
	return wrap(fmt.Sprintf("On the live cluster's real metrics (one short run; the numbers vary from run to run with the host's load) "+
		"its live sampler, at %s, sent %s %% of the data at MAPE %s %%, less data %s %s (%s %% for %s %%), but no threshold of it "+
		"wins with less data: fixed 5 s sends %s %% for %s %% and AdaM γ 0.5 %s %% for %s %%",
		m.samplers[m.spec.Live.Sampler].param(m.live.Param), dataPercent(m.live.BytesShare), num(m.live.MAPE), how, beaten.label,
		dataPercent(beaten.BytesShare), num(beaten.MAPE), dataPercent(fixed.BytesShare), num(fixed.MAPE),
		dataPercent(adam.BytesShare), num(adam.MAPE))+link, monitoringWidth), nil
}
