package autoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/models/policy"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/measure"
)

// load is one steady window of the job at parallelism p: the source reads
// srcIn/s at busy srcBusy while arrivals come at arrival/s; the keyed window
// gets winIn/s at busy winBusy. 12 partitions, 128 key groups.
func load(end time.Duration, p int, arrival, srcIn, srcBusy, winIn, winBusy float64) policy.Observation {
	var o policy.Observation
	n := 900 // the metric window
	for i := 0; i < n; i++ {
		o.Window = append(o.Window, results.Sample{TimeS: end.Seconds() - float64(n-1-i), InputRate: arrival,
			Throughput: srcIn, JobState: "RUNNING"})
		o.Detail = append(o.Detail, measure.Detail{Operators: []measure.OperatorSample{
			{Name: "source", Parallelism: p, Source: true, InputRate: srcIn, OutputRate: srcIn, BusyMax: srcBusy, MaxParallelism: 128, Partitions: 12},
			{Name: "window", Parallelism: p, InputRate: winIn, OutputRate: winIn / 100, BusyMax: winBusy, Keyed: true, MaxParallelism: 128},
		}})
	}
	o.Job = policy.JobStatus{State: "RUNNING", Parallelism: p, Uptime: 2 * time.Hour}
	return o
}

// TestScaleUpByHand: at p = 4 the source reads 40k/s fully busy (TPR 40k)
// while 50k/s arrive: below the scale-up bound 50k/1.0 = 50k. Target
// capacity round(50k·300/1800 + 50k/0.7) = 79,762/s, factor 1.994, ⌈7.98⌉
// = 8, which does not divide 12 partitions: 12. The window (20k/s at busy
// 0.5: TPR 40k against a target of 50k·20/40 = 25k, bounds 25k and
// 25k·300/1800 + 25k/0.4 = 66,667) is in bounds and keeps 4: the job takes
// 12. Nothing happens before the stabilisation interval and a full metric
// window have passed since the job started.
func TestScaleUpByHand(t *testing.T) {
	p, _ := New(DefaultSettings())
	o := load(3*time.Hour, 4, 50000, 40000, 1, 20000, 0.5)
	o.Job.Uptime = 19 * time.Minute // 5 min stabilising + 14 of the 15 min window
	if a := p.Step(3*time.Hour, o); a != nil {
		t.Fatalf("acted before its metric window was full: %v", a)
	}
	o.Job.Uptime = 20 * time.Minute
	a := p.Step(3*time.Hour, o)
	if len(a) != 1 || a[0].Kind != policy.Rescale || a[0].Parallelism != 12 {
		t.Fatalf("got %v, want a rescale to 12", a)
	}
	v, _ := p.Evaluate(o.Window, o.Detail, 0)
	if v[0].TargetDataRate != 50000 || v[0].TrueProcessingRate != 40000 || v[1].TargetDataRate != 25000 || v[1].TrueProcessingRate != 40000 {
		t.Errorf("rates %+v", v)
	}
}

// TestDelayedScaleDownTakesTheMaximum, alignment off, at p = 12 (the
// window vertex always reads half the source's rate at the source's busy
// time, half its true rate against half its target: it recommends what the
// source does):
//   - 5 h: 10k/s at busy 0.1 (TPR 100k, above the scale-down bound
//     10k·300/1800 + 10k/0.4 = 26,667): target round(1,667 + 14,286) =
//     15,952, factor 0.16 clamped to 0.4, ⌈4.8⌉ = 5. The wait starts.
//   - 5 h 30: 30k/s at busy 0.3 (bound 5,000 + 75,000 = 80,000 < 100k):
//     target round(5,000 + 42,857) = 47,857, factor 0.479, ⌈5.74⌉ = 6.
//   - 5 h 59 and 6 h: 10k/s again; at 6 h the hour is up and the job takes
//     the largest recommendation of the hour: 6.
//
// With alignment, 5 would be 6 (a divisor of the 12 partitions) for the
// source and 8 (of the 128 key groups) for the window: 8.
func TestDelayedScaleDownTakesTheMaximum(t *testing.T) {
	off := DefaultSettings()
	off.Alignment = "off"
	p, _ := New(off)
	got := steps(p, []step{
		{5 * time.Hour, 10000, 0.1},
		{5*time.Hour + 30*time.Minute, 30000, 0.3},
		{5*time.Hour + 59*time.Minute, 10000, 0.1},
		{6 * time.Hour, 10000, 0.1},
	})
	if fmt.Sprint(got) != "[- - - 6]" {
		t.Errorf("got %v, want nothing for an hour, then 6", got)
	}
	aligned, _ := New(DefaultSettings())
	if got := steps(aligned, []step{{5 * time.Hour, 10000, 0.1}, {6 * time.Hour, 10000, 0.1}}); fmt.Sprint(got) != "[- 8]" {
		t.Errorf("aligned: got %v, want nothing, then 8", got)
	}
}

// TestScaleDownSurvivesReadingsInBounds is why the operator autoscaler
// stayed at 12 TaskManagers on WordCount: a reading within the utilisation
// bounds does not drop a waiting scale-down as long as its recommendation
// is still below the current parallelism (the operator clears a vertex's
// delayed scale-down only on a recommendation of its current parallelism
// or above). At 5 h 30, 40k/s at busy 0.5 (TPR 80k) is within the bounds
// (scale-up below 40k, scale-down above 6,667 + 100,000 = 106,667) but
// recommends round(6,667 + 57,143) = 63,810 / 80,000 · 12 → ⌈9.57⌉ = 10;
// at 6 h the trough is out of bounds again and the hour is up: the job
// goes to max(5, 10, 5) = 10. A reading at 100k/s at busy 0.9 (TPR
// 111,111, in bounds; target 16,667 + 142,857 = 159,524, ⌈17.2⌉ = 18 > 12)
// drops the wait: an hour later nothing happens yet.
func TestScaleDownSurvivesReadingsInBounds(t *testing.T) {
	off := DefaultSettings()
	off.Alignment = "off"
	for _, k := range []struct {
		name  string
		steps []step
		want  string
	}{
		{"in bounds, below current", []step{
			{5 * time.Hour, 10000, 0.1},
			{5*time.Hour + 30*time.Minute, 40000, 0.5},
			{6 * time.Hour, 10000, 0.1},
		}, "[- - 10]"},
		{"in bounds, above current", []step{
			{5 * time.Hour, 10000, 0.1},
			{5*time.Hour + time.Minute, 100000, 0.9},
			{6*time.Hour + time.Minute, 10000, 0.1},
		}, "[- - -]"},
		// TPR 36,364 throughout. 5 h: 20k/s, in bounds (20,000 to
		// 3,333 + 50,000), recommends ⌈12 · 31,905 / 36,364⌉ = 11; 5 h 30:
		// 12k/s, out (above 2,000 + 30,000), ⌈12 · 19,143 / 36,364⌉ = 7;
		// 6 h: 8k/s, out, factor 0.35 clamped to 0.4: 5, and the hour since
		// 5 h is up: max(11, 7, 5) = 11. A minute later the 11 of 5 h has
		// left the hour: 7.
		{"a trough after the interval", []step{
			{5 * time.Hour, 20000, 0.55},
			{5*time.Hour + 30*time.Minute, 12000, 0.33},
			{6 * time.Hour, 8000, 0.22},
		}, "[- - 11]"},
		{"the largest of the last hour", []step{
			{5 * time.Hour, 20000, 0.55},
			{5*time.Hour + 30*time.Minute, 12000, 0.33},
			{6*time.Hour + time.Minute, 8000, 0.22},
		}, "[- - 7]"},
	} {
		t.Run(k.name, func(t *testing.T) {
			p, _ := New(off)
			if got := steps(p, k.steps); fmt.Sprint(got) != k.want {
				t.Errorf("got %v, want %s", got, k.want)
			}
		})
	}
}

// step is one reconcile at p = 12: the source reads in/s at busy, the
// window half of it at the same busy time.
type step struct {
	at   time.Duration
	in   float64
	busy float64
}

// steps runs the reconciles and returns, per step, the new parallelism or "-".
func steps(p *Policy, ss []step) []string {
	var got []string
	for _, k := range ss {
		a := p.Step(k.at, load(k.at, 12, k.in, k.in, k.busy, k.in/2, k.busy))
		s := "-"
		if len(a) == 1 && a[0].Kind == policy.Rescale {
			s = fmt.Sprint(a[0].Parallelism)
		}
		got = append(got, s)
	}
	return got
}

// TestScaleUpGracePeriod is the operator before 1.10 (Demeter's 1.6): no
// scale-down interval, but no scale-down within scale_up_grace_period of a
// scale-up. At 5 h the source of TestScaleUpByHand (alignment off) asks for
// ⌈1.994 · 4⌉ = 8; at 5 h 30 the job at 8 reads 10k/s at busy 0.1 (TPR
// 100k, above the scale-down bound 26,667) and recommends ⌈0.4 · 8⌉ = 4:
// within the hour it keeps 8, after it (6 h 1) it goes to 4. Without the
// grace period it goes to 4 at 5 h 30.
func TestScaleUpGracePeriod(t *testing.T) {
	for _, k := range []struct {
		grace time.Duration
		want  string
	}{{time.Hour, "[8 - 4]"}, {0, "[8 4 4]"}} {
		s := DefaultSettings()
		s.Alignment, s.ScaleDownInterval, s.ScaleUpGracePeriod = "off", 0, sec(k.grace)
		p, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range []struct {
			at  time.Duration
			obs policy.Observation
		}{
			{5 * time.Hour, load(5*time.Hour, 4, 50000, 40000, 1, 20000, 0.5)},
			{5*time.Hour + 30*time.Minute, load(5*time.Hour+30*time.Minute, 8, 10000, 10000, 0.1, 5000, 0.1)},
			{6*time.Hour + time.Minute, load(6*time.Hour+time.Minute, 8, 10000, 10000, 0.1, 5000, 0.1)},
		} {
			r := "-"
			if a := p.Step(o.at, o.obs); len(a) == 1 {
				r = fmt.Sprint(a[0].Parallelism)
			}
			got = append(got, r)
		}
		if fmt.Sprint(got) != k.want {
			t.Errorf("grace %v: got %v, want %s", k.grace, got, k.want)
		}
	}
}

// TestVerticesEach: TestScaleUpByHand's window with vertices: each. The
// source asks for 12 and is out of bounds, the window is in bounds and
// keeps its 4: the job restarts with the source at 12 and the window at 4
// (with vertices: job both run at 12). The policy then needs a backend
// that gives vertices their own parallelism.
func TestVerticesEach(t *testing.T) {
	s := DefaultSettings()
	s.Vertices = "each"
	p, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	o := load(3*time.Hour, 4, 50000, 40000, 1, 20000, 0.5)
	o.Job.Uptime = 20 * time.Minute
	a := p.Step(3*time.Hour, o)
	if len(a) != 1 || a[0].Kind != policy.RescaleVertices || a[0].Parallelism != 12 || fmt.Sprint(a[0].Vertices) != "map[source:12 window:4]" {
		t.Fatalf("got %+v, want rescale_vertices to source 12, window 4", a)
	}
	if r := p.Requires(); len(r) != 1 || r[0] != policy.RescaleVertices {
		t.Errorf("requires %v, want [rescale_vertices]", r)
	}
	s.Vertices = "all"
	if _, err := New(s); err == nil {
		t.Error("vertices: all accepted")
	}
}
