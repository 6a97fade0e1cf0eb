#!/usr/bin/env python3
"""holt-numpy: Holt's linear exponential smoothing with empirical quantiles, in numpy.

An external forecaster for streamtwin (docs/forecaster-protocol.md). For each
request it fits Holt's linear method to the history it is given and answers
quantiles of the next ``horizon`` steps:

- the model, in error-correction form, with one-step forecast
  ``yhat[t] = level[t-1] + trend[t-1]`` and error ``e[t] = y[t] - yhat[t]``::

      level[t] = level[t-1] + trend[t-1] + alpha * e[t]
      trend[t] = trend[t-1] + alpha * beta * e[t]

  started at ``level[0] = y[0]`` and ``trend[0] = (y[m] - y[0]) / m`` with
  ``m = min(10, n - 1)``;
- the fit: the (alpha, beta) pair of the grid with the least sum of squared
  one-step errors over ``t = 1 … n-1`` (the first pair on a tie); the default
  grid is alpha in 0.05, 0.10, …, 1.00 and beta in 0, 0.01, 0.02, 0.05, 0.1,
  0.2, 0.3, 0.5 (160 pairs, run side by side as numpy vectors);
- the quantiles: the point forecast of step k is ``level[n-1] + k *
  trend[n-1]``; the ``p`` quantile of step k is that plus ``sqrt(k) * Q(p)``,
  where ``Q(p)`` is the empirical ``p`` quantile (numpy's linear
  interpolation) of the fitted model's one-step errors. The √k widening is
  the random walk's rule (exact for alpha = 1, beta = 0 with independent
  errors); for other fits the true spread grows faster with k (Hyndman and
  Athanasopoulos, FPP3 §8.7), so far steps are too narrow for a series with
  a strong trend. The quantiles never cross: Q is monotone in p.

It is deterministic: the same request gets the same reply, byte for byte.
Configuration (``config`` in the Go Settings), all optional: ``alphas`` and
``betas`` (lists replacing the grids; alpha in (0, 1], beta in [0, 1]) and
``min_history`` (default 10: a shorter history gets an error reply, and the
process keeps serving).

Use it from Go::

    f, err := external.New(external.Settings{Command: []string{"python3", "examples/python/numpy_forecaster.py"}})
    q, err := f.Quantiles(history, 420, []float64{0.1, 0.5, 0.9})
    defer f.Close()

It needs numpy (requirements.txt) and no installation of streamtwin_policy:
it finds the package in the repository's python/ folder, relative to this
file, so it runs from any working directory.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python"))

import numpy as np  # noqa: E402

from streamtwin_policy import ForecastError, Forecaster, run_forecaster  # noqa: E402

ALPHAS = [round(0.05 * i, 2) for i in range(1, 21)]
BETAS = [0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5]
MIN_HISTORY = 10


def fit_holt(y, alphas, betas):
    """The grid's best (alpha, beta) for y, its last level and trend, and its one-step errors e[1 … n-1]."""
    n = len(y)
    a, b = (g.ravel() for g in np.meshgrid(np.asarray(alphas, float), np.asarray(betas, float), indexing="ij"))
    ab = a * b
    m = min(10, n - 1)
    level = np.full(a.shape, y[0])
    trend = np.full(a.shape, (y[m] - y[0]) / m)
    errors = np.empty((n - 1, a.size))
    for t in range(1, n):
        e = y[t] - (level + trend)
        errors[t - 1] = e
        level += trend + a * e
        trend += ab * e
    best = int(np.argmin(np.einsum("ij,ij->j", errors, errors)))
    return a[best], b[best], level[best], trend[best], errors[:, best]


def holt_quantiles(history, horizon, levels, alphas=ALPHAS, betas=BETAS):
    """out[i][k]: the levels[i] quantile of step k+1 (a numpy array, len(levels) × horizon)."""
    y = np.asarray(history, dtype=float)
    _, _, level, trend, errors = fit_holt(y, alphas, betas)
    steps = np.arange(1, horizon + 1, dtype=float)
    point = level + steps * trend
    q = np.quantile(errors, np.asarray(levels, dtype=float))
    return point[None, :] + q[:, None] * np.sqrt(steps)[None, :]


class HoltNumpy(Forecaster):
    name = "holt-numpy"

    def start(self, hello):
        config = dict(self.config or {})
        unknown = sorted(set(config) - {"alphas", "betas", "min_history"})
        if unknown:
            raise ValueError("holt-numpy: unknown config keys %s (known: alphas, betas, min_history)" % unknown)
        self.alphas = [float(x) for x in config.get("alphas", ALPHAS)]
        self.betas = [float(x) for x in config.get("betas", BETAS)]
        self.min_history = int(config.get("min_history", MIN_HISTORY))
        if not self.alphas or not all(0 < x <= 1 for x in self.alphas):
            raise ValueError("holt-numpy: alphas must be a non-empty list in (0, 1], got %r" % (config.get("alphas"),))
        if not self.betas or not all(0 <= x <= 1 for x in self.betas):
            raise ValueError("holt-numpy: betas must be a non-empty list in [0, 1], got %r" % (config.get("betas"),))
        if self.min_history < 3:
            raise ValueError("holt-numpy: min_history must be at least 3, got %r" % (config.get("min_history"),))

    def quantiles(self, history, horizon, levels):
        if len(history) < self.min_history:
            raise ForecastError("holt-numpy needs at least %d points of history, got %d" % (self.min_history, len(history)))
        return holt_quantiles(history, horizon, levels, self.alphas, self.betas)


if __name__ == "__main__":
    run_forecaster(HoltNumpy())
