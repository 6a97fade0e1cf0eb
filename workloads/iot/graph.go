package iot

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// EarthRadius is the sphere radius (m) of all distances in this package: the
// IUGG mean Earth radius.
const EarthRadius = 6371008.8

// Haversine returns the great-circle distance in metres between two WGS84
// points given in degrees, on a sphere of radius EarthRadius.
func Haversine(lat1, lon1, lat2, lon2 float64) float64 {
	const rad = math.Pi / 180
	p1, p2 := lat1*rad, lat2*rad
	dp := p2 - p1
	dl := (lon2 - lon1) * rad
	sp, sl := math.Sin(dp/2), math.Sin(dl/2)
	h := sp*sp + math.Cos(p1)*math.Cos(p2)*sl*sl
	return 2 * EarthRadius * math.Asin(math.Min(1, math.Sqrt(h)))
}

// Node is a road-graph vertex (a junction).
type Node struct {
	ID       string
	Lat, Lon float64 // degrees, WGS84
}

// Edge is a directed road segment between two nodes (indices into the
// graph's node list).
type Edge struct {
	From, To int
	Length   float64 // haversine metres between the endpoints
}

// Graph is an immutable directed road graph. It is safe to share one Graph
// between goroutines and generators.
type Graph struct {
	nodes []Node
	edges []Edge
	out   [][]int32 // outgoing edge indices per node, in file order
}

// NumNodes returns the number of nodes.
func (g *Graph) NumNodes() int { return len(g.nodes) }

// Node returns node i (0 ≤ i < NumNodes, in file order).
func (g *Graph) Node(i int) Node { return g.nodes[i] }

// NumEdges returns the number of directed edges.
func (g *Graph) NumEdges() int { return len(g.edges) }

// Edge returns edge i (0 ≤ i < NumEdges, in file order).
func (g *Graph) Edge(i int) Edge { return g.edges[i] }

// The on-disk shape of berlin-mitte.json. Pointers tell a missing field from
// a zero one.
type fileGraph struct {
	Nodes []struct {
		ID  *string  `json:"id"`
		Lat *float64 `json:"latitude"`
		Lon *float64 `json:"longitude"`
	} `json:"nodes"`
	Edges []struct {
		Source *string `json:"source"`
		Target *string `json:"target"`
	} `json:"edges"`
}

// LoadGraph reads a road graph in the dos-group berlin-mitte.json format:
//
//	{"nodes":[{"id":"1","latitude":52.5,"longitude":13.3},…],
//	 "edges":[{"source":"1","target":"2"},…]}
//
// Edges are directed. It rejects unknown fields, missing or duplicate node
// ids, coordinates out of range, edges naming unknown nodes, self-loops and
// zero-length edges (a zero-length segment would yield a trip with no
// position to emit). All problems found are reported together.
func LoadGraph(r io.Reader) (*Graph, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f fileGraph
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("iot: parse graph: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("iot: parse graph: trailing data after the graph object")
	}

	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("iot: graph: "+format, a...)) }

	g := &Graph{nodes: make([]Node, 0, len(f.Nodes))}
	index := make(map[string]int, len(f.Nodes))
	for i, n := range f.Nodes {
		switch {
		case n.ID == nil:
			bad("node %d: missing id", i)
			continue
		case *n.ID == "":
			bad("node %d: empty id", i)
			continue
		}
		id := *n.ID
		if j, dup := index[id]; dup {
			bad("node %d: duplicate id %q (also node %d)", i, id, j)
			continue
		}
		if n.Lat == nil {
			bad("node %d (id %q): missing latitude", i, id)
		} else if *n.Lat < -90 || *n.Lat > 90 {
			bad("node %d (id %q): latitude %v out of [-90, 90]", i, id, *n.Lat)
		}
		if n.Lon == nil {
			bad("node %d (id %q): missing longitude", i, id)
		} else if *n.Lon < -180 || *n.Lon > 180 {
			bad("node %d (id %q): longitude %v out of [-180, 180]", i, id, *n.Lon)
		}
		index[id] = len(g.nodes)
		var lat, lon float64
		if n.Lat != nil {
			lat = *n.Lat
		}
		if n.Lon != nil {
			lon = *n.Lon
		}
		g.nodes = append(g.nodes, Node{ID: id, Lat: lat, Lon: lon})
	}
	if len(f.Nodes) < 2 {
		bad("%d nodes, need at least 2", len(f.Nodes))
	}
	if len(f.Edges) == 0 {
		bad("no edges")
	}

	g.out = make([][]int32, len(g.nodes))
	for i, e := range f.Edges {
		end := func(name string, id *string) (int, bool) {
			if id == nil {
				bad("edge %d: missing %s", i, name)
				return 0, false
			}
			k, ok := index[*id]
			if !ok {
				bad("edge %d: %s %q is not a node id", i, name, *id)
			}
			return k, ok
		}
		from, ok1 := end("source", e.Source)
		to, ok2 := end("target", e.Target)
		if !ok1 || !ok2 {
			continue
		}
		if from == to {
			bad("edge %d: self-loop on node %q", i, *e.Source)
			continue
		}
		a, b := g.nodes[from], g.nodes[to]
		length := Haversine(a.Lat, a.Lon, b.Lat, b.Lon)
		if !(length > 0) {
			bad("edge %d: %q→%q has zero length (same coordinates)", i, *e.Source, *e.Target)
			continue
		}
		g.out[from] = append(g.out[from], int32(len(g.edges)))
		g.edges = append(g.edges, Edge{From: from, To: to, Length: length})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return g, nil
}

//go:embed data/berlin-mitte.json
var berlinMitteJSON []byte

var defaultGraph = sync.OnceValue(func() *Graph {
	g, err := LoadGraph(bytes.NewReader(berlinMitteJSON))
	if err != nil {
		panic("iot: embedded berlin-mitte.json: " + err.Error())
	}
	return g
})

// DefaultGraph returns the embedded dos-group Berlin-Mitte road graph (31
// nodes, 42 directed edges). The same *Graph is returned on every call.
func DefaultGraph() *Graph { return defaultGraph() }

// bfsParents returns, for every node, the edge by which a breadth-first
// search from src first reached it (-1: src itself or unreachable). Edges are
// tried in file order, so among equal-hop routes the one found first wins.
func (g *Graph) bfsParents(src int) []int32 {
	par := make([]int32, len(g.nodes))
	for i := range par {
		par[i] = -1
	}
	seen := make([]bool, len(g.nodes))
	seen[src] = true
	queue := []int{src}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, e := range g.out[u] {
			v := g.edges[e].To
			if !seen[v] {
				seen[v] = true
				par[v] = e
				queue = append(queue, v)
			}
		}
	}
	return par
}
