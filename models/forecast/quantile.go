package forecast

// Quantiler is a probabilistic forecaster (issue 23): from a history at a
// fixed step it forecasts the next h steps as quantiles. Implementations:
// ARIMA with Gaussian intervals, the seasonal empirical-quantile model, the
// quantile regression on lags, and an external process
// (models/forecast/external).
type Quantiler interface {
	Name() string
	// Quantiles returns out[i][k], the levels[i] quantile (levels strictly
	// increasing in (0, 1)) of step k+1 after the last point of history,
	// for k < h. It must be deterministic given its inputs; an error says
	// why it cannot forecast (too short a history, a singular fit).
	Quantiles(history []float64, h int, levels []float64) ([][]float64, error)
}

// DefaultLevels are the quantiles of the adaptive-monitoring forecaster
// (docs/reference/monitoring.md §2: darts QuantileRegression [0.1, 0.5, 0.9]).
var DefaultLevels = []float64{0.1, 0.5, 0.9}
