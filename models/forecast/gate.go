package forecast

import (
	"cmp"
	"fmt"
	"time"
)

// DropGate is Khaos's forecast gate: ARIMA(2,2,2) on per-minute means of the
// last hour of input rate. Zero fields take the Khaos defaults: History 1h,
// Bucket 1m, Horizon 5m (ceil(Horizon/Bucket) forecast steps), Drop 0.1.
type DropGate struct {
	History, Bucket, Horizon time.Duration
	Drop                     float64
}

// Khaos HEAD settings (docs/reference/khaos.md §7): 3600 s of history, one-minute means,
// optInterval 300 s ahead, ARIMA order (2,2,2), 10 % drop.
const (
	gateP, gateD, gateQ = 2, 2, 2
	defaultDrop         = 0.1
)

func (g DropGate) withDefaults() DropGate {
	g.History = cmp.Or(g.History, time.Hour)
	g.Bucket = cmp.Or(g.Bucket, time.Minute)
	g.Horizon = cmp.Or(g.Horizon, 5*time.Minute)
	g.Drop = cmp.Or(g.Drop, defaultDrop)
	return g
}

// Urgent reports whether the input is forecast to drop by more than Drop.
// rates are per-second samples, oldest first, covering at least History; the
// last History of them are averaged into Bucket-long means, ARIMA(2,2,2) is
// fitted to the means, ceil(Horizon/Bucket) steps are forecast, and the gate
// is urgent if the sum of successive differences of the forecast is below
// −Drop × last value. It also returns the forecast, for logging.
//
// The reference (docs/reference/khaos.md §7) says only "Σ successive forecast differences
// < −0.1·last value". Two readings are open and not verified against the
// Java code:
//   - whether the sum starts at the last observation or at forecast[0]; we
//     start at the last observed bucket mean, so the sum telescopes to
//     forecast[h−1] − last and includes the first forecast step;
//   - whether "last value" is the last observed mean, the last raw sample or
//     the last forecast; we use the last observed bucket mean, the value the
//     model was fitted on.
//
// Note the threshold is absolute over the horizon: with the defaults a
// steady linear decline is urgent only if it loses more than 10 % of the
// current rate within 5 minutes (≈ 120 %/h of it).
func (g DropGate) Urgent(rates []float64) (urgent bool, forecast []float64, err error) {
	g = g.withDefaults()
	if g.Bucket < time.Second || g.Bucket%time.Second != 0 {
		return false, nil, fmt.Errorf("forecast: gate bucket %v is not a whole number of seconds", g.Bucket)
	}
	if g.History < g.Bucket || g.History%g.Bucket != 0 {
		return false, nil, fmt.Errorf("forecast: gate history %v is not a positive multiple of bucket %v", g.History, g.Bucket)
	}
	if g.Horizon < 0 || g.Drop < 0 {
		return false, nil, fmt.Errorf("forecast: gate horizon %v and drop %v must not be negative", g.Horizon, g.Drop)
	}
	need := int(g.History / time.Second)
	if len(rates) < need {
		return false, nil, fmt.Errorf("forecast: gate needs %d per-second rate samples (%v of history), got %d", need, g.History, len(rates))
	}
	rates = rates[len(rates)-need:]
	per := int(g.Bucket / time.Second)
	means := make([]float64, need/per)
	for i := range means {
		s := 0.0
		for _, v := range rates[i*per : (i+1)*per] {
			s += v
		}
		means[i] = s / float64(per)
	}
	m, err := FitARIMA(means, gateP, gateD, gateQ)
	if err != nil {
		return false, nil, fmt.Errorf("forecast: gate: %w", err)
	}
	steps := int((g.Horizon + g.Bucket - 1) / g.Bucket) // ceil(300/60) = 5
	forecast = m.Forecast(steps)
	if len(forecast) == 0 {
		return false, forecast, nil
	}
	last := means[len(means)-1]
	change, prev := 0.0, last
	for _, f := range forecast {
		change += f - prev
		prev = f
	}
	return change < -g.Drop*last, forecast, nil
}
