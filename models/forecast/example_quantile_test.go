package forecast_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/streamtwin/streamtwin/models/forecast"
)

// Example fits each Quantiler once on training data of a CPU-like metric
// (a 60 s cycle plus AR(1) noise) and forecasts the next 300 s from a 360 s
// history, as the adaptive-monitoring replay does at every window.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	series := make([]float64, 4300)
	x := 0.0
	for t := range series {
		x = 0.8*x + 0.5*rng.NormFloat64()
		series[t] = 25 + 5*math.Sin(2*math.Pi*float64(t)/60) + x
	}
	train, history, future := series[:3000], series[3640:4000], series[4000:]

	arima, err := forecast.NewARIMAQuantiler(train, 2, 0, 1)
	if err != nil {
		panic(err)
	}
	seasonal, err := forecast.NewSeasonal(60, 30, 2)
	if err != nil {
		panic(err)
	}
	quantreg, err := forecast.NewQuantReg(train, 5, forecast.DefaultLevels)
	if err != nil {
		panic(err)
	}
	for _, q := range []forecast.Quantiler{arima, seasonal, quantreg} {
		out, err := q.Quantiles(history, 300, forecast.DefaultLevels)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-18s step 1: [%.1f %.1f %.1f]  step 300: [%.1f %.1f %.1f]\n", q.Name(),
			out[0][0], out[1][0], out[2][0], out[0][299], out[1][299], out[2][299])
	}
	fmt.Printf("%-18s step 1: %.1f              step 300: %.1f\n", "actual", future[0], future[299])
	// Output:
	// arima(2,0,1)       step 1: [20.2 20.9 21.6]  step 300: [20.1 24.6 29.2]
	// seasonal(60,30,2)  step 1: [19.7 20.7 22.2]  step 300: [21.6 22.1 22.5]
	// quantreg(5)        step 1: [20.3 21.0 21.7]  step 300: [20.6 25.2 29.9]
	// actual             step 1: 21.5              step 300: 23.4
}
