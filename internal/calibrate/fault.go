package calibrate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/sim"
)

// faultForms are the fault column's forms, for errors.
const faultForms = "kill (a TaskManager crash, the default), freeze:DURATION, cpu_throttle:SHARE/DURATION or network_delay:DELAY/DURATION, e.g. network_delay:60s/30s"

// ParseFault reads a measured point's fault column into the fault a
// point's run injects (Kind and its settings; the time and target are the
// point's): "" or kill, the crash Khaos injects; or a TaskManager fault of
// the scenario's fault kinds with its settings after a colon.
func ParseFault(text string) (scenario.ScheduledFault, error) {
	kind, args, _ := strings.Cut(strings.TrimSpace(text), ":")
	var parts []string
	if args != "" {
		parts = strings.Split(args, "/")
	}
	f := scenario.ScheduledFault{Kind: kind}
	dur := func(s, what string) (sim.Duration, error) {
		d, err := sim.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("fault %q: %s %q is not a duration such as 30s", text, what, s)
		}
		return d, nil
	}
	want := func(n int) error {
		if len(parts) != n {
			return fmt.Errorf("fault %q: %s takes %d setting(s) after the colon; the forms are %s", text, kind, n, faultForms)
		}
		return nil
	}
	var err error
	switch kind {
	case "", "kill", scenario.FaultTaskManager:
		f.Kind = scenario.FaultTaskManager
		err = want(0)
	case scenario.FaultFreeze:
		if err = want(1); err == nil {
			f.Duration, err = dur(parts[0], "duration")
		}
	case scenario.FaultCPUThrottle:
		if err = want(2); err == nil {
			f.Share, err = strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
			if err != nil || !(f.Share > 0 && f.Share < 1) {
				return f, fmt.Errorf("fault %q: the CPU share left must be in (0, 1), e.g. cpu_throttle:0.25/60s", text)
			}
			f.Duration, err = dur(parts[1], "duration")
		}
	case scenario.FaultNetworkDelay:
		if err = want(2); err == nil {
			if f.Delay, err = dur(parts[0], "delay"); err == nil && f.Delay > scenario.MaxNetworkDelay {
				err = fmt.Errorf("fault %q: the delay must be at most %gs", text, float64(scenario.MaxNetworkDelay))
			}
			if err == nil {
				f.Duration, err = dur(parts[1], "duration")
			}
		}
	default:
		err = fmt.Errorf("fault %q: unknown; a measured point's fault hits one TaskManager: %s", text, faultForms)
	}
	return f, err
}

// configure sets sc to the configuration p was measured in, where the
// table says: parallelism, task slots and cores per TaskManager (then as
// many TaskManagers as the parallelism needs, as Flink's native Kubernetes
// mode starts). memory_mib has no part in the twin: the model has no
// memory pressure.
func configure(sc *scenario.Scenario, p Point) {
	if p.Parallelism > 0 {
		sc.Job.Parallelism = int(p.Parallelism)
		sc.Job.Cluster.TaskManagers = 0
	}
	if p.TaskSlots > 0 {
		sc.Job.Cluster.Slots = int(p.TaskSlots)
		sc.Job.Cluster.TaskManagers = 0
	}
	if p.CPUCores > 0 {
		sc.Job.Cluster.Cores = p.CPUCores
	}
}
