package iot

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
	"testing"
)

// SHA-256 of the upstream berlin-mitte.json (docs/reference/data.md).
const berlinMitteSHA256 = "a5416293e78c5d8afdc1777f597b33f5e834cfd40aef3c841ffcdce590497791"

func TestEmbeddedGraphUnchanged(t *testing.T) {
	sum := sha256.Sum256(berlinMitteJSON)
	if got := hex.EncodeToString(sum[:]); got != berlinMitteSHA256 {
		t.Fatalf("embedded berlin-mitte.json sha256 = %s, want %s (file must be copied unchanged)", got, berlinMitteSHA256)
	}
	if len(berlinMitteJSON) != 3507 {
		t.Errorf("size %d, want 3507", len(berlinMitteJSON))
	}
}

func TestDefaultGraph(t *testing.T) {
	g := DefaultGraph()
	if g != DefaultGraph() {
		t.Error("DefaultGraph returns different pointers")
	}
	if g.NumNodes() != 31 || g.NumEdges() != 42 {
		t.Fatalf("%d nodes, %d edges; want 31, 42", g.NumNodes(), g.NumEdges())
	}
	if n := g.Node(0); n.ID != "1" || n.Lat != 52.51534 || n.Lon != 13.38443 {
		t.Errorf("node 0 = %+v", n)
	}
	// Bounds from docs/reference/data.md.
	for i := range g.NumNodes() {
		n := g.Node(i)
		if n.Lat < 52.51298 || n.Lat > 52.51806 || n.Lon < 13.37554 || n.Lon > 13.39553 {
			t.Errorf("node %s (%v, %v) outside the documented box", n.ID, n.Lat, n.Lon)
		}
	}
}

// Derived graph figures of docs/reference/workloads.md §2.4 (haversine).
func TestGraphDerivedFigures(t *testing.T) {
	g := DefaultGraph()
	minL, maxL, sumL := math.Inf(1), 0.0, 0.0
	for i := range g.NumEdges() {
		l := g.Edge(i).Length
		minL, maxL, sumL = min(minL, l), max(maxL, l), sumL+l
	}
	meanL := sumL / float64(g.NumEdges())
	if math.Round(minL) != 66 || math.Round(maxL) != 338 || math.Round(meanL) != 143 {
		t.Errorf("edge length min/max/mean = %.1f/%.1f/%.1f m, want 66/338/143", minL, maxL, meanL)
	}

	pairs, hopSum, minH, maxH := 0, 0, math.MaxInt, 0
	var routeSum, minR, maxR = 0.0, math.Inf(1), 0.0
	for s := range g.NumNodes() {
		par := g.bfsParents(s)
		for d := range g.NumNodes() {
			if d == s || par[d] < 0 {
				continue
			}
			hops, length := 0, 0.0
			for u := d; u != s; u = g.Edge(int(par[u])).From {
				hops++
				length += g.Edge(int(par[u])).Length
			}
			pairs++
			hopSum += hops
			minH, maxH = min(minH, hops), max(maxH, hops)
			routeSum += length
			minR, maxR = min(minR, length), max(maxR, length)
		}
	}
	meanH := float64(hopSum) / float64(pairs)
	meanR := routeSum / float64(pairs)
	t.Logf("reachable pairs %d, hops %d–%d mean %.2f, route %.0f–%.0f m mean %.0f m", pairs, minH, maxH, meanH, minR, maxR, meanR)
	if pairs != 437 {
		t.Errorf("reachable ordered pairs = %d, want 437", pairs)
	}
	if minH != 1 || maxH != 13 || math.Abs(meanH-5) > 0.5 {
		t.Errorf("hops %d–%d mean %.2f, want 1–13 mean ≈ 5", minH, maxH, meanH)
	}
	if math.Round(minR) != 66 || math.Abs(maxR-1957) > 1 || math.Abs(meanR-793) > 1 {
		t.Errorf("route %.1f–%.1f mean %.1f m, want 66–1957 mean 793", minR, maxR, meanR)
	}
}

func TestLoadGraphErrors(t *testing.T) {
	const nodes = `"nodes":[{"id":"1","latitude":52.5,"longitude":13.3},{"id":"2","latitude":52.6,"longitude":13.4}]`
	tests := []struct {
		name, json string
		want       []string // substrings of the error
	}{
		{"not json", `{"nodes":`, []string{"parse graph"}},
		{"trailing data", `{` + nodes + `,"edges":[{"source":"1","target":"2"}]} {}`, []string{"trailing data"}},
		{"unknown field", `{` + nodes + `,"edges":[{"source":"1","target":"2","weight":3}]}`, []string{`unknown field "weight"`}},
		{"numeric id", `{"nodes":[{"id":1,"latitude":1,"longitude":1}],"edges":[]}`, []string{"parse graph"}},
		{"no nodes", `{"nodes":[],"edges":[]}`, []string{"0 nodes", "no edges"}},
		{"no edges", `{` + nodes + `,"edges":[]}`, []string{"no edges"}},
		{"missing id", `{"nodes":[{"latitude":1,"longitude":1},{"id":"2","latitude":2,"longitude":2}],"edges":[{"source":"2","target":"2"}]}`,
			[]string{"node 0: missing id", `self-loop on node "2"`}},
		{"empty id", `{"nodes":[{"id":"","latitude":1,"longitude":1}],"edges":[]}`, []string{"node 0: empty id"}},
		{"duplicate id", `{"nodes":[{"id":"1","latitude":1,"longitude":1},{"id":"1","latitude":2,"longitude":2}],"edges":[]}`,
			[]string{`node 1: duplicate id "1" (also node 0)`}},
		{"missing coords", `{"nodes":[{"id":"1"},{"id":"2","latitude":2,"longitude":2}],"edges":[{"source":"1","target":"2"}]}`,
			[]string{`node 0 (id "1"): missing latitude`, `node 0 (id "1"): missing longitude`}},
		{"lat range", `{"nodes":[{"id":"1","latitude":91,"longitude":1},{"id":"2","latitude":2,"longitude":-181}],"edges":[{"source":"1","target":"2"}]}`,
			[]string{"latitude 91 out of", "longitude -181 out of"}},
		{"unknown source", `{` + nodes + `,"edges":[{"source":"7","target":"2"}]}`, []string{`edge 0: source "7" is not a node id`}},
		{"unknown target", `{` + nodes + `,"edges":[{"source":"1","target":"2"},{"source":"1","target":"x"}]}`, []string{`edge 1: target "x" is not a node id`}},
		{"missing target", `{` + nodes + `,"edges":[{"source":"1"}]}`, []string{"edge 0: missing target"}},
		{"self-loop", `{` + nodes + `,"edges":[{"source":"1","target":"1"}]}`, []string{`edge 0: self-loop on node "1"`}},
		{"zero length", `{"nodes":[{"id":"1","latitude":1,"longitude":1},{"id":"2","latitude":1,"longitude":1}],"edges":[{"source":"1","target":"2"}]}`,
			[]string{`edge 0: "1"→"2" has zero length`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := LoadGraph(strings.NewReader(tc.json))
			if err == nil {
				t.Fatalf("no error, graph %+v", g)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestLoadGraphOK(t *testing.T) {
	g, err := LoadGraph(strings.NewReader(`{"nodes":[{"id":"a","latitude":52.5,"longitude":13.3},{"id":"b","latitude":52.501,"longitude":13.3}],
		"edges":[{"source":"a","target":"b"},{"source":"a","target":"b"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	// Duplicate edges are allowed (the original loads a multigraph).
	if g.NumEdges() != 2 || g.Edge(1).From != 0 || g.Edge(1).To != 1 {
		t.Fatalf("edges %+v %+v", g.Edge(0), g.Edge(1))
	}
	if l := g.Edge(0).Length; math.Abs(l-111.2) > 0.1 {
		t.Errorf("length %.3f m, want ≈ 111.2 (0.001° of latitude)", l)
	}
}
