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
package forecast
