package results

import (
	"encoding/csv"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Rescale is one change of parallelism of a run, read from its events and
// samples the same way for the simulator and a live cluster.
type Rescale struct {
	AtS      float64 // the decision (a policy's or the scenario's)
	From, To int     // parallelism before and after
	// InputRate is the input rate (records/s) of the sample at the decision.
	InputRate float64
	// DelayS is from the decision to the restart (the job kept running);
	// DowntimeS from the restart until the job ran again; RecoveryS from
	// the restart until the backlog was read (NaN: never, by the end).
	DelayS, DowntimeS, RecoveryS float64
}

// Up tells a scale-up.
func (r Rescale) Up() bool { return r.To > r.From }

// Rescales pairs each rescale decision with the reconfiguration that
// carried it out and the recovery that closed it. A decision that changed
// nothing (refused, or to the parallelism in force) has none and is left
// out; checkpoint-interval changes are not rescales.
func Rescales(samples []Sample, events []Event) []Rescale {
	sort.SliceStable(events, func(i, j int) bool { return events[i].TimeS < events[j].TimeS })
	// the last sample before the decision (the one closing at its moment
	// may already show its effect)
	parAt := func(t float64) (int, float64) {
		i := sort.Search(len(samples), func(i int) bool { return samples[i].TimeS >= t }) - 1
		if i < 0 {
			return 0, math.NaN()
		}
		return int(samples[i].Parallelism), samples[i].InputRate
	}
	var out []Rescale
	for i, e := range events {
		if e.Kind != KindPolicyDecision || e.Value == nil || !strings.HasPrefix(e.Reason, "rescale:") || strings.Contains(e.Reason, "(rejected:") {
			continue
		}
		from, rate := parAt(e.TimeS)
		r := Rescale{AtS: e.TimeS, From: from, To: int(*e.Value), InputRate: rate, RecoveryS: math.NaN()}
		if r.From == r.To {
			continue
		}
		// the next reconfiguration, before any later decision
		for _, f := range events[i+1:] {
			if f.Kind == KindPolicyDecision && f.Value != nil && strings.HasPrefix(f.Reason, "rescale:") {
				break
			}
			if f.Kind == KindReconfigured && f.DurationS != nil {
				r.DowntimeS = *f.DurationS
				r.DelayS = f.TimeS - *f.DurationS - r.AtS
				restart := f.TimeS - *f.DurationS
				for _, g := range events {
					if g.Kind == KindRecovered && g.DurationS != nil && IsReconfiguration(g.Reason) && math.Abs(g.TimeS-*g.DurationS-restart) < 1e-3 {
						r.RecoveryS = *g.DurationS
					}
				}
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// WriteRescalesCSV writes rescales as CSV: at_s, from, to, input_rate,
// delay_s, downtime_s, recovery_s (empty when it never recovered).
func WriteRescalesCSV(w io.Writer, rs []Rescale) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"at_s", "from", "to", "input_rate", "delay_s", "downtime_s", "recovery_s"})
	f := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	for _, r := range rs {
		cw.Write([]string{f(r.AtS), strconv.Itoa(r.From), strconv.Itoa(r.To), f(r.InputRate), f(r.DelayS), f(r.DowntimeS), f(r.RecoveryS)})
	}
	cw.Flush()
	return cw.Error()
}
