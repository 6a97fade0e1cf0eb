package monitor

import (
	"fmt"
	"math"
)

// Result is what a replay leaves: which seconds were transmitted and what
// the monitoring system holds for every second.
type Result struct {
	// Scraped[t] says second t was scraped (transmitted); Count of them.
	Scraped []bool
	Count   int
	// Recon is the reconstruction, one value per second of the truth:
	// the truth where scraped, the sampler's Fill where it gave one, else
	// linear interpolation between the neighbouring scraped points (the
	// first scraped value held before it, the last one held after it; NaN
	// if nothing was scraped).
	Recon []float64
	// Decisions counts the calls of Next.
	Decisions int
}

// Transmitted is the share of seconds scraped, in percent (the reference's
// "% transmitted"); NaN for an empty replay.
func (r Result) Transmitted() float64 {
	return 100 * float64(r.Count) / float64(len(r.Scraped))
}

// Replay runs s over the 1 s ground truth of one metric from second 0 to
// len(truth)−1: it calls Next with the points scraped so far, scrapes and
// skips as the Step says (a Step running past the end is cut there), and
// reconstructs the series (see Result).
//
// A Step with Scrape or Skip negative, Scrape+Skip < 1, or a Fill whose
// length is not Skip panics: it is a bug in the sampler, and a replay that
// went on (or stopped early) would report a cost and an error the sampler
// never earned.
//
// The points passed to Next share one backing array allocated once, so a
// replay costs O(len(truth)) memory whatever the sampler does; a sampler
// must not keep or modify the slice beyond the call.
func Replay(truth []float64, s Sampler) Result {
	n := len(truth)
	r := Result{Scraped: make([]bool, n), Recon: make([]float64, n)}
	filled := make([]bool, n)
	pts := make([]Point, 0, n)
	for now := 0; now < n; {
		st := s.Next(now, pts)
		r.Decisions++
		if st.Scrape < 0 || st.Skip < 0 || st.Scrape+st.Skip < 1 || (st.Fill != nil && len(st.Fill) != st.Skip) {
			panic(fmt.Sprintf("monitor: sampler %T returned an invalid step at second %d: Scrape %d, Skip %d, len(Fill) %d (want Scrape, Skip ≥ 0, Scrape+Skip ≥ 1, len(Fill) = Skip or nil)",
				s, now, st.Scrape, st.Skip, len(st.Fill)))
		}
		for end := min(n, now+st.Scrape); now < end; now++ {
			r.Scraped[now] = true
			r.Recon[now] = truth[now]
			pts = append(pts, Point{T: now, V: truth[now]})
		}
		if st.Fill != nil {
			for i := 0; i < st.Skip && now+i < n; i++ {
				r.Recon[now+i] = st.Fill[i]
				filled[now+i] = true
			}
		}
		now += st.Skip
	}
	r.Count = len(pts)
	interpolate(r.Recon, r.Scraped, filled)
	return r
}

// Reconstruct is the Result of a sampler run recorded elsewhere (the live
// driver, live/monitor): recon holds the value received at each second
// with have[t] and the sampler's fill at each second with filled[t]; the
// other seconds are interpolated as Replay's are, in place. count is the
// seconds transmitted (a transmitted second may have brought no value).
func Reconstruct(recon []float64, have, filled []bool, count int) Result {
	if len(have) != len(recon) || len(filled) != len(recon) {
		panic(fmt.Sprintf("monitor: Reconstruct of %d values, %d have and %d filled flags", len(recon), len(have), len(filled)))
	}
	interpolate(recon, have, filled)
	return Result{Scraped: have, Count: count, Recon: recon}
}

// interpolate sets the seconds neither scraped nor filled by linear
// interpolation between the scraped neighbours, in one pass.
func interpolate(recon []float64, scraped, filled []bool) {
	prev := -1 // last scraped second before t
	for t := 0; t < len(recon); {
		if scraped[t] {
			prev = t
			t++
			continue
		}
		next := t + 1
		for next < len(recon) && !scraped[next] {
			next++
		}
		for ; t < next; t++ {
			if filled[t] {
				continue
			}
			switch {
			case prev < 0 && next == len(recon):
				recon[t] = math.NaN()
			case prev < 0:
				recon[t] = recon[next]
			case next == len(recon):
				recon[t] = recon[prev]
			default:
				w := float64(t-prev) / float64(next-prev)
				recon[t] = recon[prev] + w*(recon[next]-recon[prev])
			}
		}
	}
}

// Errors compares a reconstruction with the truth: the mean absolute error;
// the mean absolute percentage error in percent over the seconds whose truth
// is not 0 (NaN if there are none); and the peaks missed, a peak being a
// maximal run of seconds with truth > peak and missed if the reconstruction
// exceeds peak at none of them — the question a scraping policy answers is
// whether an operator would have seen the excursion at all. It panics if the
// lengths differ; the MAE of empty series is NaN.
func Errors(truth, recon []float64, peak float64) (mae, mape float64, missedPeaks int) {
	if len(truth) != len(recon) {
		panic(fmt.Sprintf("monitor: Errors of %d truth and %d reconstructed seconds", len(truth), len(recon)))
	}
	var sumAbs, sumPct float64
	nPct := 0
	inPeak, seen := false, false
	for t, v := range truth {
		d := math.Abs(v - recon[t])
		sumAbs += d
		if v != 0 {
			sumPct += d / math.Abs(v)
			nPct++
		}
		if v > peak {
			if !inPeak {
				inPeak, seen = true, false
			}
			seen = seen || recon[t] > peak
		} else if inPeak {
			inPeak = false
			if !seen {
				missedPeaks++
			}
		}
	}
	if inPeak && !seen {
		missedPeaks++
	}
	mae = sumAbs / float64(len(truth))
	mape = math.NaN()
	if nPct > 0 {
		mape = 100 * sumPct / float64(nPct)
	}
	return mae, mape, missedPeaks
}
