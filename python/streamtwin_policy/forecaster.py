"""The Forecaster base class and ``run_forecaster``, the loop that speaks the forecaster protocol.

streamtwin starts the forecaster as a child process and talks to it in JSON
lines over stdin/stdout (docs/forecaster-protocol.md)::

    streamtwin → forecaster   hello        run_forecaster() calls forecaster.start(hello)
    forecaster → streamtwin   ready        with the forecaster's name
    streamtwin → forecaster   forecast     run_forecaster() calls forecaster.quantiles(...),
    forecaster → streamtwin   quantiles      checks the result and replies (or error)
       … one forecast and one reply per call …
    streamtwin → forecaster   goodbye      run_forecaster() calls forecaster.stop(reason) and returns

As for a policy, standard output belongs to the protocol: while
``run_forecaster`` writes to the process's standard output, ``print`` goes to
standard error.
"""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any, Dict, List, Optional, Sequence, TextIO

from .policy import PROTOCOL, ProtocolError, serve

#: The role hello carries for a forecaster (a policy's hello has none).
ROLE = "forecaster"


class ForecastError(Exception):
    """Raised by ``quantiles`` when it cannot forecast these inputs (a history too short, a fit that fails).

    ``run_forecaster`` replies ``{"type":"error","id":N,"message":str(e)}``
    and goes on serving: streamtwin's Quantiles call returns an error with
    the message. Any other exception ends the process with a traceback.
    """


class Forecaster:
    """A probabilistic forecaster: subclass it and override ``quantiles`` (and maybe ``start``, ``stop``).

    One instance serves every call of one process. ``run_forecaster`` sets
    ``self.hello`` (the hello message as received) and ``self.config``
    (``hello["config"]``, ``{}`` without one) before calling ``start``, and
    ``self.call`` (the id of the current forecast request) before each
    ``quantiles``.

    Determinism: streamtwin expects the same quantiles for the same inputs.
    Seed any random stream from the configuration, never from the clock.

    Time: each reply must come within the caller's ``timeout`` (default
    5 s), the reply to hello within ``start_timeout`` (default 30 s, for
    imports, loading a model and ``start``).
    """

    #: The forecaster's name, sent in ready: streamtwin uses it in errors.
    name: str = ""

    hello: Dict[str, Any]
    config: Any
    call: int = 0

    def start(self, hello: Dict[str, Any]) -> None:
        """Called once, after hello and before the ready reply is sent.

        Read ``self.config`` and load a model here; an exception refuses the
        forecaster before its first call. ``name`` is read after ``start``
        returns, so it may still set it on ``self``.
        """

    def quantiles(self, history: List[float], horizon: int, levels: List[float]) -> List[List[float]]:
        """Return ``out[i][k]``: the ``levels[i]`` quantile of step ``k + 1`` after the last point of ``history``.

        ``history``: the series at a fixed step, oldest first, as floats.
        ``horizon``: the number of steps to forecast (≥ 1). ``levels``:
        strictly increasing, each in (0, 1). The result (a list of lists or a
        2-D numpy array) must have one row per level and ``horizon`` finite
        values per row, non-decreasing from one level to the next at every
        step (a model whose quantiles can cross should sort each step's
        values: ``numpy.sort(q, axis=0)``). Raise ``ForecastError`` for
        inputs it cannot forecast.
        """
        raise NotImplementedError("%s must override quantiles" % type(self).__name__)

    def stop(self, reason: str) -> None:
        """Called once on goodbye."""


def _number(x: Any, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise ProtocolError("streamtwin sent %s = %.80r; want a number" % (what, x))
    return float(x)


def _request(message: Dict[str, Any]) -> tuple:
    """The id, history, horizon and levels of a forecast message, checked."""
    call = message.get("id")
    if isinstance(call, bool) or not isinstance(call, int) or call < 1:
        raise ProtocolError("streamtwin sent a forecast with id %.80r; want an integer >= 1" % (call,))
    history, horizon, levels = message.get("history"), message.get("horizon"), message.get("levels")
    if not isinstance(history, list):
        raise ProtocolError("streamtwin sent forecast %d with history %.80r; want a list of numbers" % (call, history))
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1:
        raise ProtocolError("streamtwin sent forecast %d with horizon %.80r; want an integer >= 1" % (call, horizon))
    if not isinstance(levels, list) or not levels:
        raise ProtocolError("streamtwin sent forecast %d with levels %.80r; want a non-empty list" % (call, levels))
    hist = [_number(x, "history[%d]" % i) for i, x in enumerate(history)]
    levs = [_number(x, "levels[%d]" % i) for i, x in enumerate(levels)]
    return call, hist, horizon, levs


def check_quantiles(result: Any, horizon: int, levels: Sequence[float]) -> List[List[float]]:
    """``result`` as a list of lists of floats, or ValueError/TypeError saying what is wrong with it.

    One row per level, ``horizon`` finite numbers per row, non-decreasing
    across levels at every step: what streamtwin accepts.
    """
    if result is None or isinstance(result, (str, bytes, dict)):
        raise TypeError("quantiles returned %.80r; want one row of %d values per level" % (result, horizon))
    if hasattr(result, "tolist"):  # a numpy array: Python floats at once
        result = result.tolist()
    rows = list(result)
    if len(rows) != len(levels):
        raise ValueError("quantiles returned %d rows; want one per level, %d (levels %s)" % (len(rows), len(levels), list(levels)))
    out: List[List[float]] = []
    for i, row in enumerate(rows):
        if row is None or isinstance(row, (str, bytes, dict)) or not hasattr(row, "__iter__"):
            raise TypeError("quantiles row %d (level %g) is %.80r; want %d numbers" % (i, levels[i], row, horizon))
        values = []
        for v in row:
            if type(v) is float:
                values.append(v)
                continue
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError("quantiles row %d (level %g) holds %.80r; want numbers" % (i, levels[i], v))
            values.append(float(v))
        if len(values) != horizon:
            raise ValueError("quantiles row %d (level %g) has %d values; want the horizon, %d" % (i, levels[i], len(values), horizon))
        for k, v in enumerate(values):
            if not math.isfinite(v):
                raise ValueError("quantile of level %g at step %d is %r; want a finite number" % (levels[i], k + 1, v))
            if i > 0 and v < out[i - 1][k]:
                raise ValueError("quantiles decrease across levels at step %d: level %g is %r, below level %g's %r "
                                 "(sort each step's values)" % (k + 1, levels[i], v, levels[i - 1], out[i - 1][k]))
        out.append(values)
    return out


def _begin(forecaster: Forecaster, hello: Dict[str, Any]) -> Dict[str, Any]:
    if hello.get("role") != ROLE:
        raise ProtocolError("this process is a forecaster, but streamtwin's hello has role %r: "
                            "was it given as a policy? (docs/forecaster-protocol.md)" % (hello.get("role"),))
    if hello.get("protocol") != PROTOCOL:
        # Reply anyway: streamtwin compares the versions and says what is wrong.
        print("streamtwin_policy speaks forecaster protocol %d, streamtwin sent hello with protocol %r"
              % (PROTOCOL, hello.get("protocol")), file=sys.stderr)
    forecaster.hello = hello
    forecaster.config = hello.get("config", {})
    forecaster.call = 0
    forecaster.start(hello)
    ready: Dict[str, Any] = {"type": "ready", "protocol": PROTOCOL}
    if forecaster.name:
        ready["name"] = str(forecaster.name)
    return ready


def _forecast(forecaster: Forecaster, message: Dict[str, Any]) -> Dict[str, Any]:
    call, history, horizon, levels = _request(message)
    forecaster.call = call
    try:
        result = forecaster.quantiles(history, horizon, levels)
    except ForecastError as e:
        return {"type": "error", "id": call, "message": str(e) or type(e).__name__}
    return {"type": "quantiles", "id": call, "quantiles": check_quantiles(result, horizon, levels)}


def run_forecaster(forecaster: Forecaster, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> None:
    """Speak the forecaster protocol for ``forecaster`` until goodbye or the end of input.

    Reads hello from ``stdin`` (default: ``sys.stdin``), calls
    ``forecaster.start`` and replies ready; then, for each forecast request,
    calls ``forecaster.quantiles(history, horizon, levels)``, checks the
    result (``check_quantiles``) and replies with it under the request's id,
    flushing after every line; a ``ForecastError`` becomes an error reply.
    On goodbye it calls ``forecaster.stop(reason)`` and returns; at the end
    of input it returns. Any other exception (in the forecaster, a result of
    the wrong shape, or a ProtocolError for a message it cannot take)
    propagates, and no half line is written: run it as the main program so
    the traceback goes to stderr and the process exits non-zero, which
    streamtwin reports with that stderr.

    While it writes to the process's standard output, ``print`` goes to
    standard error instead.
    """
    serve(forecaster, stdin, stdout, _begin, "forecast", _forecast)


