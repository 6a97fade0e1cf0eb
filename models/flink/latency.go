package flink

import (
	"math"
	"slices"
)

// The latency of the records that reach the sinks: the integration books
// segments of constant throughput, and each sample turns the segments of
// its interval into the mean and the quantiles.

// latencySegment is a stretch of constant throughput (segment): its
// records (w), the range of their wait in Kafka (lo to hi, seconds) and the
// latency on top of it (latencyExtras).
type latencySegment struct {
	w, lo, hi                   float64
	extraMean, extra50, extra99 float64
	marker99                    float64 // extra99 without the window delay: latency markers skip windows
}

// ln100 is ln(100), the 99th percentile of an exponential wait in means.
const ln100 = 4.605170185988092

// latencyExtras is a segment's latency on top of its backlog's wait at
// source throughput x against capacity mu: the fixed parts, the buffers'
// fill, the watermark's and the queueing wait. The last one's are kept: a
// steady state has the same x and mu second after second.
func (j *Job) latencyExtras(x, mu float64) latencySegment {
	if m := &j.extras; m.ok && m.x == x && m.mu == mu && m.graph == j.graph {
		return m.seg
	}
	lc := j.cfg.Latency
	fixed := float64(lc.Base + lc.Window)
	buf := j.graph.BufferDelay(x, lc)
	rho := 0.98
	if mu > 0 {
		rho = math.Min(0.98, x/mu)
	}
	wait := math.Min(float64(lc.Queueing)*rho/(1-rho), j.graph.InflightDelay(x, lc))
	wm := 0.0 // the wait for the periodic watermark that fires a window
	if lc.Window > 0 || len(lc.Staleness) > 0 {
		wm = float64(lc.WatermarkInterval)
	}
	s := latencySegment{
		extraMean: fixed + (buf+wm)/2 + wait,
		extra50:   fixed + (buf+wm)/2 + wait*math.Ln2,
		extra99:   fixed + (buf+wm)*0.99 + wait*ln100,
		marker99:  float64(lc.Base) + buf*0.99 + wait*ln100,
	}
	j.extras = extrasMemo{ok: true, x: x, mu: mu, graph: j.graph, seg: s}
	return s
}

// extrasMemo is the last latencyExtras and what it was computed from.
type extrasMemo struct {
	ok    bool
	x, mu float64
	graph *Graph
	seg   latencySegment
}

// latency returns mean, p50 and p99 in ms of the records that reached the
// sinks in the interval. Queueing in Kafka is a mixture of uniforms (one per
// segment, exact for a linearly moving backlog), shifted by each level of
// the results' staleness; the other parts are added per quantile. marker is
// the p99 of the in-pipeline part alone, what Flink's latency markers
// (emitted by the sources, not read from Kafka, skipping windows) measure.
func (j *Job) latency() (mean, p50, p99, marker float64) {
	if m := &j.lat; m.ok && slices.Equal(m.segs, j.segs) {
		return m.mean, m.p50, m.p99, m.marker // a steady state: the same segments as the last sample's
	}
	mean, p50, p99, marker = j.latencyOf()
	j.lat = latencyMemo{ok: true, segs: append(j.lat.segs[:0], j.segs...), mean: mean, p50: p50, p99: p99, marker: marker}
	return mean, p50, p99, marker
}

// latencyMemo is the last sample's latency and the segments it came from.
type latencyMemo struct {
	ok                     bool
	segs                   []latencySegment
	mean, p50, p99, marker float64
}

// latencyOf is latency without the memo.
func (j *Job) latencyOf() (mean, p50, p99, marker float64) {
	stale := j.cfg.Latency.Staleness
	var w, m, e50, e99, mk float64
	queued := false
	for _, s := range j.segs {
		w += s.w
		m += s.w * ((s.lo+s.hi)/2 + s.extraMean)
		e50 += s.w * s.extra50
		e99 += s.w * s.extra99
		mk += s.w * s.marker99
		queued = queued || s.hi > 0 || s.lo > 0
	}
	if w == 0 {
		nan := math.NaN()
		return nan, nan, nan, nan
	}
	for _, l := range stale {
		m += w * l.Share * float64(l.Gap)
	}
	q50, q99 := 0.0, 0.0
	switch {
	case queued:
		q50, q99 = mixtureQuantile(j.segs, stale, &j.parts, w, 0.5), mixtureQuantile(j.segs, stale, &j.parts, w, 0.99)
	case len(stale) > 0:
		// nothing waits in Kafka: the mixture is the staleness levels alone
		q50, q99 = staleQuantile(stale, 0.5), staleQuantile(stale, 0.99)
	}
	return 1000 * m / w, 1000 * (q50 + e50/w), 1000 * (q99 + e99/w), 1000 * mk / w
}

// staleQuantile is the p-quantile of the staleness levels alone (the rest
// of the results at 0 s): the smallest gap whose level and the fresher ones
// hold at least p of the results. It is what mixtureQuantile converges to
// when no segment has queued, without its 50 bisection passes per second.
func staleQuantile(stale []StalenessLevel, p float64) float64 {
	const eps = 1e-12
	fresh := 1 - sumShares(stale)
	if fresh >= p-eps {
		return 0
	}
	best := math.Inf(1)
	for _, l := range stale {
		below := fresh // share at gaps ≤ l.Gap
		for _, m := range stale {
			if m.Gap <= l.Gap {
				below += m.Share
			}
		}
		if below >= p-eps {
			best = math.Min(best, float64(l.Gap))
		}
	}
	return best
}

// sumShares is the share of the results that are stale at all.
func sumShares(stale []StalenessLevel) float64 {
	s := 0.0
	for _, l := range stale {
		s += l.Share
	}
	return s
}

// uniformPart is one segment of a latency mixture: weight w, uniform on [a, b].

// mixtureQuantile is the p-quantile of the mixture of the segments' uniform
// queueing latencies (total weight w), each shifted by every staleness
// level, by bisection. parts is a buffer the caller keeps, so that the
// once-per-second call allocates nothing.
func mixtureQuantile(segs []latencySegment, stale []StalenessLevel, parts *[]uniformPart, w, p float64) float64 {
	lo, hi := math.Inf(1), 0.0
	ps := (*parts)[:0]
	fresh := 1 - sumShares(stale)
	for _, s := range segs {
		a, b := math.Min(s.lo, s.hi), math.Max(s.lo, s.hi)
		if fresh > 1e-12 {
			ps = append(ps, uniformPart{s.w * fresh, a, b})
		}
		for _, l := range stale {
			ps = append(ps, uniformPart{s.w * l.Share, a + float64(l.Gap), b + float64(l.Gap)})
		}
	}
	for _, q := range ps {
		lo, hi = math.Min(lo, q.a), math.Max(hi, q.b)
	}
	*parts = ps
	cdf := func(x float64) float64 {
		var c float64
		for _, s := range ps {
			switch {
			case x >= s.b:
				c += s.w
			case x > s.a:
				c += s.w * (x - s.a) / (s.b - s.a)
			}
		}
		return c / w
	}
	for range 50 {
		mid := (lo + hi) / 2
		if cdf(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
