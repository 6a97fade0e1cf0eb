package compare

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/textfmt"
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
	for _, fr := range measure.FaultRecoveries(events) {
		f := FaultOutcome{AtS: fr.AtS, RecoveryS: fr.RecoveryS, UnrecoveredS: fr.UnrecoveredS}
		end := math.Inf(1)
		if !math.IsNaN(f.RecoveryS) {
			end = f.AtS + f.RecoveryS
		}
		var sum float64
		var n int
		f.LatencyP99MaxMs = math.NaN()
		for _, s := range samples {
			if s.TimeS <= f.AtS || s.TimeS > end+1 {
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
	fmt.Fprintf(&sb, "per fault (%s → %s); recovery >: unrecovered, its censored time\n", nameA, nameB)
	rows := [][]string{{"#", "at A (s)", "at B (s)", "recovery A (s)", "recovery B (s)", "rel",
		"lag peak A", "lag peak B", "rel", "latency p99 max A (ms)", "latency p99 max B (ms)", "rel"}}
	// an unrecovered fault shows its censored time, ">1,200"
	recovery := func(f FaultOutcome) string {
		if !math.IsNaN(f.UnrecoveredS) {
			return ">" + short(f.UnrecoveredS)
		}
		return short(f.RecoveryS)
	}
	n := max(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := pick(a, i), pick(b, i)
		rows = append(rows, []string{strconv.Itoa(i + 1), clock(x.AtS), clock(y.AtS),
			recovery(x), recovery(y), relChange(x.RecoveryS, y.RecoveryS),
			textfmt.Count(x.LagPeak), textfmt.Count(y.LagPeak), relChange(x.LagPeak, y.LagPeak),
			short(x.LatencyP99MaxMs), short(y.LatencyP99MaxMs), relChange(x.LatencyP99MaxMs, y.LatencyP99MaxMs)})
	}
	right := make([]bool, len(rows[0]))
	for i := range right {
		right[i] = true
	}
	textfmt.WriteAligned(&sb, rows, right)
	if len(a) != len(b) {
		fmt.Fprintf(&sb, "%s has %s, %s %s\n", nameA, textfmt.Plural(len(a), "fault"), nameB, textfmt.Count(float64(len(b))))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// relChange is (y − x)/|x| in percent by the table format; "–" when there
// is no baseline to be relative to (x is 0, or either is missing).
func relChange(x, y float64) string {
	if math.IsNaN(x) || math.IsNaN(y) || x == 0 {
		return textfmt.NoValue
	}
	return textfmt.Signed(100*(y-x)/math.Abs(x), 0) + "%"
}

func pick(fs []FaultOutcome, i int) FaultOutcome {
	if i < len(fs) {
		return fs[i]
	}
	nan := math.NaN()
	return FaultOutcome{nan, nan, nan, nan, nan, nan}
}

// short is a duration or latency by the one table format.
func short(v float64) string { return textfmt.Number(v, 0) }

// clock is a time in the run (s) to 0.1 s, the resolution of its events: a
// timestamp, not a measured quantity.
func clock(v float64) string {
	if math.IsNaN(v) {
		return textfmt.NoValue
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
