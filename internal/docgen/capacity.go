package docgen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/streamtwin/streamtwin/results"
)

// The live capacity block (make live-capacity, issue 33): what one and
// two quarter-core TaskManagers cost and sustain live against the twin.
// The twin's cost_scale is fitted to one TaskManager's capacity (what it
// drains per second past saturation); its CPU utilisation at a steady,
// warm load and two TaskManagers' CPU and capacity are held out. The baseline is the cost_scale of the calibration on TaskManagers
// without a CPU limit. The block fails, naming the value to set, when the
// scenario's cost_scale is not the fit.

const (
	capacityRef      = "results/reference/live/capacity"
	capacityScenario = "scenarios/live-capacity.yaml"
	capacityBaseline = 0.335652 // scenarios/live-traffic-calibrated.yaml's cost_scale (no CPU limit)
	capacityCPUFrom  = 120.0    // s: the CPU is read over (from, to], warm, at the middle step
	capacityCPUTo    = 148.0
	capacityStep     = 150.0 // s: the step past capacity
	capacityWindow   = 20.0  // s: the window after it the capacity is read over
	capacityFitTol   = 0.02  // the fitted twin's capacity within this share of the live one
)

var capacityVariants = []string{"p1", "p2"}

// capacityRead is, per variant of the runs in dir, the mean CPU
// utilisation over (capacityCPUFrom, capacityCPUTo] and the capacity: the
// input less the lag's growth over the capacityWindow seconds after the
// step past it, i.e. what the job drained per second.
func capacityRead(dir string) (capacity, cpu map[string]float64, err error) {
	capacity, cpu = map[string]float64{}, map[string]float64{}
	for _, v := range capacityVariants {
		ss, err := results.ReadSamples(filepath.Join(dir, v, results.TimeseriesFile))
		if err != nil {
			return nil, nil, err
		}
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
	return capacity, cpu, nil
}

// capacityTwin runs the twin on the capacity scenario's text with
// job.cost_scale set to cost and reads it.
func capacityTwin(c *Context, text string, cost float64, name string) (capacity, cpu map[string]float64, err error) {
	line := costScaleLine(text)
	if line == "" {
		return nil, nil, fmt.Errorf("%s: no job.cost_scale line", capacityScenario)
	}
	out, err := c.RunText(name, "live-capacity.yaml", strings.Replace(text, line, fmt.Sprintf("\n  cost_scale: %g\n", cost), 1))
	if err != nil {
		return nil, nil, err
	}
	return capacityRead(out)
}

func liveCapacityTable(c *Context) (string, error) {
	live, liveCPU, err := capacityRead(c.Path(capacityRef))
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(c.Path(capacityScenario))
	if err != nil {
		return "", err
	}
	text := string(b)
	fitted, err := costScaleOf(text)
	if err != nil {
		return "", fmt.Errorf("%s: %w", capacityScenario, err)
	}
	sim, simCPU, err := capacityTwin(c, text, fitted, "live-capacity-twin")
	if err != nil {
		return "", err
	}
	baseCap, baseCPU, err := capacityTwin(c, text, capacityBaseline, "live-capacity-baseline")
	if err != nil {
		return "", err
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
		{"one TaskManager's CPU utilisation at 9,000/s", "held out", cpu(liveCPU["p1"]), cpu(simCPU["p1"]), pct(simCPU["p1"], liveCPU["p1"]), cpu(baseCPU["p1"]), pct(baseCPU["p1"], liveCPU["p1"])},
		{"one TaskManager's capacity (records/s)", "fitted", count(live["p1"]), count(sim["p1"]), pct(sim["p1"], live["p1"]), count(baseCap["p1"]), pct(baseCap["p1"], live["p1"])},
		{"two TaskManagers' CPU utilisation at 18,000/s", "held out", cpu(liveCPU["p2"]), cpu(simCPU["p2"]), pct(simCPU["p2"], liveCPU["p2"]), cpu(baseCPU["p2"]), pct(baseCPU["p2"], liveCPU["p2"])},
		{"two TaskManagers' capacity (records/s)", "held out", count(live["p2"]), count(sim["p2"]), pct(sim["p2"], live["p2"]), count(baseCap["p2"]), pct(baseCap["p2"], live["p2"])},
	}
	intro := fmt.Sprintf("`make live-capacity` (`%s`, committed in `%s`): one and two quarter-core TaskManagers, warmed, "+
		"then at 9,000/s each, then past capacity. The CPU utilisation is the mean over (%s, %s] s, the capacity the input less "+
		"the lag's growth over the %s after the last step. The twin's cost_scale %s is fitted to one TaskManager's capacity; the "+
		"baseline is the cost_scale fitted to TaskManagers without a CPU limit, %s.",
		capacityScenario, capacityRef, num(capacityCPUFrom), num(capacityCPUTo), seconds(capacityWindow), num(fitted), num(capacityBaseline))
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

// costScaleOf is job.cost_scale of a scenario's text.
func costScaleOf(text string) (float64, error) {
	line := costScaleLine(text)
	if line == "" {
		return 0, fmt.Errorf("no job.cost_scale line")
	}
	var x float64
	if _, err := fmt.Sscan(strings.TrimPrefix(strings.TrimSpace(line), "cost_scale:"), &x); err != nil {
		return 0, fmt.Errorf("job.cost_scale: %w", err)
	}
	return x, nil
}
