package validate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/streamtwin/streamtwin/internal/calibrate"
	"github.com/streamtwin/streamtwin/results"
)

// SummaryFile is a dataset's validation summary in its result folder,
// beside calibrate's fit report (fit.json, points.csv, report.md and the
// residual figure).
const SummaryFile = "validation.json"

// Errors are the recovery MAPE (%) of the twin and each baseline on one
// set of points, and the twin's 90 % interval coverage (%); NaN (null in
// JSON) when a model could not be fitted.
type Errors struct {
	Twin       float64 `json:"twin"`
	ClosedForm float64 `json:"closed_form"`
	OLS        float64 `json:"ols"`
	Median     float64 `json:"median"`
	Daedalus   float64 `json:"daedalus"`
	Coverage   float64 `json:"coverage"`
}

// Spread is a cross-validated error: mean and standard deviation over
// folds (%).
type Spread struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// Summary is what docs/validation.md shows of a dataset: SummaryFile.
type Summary struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Source  string `json:"source"`
	Holdout string `json:"holdout"` // e.g. "experiment 3"
	// Points: all rows; Fitted and HeldOut split them; Censored counts
	// the held-out rows whose recovery is a lower bound.
	Points     int               `json:"points"`
	Fitted     int               `json:"fitted"`
	HeldOut    int               `json:"held_out_points"`
	Censored   int               `json:"held_out_censored"`
	Fit        []string          `json:"fit"`
	Mechanisms []string          `json:"mechanisms"` // the candidates
	Chosen     []string          `json:"chosen"`
	Selection  []SelectionJSON   `json:"selection"`
	Values     map[string]string `json:"values"` // fitted, as scenario text
	Held       Errors            `json:"held_out"`
	CVScheme   string            `json:"cv_scheme"`
	CVFolds    int               `json:"cv_folds"`
	CV         map[string]Spread `json:"cv"` // model → spread over folds
	Warnings   []string          `json:"warnings"`
	// OneRun is the one-run protocol's result, when the dataset has one.
	OneRun *OneRunResult `json:"one_run,omitempty"`
	// Autoscaler is an autoscaler dataset's result (the rest empty).
	Autoscaler *AutoscalerResult `json:"autoscaler,omitempty"`
	// Rescale is a rescale dataset's result (the rest empty).
	Rescale *RescaleValidation `json:"rescale,omitempty"`
}

// SelectionJSON is a Step as the summary writes it.
type SelectionJSON struct {
	Mechanisms []string `json:"mechanisms"`
	CVMAPE     float64  `json:"cv_recovery_mape_pct"`
	Chosen     bool     `json:"chosen"`
}

// Summarize is r's Summary.
func (r *Result) Summarize() Summary {
	p, f := r.Protocol, r.Fit
	if r.Autoscaler != nil || r.Rescale != nil {
		return Summary{Name: p.Name, Title: p.Title, Source: p.Source, Fit: []string{}, Mechanisms: []string{}, Chosen: []string{},
			Selection: []SelectionJSON{}, Values: map[string]string{}, Warnings: []string{}, Autoscaler: r.Autoscaler, Rescale: r.Rescale,
			Held: Errors{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}}
	}
	s := Summary{Name: p.Name, Title: p.Title, Source: p.Source, Points: len(r.Points), Fitted: f.Fit.N, HeldOut: f.Held.N,
		Censored: f.Held.Censored, Fit: p.Fit, Mechanisms: orEmpty(p.Mechanisms), Chosen: orEmpty(r.Chosen),
		Values: map[string]string{}, Warnings: orEmpty(f.Warnings()), OneRun: r.OneRun}
	if p.Holdout.Column != "" {
		s.Holdout = p.Holdout.Column + " " + strings.Join(p.Holdout.Values, ", ")
	}
	s.Selection = []SelectionJSON{}
	for _, st := range r.Selection {
		s.Selection = append(s.Selection, SelectionJSON{orEmpty(st.Mechanisms), st.CVMAPE, st.Chosen})
	}
	for _, v := range f.Values {
		s.Values[v.Name] = v.Text(v.Fitted)
	}
	m := f.Held
	s.Held = Errors{m.RecoveryMAPE, m.ClosedFormMAPE, m.OLSMAPE, m.MedianMAPE, m.DaedalusMAPE, 100 * m.Coverage}
	if cv := f.CV; cv != nil {
		s.CVScheme, s.CVFolds = cv.Scheme, len(cv.Folds)
		s.CV = map[string]Spread{}
		for name, sp := range map[string]calibrate.Spread{"twin": cv.Twin, "closed_form": cv.ClosedForm, "ols": cv.OLS,
			"median": cv.Median, "daedalus": cv.Daedalus, "coverage": cv.Coverage} {
			scale := 1.0
			if name == "coverage" {
				scale = 100
			}
			s.CV[name] = Spread{scale * sp.Mean, scale * sp.SD}
		}
	}
	return s
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// MarshalJSON writes NaN as null.
func (e Errors) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"twin": finite(e.Twin), "closed_form": finite(e.ClosedForm), "ols": finite(e.OLS),
		"median": finite(e.Median), "daedalus": finite(e.Daedalus), "coverage": finite(e.Coverage)})
}

// UnmarshalJSON reads null as NaN.
func (e *Errors) UnmarshalJSON(b []byte) error {
	v, err := floatsOrNaN(b, "twin", "closed_form", "ols", "median", "daedalus", "coverage")
	if err != nil {
		return err
	}
	*e = Errors{v[0], v[1], v[2], v[3], v[4], v[5]}
	return nil
}

// floatsOrNaN reads the numbers of a JSON object at keys, in their
// order: null or missing as NaN.
func floatsOrNaN(b []byte, keys ...string) ([]float64, error) {
	var m map[string]*float64
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	out := make([]float64, len(keys))
	for i, k := range keys {
		out[i] = math.NaN()
		if v := m[k]; v != nil {
			out[i] = *v
		}
	}
	return out, nil
}

// MarshalJSON writes NaN as null.
func (s Spread) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"mean": finite(s.Mean), "sd": finite(s.SD)})
}

// UnmarshalJSON reads null as NaN.
func (s *Spread) UnmarshalJSON(b []byte) error {
	v, err := floatsOrNaN(b, "mean", "sd")
	if err != nil {
		return err
	}
	s.Mean, s.SD = v[0], v[1]
	return nil
}

func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// Write writes r's result folder dir: the summary (SummaryFile) and
// calibrate's fit report. dir must be new, empty or a result folder an
// earlier Write made (it holds SummaryFile): a folder of the user's is
// refused (*results.RefusedError), and a second writer is locked out.
func (r *Result) Write(dir string) ([]string, error) {
	release, err := results.ClaimFolder(dir, SummaryFile)
	if err != nil {
		return nil, err
	}
	defer release()
	p := r.Protocol
	var files []string
	if r.Fit != nil {
		info := calibrate.ReportInfo{Scenario: p.Path(p.Scenario), Measured: p.Path(p.Measured), Holdout: r.Summarize().Holdout, Base: r.Base}
		if files, err = calibrate.WriteReport(dir, r.Fit, info); err != nil {
			return nil, err
		}
	}
	if r.Rescales != nil {
		info := calibrate.RescaleReportInfo{Scenario: p.Path(p.Scenario), Measured: p.Path(p.Measured),
			Command: "streamtwin validate " + p.Dir}
		if files, err = calibrate.WriteRescaleReport(dir, r.Rescales, info); err != nil {
			return nil, err
		}
	}
	js, err := json.MarshalIndent(r.Summarize(), "", "  ")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, SummaryFile)
	if err := results.WriteFileAtomic(path, append(js, '\n')); err != nil {
		return nil, err
	}
	return append([]string{path}, files...), nil
}

// ReadSummary reads a result folder's summary.
func ReadSummary(dir string) (Summary, error) {
	var s Summary
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %w", filepath.Join(dir, SummaryFile), err)
	}
	return s, nil
}

// Table is the fidelity table of docs/validation.md: one row per dataset,
// the twin's held-out recovery MAPE beside each baseline's, the
// cross-validated twin and the best baseline, the twin's interval
// coverage, the points, and whether the twin wins the row.
func Table(sums []Summary) string {
	var b strings.Builder
	b.WriteString("| dataset | points (fitted / held out, censored) | held out: twin | closed form | OLS | median | Daedalus | 90 % coverage | cross-validated twin | best baseline | twin best held out |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range sums {
		if s.Autoscaler != nil || s.Rescale != nil {
			continue // AutoscalerTable
		}
		cv, bestCV := "–", "–"
		if s.CV != nil {
			cv = fmt.Sprintf("%s ± %s %% (%s, %d folds)", num(s.CV["twin"].Mean), num(s.CV["twin"].SD), s.CVScheme, s.CVFolds)
			name, v := bestBaseline(map[string]float64{"closed form": s.CV["closed_form"].Mean, "OLS": s.CV["ols"].Mean,
				"median": s.CV["median"].Mean, "Daedalus": s.CV["daedalus"].Mean})
			bestCV = fmt.Sprintf("%s %s %%", name, num(v))
		}
		fmt.Fprintf(&b, "| %s | %d (%d / %d, %d) | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s.Title, s.Points, s.Fitted, s.HeldOut, s.Censored,
			pct(s.Held.Twin), pct(s.Held.ClosedForm), pct(s.Held.OLS), pct(s.Held.Median), pct(s.Held.Daedalus), pct(s.Held.Coverage),
			cv, bestCV, yesNo(s.Held.Wins()))
	}
	return b.String()
}

// Wins reports whether the twin's error is below every fitted baseline's.
func (e Errors) Wins() bool {
	if math.IsNaN(e.Twin) {
		return false
	}
	for _, v := range []float64{e.ClosedForm, e.OLS, e.Median, e.Daedalus} {
		if !math.IsNaN(v) && !(e.Twin < v) {
			return false
		}
	}
	return true
}

// bestBaseline is the baseline with the lowest error (NaN ones skipped).
func bestBaseline(errs map[string]float64) (string, float64) {
	names := make([]string, 0, len(errs))
	for n := range errs {
		names = append(names, n)
	}
	slices.Sort(names)
	best, v := "–", math.NaN()
	for _, n := range names {
		if e := errs[n]; !math.IsNaN(e) && (math.IsNaN(v) || e < v) {
			best, v = n, e
		}
	}
	return best, v
}

// Details is a dataset's section of docs/validation.md: its protocol, the
// mechanism selection and the fitted values.
func Details(s Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (`validation/%s/`). Source: %s\n\n", s.Title, s.Name, s.Source)
	held := "none"
	if s.Holdout != "" {
		held = s.Holdout
	}
	fmt.Fprintf(&b, "- Protocol: fitted on %d points, held out %s (%d points, %d of them censored); always fitted: %s",
		s.Fitted, held, s.HeldOut, s.Censored, strings.Join(s.Fit, ", "))
	if len(s.Mechanisms) > 0 {
		fmt.Fprintf(&b, "; candidate mechanisms: %s", strings.Join(s.Mechanisms, ", "))
	}
	b.WriteString(".\n")
	if len(s.Selection) > 0 {
		b.WriteString("- Mechanism selection (cross-validated twin recovery MAPE on the fitted points):")
		for i, st := range s.Selection {
			set := "none"
			if len(st.Mechanisms) > 0 {
				set = strings.Join(st.Mechanisms, " + ")
			}
			mark := ""
			if st.Chosen {
				mark = " **(chosen)**"
			}
			sep := ";"
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&b, "%s %s %s %%%s", sep, set, num(st.CVMAPE), mark)
		}
		b.WriteString(".\n")
	}
	var vals []string
	for k, v := range s.Values {
		vals = append(vals, k+" = "+v)
	}
	slices.Sort(vals)
	fmt.Fprintf(&b, "- Fitted: %s.\n", strings.Join(vals, ", "))
	if s.CV != nil {
		fmt.Fprintf(&b, "- Cross-validated (%s, %d folds), recovery MAPE mean ± s.d.: twin %s, closed form %s, OLS %s, median %s, Daedalus %s; twin 90 %% coverage %s.\n",
			s.CVScheme, s.CVFolds, spread(s.CV["twin"]), spread(s.CV["closed_form"]), spread(s.CV["ols"]), spread(s.CV["median"]),
			spread(s.CV["daedalus"]), spread(s.CV["coverage"]))
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "- Warning: %s.\n", w)
	}
	return b.String()
}

func spread(s Spread) string {
	if math.IsNaN(s.Mean) {
		return "–"
	}
	if math.IsNaN(s.SD) {
		return num(s.Mean) + " %"
	}
	return num(s.Mean) + " ± " + num(s.SD) + " %"
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.1f", v)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// AutoscalerTable is the autoscaler datasets' table of docs/validation.md:
// per dataset, the twin's TaskManager-seconds, rescales and time-at-count
// distribution against the measured runs' mean, and the calibration.
func AutoscalerTable(sums []Summary) string {
	var b strings.Builder
	b.WriteString("| dataset | static run's CPU line → cost_scale, idle_cpu | upgrade (cold starts: downtime, warm-up) | TaskManager-seconds: twin / measured (error) | rescales: twin / measured (error) | time-at-count TV distance | twin's most frequent counts | measured | lag per partition, mean / p95: twin / measured (error) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range sums {
		a := s.Autoscaler
		if a == nil {
			continue
		}
		var tm, resc []string
		mean := map[int]float64{}
		for _, m := range a.Measured {
			tm, resc = append(tm, fmt.Sprintf("%.3g", m.TMSecs)), append(resc, fmt.Sprint(m.Rescales))
			for k, v := range m.TimeAt {
				mean[k] += v / float64(len(a.Measured))
			}
		}
		upgrade := "–"
		if u := a.Upgrades; u != nil {
			upgrade = fmt.Sprintf("%.0f s, %.0f s from %.0f %% (%d)", u.DowntimeS, u.RampS, 100*u.StartShare, u.ColdStarts)
		}
		lag := "–"
		if a.LagError != nil {
			var ms []string
			for _, m := range a.Measured {
				ms = append(ms, fmt.Sprintf("%.3g / %.3g", m.Lag.Mean, m.Lag.P95))
			}
			lag = fmt.Sprintf("%.3g / %.3g; %s (%+.0f %%, %+.0f %%)", a.Twin.Lag.Mean, a.Twin.Lag.P95, strings.Join(ms, ", "), 100*a.LagError.Mean, 100*a.LagError.P95)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.3g / %s (%+.1f %%) | %d / %s (%+.0f %%) | %.2f | %s | %s | %s |\n", s.Title, a.CPU.cell(), upgrade,
			a.Twin.TMSecs, strings.Join(tm, ", "), 100*a.TMSecsError, a.Twin.Rescales, strings.Join(resc, ", "), 100*a.RescalesError, a.TVDistance,
			topCounts(a.Twin.TimeAt), topCounts(mean), lag)
	}
	return b.String()
}

// topCounts are the three counts with the most time, with their shares.
func topCounts(at map[int]float64) string {
	type kv struct {
		n int
		v float64
	}
	var all []kv
	for n, v := range at {
		all = append(all, kv{n, v})
	}
	slices.SortFunc(all, func(a, b kv) int {
		if a.v != b.v {
			return cmp.Compare(b.v, a.v)
		}
		return a.n - b.n
	})
	var parts []string
	for _, x := range all[:min(3, len(all))] {
		parts = append(parts, fmt.Sprintf("%d: %.0f %%", x.n, 100*x.v))
	}
	return strings.Join(parts, ", ")
}

// OneRunTable is the one-run protocol's table of docs/validation.md: per
// dataset that has one, the twin calibrated from a single static run beside
// the full protocol's twin and its best baseline, on the same held-out
// points.
func OneRunTable(sums []Summary) string {
	var b strings.Builder
	b.WriteString("| dataset | static run's CPU line → cost_scale, idle_cpu | held out: twin from one run | all points: twin from one run | held out: twin, full protocol | best baseline, full protocol |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, s := range sums {
		o := s.OneRun
		if o == nil {
			continue
		}
		name, best := bestBaseline(map[string]float64{"closed form": s.Held.ClosedForm, "OLS": s.Held.OLS, "median": s.Held.Median, "Daedalus": s.Held.Daedalus})
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s %s |\n", s.Title, o.CPU.cell(),
			pct(o.HeldOut), pct(o.All), pct(s.Held.Twin), name, pct(best))
	}
	return b.String()
}
