package iot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// The traffic-monitoring job's result logic (live/jobs TrafficMonitoring):
// sliding event-time windows of 5 s every 1 s per licence plate, the
// average speed over ≥ 2 positions, and results at ≥ 70 km/h. The POI filter
// keeps every position of the embedded graph (all nodes lie within 1000 m of
// the POI), so it is left out.
const (
	windowSizeS   = 5
	speedLimitKmh = 70
)

// Staleness is the share of the job's results whose latest position lies
// Gap seconds before the end of their window.
type Staleness struct {
	GapS  int     // window end − the result's event time, whole seconds
	Share float64 // of all results, in [0, 1]
}

// ResultStaleness replays the traffic-monitoring job's windows over the
// generator's output (vehicles active, measured for seconds after a warm-up
// of warmup seconds, so that trip ends are spread as in a long run) and
// returns how stale its results are, by gap, in increasing order.
//
// Why it matters: the job's event-time latency is sink time − the result's
// latest position. A vehicle that reports every second is 1 s stale in the
// window that ends after its report; after its trip ends, the next windows
// still hold its last positions and fire 2, 3 and 4 s stale (with ≥ 2
// positions). Those trip-end results set the latency tail at any load; the
// twin takes this distribution as job.latency.staleness.
func ResultStaleness(g *Graph, seed uint64, vehicles, warmup, seconds int) ([]Staleness, error) {
	type position struct {
		ts       int64
		lat, lon float64
	}
	type line struct {
		Plate string                   `json:"lp"`
		Point struct{ Lt, Lg float64 } `json:"pt"`
		Ts    int64                    `json:"ts"`
	}
	gen := NewGenerator(g, seed, 0)
	recent := map[string][]position{} // per plate, the positions of the last windowSizeS seconds
	counts := map[int]int{}
	total := 0
	var buf []byte
	var l line
	for s := 0; s < warmup+seconds; s++ {
		end := int64(s) * 1000 // the window [end − 5 s, end) fires once second s's events arrive
		for plate, ps := range recent {
			k := 0
			for _, p := range ps {
				if p.ts >= end-windowSizeS*1000 {
					ps[k] = p
					k++
				}
			}
			if ps = ps[:k]; len(ps) == 0 {
				delete(recent, plate)
				continue
			}
			recent[plate] = ps
			if s < warmup || len(ps) < 2 {
				continue
			}
			// positions arrive in time order; path length over time span as the job computes it
			metres := 0.0
			for i := 1; i < len(ps); i++ {
				metres += Haversine(ps[i-1].lat, ps[i-1].lon, ps[i].lat, ps[i].lon)
			}
			span := float64(ps[len(ps)-1].ts-ps[0].ts) / 1000
			if span <= 0 || metres/span*3.6 < speedLimitKmh {
				continue
			}
			counts[int((end-ps[len(ps)-1].ts)/1000)]++
			total++
		}
		buf = gen.AppendSecond(buf[:0], vehicles)
		for rest := buf; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n')
			if err := json.Unmarshal(rest[:i], &l); err != nil {
				return nil, fmt.Errorf("iot: generator line %q: %w", rest[:i], err)
			}
			recent[l.Plate] = append(recent[l.Plate], position{l.Ts, l.Point.Lt, l.Point.Lg})
			rest = rest[i+1:]
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("iot: no results in %d s at %d vehicles", seconds, vehicles)
	}
	out := make([]Staleness, 0, len(counts))
	for gap, n := range counts {
		out = append(out, Staleness{gap, float64(n) / float64(total)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GapS < out[j].GapS })
	return out, nil
}
