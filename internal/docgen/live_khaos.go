package docgen

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/streamtwin/streamtwin/internal/profile"
	"github.com/streamtwin/streamtwin/models/policy/khaos"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/textfmt"
	"github.com/streamtwin/streamtwin/sim"
)

// liveKhaosRun is the twin's run of scenarios/live-khaos.yaml.
func liveKhaosRun(c *Context) (string, error) {
	dir := c.Out("live-sim-khaos")
	_, err := c.Streamtwin("run", liveKhaosScenario, "--out", dir)
	return dir, err
}

// khaosDecision is a run's first policy decision, and what its reason
// says Khaos saw.
type khaosDecision struct {
	atS, value       float64
	reason           string
	throughput, ciS  float64
	latencyMs, bound float64 // the window's marker p99; R
}

var (
	reDecisionRate    = regexp.MustCompile(`at (\d+(?:\.\d+)?) records/s`)
	reDecisionCI      = regexp.MustCompile(`, CI (\d+(?:\.\d+)?)s`)
	reDecisionLatency = regexp.MustCompile(`\(latency (\d+(?:\.\d+)?) ms`)
	reDecisionR       = regexp.MustCompile(`vs R (\d+(?:\.\d+)?) s`)
)

func firstKhaosDecision(dir string) (khaosDecision, []results.Event, error) {
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return khaosDecision{}, nil, err
	}
	for _, e := range events {
		if e.Kind != results.KindPolicyDecision {
			continue
		}
		d := khaosDecision{atS: e.TimeS, reason: e.Reason}
		if e.Value != nil {
			d.value = *e.Value
		}
		for _, f := range []struct {
			re *regexp.Regexp
			x  *float64
		}{{reDecisionRate, &d.throughput}, {reDecisionCI, &d.ciS}, {reDecisionLatency, &d.latencyMs}, {reDecisionR, &d.bound}} {
			m := f.re.FindStringSubmatch(e.Reason)
			if m == nil {
				return d, nil, fmt.Errorf("%s: the first decision's reason %q does not match %s", dir, e.Reason, f.re)
			}
			*f.x, _ = strconv.ParseFloat(m[1], 64)
		}
		if !strings.HasPrefix(e.Reason, "set_checkpoint_interval: khaos: recovery violation") {
			return d, nil, fmt.Errorf("claim no longer holds: %s: Khaos's first decision sets the CI for a recovery violation (%q)", dir, e.Reason)
		}
		return d, events, nil
	}
	return khaosDecision{}, nil, fmt.Errorf("claim no longer holds: %s: Khaos decides something", dir)
}

// liveKhaosPrediction: the profiled OLS model's recovery at the start of
// live-khaos.yaml, above R, so Khaos moves the CI at its first tick.
func liveKhaosPrediction(c *Context) (string, error) {
	compact, _, err := profile.ReadModels(c.Path(liveKhaosModels))
	if err != nil {
		return "", err
	}
	var m khaos.Models
	if err := json.Unmarshal([]byte(compact), &m); err != nil {
		return "", err
	}
	dir, err := liveKhaosRun(c)
	if err != nil {
		return "", err
	}
	d, _, err := firstKhaosDecision(dir)
	if err != nil {
		return "", err
	}
	var sc struct {
		Policy struct {
			Period sim.Duration `yaml:"period"`
			Model  string       `yaml:"model"`
		} `yaml:"policy"`
	}
	data, err := os.ReadFile(c.Path(liveKhaosScenario))
	if err != nil {
		return "", err
	}
	if err := yaml.Unmarshal(data, &sc); err != nil {
		return "", fmt.Errorf("%s: %w", liveKhaosScenario, err)
	}
	if sc.Policy.Model != "" && sc.Policy.Model != "ols" {
		return "", fmt.Errorf("claim no longer holds: %s predicts recovery with the OLS model (model %q)", liveKhaosScenario, sc.Policy.Model)
	}
	pred := m.Recovery.Predict(d.throughput, d.ciS)
	if pred <= d.bound {
		return "", fmt.Errorf("claim no longer holds: the OLS model predicts a recovery above R = %g s (%g s)", d.bound, pred)
	}
	if p := sc.Policy.Period.Seconds(); p <= 0 || math.Abs(d.atS-p) > 1 {
		return "", fmt.Errorf("claim no longer holds: Khaos moves the CI at its first tick (%g s; the decision at %g s)", p, d.atS)
	}
	return wrap(fmt.Sprintf("The profiled OLS model predicts a %s recovery at %s records/s and CI %s, above R = %s: a "+
		"recovery violation, so Khaos moves the CI to %s at its first tick, %s in, by stop-with-savepoint and resubmit.",
		seconds(pred), textfmt.Count(d.throughput), seconds(d.ciS), seconds(d.bound), seconds(d.value), seconds(d.atS)), liveWidth), nil
}

// liveKhaosCompare is the compare output docs/live.md shows: the command
// above it, on a fresh twin run and the committed live run, verbatim.
func liveKhaosCompare(c *Context) (string, error) {
	dir, err := liveKhaosRun(c)
	if err != nil {
		return "", err
	}
	out, err := c.Streamtwin("compare", dir, liveKhaosRef, "--faults", "--decisions", "--tolerance", liveTolerance)
	if err != nil {
		return "", fmt.Errorf("claim no longer holds: the twin of %s is as close to %s as %s claims: %w", liveKhaosScenario, liveKhaosRef, liveTolerance, err)
	}
	return "```\n" + strings.ReplaceAll(strings.TrimRight(out, "\n"), dir, "runs/sim-khaos") + "\n```", nil
}

// liveKhaosDecisions: the twin and the live run decide alike, and what
// came of it.
func liveKhaosDecisions(c *Context) (string, error) {
	dir, err := liveKhaosRun(c)
	if err != nil {
		return "", err
	}
	twin, twinEvents, err := firstKhaosDecision(dir)
	if err != nil {
		return "", err
	}
	live, liveEvents, err := firstKhaosDecision(c.Path(liveKhaosRef))
	if err != nil {
		return "", err
	}
	if twin.value != live.value || math.Abs(twin.atS-live.atS) > 1 {
		return "", fmt.Errorf("claim no longer holds: the twin and the live run take the same decision at the same tick (twin CI %g s at %g s, live %g s at %g s)", twin.value, twin.atS, live.value, live.atS)
	}
	twinReconf, ok1 := eventDuration(twinEvents, results.KindReconfigured, "")
	liveReconf, ok2 := eventDuration(liveEvents, results.KindReconfigured, "")
	if !ok1 || !ok2 {
		return "", fmt.Errorf("claim no longer holds: both runs reconfigure")
	}
	liveSum, err := results.ReadSummary(c.Path(liveKhaosRef))
	if err != nil {
		return "", err
	}
	r := liveSum.QoS.RecoveryBoundS
	recoveries := func(events []results.Event) ([]string, []float64, error) {
		var labels []string
		var xs []float64
		for _, f := range measure.FaultRecoveries(events) {
			if !f.Recovered() {
				return nil, nil, fmt.Errorf("claim no longer holds: every fault recovers")
			}
			labels, xs = append(labels, num(f.RecoveryS)), append(xs, f.RecoveryS)
		}
		return labels, xs, nil
	}
	tl, tx, err := recoveries(twinEvents)
	if err != nil {
		return "", err
	}
	ll, lx, err := recoveries(liveEvents)
	if err != nil {
		return "", err
	}
	if len(tx) != len(lx) || len(lx) == 0 {
		return "", fmt.Errorf("claim no longer holds: the twin and the live run recover from the same faults (%d, %d)", len(tx), len(lx))
	}
	met := func(xs []float64, where string) string {
		var over []string
		for i, x := range xs {
			if x > r {
				over = append(over, liveOrdinal(i+1, len(xs)))
			}
		}
		switch {
		case len(over) == 0 && len(xs) == 2:
			return "both met R = " + seconds(r) + " " + where
		case len(over) == 0:
			return "all met R = " + seconds(r) + " " + where
		case len(over) == len(xs):
			return "none met R = " + seconds(r) + " " + where
		}
		return where + " the " + andList(over) + " did not"
	}
	return wrap(fmt.Sprintf("Both take the same decision at the same tick, from the same violation: live, the window's mean "+
		"throughput was %s records/s and the latency-marker p99 %s ms (twin: %s records/s, %s ms). The live reconfiguration "+
		"took %s (twin %s; \"Khaos live, kill by kill\" below sets the repeated live runs' against the twin's seeds); the %s recoveries %s s live against %s s in the twin, so at CI %s %s, and %s.",
		textfmt.Count(live.throughput), num(live.latencyMs), textfmt.Count(twin.throughput), num(twin.latencyMs),
		seconds(liveReconf), seconds(twinReconf), liveSpelled(len(lx)), andList(ll), andList(tl), seconds(live.value),
		met(lx, "live"), met(tx, "in the twin")), liveWidth), nil
}

// ordinal names the i'th of n: "first", "second", … ("last" for n > 2).
func liveOrdinal(i, n int) string {
	if i == n && n > 2 {
		return "last"
	}
	if w := []string{"", "first", "second", "third", "fourth", "fifth"}; i < len(w) {
		return w[i]
	}
	return fmt.Sprintf("%d'th", i)
}

// spelled writes small counts in words.
func liveSpelled(n int) string {
	if w := []string{"no", "one", "two", "three", "four", "five", "six"}; n < len(w) {
		return w[n]
	}
	return textfmt.Count(float64(n))
}
