package iot

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const testStartMs = 1630930000000

var (
	platePattern = regexp.MustCompile(`^[A-Y]{1,3}-[A-Y]{1,2} (0|[1-9][0-9]{0,3})E?$`)
	// The exact byte shape: no spaces, field order lp, pt{lt,lg}, ts.
	linePattern = regexp.MustCompile(`^\{"lp":"([^"]+)","pt":\{"lt":(-?[0-9]+(?:\.[0-9]+)?),"lg":(-?[0-9]+(?:\.[0-9]+)?)\},"ts":(-?[0-9]+)\}$`)
)

type event struct {
	lp       string
	lat, lon float64 // the float32 values printed, exactly
	ts       int64
}

// parseLine checks one line against the schema with encoding/json and the
// exact byte layout, and returns its fields.
func parseLine(t *testing.T, line []byte) event {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("line %q: %v", line, err)
	}
	if len(m) != 3 || m["lp"] == nil || m["pt"] == nil || m["ts"] == nil {
		t.Fatalf("line %q: keys %v, want exactly lp, pt, ts", line, slices.Sorted(mapsKeys(m)))
	}
	var ev event
	if err := json.Unmarshal(m["lp"], &ev.lp); err != nil || !platePattern.MatchString(ev.lp) {
		t.Fatalf("line %q: lp %s does not match %s (%v)", line, m["lp"], platePattern, err)
	}
	var pt map[string]json.RawMessage
	if err := json.Unmarshal(m["pt"], &pt); err != nil || len(pt) != 2 || pt["lt"] == nil || pt["lg"] == nil {
		t.Fatalf("line %q: pt %s, want object with exactly lt, lg (%v)", line, m["pt"], err)
	}
	if err := json.Unmarshal(pt["lt"], &ev.lat); err != nil {
		t.Fatalf("line %q: lt: %v", line, err)
	}
	if err := json.Unmarshal(pt["lg"], &ev.lon); err != nil {
		t.Fatalf("line %q: lg: %v", line, err)
	}
	// Back to the exact float32 the generator held: the shortest decimal
	// itself may sit up to half an ulp away from it.
	ev.lat, ev.lon = float64(float32(ev.lat)), float64(float32(ev.lon))
	if err := json.Unmarshal(m["ts"], &ev.ts); err != nil {
		t.Fatalf("line %q: ts not an integer: %v", line, err)
	}
	sub := linePattern.FindSubmatch(line)
	if sub == nil {
		t.Fatalf("line %q: not in the exact layout %s", line, linePattern)
	}
	// lt/lg are float32 values printed shortest: they must round-trip.
	for _, s := range [][]byte{sub[2], sub[3]} {
		f, err := strconv.ParseFloat(string(s), 32)
		if err != nil || string(strconv.AppendFloat(nil, f, 'f', -1, 32)) != string(s) {
			t.Fatalf("line %q: %s is not a shortest float32", line, s)
		}
	}
	if n, _ := strconv.Atoi(platePattern.FindStringSubmatch(ev.lp)[1]); n > 9998 {
		t.Fatalf("line %q: plate number %d > 9998", line, n)
	}
	return ev
}

func mapsKeys(m map[string]json.RawMessage) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// run drives a generator through targets and returns the parsed events of
// each second.
func run(t *testing.T, seed uint64, targets []int) [][]event {
	t.Helper()
	gen := NewGenerator(nil, seed, testStartMs)
	out := make([][]event, len(targets))
	var buf []byte
	for i, target := range targets {
		before := gen.Active()
		buf = gen.AppendSecond(buf[:0], target)
		if len(buf) > 0 && buf[len(buf)-1] != '\n' {
			t.Fatalf("second %d: output does not end with a newline", i)
		}
		for line := range bytes.Lines(buf) {
			ev := parseLine(t, bytes.TrimSuffix(line, []byte("\n")))
			if want := int64(testStartMs + 1000*i); ev.ts != want {
				t.Fatalf("second %d: ts %d, want %d", i, ev.ts, want)
			}
			out[i] = append(out[i], ev)
		}
		if want := max(target, before); len(out[i]) != want {
			t.Fatalf("second %d: %d events, want max(target %d, active %d)", i, len(out[i]), target, before)
		}
	}
	return out
}

func constTargets(n, seconds int) []int {
	ts := make([]int, seconds)
	for i := range ts {
		ts[i] = n
	}
	return ts
}

func TestLineFormat(t *testing.T) {
	gen := NewGenerator(nil, 1, testStartMs)
	out := gen.AppendSecond(nil, 1)
	// A fresh vehicle starts at a graph node, so its point is a node's
	// coordinates as float32.
	ev := parseLine(t, bytes.TrimSuffix(out, []byte("\n")))
	onNode := false
	for i := range DefaultGraph().NumNodes() {
		n := DefaultGraph().Node(i)
		if ev.lat == float64(float32(n.Lat)) && ev.lon == float64(float32(n.Lon)) {
			onNode = true
		}
	}
	if !onNode {
		t.Errorf("first point %v,%v is not a node", ev.lat, ev.lon)
	}
	if !bytes.HasSuffix(out, []byte(`},"ts":1630930000000}`+"\n")) || !bytes.HasPrefix(out, []byte(`{"lp":"`)) {
		t.Errorf("line %q", out)
	}
	// The next second carries the next timestamp.
	if gen.Active() == 1 && !bytes.HasSuffix(gen.AppendSecond(nil, 0), []byte(`},"ts":1630930001000}`+"\n")) {
		t.Error("second 1 does not have ts = start + 1000")
	}
}

func TestPlateDistribution(t *testing.T) {
	gen := NewGenerator(nil, 3, 0)
	const n = 200000
	var first, second [4]int
	e, maxNum := 0, 0
	var letters [26]int
	for range n {
		gen.scratch = appendPlate(gen.scratch[:0], gen.rng)
		p := string(gen.scratch)
		if !platePattern.MatchString(p) {
			t.Fatalf("plate %q does not match", p)
		}
		dash, sp := strings.IndexByte(p, '-'), strings.IndexByte(p, ' ')
		first[dash]++
		second[sp-dash-1]++
		num := p[sp+1:]
		if strings.HasSuffix(num, "E") {
			e++
			num = num[:len(num)-1]
		}
		v, _ := strconv.Atoi(num)
		maxNum = max(maxNum, v)
		for _, c := range p[:sp] {
			if c != '-' {
				letters[c-'A']++
			}
		}
	}
	frac := func(k int) float64 { return float64(k) / n }
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 0.01 {
			t.Errorf("%s = %.4f, want %.4f", name, got, want)
		}
	}
	// Independent 0.49 draws for the 2nd and 3rd letter.
	near("P(1 letter)", frac(first[1]), 0.51*0.51)
	near("P(2 letters)", frac(first[2]), 2*0.49*0.51)
	near("P(3 letters)", frac(first[3]), 0.49*0.49)
	near("P(2nd group 2 letters)", frac(second[2]), 0.49)
	near("P(E)", frac(e), 0.0126)
	if maxNum != 9998 {
		t.Errorf("max plate number %d, want 9998", maxNum)
	}
	if letters[25] != 0 || slices.Min(letters[:25]) == 0 {
		t.Errorf("letter counts %v: want A–Y all used, no Z", letters)
	}
}

// local projects (lat, lon) to metres east/north of a reference point
// (equirectangular; exact enough for a few hundred metres).
func local(lat0, lat, lon float64, lat1, lon1 float64) (x, y float64) {
	const rad = math.Pi / 180
	return EarthRadius * (lon - lon1) * rad * math.Cos(lat0*rad), EarthRadius * (lat - lat1) * rad
}

// segPos returns the distance of p from edge e and the fraction along e of
// p's projection, in a local projection centred on the edge's start.
func segPos(g *Graph, e int, lat, lon float64) (dist, frac float64) {
	ed := g.Edge(e)
	a, b := g.Node(ed.From), g.Node(ed.To)
	bx, by := local(a.Lat, b.Lat, b.Lon, a.Lat, a.Lon)
	px, py := local(a.Lat, lat, lon, a.Lat, a.Lon)
	f := (px*bx + py*by) / (bx*bx + by*by)
	f = min(1, max(0, f))
	return math.Hypot(px-f*bx, py-f*by), f
}

// Float32 latitude at 52°N has an ulp of 2^-18° ≈ 0.42 m (longitude 2^-20° ≈
// 0.06 m), so two rounded points can be up to ≈ 0.43 m further apart or
// closer than the true step (≈ 1.5 km/h at one point per second).
const posTol = 0.45 // m

func TestPositionsOnEdgesAndSpeeds(t *testing.T) {
	g := DefaultGraph()
	targets := append(constTargets(500, 150), constTargets(200, 150)...)
	secs := run(t, 7, targets)

	type last struct {
		ev   event
		sec  int
		dupe bool
	}
	prev := map[string]*last{}
	var nPairs, nSame int
	var minSame, maxAll = math.Inf(1), 0.0
	for sec, evs := range secs {
		seen := map[string]bool{}
		for _, ev := range evs {
			best := math.Inf(1)
			for e := range g.NumEdges() {
				d, _ := segPos(g, e, ev.lat, ev.lon)
				best = min(best, d)
			}
			if best >= 0.5 {
				t.Fatalf("second %d: %s at %v,%v is %.2f m from every edge", sec, ev.lp, ev.lat, ev.lon, best)
			}
			if seen[ev.lp] { // two live trips share a plate: skip that plate
				prev[ev.lp].dupe = true
				continue
			}
			seen[ev.lp] = true
			p := prev[ev.lp]
			if p != nil && !p.dupe && p.sec == sec-1 {
				nPairs++
				d := Haversine(p.ev.lat, p.ev.lon, ev.lat, ev.lon)
				maxAll = max(maxAll, d)
				if d > MaxSpeedKmh/3.6+posTol {
					t.Errorf("second %d: %s moved %.2f m in 1 s (> %d km/h)", sec, ev.lp, d, MaxSpeedKmh)
				}
				// Same segment: both on edge e, moving forward along it, and
				// the second point is at neither end node of e. At a node the
				// pair may straddle a turn, where the dropped remainder makes
				// the hop shorter (and a point just before the node also lies
				// within 0.5 m of the next edge).
				for e := range g.NumEdges() {
					d1, f1 := segPos(g, e, p.ev.lat, p.ev.lon)
					d2, f2 := segPos(g, e, ev.lat, ev.lon)
					from, to := g.Node(g.Edge(e).From), g.Node(g.Edge(e).To)
					if d1 < 0.5 && d2 < 0.5 && f2 > f1 &&
						Haversine(ev.lat, ev.lon, from.Lat, from.Lon) > posTol &&
						Haversine(ev.lat, ev.lon, to.Lat, to.Lon) > posTol {
						nSame++
						minSame = min(minSame, d)
						if d < MinSpeedKmh/3.6-posTol {
							t.Errorf("second %d: %s moved %.2f m in 1 s on one segment (< %d km/h)", sec, ev.lp, d, MinSpeedKmh)
						}
						break
					}
				}
			}
			if p == nil {
				p = &last{}
				prev[ev.lp] = p
			}
			if !p.dupe {
				p.ev, p.sec = ev, sec
			}
		}
	}
	t.Logf("%d consecutive pairs, %d on one segment; step %.2f–%.2f m (%.1f–%.1f km/h)",
		nPairs, nSame, minSame, maxAll, minSame*3.6, maxAll*3.6)
	if nPairs < 50000 || nSame < nPairs/2 {
		t.Fatalf("too few pairs checked: %d (%d same-segment)", nPairs, nSame)
	}
	// The extremes of U{10..79} should both show up.
	if minSame*3.6 > 11 || maxAll*3.6 < 78 {
		t.Errorf("observed speeds %.1f–%.1f km/h do not span 10–79", minSame*3.6, maxAll*3.6)
	}
}

func TestDeterminism(t *testing.T) {
	targets := []int{10, 500, 1000, 1000, 20, 3000, 0, 0, 700}
	for range 200 {
		targets = append(targets, 800)
	}
	gen := func(seed uint64) []byte {
		g := NewGenerator(DefaultGraph(), seed, testStartMs)
		var out []byte
		for _, n := range targets {
			out = g.AppendSecond(out, n)
		}
		return out
	}
	a, b, c := gen(42), gen(42), gen(43)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different output")
	}
	if bytes.Equal(a, c) {
		t.Fatal("different seeds, same output")
	}
	if bytes.Equal(a[:200], c[:200]) {
		t.Error("different seeds share the first bytes")
	}
}

func TestActiveFollowsTarget(t *testing.T) {
	gen := NewGenerator(nil, 5, 0)
	var buf []byte
	lines := func() int { return bytes.Count(buf, []byte("\n")) }
	tests := []struct {
		name    string
		target  int
		seconds int
	}{
		{"rise", 100, 1}, {"rise more", 1000, 30}, {"hold", 1000, 100}, {"up again", 2500, 10},
		{"fall", 300, 400}, {"zero", 0, 1000}, {"restart", 50, 5},
	}
	for _, tc := range tests {
		prevActive := gen.Active()
		decayed := false
		for s := range tc.seconds {
			before := gen.Active()
			buf = gen.AppendSecond(buf[:0], tc.target)
			emitted := lines()
			if tc.target >= before {
				// Rising or holding: exactly target vehicles drive this second.
				if emitted != tc.target {
					t.Fatalf("%s s%d: %d events, want target %d", tc.name, s, emitted, tc.target)
				}
			} else {
				// Falling: nobody is killed or spawned, the count decays.
				if emitted != before {
					t.Fatalf("%s s%d: %d events, want the %d active", tc.name, s, emitted, before)
				}
				if gen.Active() > before {
					t.Fatalf("%s s%d: active grew %d → %d above target", tc.name, s, before, gen.Active())
				}
				decayed = decayed || gen.Active() < prevActive
			}
			if gen.Active() > emitted {
				t.Fatalf("%s s%d: active %d > emitted %d", tc.name, s, gen.Active(), emitted)
			}
		}
		switch tc.name {
		case "fall":
			// Decayed down to the target, which then holds it again.
			if !decayed || lines() != tc.target {
				t.Errorf("fall: %d events in the last of 400 s, want decayed to the target %d", lines(), tc.target)
			}
		case "zero":
			if gen.Active() != 0 {
				t.Errorf("zero: %d vehicles still driving after 1000 s", gen.Active())
			}
		}
	}
}

// Trip length = events per trip, vs the reference Monte Carlo (mean ≈ 88,
// median 79, p95 195, max 262).
func TestTripLengthStatistics(t *testing.T) {
	const n, seconds, cut = 2000, 1400, 1000
	// Plates only (the schema is checked elsewhere): 2.8 M lines.
	gen := NewGenerator(nil, 11, testStartMs)
	first, count := map[string]int{}, map[string]int{}
	var buf []byte
	for sec := range seconds {
		buf = gen.AppendSecond(buf[:0], n)
		for line := range bytes.Lines(buf) {
			lp := line[len(linePrefix):]
			lp = lp[:bytes.IndexByte(lp, '"')]
			if _, ok := first[string(lp)]; !ok {
				first[string(lp)] = sec
			}
			count[string(lp)]++
		}
	}
	// Trips spawned in [1, cut) all end before the run does (max trip ≪ 400
	// s here), so their lengths are an unbiased sample.
	var lens []int
	for lp, s := range first {
		if s >= 1 && s < cut {
			lens = append(lens, count[lp])
		}
	}
	slices.Sort(lens)
	sum := 0
	for _, l := range lens {
		sum += l
	}
	mean := float64(sum) / float64(len(lens))
	med, p95 := lens[len(lens)/2], lens[len(lens)*95/100]
	t.Logf("%d trips: mean %.1f, median %d, p95 %d, min %d, max %d events", len(lens), mean, med, p95, lens[0], lens[len(lens)-1])
	if len(lens) < 15000 {
		t.Fatalf("only %d trips", len(lens))
	}
	if math.Abs(mean-88) > 0.15*88 {
		t.Errorf("mean %.1f events per trip, want 88 ± 15%%", mean)
	}
	if math.Abs(float64(med)-79) > 0.15*79 || math.Abs(float64(p95)-195) > 0.15*195 {
		t.Errorf("median %d / p95 %d, want ≈ 79 / 195", med, p95)
	}
	// Little's law: with N active, ≈ N/mean trips start per second.
	if got, want := float64(len(lens))/float64(cut-1), n/mean; math.Abs(got-want) > 0.1*want {
		t.Errorf("spawn rate %.1f/s, want ≈ N/mean = %.1f/s", got, want)
	}
}

func TestAppendSecondNoAllocs(t *testing.T) {
	gen := NewGenerator(nil, 9, 0)
	buf := make([]byte, 0, 1<<20)
	for range 400 {
		buf = gen.AppendSecond(buf[:0], 5000)
	}
	allocs := testing.AllocsPerRun(50, func() {
		buf = gen.AppendSecond(buf[:0], 5000)
	})
	if allocs != 0 {
		t.Errorf("%.0f allocations per second of 5000 events, want 0", allocs)
	}
}

func TestNegativeTargetAndCustomGraph(t *testing.T) {
	g, err := LoadGraph(strings.NewReader(`{"nodes":[{"id":"a","latitude":52.5,"longitude":13.3},{"id":"b","latitude":52.501,"longitude":13.3}],"edges":[{"source":"a","target":"b"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	gen := NewGenerator(g, 1, 0)
	if out := gen.AppendSecond(nil, -5); len(out) != 0 || gen.Active() != 0 {
		t.Fatalf("negative target produced %q", out)
	}
	// Only a→b is reachable: 111.2 m at ≥ 10 km/h, every trip ≤ 41 events.
	out := gen.AppendSecond(nil, 3)
	if bytes.Count(out, []byte("\n")) != 3 || !bytes.Contains(out, []byte(`"lt":52.5,"lg":13.3}`)) {
		t.Fatalf("output %q", out)
	}
	for range 41 {
		gen.AppendSecond(nil, 0)
	}
	if gen.Active() != 0 {
		t.Errorf("%d vehicles left after 42 s on a 111 m road", gen.Active())
	}
}
