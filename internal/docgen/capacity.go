package docgen

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/streamtwin/streamtwin/results"
)

// The live capacity block (make live-capacity, issue 33): what one, two
// and three quarter-core TaskManagers sustain live against the twin, and
// the fit of the league's cost_scale to it: the twin's cost_scale moves
// its capacity (throughput past saturation) by 1/cost_scale, so it is
// fitted to parallelism 1 alone and 2 and 3 are held out. The baseline is
// the cost_scale of the calibration on TaskManagers without a CPU limit.

const (
	capacityRef      = "results/reference/live/capacity"
	capacityScenario = "scenarios/live-capacity.yaml"
	capacityBaseline = 0.335652 // scenarios/live-traffic-calibrated.yaml's cost_scale (no CPU limit)
	capacityStep     = 60.0     // s: the step past capacity in capacityScenario
	capacityWindow   = 10.0     // s: the window after it the capacity is read over
)

var capacityVariants = []string{"p1", "p2", "p3"}

// capacityRead is the capacity of each variant's run in dir: the input
// less the lag's growth over the capacityWindow seconds after the step,
// i.e. what the job drained per second while the input was past it
// (before the window state of the overload grows, see docs/autoscaling.md),
// and the CPU utilisation over the 10 s before the step at 3,000/s.
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
			if s.TimeS > capacityStep-capacityWindow && s.TimeS <= capacityStep-2 {
				cpus = append(cpus, s.CPUBusyMean)
			}
		}
		capacity[v] = in/capacityWindow - (lag1-lag0)/capacityWindow
		cpu[v] = results.FiniteMean(results.FiniteValues(cpus))
	}
	return capacity, cpu, nil
}

func liveCapacityTable(c *Context) (string, error) {
	live, liveCPU, err := capacityRead(c.Path(capacityRef))
	if err != nil {
		return "", err
	}
	text, err := os.ReadFile(c.Path(capacityScenario))
	if err != nil {
		return "", err
	}
	fitted, err := costScaleOf(string(text))
	if err != nil {
		return "", fmt.Errorf("%s: %w", capacityScenario, err)
	}
	twin := c.Out("live-capacity-twin")
	if _, err := c.Streamtwin("run", capacityScenario, "--out", twin); err != nil {
		return "", err
	}
	sim, simCPU, err := capacityRead(twin)
	if err != nil {
		return "", err
	}
	// the baseline: the same scenario at the unlimited TaskManagers' cost
	base := c.Out("live-capacity-baseline")
	baseScenario := filepath.Join(c.Out("live-capacity-baseline-scenario"), "live-capacity.yaml")
	if err := os.MkdirAll(filepath.Dir(baseScenario), 0o755); err != nil {
		return "", err
	}
	line := costScaleLine(string(text))
	baseText := strings.Replace(string(text), line, fmt.Sprintf("\n  cost_scale: %g\n", capacityBaseline), 1)
	if err := os.WriteFile(baseScenario, []byte(baseText), 0o644); err != nil {
		return "", err
	}
	if _, err := c.Streamtwin("run", baseScenario, "--out", base); err != nil {
		return "", err
	}
	baseCap, baseCPU, err := capacityRead(base)
	if err != nil {
		return "", err
	}
	pct := func(a, b float64) string { return fmt.Sprintf("%+.0f %%", 100*(a-b)/b) }
	rows := [][]string{{"TaskManagers", "role", "live capacity (records/s)", "twin", "error", "baseline twin", "error",
		"live CPU at 3,000/s", "twin", "baseline twin"}}
	for i, v := range capacityVariants {
		role := "held out"
		if i == 0 {
			role = "fitted"
		}
		rows = append(rows, []string{fmt.Sprint(i + 1), role,
			results.FormatCount(math.Round(live[v])), results.FormatCount(math.Round(sim[v])), pct(sim[v], live[v]),
			results.FormatCount(math.Round(baseCap[v])), pct(baseCap[v], live[v]),
			fmt.Sprintf("%.2f", liveCPU[v]), fmt.Sprintf("%.2f", simCPU[v]), fmt.Sprintf("%.2f", baseCPU[v])})
	}
	intro := fmt.Sprintf("`make live-capacity` (`%s`, committed in `%s`): static parallelism 1, 2 and 3 on quarter-core "+
		"TaskManagers, warmed at 3,000/s for %s, then driven at 36,000/s. The capacity is the input less the lag's growth over the "+
		"%s after the step; the CPU utilisation the mean over the 8 s before it. The twin's cost_scale %s is fitted to one "+
		"TaskManager (the capacity scales as 1/cost_scale); the baseline is the cost_scale fitted to TaskManagers without a CPU "+
		"limit, %s.", capacityScenario, capacityRef, seconds(capacityStep), seconds(capacityWindow), num(fitted), num(capacityBaseline))
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
