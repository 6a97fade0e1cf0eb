package scrape

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/models/monitor"

	"github.com/streamtwin/streamtwin/live/prometheus"
)

// onOff scrapes on, then off, then on, … seconds (a test sampler).
type onOff struct {
	plan  []monitor.Step
	i     int
	calls []int
	seen  []int // len(scraped) at each call
}

func (s *onOff) Next(now int, scraped []monitor.Point) monitor.Step {
	s.calls = append(s.calls, now)
	s.seen = append(s.seen, len(scraped))
	st := s.plan[s.i%len(s.plan)]
	s.i++
	return st
}

// fakeTSDB scrapes every family with 2 series at the middle of each
// second while it is on.
type fakeTSDB struct {
	mu      sync.Mutex
	second  time.Duration
	changes map[string][]change
	reloads int
}

type change struct {
	at time.Time
	on bool
}

func (f *fakeTSDB) Scrape(_ context.Context, states map[string]bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reloads++
	for fam, on := range states {
		f.changes[fam] = append(f.changes[fam], change{time.Now(), on})
	}
	return nil
}

func (f *fakeTSDB) onAt(fam string, t time.Time) bool {
	on := true
	for _, c := range f.changes[fam] {
		if c.at.After(t) {
			break
		}
		on = c.on
	}
	return on
}

func (f *fakeTSDB) Samples(_ context.Context, fam string, from, to time.Time) (prometheus.Count, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for t := from.Add(f.second / 2); !t.After(to); t = t.Add(f.second) {
		if f.onAt(fam, t) {
			n += 2
		}
	}
	return prometheus.Count{Samples: n, Series: 2}, nil
}

func (f *fakeTSDB) Value(_ context.Context, q string, at time.Time) ([]prometheus.Sample, error) {
	return []prometheus.Sample{{T: at, V: 1}}, nil
}

func TestRunAccounting(t *testing.T) {
	const sec = 40 * time.Millisecond
	db := &fakeTSDB{second: sec, changes: map[string][]change{}}
	toggled := &onOff{plan: []monitor.Step{{Scrape: 4, Skip: 8}, {Scrape: 4, Skip: 0}}}
	always := &onOff{plan: []monitor.Step{{Scrape: 5, Skip: 0}}}
	var lines []string
	r := Run{Client: db, Samplers: map[string]monitor.Sampler{"node_cpu_seconds_total": toggled, "node_memory_MemAvailable_bytes": always},
		Duration: 16 * time.Second, Second: sec, Log: func(f string, a ...any) { lines = append(lines, f) }}
	acc, err := r.Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + acc.String())
	cpu, _ := acc.Family("node_cpu_seconds_total")
	mem, _ := acc.Family("node_memory_MemAvailable_bytes")
	if cpu.ScrapedSeconds != 8 || cpu.Steps != 2 || cpu.Toggles != 2 || cpu.RunShare != 0.5 {
		t.Errorf("toggled family: %+v", cpu)
	}
	if mem.ScrapedSeconds != 16 || mem.Steps != 4 || mem.Toggles != 0 || mem.RunShare != 1 {
		t.Errorf("always-on family: %+v", mem)
	}
	if got := toggled.calls; len(got) != 2 || got[0] != 0 || got[1] != 12 {
		t.Errorf("Next called at %v, want [0 12]", got)
	}
	if toggled.seen[1] != 4 || len(cpu.Points) != 8 || len(mem.Points) != 16 {
		t.Errorf("points: the sampler saw %v, cpu %d, mem %d", toggled.seen, len(cpu.Points), len(mem.Points))
	}
	if err := acc.Check(0.1); err != nil {
		t.Error(err)
	}
	// 1 at the start (all on), 2 toggles, 1 at the end
	if acc.Reloads != 2 || db.reloads != 4 || !db.onAt("node_cpu_seconds_total", time.Now()) {
		t.Errorf("reloads: run %d, server %d", acc.Reloads, db.reloads)
	}
	bad := acc
	bad.Families = []Family{{Name: "x", ScrapedSeconds: 10, RunShare: 0.5, Series: 1, Samples: 7, StoredShare: 0.35}}
	if err := bad.Check(0.1); err == nil || !strings.Contains(err.Error(), "30.0 % off") {
		t.Errorf("Check of a 30 %% difference: %v", err)
	}
}

func TestRunRefuses(t *testing.T) {
	db := &fakeTSDB{second: time.Millisecond, changes: map[string][]change{}}
	for _, r := range []Run{
		{Client: db, Samplers: map[string]monitor.Sampler{"x": &onOff{plan: []monitor.Step{{Scrape: 1}}}}, Duration: 1500 * time.Millisecond},
		{Client: db, Samplers: nil, Duration: time.Second},
		{Client: db, Samplers: map[string]monitor.Sampler{"a|b": &onOff{plan: []monitor.Step{{Scrape: 1}}}}, Duration: time.Second},
		{Client: db, Samplers: map[string]monitor.Sampler{"x": &onOff{plan: []monitor.Step{{}}}}, Duration: time.Second, Second: time.Millisecond},
	} {
		if _, err := r.Do(context.Background()); err == nil {
			t.Errorf("run %+v accepted", r)
		}
	}
}
