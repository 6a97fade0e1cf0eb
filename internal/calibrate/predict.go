package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/streamtwin/streamtwin/internal/run"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/internal/twin"
	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
)

// Predict simulates one measured point on sc: constant input at the
// point's throughput and CI, in the point's configuration where the table
// gives one (configure), and its fault (a crash by default) on the sink's
// TaskManager aligned BeforeCheckpoint before a checkpoint, as Khaos and
// Demeter inject them; the mean over o.Replications seeds.
func Predict(sc scenario.Scenario, p Point, o Options) (Prediction, error) {
	o = o.withDefaults()
	mean := Prediction{Recovered: true}
	seeds := sim.Seeds{Root: sc.Seed}
	for k := range o.Replications {
		if k > 0 {
			sc.Seed = seeds.Stream(fmt.Sprintf("calibration.replication-%d", k)).Uint64()
		}
		pr, err := predictOnce(sc, p, o)
		if err != nil {
			return Prediction{}, err
		}
		mean.RecoveryS += pr.RecoveryS / float64(o.Replications)
		mean.LatencyMs += pr.LatencyMs / float64(o.Replications)
		mean.Recovered = mean.Recovered && pr.Recovered
	}
	return mean, nil
}

func predictOnce(sc scenario.Scenario, p Point, o Options) (Prediction, error) {
	sink := newPointSink(o.Latency)
	if err := simulatePoint(sc, p, o, sink); err != nil {
		return Prediction{}, err
	}
	return sink.prediction(o)
}

// simulatePoint runs p on sc into sink: the point's constant load and CI,
// the crash armed after o.Settle, until o.Horizon after the CI, or until
// the sink stops the run (pointSink does once the recovery is in).
func simulatePoint(sc scenario.Scenario, p Point, o Options, sink run.Sink) error {
	fault, err := ParseFault(p.Fault)
	if err != nil {
		return err
	}
	configure(&sc, p)
	sc.Job.Checkpoint.Interval = durationOf(p.CheckpointIntervalS)
	sc.Policy = scenario.PolicySpec{Name: "static"}
	sc.Faults, sc.Actions, sc.Variants = nil, nil, nil
	end := o.Settle + p.CheckpointIntervalS + o.Horizon
	sc.Duration = durationOf(end)
	rates := make([]float64, int(math.Ceil(end))+1)
	for i := range rates {
		rates[i] = p.Throughput
	}
	fault.At, fault.BeforeCheckpoint, fault.TaskManager, fault.Pick = sim.Duration(o.Settle), sim.Duration(o.BeforeCheckpoint), -1, -1
	fault.Operator, fault.Source = sc.Job.Operators[len(sc.Job.Operators)-1].Name, "calibration point"
	_, err = run.Stream(context.Background(), twin.Backend{}, sc, &scenario.Schedule{Rates: workloads.NewSchedule(rates), Faults: []scenario.ScheduledFault{fault}}, sink)
	return err
}

// pointSink keeps what Predict needs of one run: the fault, its recovery and
// the latency samples.
type pointSink struct {
	column            string
	faultAt, recovery float64 // NaN until they come
	t, lat            []float64
}

func newPointSink(column string) *pointSink {
	return &pointSink{column: column, faultAt: math.NaN(), recovery: math.NaN()}
}

func (s *pointSink) WriteSample(x results.Sample) error {
	s.t, s.lat = append(s.t, x.TimeS), append(s.lat, x.Latency(s.column))
	return nil
}

func (s *pointSink) WriteEvent(e results.Event) error {
	switch {
	case e.Kind == results.KindFault && math.IsNaN(s.faultAt):
		s.faultAt = e.TimeS
	case e.Kind == results.KindRecovered && e.DurationS != nil && math.IsNaN(s.recovery):
		s.recovery = *e.DurationS
	}
	if s.decided() {
		return twin.ErrStopRun
	}
	return nil
}

// decided: the fault and its recovery are in, and with them every latency
// sample before the fault; the rest of the run cannot change the prediction.
// A point that never recovers runs to the horizon.
func (s *pointSink) decided() bool { return !math.IsNaN(s.faultAt) && !math.IsNaN(s.recovery) }

// prediction is the point's prediction from what the run delivered: its
// recovery time (o.Horizon if none came) and the mean latency over the
// o.Window before the crash.
func (s *pointSink) prediction(o Options) (Prediction, error) {
	if math.IsNaN(s.faultAt) {
		return Prediction{}, errors.New("the crash never fired (no checkpoint was due within the run)")
	}
	pr := Prediction{RecoveryS: o.Horizon, LatencyMs: s.latencyBefore(s.faultAt, o.Window)}
	if !math.IsNaN(s.recovery) {
		pr.RecoveryS, pr.Recovered = s.recovery, true
	}
	return pr, nil
}

func (s *pointSink) latencyBefore(at, window float64) float64 {
	sum, n := 0.0, 0
	for i, t := range s.t {
		if t > at-window && t <= at && !math.IsNaN(s.lat[i]) {
			sum += s.lat[i]
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// PredictAll simulates every point on sc with o.Workers goroutines.
func PredictAll(sc scenario.Scenario, pts []Point, o Options) ([]Prediction, error) {
	o = o.withDefaults()
	out := make([]Prediction, len(pts))
	err := eachPoint(pts, o.Workers, func(i int) (err error) {
		out[i], err = Predict(sc, pts[i], o)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachPoint calls do for every index of pts on workers goroutines, each
// taking the next point when it is done, and returns the first point's
// error (in point order) naming its line, load and CI.
func eachPoint(pts []Point, workers int, do func(i int) error) error {
	errs := make([]error, len(pts))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(pts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(pts); i = int(next.Add(1) - 1) {
				errs[i] = do(i)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("point at line %d (throughput %g/s, CI %gs): %w", pts[i].Line, pts[i].Throughput, pts[i].CheckpointIntervalS, err)
		}
	}
	return nil
}
