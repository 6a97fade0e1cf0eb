package docgen

import "slices"

// Blocks are every generated block, document by document.
func Blocks() []Block {
	return slices.Concat(readmeBlocks(), figuresBlocks(), khaosBlocks(), calibrationBlocks(), autoscalingBlocks(), monitoringBlocks(), liveBlocks(), validationBlocks(), gymBlocks())
}

// Figures are every file of docs/figures, with the command that makes it.
func Figures() []Figure {
	figs := []Figure{
		{"docs/figures/demo.png", file(demoRun, "figure.png")},
		{"docs/figures/demo-fault1.png", file(demoRun, "figure-fault1.png")},
		{"docs/figures/monitoring-tradeoff.png", file(monitoringRun, "tradeoff.png")},
	}
	for _, set := range []string{"ci-variants", "khaos-ysb"} {
		for _, f := range []string{"panels", "faults", "latency", "recovery"} {
			figs = append(figs, Figure{"docs/figures/" + set + "-" + f + ".png", file(named(evaluated, set), "evaluation-"+f+".png")})
		}
	}
	// The profile `run` made for the Khaos variant: the one the khaos-ysb
	// profiling block quotes.
	for _, f := range []string{"latency", "recovery"} {
		figs = append(figs, Figure{"docs/figures/khaos-ysb-profile-" + f + ".png", file(named(evaluated, "khaos-ysb"), "profile/"+f+"_model.png")})
	}
	for _, w := range []string{"ysb", "traffic", "wordcount"} {
		for _, f := range []string{"summary", "timeline", "latency"} {
			figs = append(figs, Figure{"docs/figures/daedalus-" + w + "-" + f + ".png", file(named(sweptAndEvaluated, "daedalus-"+w), "scaling-"+f+".png")})
		}
	}
	for _, f := range []string{"rescalings", "worker-seconds", "lag"} {
		figs = append(figs, Figure{"docs/figures/autoscaler-tuning-" + f + ".png", file(autoscalerTuning, "tuning-"+f+".png")})
	}
	return append(figs, validationFigures()...)
}

// monitoringRun is `make monitoring`: the compressed IoT week's samplers.
func monitoringRun(c *Context) (string, error) {
	dir := c.Out("monitoring-iot")
	_, err := c.Streamtwin("run", "scenarios/monitoring-iot.yaml", "--out", dir, "--plot")
	return dir, err
}

// autoscalerTuning is `make autoscaler-tuning`: the operator autoscaler's
// settings swept on the traffic day, and three line plots of the sweep.
func autoscalerTuning(c *Context) (string, error) {
	dir := c.Out("autoscaler-tuning")
	if _, err := c.Streamtwin("sweep", "scenarios/sweeps/autoscaler-tuning.yaml", "--out", dir); err != nil {
		return "", err
	}
	for _, p := range []struct{ y, lines, title, out string }{
		{"reconfigurations", "policy.scale_down_interval", "rescalings (flapping) by scale-down interval", "tuning-rescalings"},
		{"worker_seconds", "policy.restart_time", "worker-seconds by assumed restart time", "tuning-worker-seconds"},
		{"lag_max", "policy.restart_time", "largest consumer lag by assumed restart time", "tuning-lag"},
	} {
		if _, err := c.Streamtwin("plot", "lines", dir, "-x", "policy.target_utilization", "-y", p.y, "--lines", p.lines,
			"--title", p.title, "--out", dir+"/"+p.out); err != nil {
			return "", err
		}
	}
	return dir, nil
}
