package docgen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/streamtwin/streamtwin/models/scenario"
	"github.com/streamtwin/streamtwin/results"
)

// The live capacity block (make live-capacity, issue 33): what one and
// two quarter-core TaskManagers cost and sustain live against the twin.
// Three fits, each to one quantity: job.cost_scale to one TaskManager's
// capacity (what it drains per second past saturation),
// cluster.part_load_cpu to its CPU utilisation at a steady, warm 9,000/s
// (the twin's CPU there is linear in it), and cluster.jit_cpu and jit_time
// to the CPU per second of the first 88 s of the four probe runs that
// start one fresh TaskManager at 3,000/s (p1 and make live-warmup's
// three; least squares on a grid, against the twin without a JIT). Two
// TaskManagers' CPU and capacity are held out. The baseline is the twin
// calibrated on TaskManagers without a CPU limit (its cost_scale, every
// record at full CPU, no JIT). The block fails, naming the values to set,
// when the scenario's are not the fit.

const (
	capacityRef      = "results/reference/live/capacity"
	capacityScenario = "scenarios/live-capacity.yaml"
	capacityBaseline = 0.335652 // scenarios/live-traffic-calibrated.yaml's cost_scale (no CPU limit)
	capacityCPUFrom  = 120.0    // s: the CPU is read over (from, to], warm, at the middle step
	capacityCPUTo    = 148.0
	capacityStep     = 150.0 // s: the step past capacity
	capacityWindow   = 20.0  // s: the window after it the capacity is read over
	capacityFitTol   = 0.02  // the fitted twin's capacity within this share of the live one
	capacityCPUTol   = 0.01  // the fitted twin's CPU at 9,000/s within this of the live one
	capacityJITTo    = 88.0  // s: the JIT is fitted over (0, this], the first step less 2 s
	capacityJITSplit = 30.0  // s: the table reads it over (0, this] and (this, capacityJITTo]
	capacityJITMaxT  = 300   // s: the longest jit_time on the fit's grid (1 s steps)
	capacityJITGridA = 0.01  // the grid of jit_cpu, from 0 to 1
)

// capacityFields are the scenario's job.cluster values the block fits, in
// its flow map.
var capacityFields = map[string]*regexp.Regexp{}

func init() {
	for _, f := range []string{"part_load_cpu", "jit_cpu", "jit_time"} {
		capacityFields[f] = regexp.MustCompile(f + `: [0-9.eE+-]+s?`)
	}
}

var capacityVariants = []string{"p1", "p2"}

// capacityRead is, per variant of the runs in dir, the mean CPU
// utilisation over (capacityCPUFrom, capacityCPUTo], the capacity (the
// input less the lag's growth over the capacityWindow seconds after the
// step past it, i.e. what the job drained per second) and the CPU of each
// second k in (0, capacityJITTo] at index k − 1 (NaN: no sample).
func capacityRead(dir string) (capacity, cpu map[string]float64, early map[string][]float64, err error) {
	capacity, cpu, early = map[string]float64{}, map[string]float64{}, map[string][]float64{}
	for _, v := range capacityVariants {
		ss, err := results.ReadSamples(filepath.Join(dir, v, results.TimeseriesFile))
		if err != nil {
			return nil, nil, nil, err
		}
		early[v] = earlyCPU(ss)
		var in, lag0, lag1 float64
		var cpus []float64
		for _, s := range ss {
			switch {
			case s.TimeS == capacityStep:
				lag0 = s.Lag
			case s.TimeS == capacityStep+capacityWindow:
				lag1 = s.Lag
			}
			if s.TimeS > capacityStep && s.TimeS <= capacityStep+capacityWindow {
				in += s.InputRate
			}
			if s.TimeS > capacityCPUFrom && s.TimeS <= capacityCPUTo {
				cpus = append(cpus, s.CPUBusyMean)
			}
		}
		capacity[v] = in/capacityWindow - (lag1-lag0)/capacityWindow
		cpu[v] = results.FiniteMean(results.FiniteValues(cpus))
	}
	return capacity, cpu, early, nil
}

// earlyCPU is the CPU of each second k in (0, capacityJITTo] of a run's
// samples at index k − 1 (NaN: no sample).
func earlyCPU(ss []results.Sample) []float64 {
	early := make([]float64, int(capacityJITTo))
	for i := range early {
		early[i] = math.NaN()
	}
	for _, s := range ss {
		if k := int(s.TimeS); float64(k) == s.TimeS && k >= 1 && k <= len(early) {
			early[k-1] = s.CPUBusyMean
		}
	}
	return early
}

// warmupFreshCPU is the early CPU (earlyCPU) of make live-warmup's committed
// runs, live, and of the twin on scenarios/live-warmup.yaml without a JIT:
// each starts one fresh TaskManager at 3,000/s, as the capacity probe's p1.
func warmupFreshCPU(c *Context) (live, warm [][]float64, err error) {
	b, err := os.ReadFile(c.Path(warmupScenario))
	if err != nil {
		return nil, nil, err
	}
	re := capacityFields["jit_cpu"]
	if !re.Match(b) {
		return nil, nil, fmt.Errorf("%s: no job.cluster.jit_cpu", warmupScenario)
	}
	out, err := c.RunText("live-warmup-nojit", "live-warmup.yaml", re.ReplaceAllLiteralString(string(b), "jit_cpu: 0"))
	if err != nil {
		return nil, nil, err
	}
	for _, v := range warmupVariants {
		for _, side := range []struct {
			dir string
			to  *[][]float64
		}{{c.Path(warmupRef), &live}, {out, &warm}} {
			ss, err := results.ReadSamples(filepath.Join(side.dir, v, results.TimeseriesFile))
			if err != nil {
				return nil, nil, err
			}
			*side.to = append(*side.to, earlyCPU(ss))
		}
	}
	return live, warm, nil
}

// capacityTwin runs the twin on the capacity scenario's text with
// job.cost_scale set to cost and the job.cluster fields named in set to
// their values, and reads it.
func capacityTwin(c *Context, text string, cost float64, set map[string]string, name string) (capacity, cpu map[string]float64, early map[string][]float64, err error) {
	line := costScaleLine(text)
	if line == "" {
		return nil, nil, nil, fmt.Errorf("%s: no job.cost_scale line", capacityScenario)
	}
	text = strings.Replace(text, line, fmt.Sprintf("\n  cost_scale: %g\n", cost), 1)
	for f, v := range set {
		re := capacityFields[f]
		if !re.MatchString(text) {
			return nil, nil, nil, fmt.Errorf("%s: no job.cluster.%s", capacityScenario, f)
		}
		text = re.ReplaceAllLiteralString(text, f+": "+v)
	}
	out, err := c.RunText(name, "live-capacity.yaml", text)
	if err != nil {
		return nil, nil, nil, err
	}
	return capacityRead(out)
}

// fitJIT is the jit_cpu a and jit_time tau (s) on the grid that minimise
// the squared error of min(1, warm + JIT) against live over the runs and
// the seconds both have: the JIT adds a·tau·(e^(−(k−1)/tau) − e^(−k/tau))
// to second k. live[r] and warm[r] are run r's per-second CPU.
func fitJIT(live, warm [][]float64) (a, tau float64) {
	best := math.Inf(1)
	for t := 1; t <= capacityJITMaxT; t++ {
		tt := float64(t)
		jit := make([]float64, int(capacityJITTo))
		for k := range jit {
			jit[k] = tt * (math.Exp(-float64(k)/tt) - math.Exp(-float64(k+1)/tt))
		}
		for i := 0; i <= int(math.Round(1/capacityJITGridA)); i++ {
			ai := float64(i) * capacityJITGridA
			var sse float64
			for r := range live {
				for k := range live[r] {
					if k >= len(jit) || math.IsNaN(live[r][k]) || math.IsNaN(warm[r][k]) {
						continue
					}
					d := math.Min(1, warm[r][k]+ai*jit[k]) - live[r][k]
					sse += d * d
				}
			}
			if sse < best {
				best, a, tau = sse, ai, float64(t)
			}
		}
	}
	return a, tau
}

// meanOver is the mean of the finite per-second values of seconds
// (from, to] (index k − 1 holds second k).
func meanOver(xs []float64, from, to float64) float64 {
	var in []float64
	for k := int(from); k < int(to) && k < len(xs); k++ {
		in = append(in, xs[k])
	}
	return results.FiniteMean(results.FiniteValues(in))
}

func liveCapacityTable(c *Context) (string, error) {
	live, liveCPU, liveEarly, err := capacityRead(c.Path(capacityRef))
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(c.Path(capacityScenario))
	if err != nil {
		return "", err
	}
	text := string(b)
	f, err := scenario.Parse(capacityScenario, b)
	if err != nil {
		return "", err
	}
	cl := f.Base.Job.Cluster
	fitted, partLoad, jitCPU, jitTime := f.Base.Job.CostScale, cl.PartLoadCPU, cl.JITCPU, float64(cl.JITTime)
	sim, simCPU, simEarly, err := capacityTwin(c, text, fitted, nil, "live-capacity-twin")
	if err != nil {
		return "", err
	}
	baseCap, baseCPU, baseEarly, err := capacityTwin(c, text, capacityBaseline, map[string]string{"part_load_cpu": "1", "jit_cpu": "0"}, "live-capacity-baseline")
	if err != nil {
		return "", err
	}
	// the twin's CPU while it keeps up is linear in part_load_cpu: a run at
	// half of it gives the line
	_, halfCPU, _, err := capacityTwin(c, text, fitted, map[string]string{"part_load_cpu": fmt.Sprint(partLoad / 2)}, "live-capacity-half")
	if err != nil {
		return "", err
	}
	// the JIT is fitted against the warm twin (no JIT) over the first step
	_, _, warmEarly, err := capacityTwin(c, text, fitted, map[string]string{"jit_cpu": "0"}, "live-capacity-warm")
	if err != nil {
		return "", err
	}
	wlive, wwarm, err := warmupFreshCPU(c)
	if err != nil {
		return "", err
	}
	if a, tau := fitJIT(append([][]float64{liveEarly["p1"]}, wlive...), append([][]float64{warmEarly["p1"]}, wwarm...)); math.Abs(a-jitCPU) > capacityJITGridA/2 || math.Abs(tau-jitTime) > 0.5 {
		return "", fmt.Errorf("%s: the JIT fitted to fresh TaskManagers' first %s is jit_cpu %g, jit_time %gs, the scenario's %g, %gs: set job.cluster.jit_cpu: %g, jit_time: %gs there, "+
			"in scenarios/live-autoscaling.yaml, scenarios/live-warmup.yaml, scenarios/live-rescale-calibrated.yaml and app/live_parity_test.go",
			capacityScenario, seconds(capacityJITTo), a, tau, jitCPU, jitTime, a, tau)
	}
	if math.Abs(simCPU["p1"]-liveCPU["p1"]) > capacityCPUTol {
		slope := 2 * (simCPU["p1"] - halfCPU["p1"]) / partLoad
		want := partLoad + (liveCPU["p1"]-simCPU["p1"])/slope
		return "", fmt.Errorf("%s: at part_load_cpu %g the twin's CPU utilisation at 9,000/s is %.3f, live %.3f: set job.cluster.part_load_cpu to about %.3g there, "+
			"in scenarios/live-autoscaling.yaml, scenarios/live-warmup.yaml, scenarios/live-rescale-calibrated.yaml and app/live_parity_test.go",
			capacityScenario, partLoad, simCPU["p1"], liveCPU["p1"], want)
	}
	// a saturated twin's capacity is 1/cost_scale times a constant
	if want := fitted * sim["p1"] / live["p1"]; math.Abs(sim["p1"]-live["p1"]) > capacityFitTol*live["p1"] {
		return "", fmt.Errorf("%s: at cost_scale %g the twin's capacity is %.0f records/s, live %.0f: set job.cost_scale to about %.4g there, "+
			"in scenarios/live-autoscaling.yaml, scenarios/live-wordcount.yaml and scenarios/live-rescale-calibrated.yaml",
			capacityScenario, fitted, sim["p1"], live["p1"], want)
	}
	pct := func(a, b float64) string { return fmt.Sprintf("%+.0f %%", 100*(a-b)/b) }
	count := func(x float64) string { return results.FormatCount(math.Round(x)) }
	cpu := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	rows := [][]string{{"quantity", "role", "live", "twin", "error", "baseline twin", "error"},
		{"one TaskManager's CPU utilisation at 9,000/s", "fitted", cpu(liveCPU["p1"]), cpu(simCPU["p1"]), pct(simCPU["p1"], liveCPU["p1"]), cpu(baseCPU["p1"]), pct(baseCPU["p1"], liveCPU["p1"])},
		{"one TaskManager's capacity (records/s)", "fitted", count(live["p1"]), count(sim["p1"]), pct(sim["p1"], live["p1"]), count(baseCap["p1"]), pct(baseCap["p1"], live["p1"])},
		{"two TaskManagers' CPU utilisation at 18,000/s", "held out", cpu(liveCPU["p2"]), cpu(simCPU["p2"]), pct(simCPU["p2"], liveCPU["p2"]), cpu(baseCPU["p2"]), pct(baseCPU["p2"], liveCPU["p2"])},
		{"two TaskManagers' capacity (records/s)", "held out", count(live["p2"]), count(sim["p2"]), pct(sim["p2"], live["p2"]), count(baseCap["p2"]), pct(baseCap["p2"], live["p2"])},
	}
	for _, v := range []struct{ variant, who, rate, role string }{{"p1", "one TaskManager's", "3,000/s", "fitted"}, {"p2", "two TaskManagers'", "6,000/s", "held out"}} {
		for _, w := range [][2]float64{{0, capacityJITSplit}, {capacityJITSplit, capacityJITTo}} {
			l, t, b := meanOver(liveEarly[v.variant], w[0], w[1]), meanOver(simEarly[v.variant], w[0], w[1]), meanOver(baseEarly[v.variant], w[0], w[1])
			rows = append(rows, []string{fmt.Sprintf("%s CPU utilisation at %s, fresh, (%s, %s] s", v.who, v.rate, num(w[0]), num(w[1])), v.role,
				cpu(l), cpu(t), pct(t, l), cpu(b), pct(b, l)})
		}
	}
	intro := fmt.Sprintf("`make live-capacity` (`%s`, committed in `%s`): one and two quarter-core TaskManagers, warmed, "+
		"then at 9,000/s each, then past capacity. The CPU utilisation is the mean over (%s, %s] s, the capacity the input less "+
		"the lag's growth over the %s after the last step. The twin's cost_scale %s is fitted to one TaskManager's capacity, "+
		"its part_load_cpu %s (the CPU a record costs while the job keeps up, as a share of its cost at capacity) to one "+
		"TaskManager's CPU at 9,000/s; the baseline is the cost_scale fitted to TaskManagers without a CPU limit, %s, with every "+
		"record at full CPU and no JIT. A fresh TaskManager also compiles the job's code: jit_cpu %s of its cores at the deployment, "+
		"decaying with jit_time %s, fitted (least squares on a grid) to the CPU per second over the first %s of four runs that "+
		"each start one fresh TaskManager at 3,000/s: p1 here and `make live-warmup`'s three (`%s`); the JIT's spread between them is wide.",
		capacityScenario, capacityRef, num(capacityCPUFrom), num(capacityCPUTo), seconds(capacityWindow), num(fitted), num(partLoad), num(capacityBaseline),
		num(jitCPU), seconds(jitTime), seconds(capacityJITTo), warmupRef)
	return wrap(intro, liveWidth) + "\n\n" + strings.TrimRight(khaosMarkdownTable(rows), "\n"), nil
}

// costScaleLine is the line of a scenario's text that sets job.cost_scale
// (with its newlines), "" if none.
func costScaleLine(text string) string {
	i := strings.Index(text, "\n  cost_scale: ")
	if i < 0 {
		return ""
	}
	j := strings.Index(text[i+1:], "\n")
	if j < 0 {
		return ""
	}
	return text[i : i+j+2]
}
