package calibrate

import (
	"fmt"
	"math"

	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results/statistics"
	"github.com/streamtwin/streamtwin/sim"
)

// IntervalLevel is the central share of the seeds' predictions a point's
// prediction interval spans.
const IntervalLevel = 0.90

// Span is a prediction interval of recovery time, in s; NaN bounds when
// there is none (fewer than two replications).
type Span struct{ Lo, Hi float64 }

// predictReplicas simulates p once per replication seed, the seeds Predict
// averages over: the scenario's, then seeds derived from it.
func predictReplicas(sc scenario.Scenario, p Point, o Options) ([]Prediction, error) {
	o = o.withDefaults()
	seeds := sim.Seeds{Root: sc.Seed}
	out := make([]Prediction, o.Replications)
	for k := range out {
		one := sc
		if k > 0 {
			one.Seed = seeds.Stream(fmt.Sprintf("calibration.replication-%d", k)).Uint64()
		}
		var err error
		if out[k], err = predictOnce(one, p, o); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// meanOf is the prediction Predict makes of these replicas: the means,
// summed in the same order, recovered only if every seed recovered.
func meanOf(reps []Prediction) Prediction {
	mean := Prediction{Recovered: true}
	n := float64(len(reps))
	for _, pr := range reps {
		mean.RecoveryS += pr.RecoveryS / n
		mean.LatencyMs += pr.LatencyMs / n
		mean.Recovered = mean.Recovered && pr.Recovered
	}
	return mean
}

// spanOf is the central IntervalLevel of the replicas' recovery times
// (linear interpolation between order statistics).
func spanOf(reps []Prediction) Span {
	if len(reps) < 2 {
		return Span{math.NaN(), math.NaN()}
	}
	rec := make([]float64, len(reps))
	for i, pr := range reps {
		rec[i] = pr.RecoveryS
	}
	tail := (1 - IntervalLevel) / 2
	lo := statistics.Quantile(rec, tail) // sorts rec
	return Span{lo, statistics.Quantile(rec, 1-tail)}
}

// predictSpread is PredictAll with each point's prediction interval: the
// mean over o.Replications seeds (as Predict) and the spread of spanSeeds
// seeds (≥ o.Replications; the first ones are the same).
func predictSpread(sc scenario.Scenario, pts []Point, o Options, spanSeeds int) ([]Prediction, []Span, error) {
	o = o.withDefaults()
	n := o.Replications
	o.Replications = max(spanSeeds, n)
	preds := make([]Prediction, len(pts))
	spans := make([]Span, len(pts))
	err := eachPoint(pts, o.Workers, func(i int) error {
		reps, err := predictReplicas(sc, pts[i], o)
		if err != nil {
			return err
		}
		preds[i], spans[i] = meanOf(reps[:n]), spanOf(reps)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return preds, spans, nil
}

// Coverage is the share of pts whose measured recovery lies inside the
// twin's prediction interval (NaN when they have none).
func Coverage(pts []PointResult) float64 {
	in, n := 0, 0
	for _, p := range pts {
		if math.IsNaN(p.RecoveryLo) || math.IsNaN(p.RecoveryHi) {
			continue
		}
		n++
		// a censored recovery lies anywhere above its cap
		if (p.Point.Censored || p.Point.RecoveryS >= p.RecoveryLo) && p.Point.RecoveryS <= p.RecoveryHi {
			in++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(in) / float64(n)
}
