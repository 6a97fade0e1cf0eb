"""The observation of a learned policy: one function for the Gymnasium
environments (``streamtwin.gym``) and for the policy when streamtwin runs it.

A policy trained against the environment sees ``features(...)`` of the rows
since the previous tick; run by ``streamtwin run`` or ``streamtwin live
run`` it computes the same numbers from its observation's samples
(``rows_of``), with the same arithmetic, so it takes the same decisions.
No dependencies: it runs in a bare interpreter.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Sequence

#: The timeseries columns of a row, in order (the stepping protocol's
#: columns, internal/stepper.Columns).
COLUMNS = ("time_s", "input_rate", "throughput", "output_rate", "lag", "latency_p50_ms", "latency_p99_ms",
           "cpu_busy_mean", "cpu_busy_max", "backpressure", "parallelism", "workers", "checkpoint_interval_s")

#: The observation vector, in order, with its unit: means over the rows
#: since the previous tick, except lag (the last row's), latency (the
#: largest p99 of the rows; 0 without output), and the job's status.
FEATURES = (
    "input_rate",             # records/s, mean
    "throughput",             # records/s, mean
    "lag",                    # records, last row
    "latency_p99_ms",         # ms, largest per-second p99 (0: no record reached the sinks)
    "cpu_busy_mean",          # 0..1, mean over TaskManagers and rows
    "backpressure",           # 0..1, mean
    "running",                # 1 while the job state is RUNNING, else 0
    "checkpoint_interval_s",  # s, the job's
    "parallelism",            # the job's
    "time_s",                 # s since the run started
)

_INPUT, _THROUGHPUT, _LAG, _P99 = (COLUMNS.index(c) for c in ("input_rate", "throughput", "lag", "latency_p99_ms"))
_CPU, _BACKPRESSURE = COLUMNS.index("cpu_busy_mean"), COLUMNS.index("backpressure")


def rows_of(samples: Iterable[Dict[str, Any]]) -> List[tuple]:
    """The rows of observation samples (dicts of timeseries columns), in
    ``COLUMNS`` order; a null (no latency that second) is NaN."""
    nan = math.nan
    return [tuple(nan if s.get(c) is None else float(s[c]) for c in COLUMNS) for s in samples]


def _mean(values: Sequence[float]) -> float:
    known = [v for v in values if v == v]  # NaN: not measured that second
    return sum(known) / len(known) if known else 0.0


def features(rows: Sequence[Sequence[float]], state: str, checkpoint_interval_s: float, parallelism: float,
             now_s: float) -> List[float]:
    """The observation vector (``FEATURES``) of the rows since the previous
    tick and the job's status at this one. Never NaN: a quantity with no
    measured row is 0."""
    if rows:
        lags = [r[_LAG] for r in rows if r[_LAG] == r[_LAG]]
        p99s = [r[_P99] for r in rows if r[_P99] == r[_P99]]
        measured = [_mean([r[_INPUT] for r in rows]), _mean([r[_THROUGHPUT] for r in rows]), lags[-1] if lags else 0.0,
                    max(p99s) if p99s else 0.0, _mean([r[_CPU] for r in rows]), _mean([r[_BACKPRESSURE] for r in rows])]
    else:
        measured = [0.0] * 6
    return measured + [1.0 if state == "RUNNING" else 0.0, float(checkpoint_interval_s), float(parallelism), float(now_s)]
