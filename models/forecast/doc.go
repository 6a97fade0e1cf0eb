// Package forecast holds forecasters for policies: ARIMA(p,d,q) by conditional
// sum of squares (CSS) on the d-times differenced series; AutoARIMA, which
// picks d by the KPSS and ADF unit-root tests and (p,q) by the stepwise AIC
// search of pmdarima's auto_arima, as Daedalus uses it; and DropGate, the
// forecast gate of Khaos at HEAD (docs/reference/khaos.md §7), which fits
// ARIMA(2,2,2) to per-minute means of the last hour of input rate and flags a
// predicted drop of more than 10 % over the next five minutes.
//
// Khaos uses java-timeseries 0.2.1 with strategy CSS-ML: a CSS fit followed by
// exact maximum likelihood started from it. This package stops after the CSS
// step; for the 58 differenced points the gate sees, CSS and ML estimates
// differ by sampling noise of the same order as their standard errors, and the
// gate only looks at the sign and size of a five-step point forecast.
//
// # Quantilers
//
// A Quantiler (issue 23, docs/reference/monitoring.md) forecasts the next h
// steps of a metric as quantiles (DefaultLevels: 0.1, 0.5, 0.9), from which
// the adaptive-monitoring sampler draws. Each is built once — fitted on
// training data where it has parameters — and then forecasts from any
// history with those parameters, in tens of microseconds for a 360-step
// history and 420 steps (BenchmarkQuantilers):
//
//   - ARIMAQuantiler (NewARIMAQuantiler, NewAutoARIMAQuantiler): the ARIMA
//     point forecast conditional on the history (CSS residuals) with
//     Gaussian intervals from the Box–Jenkins h-step variance σ²·Σψ²;
//   - Seasonal (NewSeasonal): empirical quantiles (statistics.Quantile, the
//     tree's one definition) of the values at the same phase in the past
//     seasons of the history, each season moved to the recent level; the
//     quantiles of the recent window when no season fits in the history;
//   - QuantReg (NewQuantReg): linear quantile regression on lags, fitted
//     exactly (the pinball-loss linear program, by the simplex on its
//     vertices), iterated along the median path with the one-step spread
//     widened by the median model's ψ-weights (or √k).
//
// Their quantiles never decrease with the level, and each refuses a history
// too short for it (ARIMA: d+p+q+1 points; Seasonal: its level window;
// QuantReg: its lags).
package forecast
