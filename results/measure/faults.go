package measure

import (
	"math"
	"sort"

	"github.com/streamtwin/streamtwin/results"
)

// FaultRecovery is one fault of a run and how it ended: RecoveryS is the
// time from the fault to its recovered event, NaN when it never recovered;
// UnrecoveredS is then the censored time from the fault to the run's end
// (its unrecovered event), a lower bound of the recovery time, or NaN when
// the run has no such event either.
type FaultRecovery struct {
	AtS, RecoveryS, UnrecoveredS float64
}

// Recovered reports whether the fault's recovery finished within the run.
func (f FaultRecovery) Recovered() bool { return !math.IsNaN(f.RecoveryS) }

// faultMatchS is how far a recovered event's start (its time minus its
// duration) may be from the fault it closes: both are written from the same
// simulated or sampled clock, so only rounding separates them.
const faultMatchS = 1e-6

// FaultRecoveries pairs each fault of events with the recovered (or
// unrecovered) event that began at its time, in time order. Recoveries of
// reconfigurations are not faults and are skipped; each recovery closes at
// most one fault.
func FaultRecoveries(events []results.Event) []FaultRecovery {
	sorted := make([]results.Event, len(events))
	copy(sorted, events)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].TimeS < sorted[j].TimeS })
	used := make([]bool, len(sorted))
	var out []FaultRecovery
	for _, e := range sorted {
		if e.Kind != results.KindFault {
			continue
		}
		f := FaultRecovery{AtS: e.TimeS, RecoveryS: math.NaN(), UnrecoveredS: math.NaN()}
		for j, r := range sorted {
			if used[j] || r.DurationS == nil || r.IsReconfiguration() ||
				(r.Kind != results.KindRecovered && r.Kind != results.KindUnrecovered) ||
				math.Abs(r.TimeS-*r.DurationS-e.TimeS) > faultMatchS {
				continue
			}
			used[j] = true
			if r.Kind == results.KindRecovered {
				f.RecoveryS = *r.DurationS
			} else {
				f.UnrecoveredS = *r.DurationS
			}
			break
		}
		out = append(out, f)
	}
	return out
}
