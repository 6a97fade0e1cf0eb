package flink

import (
	"math"
	"testing"
)

func even(p int) []float64 {
	s := make([]float64, p)
	for i := range s {
		s[i] = 1 / float64(p)
	}
	return s
}

func TestGraphChainingAndCapacity(t *testing.T) {
	ops := []Operator{
		{Name: "source", Cost: 2e-6, Selectivity: 1, Partitioning: Forward},
		{Name: "filter", Cost: 1e-6, Selectivity: 1.0 / 3, Partitioning: Forward},
		{Name: "window", Cost: 6e-6, Selectivity: 0.1, Partitioning: Hash},
		{Name: "sink", Cost: 10e-6, Selectivity: 1, Partitioning: Forward},
	}
	cases := []struct {
		name     string
		chaining bool
		chains   int
		capacity float64 // per hand: Σ cost·gain per source record on one TaskManager of p=2 (1 core)
	}{
		// per TM: ½·(2 + 1) + ½·(⅓·6) + ½·(⅓·0.1·10) µs = 1.5 + 1 + 0.1667 µs
		{"chained", true, 2, 1 / ((1.5 + 1 + 1.0/6) * 1e-6)},
		{"unchained", false, 4, 1 / ((1.5 + 1 + 1.0/6) * 1e-6)},
	}
	for _, c := range cases {
		cfg := DefaultJob()
		cfg.Operators, cfg.Chaining = ops, c.chaining
		g, err := BuildGraph(cfg, 2, even)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.chains) != c.chains {
			t.Errorf("%s: %d chains, want %d", c.name, len(g.chains), c.chains)
		}
		if math.Abs(g.Capacity(1)-c.capacity) > 1e-6 {
			t.Errorf("%s: capacity %v, want %v", c.name, g.Capacity(1), c.capacity)
		}
		if math.Abs(g.OutputGain()-1.0/30) > 1e-12 {
			t.Errorf("%s: output gain %v, want 1/30", c.name, g.OutputGain())
		}
	}
	// a thread uses at most one core: with 4 cores per TaskManager, the
	// busiest single task bounds the capacity instead
	cfg := DefaultJob()
	cfg.Operators, cfg.Chaining, cfg.Cluster.Cores = ops, false, 4
	g, _ := BuildGraph(cfg, 2, even)
	if want := 1 / (0.5 * 2e-6); math.Abs(g.Capacity(1)-want) > 1e-6 { // the source task: ½ · 2 µs
		t.Errorf("thread-bound capacity %v, want %v", g.Capacity(1), want)
	}
	// forward across a parallelism change is refused in a scenario, as
	// Flink's DataStream API does
	bad := DefaultJob()
	bad.Parallelism = 2
	bad.Operators = []Operator{ops[0], {Name: "x", Cost: 1e-6, Selectivity: 1, Partitioning: Forward, Parallelism: 1}}
	if e := bad.Validate(); e["operators[1].partitioning"] == "" {
		t.Errorf("forward edge between parallelism 2 and 1 accepted: %v", e)
	}
}

// TestPointwise by hand: a forward edge whose ends an override made
// unequal is Flink's POINTWISE pattern. Shares 0.1..0.4 of 4 upstream
// subtasks into 2: subtask 0 reads upstream 0–1 (0.3), 1 reads 2–3 (0.7);
// into 3: upstream ⌊j·4/3⌋ up to ⌊(j+1)·4/3⌋, i.e. {0}, {1}, {2, 3}. Two
// upstream subtasks into 4: each spreads over two (0.05 0.05 0.45 0.45).
func TestPointwise(t *testing.T) {
	for _, c := range []struct {
		up   []float64
		p    int
		want []float64
	}{
		{[]float64{0.1, 0.2, 0.3, 0.4}, 2, []float64{0.3, 0.7}},
		{[]float64{0.1, 0.2, 0.3, 0.4}, 3, []float64{0.1, 0.2, 0.7}},
		{[]float64{0.1, 0.9}, 4, []float64{0.05, 0.05, 0.45, 0.45}},
		{[]float64{0.5, 0.5}, 2, []float64{0.5, 0.5}},
	} {
		got := pointwise(c.up, c.p)
		for j := range c.want {
			if math.Abs(got[j]-c.want[j]) > 1e-12 {
				t.Errorf("pointwise(%v, %d) = %v, want %v", c.up, c.p, got, c.want)
				break
			}
		}
	}
}

func TestBufferDelay(t *testing.T) {
	cfg := DefaultJob()
	g, _ := BuildGraph(cfg, 4, even)
	lc := cfg.Latency
	// at a trickle every hop waits for the 100 ms buffer timeout
	if d := g.BufferDelay(10, lc); math.Abs(d-0.1*float64(len(g.hops))) > 1e-12 {
		t.Errorf("low-rate buffer delay %v", d)
	}
	// flush-only-when-full: a 32 KiB buffer of 100 B records at 10 records/s
	// per channel takes 32.768 s
	lc.BufferTimeout = -1
	x := 10 * g.hops[0].channels / g.hops[0].gain
	if d := g.BufferDelay(x, lc); math.Abs(d-32.768) > 1e-9 {
		t.Errorf("full-buffer delay %v, want 32.768", d)
	}
}

// TestKeyGroupsAndSublinearScaling by hand: 128 key groups over 12
// subtasks give ranges of 11, 11, 10, … (8 of 11, 4 of 10). A hashed
// window costing 10 µs per record, one slot and one core per TaskManager,
// is then limited by a subtask with 11/128 of the keys: 1/(11/128 · 10 µs)
// = 1,163,636 records/s, not the 1.2 M an even split gives. With the USL's
// contention 0.0476 each record costs 1 + 0.0476·11 = 1.5236 times more.
func TestKeyGroupsAndSublinearScaling(t *testing.T) {
	kg := KeyGroups(12, 128)
	sum := 0
	for i, n := range kg {
		sum += n
		if want := []int{11, 11, 10}[i%3]; n != want {
			t.Errorf("subtask %d owns %d key groups, want %d", i, n, want)
		}
	}
	if sum != 128 {
		t.Errorf("key groups sum to %d", sum)
	}
	for _, c := range []struct {
		contention, capacity float64
	}{{0, 1 / (11.0 / 128 * 10e-6)}, {0.0476, 1 / (11.0 / 128 * 10e-6 * 1.5236)}} {
		cfg := DefaultJob()
		cfg.Chaining = false
		cfg.Operators = []Operator{
			{Name: "source", Selectivity: 1, Partitioning: Forward},
			{Name: "window", Cost: 10e-6, Selectivity: 1, Partitioning: Hash},
		}
		cfg.Cluster.Slots, cfg.Cluster.Cores = 1, 1
		cfg.Scaling.Contention = c.contention
		g, err := BuildGraph(cfg, 12, even)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(g.Capacity(1)-c.capacity) > 1e-6*c.capacity {
			t.Errorf("contention %g: capacity %.0f, want %.0f", c.contention, g.Capacity(1), c.capacity)
		}
	}
}

// Detail by hand: source 10 µs → sink 20 µs, p = 2 on two 1-core
// TaskManagers, chaining off. Each TaskManager runs a source thread (½ ·
// 10 = 5 µs per source record) and a sink thread (10 µs): 15 µs.
func TestOperatorDetailByHand(t *testing.T) {
	cfg := DefaultJob()
	cfg.Chaining = false
	cfg.Cluster.Slots, cfg.Cluster.Cores = 1, 1
	cfg.Operators = []Operator{
		{Name: "source", Cost: 10e-6, Selectivity: 1, Partitioning: Forward},
		{Name: "sink", Cost: 20e-6, Selectivity: 0.5, Partitioning: Forward},
	}
	g, err := BuildGraph(cfg, 2, even)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		x, sourceBusy, sinkBusy float64
	}{
		// 20k/s: source 0.1 of a core, sink 0.2; each gets what the other leaves
		{20000, 0.1 / (1 - 0.2), 0.2 / (1 - 0.1)},
		// 1/15 µs: the TaskManagers saturate, every thread reads busy
		{1 / 15e-6, 1, 1},
		{0, 0, 0},
	}
	for _, c := range cases {
		d := g.OperatorDetail(c.x, c.x)
		if math.Abs(d[0].BusyMax-c.sourceBusy) > 1e-9 || math.Abs(d[1].BusyMax-c.sinkBusy) > 1e-9 {
			t.Errorf("x %g: busy %g and %g, want %g and %g", c.x, d[0].BusyMax, d[1].BusyMax, c.sourceBusy, c.sinkBusy)
		}
		if d[0].InputRate != c.x || d[1].InputRate != c.x || d[1].OutputRate != c.x/2 || !d[0].Source || d[1].Source {
			t.Errorf("x %g: rates %+v", c.x, d)
		}
	}
	if g.SourceShare(0) != 0.5 || g.SourceShare(1) != 0.5 {
		t.Errorf("source shares %g, %g; want ½ each", g.SourceShare(0), g.SourceShare(1))
	}
	if got := 20000 * g.TaskManagerBusy(0, 1); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("TaskManager CPU at 20k/s %g, want 0.3", got)
	}
}
