package validate

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"

	"github.com/streamtwin/streamtwin/internal/calibrate"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

// KindRescale is the protocol kind of a dataset of measured rescales (the
// table `streamtwin results rescales` writes of a run): the twin's rescale
// delay and deploy time are fitted per direction with each rescale left
// out once (calibrate.CalibrateRescales), and the held-out predictions are
// scored against the baseline, the mean of the other rescales of the same
// direction.
const KindRescale = "rescale"

// RescaleValidation is a rescale dataset's validation: the values fitted
// on every rescale, and per direction (up, down, then all) the held-out
// mean absolute errors of the twin and the baseline.
type RescaleValidation struct {
	Values     map[string]string `json:"values"`
	Directions []DirectionErrors `json:"directions"`
}

// DirectionErrors are one direction's held-out mean absolute errors (s).
type DirectionErrors struct {
	Direction string    `json:"direction"` // up, down or all
	Rescales  int       `json:"rescales"`
	Twin      RescaleAE `json:"twin"`
	Baseline  RescaleAE `json:"mean_of_others"`
}

// RescaleAE are the mean absolute errors (s) of the delay (request to
// restart), the downtime and the recovery; NaN (null in JSON) without a
// measured value.
type RescaleAE struct{ Delay, Downtime, Recovery float64 }

// MarshalJSON writes NaN as null.
func (e RescaleAE) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"delay_s": finite(e.Delay), "downtime_s": finite(e.Downtime), "recovery_s": finite(e.Recovery)})
}

// UnmarshalJSON reads null as NaN.
func (e *RescaleAE) UnmarshalJSON(b []byte) error {
	v, err := floatsOrNaN(b, "delay_s", "downtime_s", "recovery_s")
	if err != nil {
		return err
	}
	*e = RescaleAE{v[0], v[1], v[2]}
	return nil
}

// runRescale fits and leaves each measured rescale out once.
func runRescale(p *Protocol, o Options) (*calibrate.RescaleResult, *RescaleValidation, error) {
	data, err := os.ReadFile(p.Path(p.Scenario))
	if err != nil {
		return nil, nil, &InputError{err}
	}
	base, err := scenario.ParseRun(p.Path(p.Scenario), data, p.Variant, nil)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	f, err := os.Open(p.Path(p.Measured))
	if err != nil {
		return nil, nil, &InputError{err}
	}
	ms, err := measure.ReadRescalesCSV(f)
	f.Close()
	if err != nil {
		return nil, nil, &InputError{fmt.Errorf("%s: %w", p.Path(p.Measured), err)}
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	o.log("%s: fitting the rescale delay and deploy time per direction on %s, each left out once", p.Name, textfmt.Plural(len(ms), "rescale"))
	r, err := calibrate.CalibrateRescales(base, ms, calibrate.RescaleOptions{Workers: workers, MaxEvaluations: p.MaxEvaluations})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	v := &RescaleValidation{Values: map[string]string{}}
	for _, x := range r.Values {
		v.Values[x.Name] = x.Text(x.Fitted)
	}
	for _, d := range []string{calibrate.DirectionUp, calibrate.DirectionDown, ""} {
		t, b := r.HeldOutErrors(d)
		name := d
		if d == "" {
			name = "all"
		}
		v.Directions = append(v.Directions, DirectionErrors{Direction: name, Rescales: t.N,
			Twin: RescaleAE{t.DelayS, t.DowntimeS, t.RecoveryS}, Baseline: RescaleAE{b.DelayS, b.DowntimeS, b.RecoveryS}})
	}
	return r, v, nil
}

// RescaleTable is the rescale datasets' table of docs/validation.md: per
// dataset and direction, the twin's held-out mean absolute errors beside
// the baseline's.
func RescaleTable(sums []Summary) string {
	var b strings.Builder
	b.WriteString("| dataset | direction | rescales | delay: twin / mean of others | downtime: twin / mean of others | recovery: twin / mean of others |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, s := range sums {
		if s.Rescale == nil {
			continue
		}
		for _, d := range s.Rescale.Directions {
			pair := func(t, m float64) string {
				if math.IsNaN(t) || math.IsNaN(m) {
					return "–"
				}
				w := ""
				if t < m {
					w = " (twin better)"
				}
				return num(t) + " s / " + num(m) + " s" + w
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s |\n", s.Title, d.Direction, d.Rescales,
				pair(d.Twin.Delay, d.Baseline.Delay), pair(d.Twin.Downtime, d.Baseline.Downtime), pair(d.Twin.Recovery, d.Baseline.Recovery))
		}
	}
	return b.String()
}
