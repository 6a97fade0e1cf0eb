package docgen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/results/textfmt"
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
	capacityRef       = "results/reference/live/capacity"
	capacityScenario  = "scenarios/live-capacity.yaml"
	capacityBaseline  = 0.335652 // scenarios/live-traffic-calibrated.yaml's cost_scale (no CPU limit)
	capacityCPUFrom   = 120.0    // s: the CPU is read over (from, to], warm, at the middle step
	capacityCPUTo     = 148.0
	capacityStep      = 150.0 // s: the step past capacity
	capacityWindow    = 20.0  // s: the window after it the capacity is read over
	capacityFitTol    = 0.02  // the fitted twin's capacity within this share of the live one
	capacityNoiseStep = 0.01  // cluster.cpu_noise is fitted to this step
	capacityCPUTol    = 0.01  // the fitted twin's CPU at 9,000/s within this of the live one
	capacityJITTo     = 88.0  // s: the JIT is fitted over (0, this], the first step less 2 s
	capacityJITSplit  = 30.0  // s: the table reads it over (0, this] and (this, capacityJITTo]
	capacityJITMaxT   = 300   // s: the longest jit_time on the fit's grid (1 s steps)
	capacityJITGridA  = 0.01  // the grid of jit_cpu, from 0 to 1
)

// capacityFields are the scenario's job.cluster values the block fits, in
// its flow map.
var capacityFields = map[string]*regexp.Regexp{}

func init() {
	for _, f := range []string{"part_load_cpu", "jit_cpu", "jit_time", "cpu_noise"} {
		capacityFields[f] = regexp.MustCompile(f + `: [0-9.eE+-]+s?`)
	}
}

var capacityVariants = []string{"p1", "p2"}

// capacityRun is what the block reads of one run of a variant.
type capacityRun struct {
	capacity float64   // records/s: the input less the lag's growth over capacityWindow after the step
	cpu      float64   // the mean CPU utilisation over (capacityCPUFrom, capacityCPUTo]
	early    []float64 // the CPU of each second k in (0, capacityJITTo] at index k − 1 (NaN: none)
	steady   []float64 // the CPU of each second in (capacityCPUFrom, capacityCPUTo], in order (NaN: none)
}

// capacityRead reads each variant of the runs in dir.
func capacityRead(dir string) (map[string]capacityRun, error) {
	out := map[string]capacityRun{}
	for _, v := range capacityVariants {
		ss, err := results.ReadSamples(filepath.Join(dir, v, results.TimeseriesFile))
		if err != nil {
			return nil, err
		}
		r := capacityRun{early: earlyCPU(ss), steady: perSecond(ss, capacityCPUFrom, capacityCPUTo)}
		var in, lag0, lag1 float64
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
		}
		r.capacity = in/capacityWindow - (lag1-lag0)/capacityWindow
		r.cpu = statistics.FiniteMean(statistics.FiniteValues(r.steady))
		out[v] = r
	}
	return out, nil
}

// perSecond is the CPU of each whole second in (from, to] of a run's
// samples, in order (NaN: no sample).
func perSecond(ss []results.Sample, from, to float64) []float64 {
	out := make([]float64, int(to-from))
	for i := range out {
		out[i] = math.NaN()
	}
	for _, s := range ss {
		if k := int(s.TimeS - from); float64(k) == s.TimeS-from && k >= 1 && k <= len(out) {
			out[k-1] = s.CPUBusyMean
		}
	}
	return out
}

// trendResidual is the sum of squared residuals of a series' finite
// values about their least-squares line (over their index) and its
// degrees of freedom (values − 2; 0 for fewer than 3).
func trendResidual(xs []float64) (ss float64, dof int) {
	var t, y []float64
	for i, x := range xs {
		if !math.IsNaN(x) {
			t, y = append(t, float64(i)), append(y, x)
		}
	}
	if len(y) < 3 {
		return 0, 0
	}
	alpha, beta := stat.LinearRegression(t, y, nil, false)
	for i := range y {
		r := y[i] - alpha - beta*t[i]
		ss += r * r
	}
	return ss, len(y) - 2
}

// fitNoise is the CPU noise k whose variance k²·u(1 − u) (u a window's
// mean live CPU), added to the twin's, gives the live series' variance
// about their trends: the square root of Σ(live residuals² − twin
// residuals²) / Σ(dof·u(1 − u)) over windows, 0 when the twin varies more. live[w] and twin[w]
// are window w's per-second CPU.
func fitNoise(live, twin [][]float64) float64 {
	var excess, weight float64
	for w := range live {
		sl, dl := trendResidual(live[w])
		st, dt := trendResidual(twin[w])
		if dl == 0 || dt == 0 {
			continue
		}
		excess += sl - st*float64(dl)/float64(dt)
		u := statistics.FiniteMean(statistics.FiniteValues(live[w]))
		weight += float64(dl) * u * (1 - u)
	}
	if weight <= 0 || excess <= 0 {
		return 0
	}
	return math.Sqrt(excess / weight)
}

// trendSD is a series' standard deviation about its least-squares line.
func trendSD(xs []float64) float64 {
	ss, dof := trendResidual(xs)
	if dof == 0 {
		return math.NaN()
	}
	return math.Sqrt(ss / float64(dof))
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
// runs, live, and of the twin on scenarios/live-warmup.yaml with the
// job.cluster fields in set (capacityFields) at their values: each starts
// one fresh TaskManager at 3,000/s, as the capacity probe's p1. name must
// differ between sets.
func warmupFreshCPU(c *Context, name string, set map[string]string) (live, twin [][]float64, err error) {
	b, err := os.ReadFile(c.Path(warmupScenario))
	if err != nil {
		return nil, nil, err
	}
	text := string(b)
	for f, v := range set {
		re := capacityFields[f]
		if !re.MatchString(text) {
			return nil, nil, fmt.Errorf("%s: no job.cluster.%s", warmupScenario, f)
		}
		text = re.ReplaceAllLiteralString(text, f+": "+v)
	}
	out, err := c.RunText(name, "live-warmup.yaml", text)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range warmupVariants {
		for _, side := range []struct {
			dir string
			to  *[][]float64
		}{{c.Path(warmupRef), &live}, {out, &twin}} {
			ss, err := results.ReadSamples(filepath.Join(side.dir, v, results.TimeseriesFile))
			if err != nil {
				return nil, nil, err
			}
			*side.to = append(*side.to, earlyCPU(ss))
		}
	}
	return live, twin, nil
}

// capacityTwin runs the twin on the capacity scenario's text with
// job.cost_scale set to cost and the job.cluster fields named in set to
// their values, and reads it.
func capacityTwin(c *Context, text string, cost float64, set map[string]string, name string) (map[string]capacityRun, error) {
	line := costScaleLine(text)
	if line == "" {
		return nil, fmt.Errorf("%s: no job.cost_scale line", capacityScenario)
	}
	text = strings.Replace(text, line, fmt.Sprintf("\n  cost_scale: %g\n", cost), 1)
	for f, v := range set {
		re := capacityFields[f]
		if !re.MatchString(text) {
			return nil, fmt.Errorf("%s: no job.cluster.%s", capacityScenario, f)
		}
		text = re.ReplaceAllLiteralString(text, f+": "+v)
	}
	out, err := c.RunText(name, "live-capacity.yaml", text)
	if err != nil {
		return nil, err
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
	return statistics.FiniteMean(statistics.FiniteValues(in))
}

// capacityUsers are the files that keep the live capacity fit's values.
const capacityUsers = "scenarios/live-autoscaling.yaml, scenarios/live-warmup.yaml, scenarios/live-rescale-calibrated.yaml and app/live_parity_test.go"

// noiseUsers keep cluster.cpu_noise: it is the live cluster's sampler's,
// whatever the job.
const noiseUsers = "scenarios/live-autoscaling.yaml, scenarios/live-warmup.yaml, scenarios/live-rescale-calibrated.yaml, scenarios/live-wordcount.yaml and app/live_parity_test.go"

// pooledSD is the standard deviation about their trends pooled over the
// windows (trendResidual).
func pooledSD(windows [][]float64) float64 {
	var ss float64
	dof := 0
	for _, w := range windows {
		s, d := trendResidual(w)
		ss, dof = ss+s, dof+d
	}
	if dof == 0 {
		return math.NaN()
	}
	return math.Sqrt(ss / float64(dof))
}

// noiseWindows are a TaskManager's steady per-second CPU windows of the
// capacity probe's variant v and of the warm-up runs' (early) series:
// (60, 88] s and (capacityCPUFrom, capacityCPUTo] of the probe, (60, 88]
// of each warm-up run.
func noiseWindows(r capacityRun, warmup [][]float64) [][]float64 {
	out := [][]float64{r.early[60:], r.steady}
	for _, w := range warmup {
		out = append(out, w[60:])
	}
	return out
}

func liveCapacityTable(c *Context) (string, error) {
	live, err := capacityRead(c.Path(capacityRef))
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
	fitted, partLoad, jitCPU, jitTime, noise := f.Base.Job.CostScale, cl.PartLoadCPU, cl.JITCPU, float64(cl.JITTime), cl.CPUNoise
	sim, err := capacityTwin(c, text, fitted, nil, "live-capacity-twin")
	if err != nil {
		return "", err
	}
	base, err := capacityTwin(c, text, capacityBaseline, map[string]string{"part_load_cpu": "1", "jit_cpu": "0", "cpu_noise": "0"}, "live-capacity-baseline")
	if err != nil {
		return "", err
	}
	// the JIT is fitted against the warm twin (no JIT) over the first
	// step, the CPU and the noise against the exact twin (no noise)
	warm, err := capacityTwin(c, text, fitted, map[string]string{"jit_cpu": "0", "cpu_noise": "0"}, "live-capacity-warm")
	if err != nil {
		return "", err
	}
	exact, err := capacityTwin(c, text, fitted, map[string]string{"cpu_noise": "0"}, "live-capacity-exact")
	if err != nil {
		return "", err
	}
	wlive, wwarm, err := warmupFreshCPU(c, "live-warmup-nojit", map[string]string{"jit_cpu": "0", "cpu_noise": "0"})
	if err != nil {
		return "", err
	}
	_, wexact, err := warmupFreshCPU(c, "live-warmup-exact", map[string]string{"cpu_noise": "0"})
	if err != nil {
		return "", err
	}
	_, wsim, err := warmupFreshCPU(c, "live-warmup-twin", nil)
	if err != nil {
		return "", err
	}
	if a, tau := fitJIT(append([][]float64{live["p1"].early}, wlive...), append([][]float64{warm["p1"].early}, wwarm...)); math.Abs(a-jitCPU) > capacityJITGridA/2 || math.Abs(tau-jitTime) > 0.5 {
		return "", fmt.Errorf("%s: the JIT fitted to fresh TaskManagers' first %s is jit_cpu %g, jit_time %gs, the scenario's %g, %gs: set job.cluster.jit_cpu: %g, jit_time: %gs there and in %s",
			capacityScenario, seconds(capacityJITTo), a, tau, jitCPU, jitTime, a, tau, capacityUsers)
	}
	if math.Abs(exact["p1"].cpu-live["p1"].cpu) > capacityCPUTol {
		// the twin's CPU while it keeps up is linear in part_load_cpu: a
		// run at half of it gives the line
		half, err := capacityTwin(c, text, fitted, map[string]string{"part_load_cpu": fmt.Sprint(partLoad / 2), "cpu_noise": "0"}, "live-capacity-half")
		if err != nil {
			return "", err
		}
		slope := 2 * (exact["p1"].cpu - half["p1"].cpu) / partLoad
		return "", fmt.Errorf("%s: at part_load_cpu %g the twin's CPU utilisation at 9,000/s is %.3f, live %.3f: set job.cluster.part_load_cpu to about %.3g there and in %s",
			capacityScenario, partLoad, exact["p1"].cpu, live["p1"].cpu, partLoad+(live["p1"].cpu-exact["p1"].cpu)/slope, capacityUsers)
	}
	// a saturated twin's capacity is 1/cost_scale times a constant
	if want := fitted * sim["p1"].capacity / live["p1"].capacity; math.Abs(sim["p1"].capacity-live["p1"].capacity) > capacityFitTol*live["p1"].capacity {
		return "", fmt.Errorf("%s: at cost_scale %g the twin's capacity is %.0f records/s, live %.0f: set job.cost_scale to about %.4g there, "+
			"in scenarios/live-autoscaling.yaml, scenarios/live-wordcount.yaml and scenarios/live-rescale-calibrated.yaml",
			capacityScenario, fitted, sim["p1"].capacity, live["p1"].capacity, want)
	}
	liveNoise, exactNoise := noiseWindows(live["p1"], wlive), noiseWindows(exact["p1"], wexact)
	if n := math.Round(fitNoise(liveNoise, exactNoise)/capacityNoiseStep) * capacityNoiseStep; math.Abs(n-noise) > capacityNoiseStep/2 {
		return "", fmt.Errorf("%s: the CPU noise fitted to one TaskManager's steady per-second CPU is %.2f, the scenario's %g: set job.cluster.cpu_noise: %.2f there and in %s",
			capacityScenario, n, noise, n, noiseUsers)
	}
	pct := func(a, b float64) string { return fmt.Sprintf("%+.0f %%", 100*(a-b)/b) }
	count := func(x float64) string { return textfmt.Count(math.Round(x)) }
	cpu := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	rows := [][]string{{"quantity", "role", "live", "twin", "error", "baseline twin", "error"},
		{"one TaskManager's CPU utilisation at 9,000/s", "fitted", cpu(live["p1"].cpu), cpu(sim["p1"].cpu), pct(sim["p1"].cpu, live["p1"].cpu), cpu(base["p1"].cpu), pct(base["p1"].cpu, live["p1"].cpu)},
		{"one TaskManager's capacity (records/s)", "fitted", count(live["p1"].capacity), count(sim["p1"].capacity), pct(sim["p1"].capacity, live["p1"].capacity), count(base["p1"].capacity), pct(base["p1"].capacity, live["p1"].capacity)},
		{"two TaskManagers' CPU utilisation at 18,000/s", "held out", cpu(live["p2"].cpu), cpu(sim["p2"].cpu), pct(sim["p2"].cpu, live["p2"].cpu), cpu(base["p2"].cpu), pct(base["p2"].cpu, live["p2"].cpu)},
		{"two TaskManagers' capacity (records/s)", "held out", count(live["p2"].capacity), count(sim["p2"].capacity), pct(sim["p2"].capacity, live["p2"].capacity), count(base["p2"].capacity), pct(base["p2"].capacity, live["p2"].capacity)},
	}
	for _, v := range []struct{ variant, who, rate, role string }{{"p1", "one TaskManager's", "3,000/s", "fitted"}, {"p2", "two TaskManagers'", "6,000/s", "held out"}} {
		for _, w := range [][2]float64{{0, capacityJITSplit}, {capacityJITSplit, capacityJITTo}} {
			l, t, b := meanOver(live[v.variant].early, w[0], w[1]), meanOver(sim[v.variant].early, w[0], w[1]), meanOver(base[v.variant].early, w[0], w[1])
			rows = append(rows, []string{fmt.Sprintf("%s CPU utilisation at %s, fresh, (%s, %s] s", v.who, v.rate, num(w[0]), num(w[1])), v.role,
				cpu(l), cpu(t), pct(t, l), cpu(b), pct(b, l)})
		}
	}
	for _, v := range []struct{ who, role string }{{"one TaskManager's", "fitted"}, {"two TaskManagers' mean", "held out"}} {
		var l, t, bs float64
		if v.role == "fitted" {
			l, t, bs = pooledSD(liveNoise), pooledSD(noiseWindows(sim["p1"], wsim)), pooledSD(noiseWindows(base["p1"], nil))
		} else {
			l, t, bs = pooledSD(noiseWindows(live["p2"], nil)), pooledSD(noiseWindows(sim["p2"], nil)), pooledSD(noiseWindows(base["p2"], nil))
		}
		rows = append(rows, []string{fmt.Sprintf("%s per-second CPU utilisation, standard deviation about its trend in steady windows", v.who), v.role,
			cpu(l), cpu(t), pct(t, l), cpu(bs), pct(bs, l)})
	}
	intro := fmt.Sprintf("`make live-capacity` (`%s`, committed in `%s`): one and two quarter-core TaskManagers, warmed, "+
		"then at 9,000/s each, then past capacity. The CPU utilisation is the mean over (%s, %s] s, the capacity the input less "+
		"the lag's growth over the %s after the last step. The twin's cost_scale %s is fitted to one TaskManager's capacity, "+
		"its part_load_cpu %s (the CPU a record costs while the job keeps up, as a share of its cost at capacity) to one "+
		"TaskManager's CPU at 9,000/s; the baseline is the cost_scale fitted to TaskManagers without a CPU limit, %s, with every "+
		"record at full CPU, no JIT and exact CPU readings. A fresh TaskManager also compiles the job's code: jit_cpu %s of its cores at the deployment, "+
		"decaying with jit_time %s, fitted (least squares on a grid) to the CPU per second over the first %s of four runs that "+
		"each start one fresh TaskManager at 3,000/s: p1 here and `make live-warmup`'s three (`%s`); the JIT's spread between them is wide. "+
		"A live per-second CPU reading is noisy: cpu_noise %s (a reading u gets a standard deviation of cpu_noise·√(u(1 − u))) is fitted to one "+
		"TaskManager's per-second CPU about its least-squares line in five steady windows ((60, 88] s of those four runs and "+
		"(%s, %s] s of p1), less the twin's own variation there; two TaskManagers' mean is held out.",
		capacityScenario, capacityRef, num(capacityCPUFrom), num(capacityCPUTo), seconds(capacityWindow), num(fitted), num(partLoad), num(capacityBaseline),
		num(jitCPU), seconds(jitTime), seconds(capacityJITTo), warmupRef, num(noise), num(capacityCPUFrom), num(capacityCPUTo))
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
