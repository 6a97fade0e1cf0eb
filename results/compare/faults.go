package compare

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/streamtwin/streamtwin/results"
)

// FaultOutcome is what one fault cost a run: its recovery (Khaos's
// definition), the lag peak and the latency during it. A fault still not
// recovered at the end has RecoveryS NaN and UnrecoveredS, the censored
// time from the fault to the end (its recovery took longer).
type FaultOutcome struct {
	AtS, RecoveryS, LagPeak, LatencyP99MaxMs, LatencyP99MeanMs float64
	UnrecoveredS                                               float64
}

// FaultOutcomes reads a run folder's faults, in time order. Recovery is NaN
// for a fault that never recovered; the lag and latency are taken from the
// fault to its recovery (or the run's end).
func FaultOutcomes(dir string) ([]FaultOutcome, error) {
	samples, err := results.ReadSamples(filepath.Join(dir, results.TimeseriesFile))
	if err != nil {
		return nil, err
	}
	events, err := results.ReadEvents(filepath.Join(dir, results.EventsFile))
	if err != nil {
		return nil, err
	}
	var out []FaultOutcome
	for _, e := range events {
		if e.Kind != results.KindFault {
			continue
		}
		f := FaultOutcome{AtS: e.TimeS, RecoveryS: math.NaN(), UnrecoveredS: math.NaN()}
		for _, r := range events {
			if r.DurationS == nil || results.IsReconfiguration(r.Reason) || math.Abs(r.TimeS-*r.DurationS-e.TimeS) >= 1e-6 {
				continue
			}
			switch r.Kind {
			case results.KindRecovered:
				f.RecoveryS = *r.DurationS
			case results.KindUnrecovered:
				f.UnrecoveredS = *r.DurationS
			}
		}
		end := math.Inf(1)
		if !math.IsNaN(f.RecoveryS) {
			end = e.TimeS + f.RecoveryS
		}
		var sum float64
		var n int
		f.LatencyP99MaxMs = math.NaN()
		for _, s := range samples {
			if s.TimeS <= e.TimeS || s.TimeS > end+1 {
				continue
			}
			if !math.IsNaN(s.Lag) {
				f.LagPeak = math.Max(f.LagPeak, s.Lag)
			}
			if v := s.LatencyP99Ms; !math.IsNaN(v) {
				if math.IsNaN(f.LatencyP99MaxMs) || v > f.LatencyP99MaxMs {
					f.LatencyP99MaxMs = v
				}
				sum += v
				n++
			}
		}
		f.LatencyP99MeanMs = math.NaN()
		if n > 0 {
			f.LatencyP99MeanMs = sum / float64(n)
		}
		out = append(out, f)
	}
	return out, nil
}

// WriteFaultTable prints the faults of two runs side by side (A the
// baseline, e.g. the simulator; B the candidate, e.g. live), matched by
// order, with B's relative difference per figure.
func WriteFaultTable(w io.Writer, a, b []FaultOutcome, nameA, nameB string) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "per fault (%s → %s)\n", nameA, nameB)
	fmt.Fprintf(&sb, "%-3s %-17s %-26s %-26s %-26s\n", "#", "at (s)", "recovery (s; >: unrecovered)", "lag peak (records)", "latency p99 max (ms)")
	rel := func(x, y float64) string {
		if math.IsNaN(x) || math.IsNaN(y) || x == 0 {
			return "   –"
		}
		return fmt.Sprintf("%+5.1f%%", 100*(y-x)/x)
	}
	pair := func(x, y float64) string {
		return fmt.Sprintf("%8s %8s %s", short(x), short(y), rel(x, y))
	}
	// an unrecovered fault shows its censored time, ">1200.0"
	recovery := func(x, y FaultOutcome) string {
		sx, sy := short(x.RecoveryS), short(y.RecoveryS)
		if !math.IsNaN(x.UnrecoveredS) {
			sx = ">" + short(x.UnrecoveredS)
		}
		if !math.IsNaN(y.UnrecoveredS) {
			sy = ">" + short(y.UnrecoveredS)
		}
		return fmt.Sprintf("%8s %8s %s", sx, sy, rel(x.RecoveryS, y.RecoveryS))
	}
	n := max(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := pick(a, i), pick(b, i)
		fmt.Fprintf(&sb, "%-3d %-17s %-26s %-26s %-26s\n", i+1, short(x.AtS)+" / "+short(y.AtS),
			recovery(x, y), pair(x.LagPeak, y.LagPeak), pair(x.LatencyP99MaxMs, y.LatencyP99MaxMs))
	}
	if len(a) != len(b) {
		fmt.Fprintf(&sb, "%s has %d faults, %s %d\n", nameA, len(a), nameB, len(b))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func pick(fs []FaultOutcome, i int) FaultOutcome {
	if i < len(fs) {
		return fs[i]
	}
	nan := math.NaN()
	return FaultOutcome{nan, nan, nan, nan, nan, nan}
}

func short(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.Abs(v) >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case math.Abs(v) >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.1f", v)
}
