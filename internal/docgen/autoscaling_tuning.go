package docgen

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/streamtwin/streamtwin/results"
)

// asTuningFindings is what the scale-down interval does to the rescalings
// of `make autoscaler-tuning`.
func asTuningFindings(c *Context) (string, error) {
	dir, err := autoscalerTuning(c)
	if err != nil {
		return "", err
	}
	t, err := results.ReadTable(filepath.Join(dir, results.RunsFile))
	if err != nil {
		return "", err
	}
	const target, interval, fig = "policy.target_utilization", "policy.scale_down_interval", "reconfigurations"
	tu, iv, rc := t.Column(target), t.Column(interval), t.Column(fig)
	if tu == nil || iv == nil || rc == nil {
		return "", fmt.Errorf("%s: no column %s, %s or %s", results.RunsFile, target, interval, fig)
	}
	// rescalings per run without a scale-down interval and with one hour,
	// over every target and restart time; and per target
	var none, hour []float64
	noneMin, hourMax := map[float64]float64{}, map[float64]float64{}
	for i := range rc {
		switch iv[i] {
		case 0:
			none = append(none, rc[i])
			if m, ok := noneMin[tu[i]]; !ok || rc[i] < m {
				noneMin[tu[i]] = rc[i]
			}
		case 3600:
			hour = append(hour, rc[i])
			hourMax[tu[i]] = max(hourMax[tu[i]], rc[i])
		}
	}
	var cs asClaims
	cs.check(len(none) > 0 && len(hour) > 0, "the sweep has scale-down intervals of 0 and 1 h")
	for _, u := range slices.Sorted(maps.Keys(noneMin)) {
		cs.check(hourMax[u] < noneMin[u], "a one-hour scale-down interval cuts the rescalings at target %s", num(u))
	}
	if err := cs.err(); err != nil {
		return "", err
	}
	return fmt.Sprintf(`A one-hour scale-down interval cuts the rescalings per run from %s to %s at any target, as the
operator's users ask of it (flapping); `+"`streamtwin results summarize runs/autoscaler-tuning --by\npolicy.target_utilization,policy.scale_down_interval,policy.restart_time --figure worker_seconds,lag_max`"+` gives the cost in
worker-seconds and backlog of each choice.`, asSpan(none, asWhole), asSpan(hour, asWhole)), nil
}
