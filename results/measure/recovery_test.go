package measure

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/results/statistics"
)

// fluid builds 1-s samples t = 1…n of a job that consumes at most
// capacity(t) records/s from a topic fed at input(t): each second it takes
// min(capacity, backlog + input), so the lag at the end of a second is exact.
func fluid(n int, input, capacity func(t int) float64, knownInput bool) []results.Sample {
	out := make([]results.Sample, n)
	lag := 0.0
	for i := range out {
		t := i + 1
		in := input(t)
		thr := math.Min(capacity(t), lag+in)
		lag += in - thr
		out[i] = results.Sample{TimeS: float64(t), Throughput: thr, Lag: lag, LatencyMeanMs: 300, LatencyP99Ms: 500, LatencyP50Ms: math.NaN(), LatencyMarkerP99Ms: math.NaN()}
		if knownInput {
			out[i].InputRate = in
		}
	}
	return out
}

func constant(v float64) func(int) float64 { return func(int) float64 { return v } }

// downThen: capacity 0 during the (from, to] outages, up otherwise.
func downThen(up float64, outages ...[2]int) func(int) float64 {
	return func(t int) float64 {
		for _, o := range outages {
			if t > o[0] && t <= o[1] {
				return 0
			}
		}
		return up
	}
}

// noisy scales throughput and lag by ±5 % seeded uniform noise and puts the
// lag on a 2000-record floor, as a measured Kafka consumer shows.
func noisy(s []results.Sample) []results.Sample {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range s {
		s[i].Throughput *= 1 + 0.05*(2*r.Float64()-1)
		s[i].Lag = (2000 + s[i].Lag) * (1 + 0.05*(2*r.Float64()-1))
	}
	return s
}

// stalls adds, from sample from on, a 6.4 % stall every 10 s whose backlog
// is still there at the sample's end and gone by the next: a checkpoint's
// synchronous phase just before a sample boundary.
func stalls(s []results.Sample, from int) []results.Sample {
	for i := from; i+1 < len(s); i += 10 {
		in := s[i].InputRate
		s[i].Throughput, s[i].Lag = 0.936*in, 0.064*in
		s[i+1].Throughput = 1.064 * in
	}
	return s
}

func nanDown(s []results.Sample, from, to int) []results.Sample {
	for i := from; i < to; i++ {
		s[i].Throughput, s[i].Lag = math.NaN(), math.NaN()
	}
	return s
}

// TestDetectRecovery: 1000 records/s in, a fault at t = 100 s stops
// consumption for 20 s (backlog 20 000 records), then the job catches up.
// At 2000/s the backlog drains at 1000/s net, in 20 s: recovery = 40 s.
// Samples are 1 s long and the recovery end is resolved to the first whole
// second after the backlog is gone (see Recovery.RecoveryS).
func TestDetectRecovery(t *testing.T) {
	in := constant(1000)
	cases := []struct {
		name    string
		samples []results.Sample
		opt     RecoveryOptions
		want    float64 // NaN: not recovered
	}{
		{"catch-up at 2000/s: 20 s down + 20000/1000 s", fluid(400, in, downThen(2000, [2]int{100, 120}), true), RecoveryOptions{}, 40},
		{"same, input rate unknown: baseline reference", fluid(400, in, downThen(2000, [2]int{100, 120}), false), RecoveryOptions{}, 40},
		{"same, NaN rows while down", nanDown(fluid(400, in, downThen(2000, [2]int{100, 120}), true), 100, 120), RecoveryOptions{}, 40},
		{"catch-up at 1800/s: 20 + 20000/800 s", fluid(400, in, downThen(1800, [2]int{100, 120}), true), RecoveryOptions{}, 45},
		// 20 + 20000/1500 = 33.3 s: the second ending at 134 s still catches
		// up (1500/s), the first normal one starts at 134 s.
		{"catch-up at 2500/s drains mid-second: ceil(33.3)", fluid(400, in, downThen(2500, [2]int{100, 120}), true), RecoveryOptions{}, 34},
		{"±5 % noise, input known", noisy(fluid(400, in, downThen(2000, [2]int{100, 120}), true)), RecoveryOptions{}, 40},
		{"±5 % noise, input unknown", noisy(fluid(400, in, downThen(2000, [2]int{100, 120}), false)), RecoveryOptions{}, 40},
		// caught up at 140 s, normal for 10 s (< Hold), down again 150–160 s,
		// backlog 10 000 drained by 170 s: one anomaly of 70 s
		{"relapse within Hold is one anomaly", fluid(400, in, downThen(2000, [2]int{100, 120}, [2]int{150, 160}), true), RecoveryOptions{}, 70},
		{"relapse after Hold = 5 is a new anomaly", fluid(400, in, downThen(2000, [2]int{100, 120}, [2]int{150, 160}), true), RecoveryOptions{Hold: 5}, 40},
		{"never back up", fluid(400, in, downThen(2000, [2]int{100, 400}), true), RecoveryOptions{}, math.NaN()},
		{"capacity = input: the backlog stays", fluid(400, in, func(t int) float64 { return min(downThen(2000, [2]int{100, 120})(t), 1000) }, true), RecoveryOptions{}, math.NaN()},
		{"series ends 10 normal samples after catch-up", fluid(150, in, downThen(2000, [2]int{100, 120}), true), RecoveryOptions{}, math.NaN()},
		// 1.8 M records drained at 43 000/s net: 20 + 41.9 s, resolved to 62 s;
		// the stall lag (5760) is above the 1000-record floor but within the
		// backlog a stall inside the throughput band can leave (9000)
		{"checkpoint stalls after the restart", stalls(fluid(400, constant(90000), downThen(133000, [2]int{100, 120}), true), 172), RecoveryOptions{}, 62},
		{"no visible effect", fluid(400, in, constant(2000), true), RecoveryOptions{}, 0},
		// a stop-with-savepoint processes normally until it completes: the
		// anomaly ends no earlier than the resubmitted job runs
		{"no visible effect, resumed at 107.5 s", fluid(400, in, constant(2000), true), RecoveryOptions{ResumedS: 107.5}, 7.5},
		{"resumed while catching up: the backlog decides", fluid(400, in, downThen(2000, [2]int{100, 120}), true), RecoveryOptions{ResumedS: 120}, 40},
		// a fault lasting to 140 s whose effect comes late (checkpoint
		// storage refusing writes fails the job at 120 s): down 120–130 s,
		// 10 000 records drained at 1000/s net by 140 s, the first normal
		// sample ends at 141 s; the 15 normal samples before the outage do
		// not end it, as they would for a fault of an instant (0 s)
		{"a lasting fault's late effect", fluid(400, in, downThen(2000, [2]int{120, 130}), true), RecoveryOptions{UntilS: 140}, 40},
		{"the same effect, the fault of an instant", fluid(400, in, downThen(2000, [2]int{120, 130}), true), RecoveryOptions{}, 0},
		{"a lasting fault without a visible effect", fluid(400, in, constant(2000), true), RecoveryOptions{UntilS: 140}, 0},
		{"a lasting fault whose effect outlasts it", fluid(400, in, downThen(2000, [2]int{100, 120}), true), RecoveryOptions{UntilS: 110}, 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DetectRecovery(c.samples, 100, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !sameFloat(got.RecoveryS, c.want) {
				t.Errorf("RecoveryS = %v, want %v", got.RecoveryS, c.want)
			}
			if pre := c.samples[0].Throughput; got.FaultAtS != 100 || math.Abs(got.PreThroughput-pre) > 0.05*pre {
				t.Errorf("FaultAtS %v, PreThroughput %v; want 100, ≈%v", got.FaultAtS, got.PreThroughput, pre)
			}
		})
	}
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// TestDetectRecoveryBaseline: the Pre* values are the baseline window's
// means (p99 latency, else the mean latency) and lag quantile.
func TestDetectRecoveryBaseline(t *testing.T) {
	s := fluid(400, constant(1000), downThen(2000, [2]int{100, 120}), true)
	for i := range s {
		s[i].Lag = float64(i % 20) // 0…19 repeated: q95 of the 100 baseline samples = 18.05
	}
	got, err := DetectRecovery(s, 100, RecoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.PreThroughput != 1000 || got.PreLatencyMs != 500 || math.Abs(got.PreLag-18.05) > 1e-9 {
		t.Errorf("got %+v, want PreThroughput 1000, PreLatencyMs 500 (p99), PreLag 18.05", got)
	}
	for i := range s {
		s[i].LatencyMarkerP99Ms = 450
	}
	if got, _ := DetectRecovery(s, 100, RecoveryOptions{}); got.PreLatencyMs != 450 {
		t.Errorf("PreLatencyMs = %v, want the latency-marker 450 when there is one", got.PreLatencyMs)
	}
	for i := range s {
		s[i].LatencyP99Ms, s[i].LatencyMarkerP99Ms = math.NaN(), math.NaN()
	}
	if got, _ := DetectRecovery(s, 100, RecoveryOptions{}); got.PreLatencyMs != 300 {
		t.Errorf("PreLatencyMs = %v, want the mean latency 300 when p99 is all NaN", got.PreLatencyMs)
	}
	for i := range s {
		s[i].LatencyMeanMs = math.NaN()
	}
	if got, _ := DetectRecovery(s, 100, RecoveryOptions{}); !math.IsNaN(got.PreLatencyMs) {
		t.Errorf("PreLatencyMs = %v, want NaN without latencies", got.PreLatencyMs)
	}
	// a 50-s baseline only looks at t in (50, 100], i.e. samples 50…99
	var lags []float64
	for i := 50; i < 100; i++ {
		lags = append(lags, float64(i%20))
	}
	if got, _ := DetectRecovery(s, 100, RecoveryOptions{Baseline: 50}); got.PreLag != statistics.Quantile(lags, 0.95) {
		t.Errorf("PreLag with Baseline 50 = %v, want %v", got.PreLag, statistics.Quantile(lags, 0.95))
	}
}

func TestDetectRecoveryErrors(t *testing.T) {
	good := fluid(400, constant(1000), downThen(2000, [2]int{100, 120}), true)
	unsorted := fluid(400, constant(1000), constant(2000), true)
	unsorted[50].TimeS = 10
	dup := fluid(400, constant(1000), constant(2000), true)
	dup[50].TimeS = dup[49].TimeS
	allNaN := nanDown(fluid(400, constant(1000), constant(2000), true), 0, 100)
	cases := []struct {
		name    string
		samples []results.Sample
		fault   float64
		opt     RecoveryOptions
		want    string
	}{
		{"empty", nil, 100, RecoveryOptions{}, "no samples"},
		{"unsorted", unsorted, 100, RecoveryOptions{}, "not sorted by time_s: sample 50 (t=10s) follows t=50s"},
		{"duplicate", dup, 100, RecoveryOptions{}, "not sorted by time_s"},
		{"fault before the series", good, 0.5, RecoveryOptions{}, "outside the series (samples from 1s to 400s"},
		{"fault at the last sample", good, 400, RecoveryOptions{}, "outside the series"},
		{"fault NaN", good, math.NaN(), RecoveryOptions{}, "outside the series"},
		{"short baseline", good, 5, RecoveryOptions{}, "only 5 samples with throughput and lag in the 300s before the fault, need at least 10"},
		{"baseline all NaN", allNaN, 100, RecoveryOptions{}, "only 0 samples"},
		{"negative hold", good, 100, RecoveryOptions{Hold: -1}, "Hold must be a positive"},
		{"throughput slack 1", good, 100, RecoveryOptions{ThrSlack: 1}, "ThrSlack must be in [0, 1)"},
		{"negative baseline", good, 100, RecoveryOptions{Baseline: -3}, "Baseline must be a positive"},
		{"negative lag floor", good, 100, RecoveryOptions{LagFloor: -3}, "LagFloor must be ≥ 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DetectRecovery(c.samples, c.fault, c.opt)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// handSeries is 1-s samples t = 1…n at 1000 records/s in, with throughput
// and lag by hand: normal (throughput = input, lag 0) except where down(t)
// says the job is down (throughput 0, lag 50 000).
func handSeries(n int, down func(t int) bool) []results.Sample {
	out := make([]results.Sample, n)
	for i := range out {
		t := i + 1
		out[i] = results.Sample{TimeS: float64(t), InputRate: 1000, Throughput: 1000, JobState: "RUNNING",
			LatencyMeanMs: 10, LatencyP50Ms: 10, LatencyP99Ms: 20, LatencyMarkerP99Ms: math.NaN()}
		if down(t) {
			out[i].Throughput, out[i].Lag = 0, 50000
		}
	}
	return out
}

// memRows keeps what a RecoveryStream writes.
type memRows struct {
	samples []results.Sample
	events  []results.Event
	order   []float64 // the time of every row, in write order
}

func (m *memRows) WriteSample(s results.Sample) error {
	m.samples, m.order = append(m.samples, s), append(m.order, s.TimeS)
	return nil
}

func (m *memRows) WriteEvent(e results.Event) error {
	m.events, m.order = append(m.events, e), append(m.order, e.TimeS)
	return nil
}

// TestRecoveryStream: the series are hand-made around a fault at 100 s,
// each sample 1 s long (it covers (t−1, t]). The stream writes a fault's
// recovered event where DetectRecovery puts its end, flags the samples in
// (fault, end], keeps every row in time order, and closes what is still
// open at run_end as unrecovered with its censored time.
func TestRecoveryStream(t *testing.T) {
	cases := []struct {
		name     string
		down     func(t int) bool
		n        int
		recovery float64 // NaN: unrecovered
		censored float64 // the unrecovered event's duration
	}{
		// down from 101 to 130: the samples from 131 on are back within
		// tolerance, 15 of them (131…145) end the anomaly at the end of
		// sample 130: recovery 30 s, recovered event at 130 s
		{"back from 130 s for 15 samples", func(t int) bool { return t > 100 && t <= 130 }, 400, 30, math.NaN()},
		// never back: censored at the run's end, 400 − 100 s, never 0
		{"never recovers", func(t int) bool { return t > 100 }, 400, math.NaN(), 300},
		// back 131…140 (10 < 15 samples), down again 141…150: one anomaly
		// that ends at 150 s
		{"a short normal run inside the anomaly does not end it", func(t int) bool { return t > 100 && t <= 130 || t > 140 && t <= 150 }, 400, 50, math.NaN()},
		// back from 131 on, but the run ends at 140 s, 10 samples later:
		// not confirmed, so unrecovered at 140 s, 40 s after the fault
		{"the run ends inside the Hold", func(t int) bool { return t > 100 && t <= 130 }, 140, math.NaN(), 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			samples := handSeries(c.n, c.down)
			m := &memRows{}
			st, err := NewRecoveryStream(RecoveryOptions{}, m)
			if err != nil {
				t.Fatal(err)
			}
			maxHeld := 0
			for _, s := range samples {
				if err := st.Sample(s); err != nil {
					t.Fatal(err)
				}
				if s.TimeS == 100 {
					if err := st.Event(results.Event{TimeS: 100, Kind: results.KindFault, Reason: "kill"}); err != nil {
						t.Fatal(err)
					}
				}
				maxHeld = max(maxHeld, len(st.held))
			}
			end := float64(c.n)
			if err := st.Event(results.Event{TimeS: end, Kind: results.KindRunEnd, Reason: "RUNNING"}); err != nil {
				t.Fatal(err)
			}
			// the batch detector agrees
			batch, err := DetectRecovery(samples, 100, RecoveryOptions{})
			if err != nil || !sameFloat(batch.RecoveryS, c.recovery) {
				t.Errorf("DetectRecovery: %v, %v; want %v", batch.RecoveryS, err, c.recovery)
			}
			if len(m.samples) != c.n || !slices.IsSorted(m.order) {
				t.Fatalf("%d samples written, rows in time order %v; want %d, true", len(m.samples), slices.IsSorted(m.order), c.n)
			}
			if maxHeld > 16+1 {
				t.Errorf("held up to %d rows, want at most Hold (15) samples and the events among them", maxHeld)
			}
			fr := FaultRecoveries(m.events)
			if len(fr) != 1 || !sameFloat(fr[0].RecoveryS, c.recovery) || !sameFloat(fr[0].UnrecoveredS, c.censored) {
				t.Fatalf("fault recoveries %+v, want recovery %v, censored %v", fr, c.recovery, c.censored)
			}
			if last := m.events[len(m.events)-1]; last.Kind != results.KindRunEnd {
				t.Errorf("last event %s, want run_end", last.Kind)
			}
			flagEnd := 100 + c.recovery
			if math.IsNaN(c.recovery) {
				flagEnd = end
			}
			for _, s := range m.samples {
				if want := s.TimeS > 100 && s.TimeS <= flagEnd; s.Recovering != want {
					t.Errorf("sample %g s: recovering %v, want %v", s.TimeS, s.Recovering, want)
				}
			}
		})
	}
}

// TestRecoveryStreamReconfiguration: a reconfiguration's recovery begins
// at its stop request (Begin, 200 s) and ends no earlier than the job runs
// again (207.5 s), however normal the samples before look; two recoveries
// open at once each end on their own.
func TestRecoveryStreamReconfiguration(t *testing.T) {
	samples := handSeries(400, func(t int) bool { return t > 100 && t <= 130 })
	m := &memRows{}
	st, err := NewRecoveryStream(RecoveryOptions{}, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if s.TimeS == 201 {
			if err := st.Begin(200, 207.5, "reconfiguration: ci 30s"); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Sample(s); err != nil {
			t.Fatal(err)
		}
		if s.TimeS == 100 {
			if err := st.Event(results.Event{TimeS: 100, Kind: results.KindFault}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Event(results.Event{TimeS: 400, Kind: results.KindRunEnd}); err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, e := range m.events {
		if e.Kind == results.KindRecovered {
			got = append(got, e.TimeS, *e.DurationS)
		}
	}
	if want := []float64{130, 30, 207.5, 7.5}; !slices.Equal(got, want) {
		t.Errorf("recovered (time, duration) %v, want %v", got, want)
	}
	if err := st.Begin(10, 0, "too late"); err == nil || !strings.Contains(err.Error(), "before the latest sample") {
		t.Errorf("a begin before the latest sample: %v", err)
	}
}

// TestDetectorEqualsBatch: fed a series, the online detector closes each
// of TestDetectRecovery's faults where DetectRecovery does.
func TestDetectorEqualsBatch(t *testing.T) {
	in := constant(1000)
	for i, s := range [][]results.Sample{
		fluid(400, in, downThen(2000, [2]int{100, 120}), true),
		noisy(fluid(400, in, downThen(2000, [2]int{100, 120}), false)),
		fluid(400, in, downThen(2000, [2]int{100, 120}, [2]int{150, 160}), true),
		stalls(fluid(400, constant(90000), downThen(133000, [2]int{100, 120}), true), 172),
	} {
		d, err := NewRecoveryDetector(RecoveryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := math.NaN()
		for _, x := range s {
			ended, err := d.Observe(x)
			if err != nil {
				t.Fatal(err)
			}
			if len(ended) > 0 {
				got = ended[0].RecoveryS
			}
			if x.TimeS == 100 {
				if _, err := d.Begin(100, 0, 0); err != nil {
					t.Fatal(err)
				}
			}
			// the window, and as many spent ones at most before they are dropped
			if n := len(d.ring) - d.head; n > 300 || len(d.ring) > 2*300+1 {
				t.Fatalf("series %d: the detector keeps %d samples (%d in its window), want the 300 s baseline and as many spent at most", i, len(d.ring), n)
			}
		}
		want, err := DetectRecovery(s, 100, RecoveryOptions{})
		if err != nil || !sameFloat(got, want.RecoveryS) {
			t.Errorf("series %d: online %v, batch %v (%v)", i, got, want.RecoveryS, err)
		}
	}
}

// TestDetectRecoveryCheckpointDips: a 10 s checkpoint interval whose stall
// takes 11 % of the sample before each trigger (throughput 0.89 of the
// input and 110 records of lag, then 1.11 while the backlog drains) dips
// out of a ±10 % band once every 10 samples. Here the stalls show only
// after the restart (a restart shifts the trigger phase), so the baseline
// does not hold them: the band's stall allowance (ThrSlack more, and the
// lag floor with it) ends the recovery when the catch-up does: 20 s down +
// 20 000 / 1000 s at 2000/s = 40 s. A job that keeps up with half its input
// is anomalous all the same.
func TestDetectRecoveryCheckpointDips(t *testing.T) {
	dips := func(s []results.Sample) []results.Sample {
		for i := 5; i+1 < len(s); i += 10 {
			if s[i].Lag == 0 && s[i+1].Lag == 0 && i > 140 {
				in := s[i].InputRate
				s[i].Throughput, s[i].Lag = 0.89*in, 0.11*in
				s[i+1].Throughput = 1.11 * in
			}
		}
		return s
	}
	got, err := DetectRecovery(dips(fluid(400, constant(1000), downThen(2000, [2]int{100, 120}), true)), 100, RecoveryOptions{})
	if err != nil || got.RecoveryS != 40 {
		t.Errorf("with checkpoint dips: recovery %v (%v), want 40 s", got.RecoveryS, err)
	}
	half, err := DetectRecovery(fluid(400, constant(1000), downThen(500, [2]int{100, 120}), true), 100, RecoveryOptions{})
	if err != nil || !math.IsNaN(half.RecoveryS) {
		t.Errorf("a job at half its input: recovery %v (%v), want none (NaN)", half.RecoveryS, err)
	}
}
