package driver

import (
	"math"
	"testing"
	"time"
)

// The live Khaos sequence after a savepoint reconfiguration, on one
// partition: the old job read up to offset 60 000 when it stopped with a
// savepoint at 60.3 s; Kafka's committed offset is still its last
// checkpoint's, 36 500 (36.5 s at 1 000 records/s). The resubmitted job
// runs, and for a sample its source reports no offset yet (-1). It resumes
// at the savepoint: the position must stay at 60 000 (lag 4 000 of the
// 64 000 end offset), not fall back to 36 500 (lag 27 500), and the next
// second's throughput is the 1 000 records it read, not the 24 500 the
// fall-back would count as replayed.
func TestSavepointResume(t *testing.T) {
	var resume savepointResume
	committed := offsets{0: 36500}
	// 60 s: the old job reading
	end := offsets{0: 60500}
	pos := positions(end, resume.restore("old", committed), offsets{0: 59999}, nil, true)
	if pos[0] != 60000 {
		t.Fatalf("old job: position %g, want 60000", pos[0])
	}
	// 61–63 s: stopped, resubmitted; the sampler's job is now the new one
	resume.stop("old", pos)
	if got := resume.restore("old", committed); got[0] != 36500 {
		t.Errorf("the stopped job's own restore point %g, want its committed 36500", got[0])
	}
	// 64 s: the new job RUNNING, its source not reporting yet
	end = offsets{0: 64000}
	for _, c := range []struct {
		name    string
		restore offsets
		pos     float64
	}{
		{"committed offsets (the bug)", committed, 36500},
		{"the savepoint's", resume.restore("new", committed), 60000},
	} {
		p := positions(end, c.restore, offsets{}, pos, true)
		if p[0] != c.pos {
			t.Errorf("%s: position %g, want %g", c.name, p[0], c.pos)
		}
	}
	restore := resume.restore("new", committed)
	p64 := positions(end, restore, offsets{}, pos, true)
	if lag := end[0] - p64[0]; lag != 4000 {
		t.Errorf("lag at 64 s %g, want 4000", lag)
	}
	// 65 s: it reads, up to 60 999
	p65 := positions(offsets{0: 65000}, restore, offsets{0: 60999}, p64, true)
	if got := consumedSince(p64, p65, restore); got != 1000 {
		t.Errorf("records read at 65 s %g, want 1000", got)
	}
	// its first checkpoint commits 62 000: the committed offsets take over
	if got := resume.restore("new", offsets{0: 62000}); got[0] != 62000 {
		t.Errorf("restore point after the new job's checkpoint %g, want 62000", got[0])
	}
	// the map handed to stop is not kept (the sampler reuses it)
	pos[0] = 0
	if got := resume.restore("new", nil); got[0] != 60000 {
		t.Errorf("restore point without committed offsets %g, want the savepoint's 60000", got[0])
	}
}

// CPU utilisation between two /proc readings, by hand: 0.2 CPU-seconds in
// 1 s on a 0.25-core allotment is 0.8; a restarted TaskManager (new pid)
// or one first seen has none yet.
func TestCPUUtilisations(t *testing.T) {
	t0 := time.Unix(1000, 0)
	prev := map[int]cpuReading{
		0: {pid: 10, cpu: 5.0, at: t0},
		1: {pid: 11, cpu: 7.0, at: t0},
		2: {pid: 12, cpu: 3.0, at: t0},
	}
	now := map[int]cpuReading{
		0: {pid: 10, cpu: 5.2, at: t0.Add(time.Second)},
		1: {pid: 11, cpu: 7.5, at: t0.Add(2 * time.Second)},
		2: {pid: 13, cpu: 0.4, at: t0.Add(time.Second)}, // restarted
		3: {pid: 14, cpu: 9.0, at: t0.Add(time.Second)}, // first seen
	}
	want := map[int]float64{0: 0.8, 1: 1, 2: math.NaN(), 3: math.NaN()}
	got := cpuUtilisations(prev, now, 0.25)
	for i, w := range want {
		g, ok := got[i]
		if !ok || math.IsNaN(w) != math.IsNaN(g) || (!math.IsNaN(g) && math.Abs(g-w) > 1e-12) {
			t.Errorf("TaskManager %d: utilisation %g (present %v), want %g", i, g, ok, w)
		}
	}
	if len(got) != len(now) {
		t.Errorf("%d utilisations for %d TaskManagers read", len(got), len(now))
	}
}
