package khaos

import (
	"math"

	"github.com/streamtwin/streamtwin/sim"
)

// A new checkpoint interval is applied by a stop-with-savepoint and a
// resubmit: a restart with its downtime and catch-up. Khaos's optimiser and
// the analytic baselines (Young, Daly: models/policy/optimal) decide with
// the same rule whether a new interval is worth that restart, so a
// comparison of them compares their intervals, not how often each may
// restart.
const (
	// MinChange is the smallest change applied: Khaos applies a new CI
	// only if |new − current| ≥ 5000 ms (reference/khaos.md §7, step 6).
	MinChange sim.Duration = 5
	// MinRelativeChange is the smallest change applied as a share of the
	// current interval: a dead band of ± 10 %, the tolerance Kubernetes'
	// HPA leaves around its target before it rescales
	// (--horizontal-pod-autoscaler-tolerance 0.1, reference/autoscaling.md
	// §6). Near the optimum the cost of a wrong interval is flat (Young's
	// overhead C/T + T/2M is (x + 1/x)/2 of the optimum's at x = T/T*:
	// 0.5 % more at 10 % off), so a smaller move is not worth a restart.
	// Khaos's logged changes (119 → 18 → 28 s, reference/khaos.md §12) are
	// all far above it.
	MinRelativeChange = 0.1
	// MinUptime is how long the job runs after any (re)start before the
	// interval may change again: Khaos's uptime gate, general.minUpTime
	// 600 s (reference/khaos.md §7, step 1).
	MinUptime sim.Duration = 600
)

// WorthChanging says whether moving the checkpoint interval from current to
// next (seconds) is worth a restart: the move must be at least minChange
// seconds and more than minRelative of current.
func WorthChanging(current, next, minChange, minRelative float64) bool {
	d := math.Abs(next - current)
	return d >= minChange && d > minRelative*current
}
