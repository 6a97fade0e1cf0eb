package measure

import (
	"math"
	"testing"

	"github.com/streamtwin/streamtwin/results"
)

// TestColdStarts by hand: 4 TaskManagers reading 100/s until 10 s, none
// from 11 s to 20 s, 4 again from 21 s; no throughput measured from 11 s
// to 24 s, then 20/s until 45 s and 100/s after. Downtime 25 − 10 = 15 s.
// The first 10-s mean is 20, the peak 100: start share 0.2. The window from
// 25 + d holds d − 10 seconds at 100 for d in [10, 20], so its mean first
// reaches 90 at d = 19 (80·d ≥ 1,500): 90 % at the window's middle, 24 s
// after the restart; the linear ramp from 0.2 that is at 0.9 then is
// 24·0.8/0.7 = 27.43 s long.
func TestColdStarts(t *testing.T) {
	var ss []results.Sample
	for t := 1.0; t <= 400; t++ {
		s := results.Sample{TimeS: t, Workers: 4, Throughput: 100}
		switch {
		case t >= 11 && t <= 20:
			s.Workers, s.Throughput = 0, math.NaN()
		case t >= 21 && t <= 24:
			s.Throughput = math.NaN()
		case t >= 25 && t < 45:
			s.Throughput = 20
		}
		ss = append(ss, s)
	}
	got := ColdStarts(ss)
	if len(got) != 1 {
		t.Fatalf("%d cold starts, want 1: %+v", len(got), got)
	}
	c := got[0]
	for _, k := range []struct {
		what      string
		got, want float64
	}{{"at", c.AtS, 10}, {"downtime", c.DowntimeS, 15}, {"start share", c.StartShare, 0.2}, {"ramp", c.RampS, 24 * 0.8 / 0.7}} {
		if math.Abs(k.got-k.want) > 1e-9 {
			t.Errorf("%s = %g, want %g", k.what, k.got, k.want)
		}
	}
	// a restart too close to the end to see its peak is left out, and a
	// run whose TaskManagers never all leave has none
	if got := ColdStarts(ss[:300]); len(got) != 0 {
		t.Errorf("cut short: %+v, want none", got)
	}
	for i := range ss {
		ss[i].Workers = 4
	}
	if got := ColdStarts(ss); len(got) != 0 {
		t.Errorf("no TaskManager left: %+v, want none", got)
	}
}

// TestRestartsAt by hand: the run of TestColdStarts with its TaskManagers
// kept (the twin's savepoint upgrade keeps them), the stop requested at
// 8 s while the job still reads until 10 s (the savepoint first), and a
// second request at 15 s within the same downtime: one restart, measured
// as ColdStarts measures the pods' replacement (downtime 15 s, start share
// 0.2). A request after the last restart whose throughput never stops
// again measures nothing.
func TestRestartsAt(t *testing.T) {
	var ss []results.Sample
	for t := 1.0; t <= 400; t++ {
		s := results.Sample{TimeS: t, Workers: 4, Throughput: 100}
		switch {
		case t >= 11 && t <= 24:
			s.Throughput = 0
		case t >= 25 && t < 45:
			s.Throughput = 20
		}
		ss = append(ss, s)
	}
	got := RestartsAt(ss, []float64{8, 15, 390})
	if len(got) != 1 {
		t.Fatalf("%d restarts, want 1: %+v", len(got), got)
	}
	if c := got[0]; c.AtS != 10 || c.DowntimeS != 15 || math.Abs(c.StartShare-0.2) > 1e-9 || math.Abs(c.RampS-24*0.8/0.7) > 1e-9 {
		t.Errorf("restart %+v, want at 10 s, downtime 15 s, start share 0.2, ramp %.2f s", c, 24*0.8/0.7)
	}
}
