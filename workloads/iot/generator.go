package iot

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Per-segment speed rule of Vehicles.java: avgSpeed = U{10..79} km/h.
const (
	MinSpeedKmh = 10
	MaxSpeedKmh = 79
	numSpeeds   = MaxSpeedKmh - MinSpeedKmh + 1
)

// pcgStream is the fixed second PCG word; the caller's seed is the first.
const pcgStream = 0x9e3779b97f4a7c15

const (
	linePrefix = `{"lp":"`
	plateEnd   = `","pt":{`
	prefixCap  = len(linePrefix) + MaxPlateLen + len(plateEnd)
)

// vehicle is one trip in progress. The line prefix (plate) is stored inline
// so the hot loop touches the vehicle and the shared position table only.
type vehicle struct {
	pt, ptEnd uint32 // frag offset of the next position / end of the current segment's run
	hop       int32  // index into segs of the current segment
	plen      uint8
	prefix    [prefixCap]byte
	segs      []uint32 // one combo (edge, speed) per road segment, in order
}

// Generator replays the dos-group IoT-vehicles producer second by second. It
// is not safe for concurrent use; run one Generator per producer.
type Generator struct {
	g       *Graph
	rng     *rand.Rand
	startMs int64
	second  int64
	vs      []vehicle // active vehicles; dead slots past len keep their segs buffers

	parents [][]int32 // BFS parent edges per source node, filled on first use

	// Positions depend only on (edge, speed, step index) because every
	// segment starts at its node, so each position is encoded once, on first
	// use, and trips just reference runs of encoded fragments. Combo
	// c = edge*numSpeeds + speed-MinSpeedKmh occupies
	// frag[comboStart[c]:comboEnd[c]] (comboEnd[c] == 0: not encoded yet).
	// Each position there is a length byte followed by
	// `"lt":52.51534,"lg":13.38443`, so a vehicle walks its run with a single
	// offset and no index table.
	comboStart []uint32
	comboEnd   []uint32
	frag       []byte
	maxFrag    int

	suffix  []byte // `},"ts":<ms>}` + "\n" for the current second
	scratch []byte
}

// NewGenerator returns a generator on graph g (from LoadGraph; DefaultGraph
// if nil) whose first second has timestamp startMs (epoch ms; the original
// uses Instant.now().getEpochSecond()*1000). All randomness comes from one
// PCG stream seeded by seed, so the output is byte-identical for equal
// arguments and call sequences.
func NewGenerator(g *Graph, seed uint64, startMs int64) *Generator {
	if g == nil {
		g = DefaultGraph()
	}
	combos := len(g.edges) * numSpeeds
	return &Generator{
		g:          g,
		rng:        rand.New(rand.NewPCG(seed, pcgStream)),
		startMs:    startMs,
		parents:    make([][]int32, len(g.nodes)),
		comboStart: make([]uint32, combos),
		comboEnd:   make([]uint32, combos),
		frag:       []byte{0}, // offset 0 stays unused so comboEnd 0 can mean "not encoded"
	}
}

// Active returns the number of vehicles whose trip has not ended, i.e. the
// number that will emit in the next second before any spawning. It plays the
// role of the original's VEHICLE_COUNT.
func (gen *Generator) Active() int { return len(gen.vs) }

// AppendSecond generates second i (the i-th call, from 0) and appends its
// events to dst as JSON lines. It first spawns target − Active() vehicles if
// that is positive (vehicles are never killed, so a falling target only
// lets the count decay as trips end), then every active vehicle emits
// exactly one position with ts = startMs + 1000·i, then vehicles that
// emitted their last position are removed.
//
// Lines look exactly like
//
//	{"lp":"KA-XY 4711","pt":{"lt":52.51534,"lg":13.38443},"ts":1630930000000}
//
// with lt/lg the float32 values printed shortest-round-trip. The order of
// lines within a second is deterministic but not spawn order. In steady state
// (dst large enough, position table warm) it does not allocate.
func (gen *Generator) AppendSecond(dst []byte, target int) []byte {
	for n := target - len(gen.vs); n > 0; n-- {
		gen.spawn()
	}

	ts := gen.startMs + 1000*gen.second
	gen.second++
	gen.suffix = append(gen.suffix[:0], `},"ts":`...)
	gen.suffix = strconv.AppendInt(gen.suffix, ts, 10)
	gen.suffix = append(gen.suffix, "}\n"...)

	vs := gen.vs
	dst = slices.Grow(dst, len(vs)*(prefixCap+gen.maxFrag+len(gen.suffix)))
	frag, suffix := gen.frag, gen.suffix
	start, end := gen.comboStart, gen.comboEnd
	n := len(vs)
	for i := 0; i < n; {
		v := &vs[i]
		dst = append(dst, v.prefix[:v.plen]...)
		p := v.pt + 1
		q := p + uint32(frag[v.pt])
		dst = append(dst, frag[p:q]...)
		dst = append(dst, suffix...)
		if v.pt = q; q == v.ptEnd {
			if v.hop++; int(v.hop) == len(v.segs) {
				// Trip over: swap the last unvisited vehicle in and visit
				// it next. Swapping (not copying) keeps every slot's segs
				// buffer its own for reuse; the order within a second is
				// thus not spawn order, but it is deterministic.
				n--
				vs[i], vs[n] = vs[n], vs[i]
				continue
			}
			c := v.segs[v.hop]
			v.pt, v.ptEnd = start[c], end[c]
		}
		i++
	}
	gen.vs = vs[:n]
	return dst
}

// spawn starts one trip: a random ordered pair of distinct nodes (redrawn
// until reachable), a plate, then one speed per segment in route order.
func (gen *Generator) spawn() {
	g, r := gen.g, gen.rng
	n := len(g.nodes)
	var src, dst int
	var par []int32
	for {
		src = r.IntN(n)
		dst = r.IntN(n - 1)
		if dst >= src {
			dst++
		}
		par = gen.parentsFrom(src)
		if par[dst] >= 0 {
			break
		}
	}

	if len(gen.vs) < cap(gen.vs) {
		gen.vs = gen.vs[:len(gen.vs)+1]
	} else {
		gen.vs = append(gen.vs, vehicle{})
	}
	v := &gen.vs[len(gen.vs)-1]

	gen.scratch = append(gen.scratch[:0], linePrefix...)
	gen.scratch = appendPlate(gen.scratch, r)
	gen.scratch = append(gen.scratch, plateEnd...)
	v.plen = uint8(copy(v.prefix[:], gen.scratch))

	// Walk the BFS tree back from dst, filling the route from its end.
	hops := 0
	for u := dst; u != src; u = g.edges[par[u]].From {
		hops++
	}
	if cap(v.segs) < hops {
		// Sized for any Berlin-Mitte route (≤ 13 hops) so that reused
		// slots stop allocating.
		v.segs = make([]uint32, 0, max(hops, 16))
	}
	segs := v.segs[:hops]
	for u, k := dst, hops-1; u != src; u, k = g.edges[par[u]].From, k-1 {
		segs[k] = uint32(par[u])
	}
	for k, e := range segs {
		c := e*numSpeeds + uint32(r.IntN(numSpeeds))
		if gen.comboEnd[c] == 0 {
			gen.encode(c)
		}
		segs[k] = c
	}
	v.segs = segs
	v.hop = 0
	c := segs[0]
	v.pt, v.ptEnd = gen.comboStart[c], gen.comboEnd[c]
}

func (gen *Generator) parentsFrom(src int) []int32 {
	if gen.parents[src] == nil {
		gen.parents[src] = gen.g.bfsParents(src)
	}
	return gen.parents[src]
}

// encode renders the positions of a vehicle driving edge c/numSpeeds at
// speed c%numSpeeds+MinSpeedKmh: offsets 0, s, 2s, … < L metres from the
// start node with s = speed/3.6 (one per second); the remainder short of the
// end node is dropped, as in the original, where the next segment starts at
// its own node. Offsets are haversine metres mapped to a fraction of the
// segment and interpolated linearly in lat/lon — on ≤ 340 m segments this
// differs from the great-circle point by micrometres, far below float32
// resolution (≈ 0.4 m in latitude at 52°N).
func (gen *Generator) encode(c uint32) {
	e := gen.g.edges[c/numSpeeds]
	a, b := gen.g.nodes[e.From], gen.g.nodes[e.To]
	step := float64(c%numSpeeds+MinSpeedKmh) / 3.6
	first := len(gen.frag)
	for k := 0; ; k++ {
		d := float64(k) * step
		if d >= e.Length {
			break
		}
		f := d / e.Length
		lat := float32(a.Lat + (b.Lat-a.Lat)*f)
		lon := float32(a.Lon + (b.Lon-a.Lon)*f)
		n0 := len(gen.frag)
		gen.frag = append(gen.frag, 0) // length, set below
		gen.frag = append(gen.frag, `"lt":`...)
		gen.frag = strconv.AppendFloat(gen.frag, float64(lat), 'f', -1, 32)
		gen.frag = append(gen.frag, `,"lg":`...)
		gen.frag = strconv.AppendFloat(gen.frag, float64(lon), 'f', -1, 32)
		l := len(gen.frag) - n0 - 1 // float32 'f' text ≤ 48 B each: fits the length byte
		gen.frag[n0] = byte(l)
		gen.maxFrag = max(gen.maxFrag, l)
	}
	if len(gen.frag) > math.MaxUint32 {
		panic("iot: position table exceeds 4 GiB")
	}
	gen.comboStart[c] = uint32(first)
	gen.comboEnd[c] = uint32(len(gen.frag))
}
