package docgen

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/evaluation"
	"github.com/streamtwin/streamtwin/sim"
)

// A khaosVariant is one row of an evaluation's variants.csv, with its run's
// summary.json.
type khaosVariant struct {
	Name, Policy                   string
	CIS                            float64 // the CI at the start
	RecoveryBoundS                 float64
	Violations, Reconfigurations   int
	RecoveryMedianS, RecoveryMeanS float64
	LatencyMeanMs, LatencySteadyMs float64
	Changes                        []khaosCIChange
	CIMeanS                        float64 // time-weighted
	Summary                        results.Summary
}

// A khaosCIChange is a CI a policy set (variants.csv's ci_changes).
type khaosCIChange struct{ AtS, CIS float64 }

// label names a variant as the tables do: "CI 10 s" for a static CI, the
// policy's name ("Khaos", "Young") otherwise.
func (v khaosVariant) label() string {
	if v.Policy == "static" {
		return "CI " + khaosShort(v.CIS) + " s"
	}
	return strings.ToUpper(v.Policy[:1]) + v.Policy[1:]
}

// key matches a variant to the measured data: the static CI, or the policy.
func (v khaosVariant) key() string {
	if v.Policy == "static" {
		return "static " + khaosShort(v.CIS)
	}
	return v.Policy
}

// path is the CIs in force, the start first: "119 → 19 s", with the
// middle of more than three changes cut: "60 → 90.9 → … → 94.32 s".
func (v khaosVariant) path() string {
	cis := []string{khaosShort(v.CIS)}
	for i, ch := range v.Changes {
		switch {
		case len(v.Changes) <= 3 || i == 0 || i == len(v.Changes)-1:
			cis = append(cis, khaosShort(ch.CIS))
		case i == 1:
			cis = append(cis, "…")
		}
	}
	return strings.Join(cis, " → ") + " s"
}

// reconfigurations is the table cell: the count, and where the CI went.
func (v khaosVariant) reconfigurations() string {
	n := strconv.Itoa(v.Reconfigurations)
	if len(v.Changes) == 0 {
		return n
	}
	cis := []string{khaosShort(v.CIS)}
	if len(v.Changes) > 1 {
		cis = append(cis, "…")
	}
	cis = append(cis, khaosShort(v.Changes[len(v.Changes)-1].CIS))
	return n + " (" + strings.Join(cis, " → ") + " s)"
}

// khaosVariants runs and evaluates scenarios/NAME.yaml and reads its
// variants.csv and the runs' summary.json.
func khaosVariants(c *Context, name string) ([]khaosVariant, error) {
	dir, err := evaluated(c, name)
	if err != nil {
		return nil, err
	}
	rows, err := khaosReadCSV(filepath.Join(dir, evaluation.VariantsCSV))
	if err != nil {
		return nil, err
	}
	var vs []khaosVariant
	for _, row := range rows {
		v := khaosVariant{Name: row.text("variant"), Policy: row.text("policy")}
		for col, x := range map[string]*float64{
			"checkpoint_interval_s": &v.CIS, "recovery_bound_s": &v.RecoveryBoundS,
			"recovery_median_s": &v.RecoveryMedianS, "recovery_mean_s": &v.RecoveryMeanS,
			"latency_mean_ms": &v.LatencyMeanMs, "latency_steady_mean_ms": &v.LatencySteadyMs,
			"checkpoint_interval_mean_s": &v.CIMeanS,
		} {
			*x = row.number(col)
		}
		v.Violations, v.Reconfigurations = int(row.number("recovery_violations")), int(row.number("reconfigurations"))
		v.Changes = row.changes("ci_changes")
		if row.err != nil {
			return nil, fmt.Errorf("%s/%s: %w", name, evaluation.VariantsCSV, row.err)
		}
		if v.Summary, err = results.ReadSummary(filepath.Join(dir, v.Name)); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// khaosAndStatics are the Khaos variant and the static ones, by CI.
func khaosAndStatics(vs []khaosVariant) (khaosVariant, []khaosVariant, error) {
	var k []khaosVariant
	var statics []khaosVariant
	for _, v := range vs {
		switch v.Policy {
		case "khaos":
			k = append(k, v)
		case "static":
			statics = append(statics, v)
		}
	}
	if len(k) != 1 || len(statics) == 0 {
		return khaosVariant{}, nil, fmt.Errorf("want one khaos variant and static ones, have %d and %d", len(k), len(statics))
	}
	slices.SortStableFunc(statics, func(a, b khaosVariant) int { return cmp.Compare(a.CIS, b.CIS) })
	return k[0], statics, nil
}

// khaosLatencyIsMarker checks that the evaluation's latency series is the
// latency-marker p99 (what Khaos recorded, and what the measured 24 h
// latencies are): its mean is the summary's latency_marker_mean_ms.
func khaosLatencyIsMarker(vs []khaosVariant) error {
	for _, v := range vs {
		if m := v.Summary.LatencyMarkerMeanMs; math.Abs(v.LatencyMeanMs-m) > 1e-6*m {
			return fmt.Errorf("claim no longer holds: the 24 h latency is the latency-marker p99, as Khaos's: %s's evaluated mean is %g ms, its latency_marker_mean_ms %g ms", v.Name, v.LatencyMeanMs, m)
		}
	}
	return nil
}

// khaosMTBF is policy.mtbf of a run's scenario.yaml, in s.
func khaosMTBF(path string) (float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var sc struct {
		Policy struct {
			MTBF *sim.Duration `yaml:"mtbf"`
		} `yaml:"policy"`
	}
	if err := yaml.Unmarshal(data, &sc); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if sc.Policy.MTBF == nil {
		return 0, fmt.Errorf("%s: no policy.mtbf (the text says it is configured)", path)
	}
	return sc.Policy.MTBF.Seconds(), nil
}
