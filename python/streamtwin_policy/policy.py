"""The Policy base class and ``run``, the loop that speaks protocol 1 for it.

streamtwin starts the policy as a child process and talks to it in JSON lines
over stdin/stdout (docs/policy-protocol.md)::

    streamtwin → policy   hello            run() calls policy.start(hello)
    policy → streamtwin   ready            name and requires, from the policy
    streamtwin → policy   observation      run() appends the samples to the window,
    policy → streamtwin   actions            calls policy.step(...) and replies
       … one observation and one reply per tick …
    streamtwin → policy   goodbye          run() calls policy.stop(reason) and returns

Standard output belongs to the protocol: while ``run`` writes to the process's
standard output, ``print`` goes to standard error, and logs should too
(streamtwin keeps the last 4 KiB of the policy's stderr and quotes them in an
error). Any other line on stdout ends the run with an error.
"""

from __future__ import annotations

import collections
import io
import json
import sys
from typing import Any, Deque, Dict, List, Optional, Sequence, TextIO

from .actions import Action

#: The protocol version this package speaks.
PROTOCOL = 1


class ProtocolError(Exception):
    """streamtwin sent something this version of the protocol does not expect."""


class Policy:
    """A policy: subclass it, override ``step`` (and maybe ``start``, ``stop``).

    One instance lives for the whole run, so whatever ``step`` stores on
    ``self`` persists from one tick to the next. ``run(policy)`` sets these
    attributes before calling ``start``:

    - ``self.hello``: the hello message, as received;
    - ``self.run``: ``hello["run"]``: ``scenario``, ``variant``, ``seed``,
      ``duration_s``, ``backend`` ("sim" or "live"), ``interval_s`` (how often
      ``step`` is called), ``window`` (samples kept), ``metric_interval_s``;
    - ``self.capabilities``: ``hello["capabilities"]``: ``actions`` (the
      kinds this backend carries out), ``detail``, ``max_parallelism``,
      ``rescale_from_checkpoint``;
    - ``self.config``: ``hello["config"]``, the scenario's
      ``policy.external.config`` as given (``{}`` without one);
    - ``self.job``: the job's status (``hello["job"]``, then each observation's);
    - ``self.window``: a ``collections.deque`` of the per-second samples,
      oldest first, bounded to ``run["window"]`` samples;
    - ``self.detail``: a deque aligned with ``self.window``: ``detail[i]``
      holds the per-TaskManager and per-operator metrics of ``window[i]``
      (``{"taskmanagers": [...], "operators": [...]}``), or ``None`` for a
      sample that came without them (always, unless the scenario says
      ``detail: true``);
    - ``self.tick`` and ``self.now_s``: the current observation's (0 before
      the first).

    Determinism: a run in the twin is reproducible byte for byte only if the
    policy's decisions depend on nothing but what it is told. Seed every
    random stream from ``self.run["seed"]`` (``random.Random(seed)``,
    ``numpy.random.default_rng(seed)``), never read the wall clock, and do
    not iterate over sets of strings (their order changes with
    PYTHONHASHSEED).

    Time: each reply must come within the scenario's ``timeout`` (default
    1 s), the reply to hello within ``start_timeout`` (default 10 s, for
    imports and ``start``).
    """

    #: The policy's name, sent in ready: streamtwin uses it in event reasons and errors.
    name: str = ""
    #: The action kinds the policy may send, sent in ready: a backend that
    #: lacks one refuses the run before it starts. ``note`` needs no mention.
    requires: Sequence[str] = ()

    hello: Dict[str, Any]
    run: Dict[str, Any]
    capabilities: Dict[str, Any]
    config: Any
    job: Dict[str, Any]
    window: Deque[Dict[str, Any]]
    detail: Deque[Dict[str, Any]]
    tick: int = 0
    now_s: float = 0

    def start(self, hello: Dict[str, Any]) -> None:
        """Called once, after hello and before the ready reply is sent.

        ``self.run``, ``self.capabilities`` and ``self.config`` are set. Read
        the configuration and seed random streams here; an exception refuses
        the run before it starts. ``name`` and ``requires`` are read after
        ``start`` returns, so it may still set them on ``self``.
        """

    def step(self, now_s: float, window: List[Dict[str, Any]], job: Dict[str, Any]) -> List[Action]:
        """Called once per tick (every ``run["interval_s"]``); returns the actions to take.

        ``now_s``: seconds since the run started. ``window``: the samples of
        the last ``run["window"]`` metric intervals, oldest first, each a dict
        with the columns of timeseries.parquet (``time_s``, ``input_rate``,
        ``throughput``, ``lag``, ``checkpoint_interval_s``, ``parallelism``,
        ``job_state``, …; a latency is ``None`` in a second without records
        at the sinks); it is a copy of ``self.window``. ``job``: ``state``
        ("RUNNING", "RESTARTING", …), ``uptime_s``, ``parallelism``,
        ``checkpoint_interval_s``, ``last_checkpoint`` (``None`` before the
        first), ``restarts``, ``faults``.

        Return a list of ``Action`` (or ``None`` or ``[]``: no action). An
        exception is not caught: it ends the process with a traceback on
        stderr, and streamtwin reports the crash with it.
        """
        raise NotImplementedError("%s must override step" % type(self).__name__)

    def stop(self, reason: str) -> None:
        """Called once on goodbye: ``reason`` is "end of run" or the error that ended the run."""


def _utf8(stream: Any) -> None:
    """Make the process's own stdin/stdout speak UTF-8 whatever the locale."""
    if isinstance(stream, io.TextIOWrapper) and stream.encoding.lower().replace("-", "") != "utf8":
        try:
            stream.reconfigure(encoding="utf-8")
        except (ValueError, io.UnsupportedOperation):  # pragma: no cover - already read from
            pass


def _write(out: TextIO, message: Dict[str, Any]) -> None:
    # Encode first, then write the whole line at once: an error never leaves half a line.
    line = json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n"
    out.write(line)
    out.flush()


def _parse(line: str) -> Dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError as e:
        raise ProtocolError("streamtwin sent a line that is not JSON (%s): %.200r" % (e, line)) from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("streamtwin sent a line that is not a protocol message: %.200r" % (line,))
    return message


def _begin(policy: Policy, hello: Dict[str, Any]) -> Dict[str, Any]:
    """Set up the policy from hello, call start, and return the ready message."""
    if hello.get("protocol") != PROTOCOL:
        # Reply anyway: streamtwin compares the versions and says what is wrong.
        print("streamtwin_policy speaks protocol %d, streamtwin sent hello with protocol %r"
              % (PROTOCOL, hello.get("protocol")), file=sys.stderr)
    if hello.get("role") is not None:
        raise ProtocolError("this process is a policy, but streamtwin's hello has role %r: "
                            "was it given as a forecaster? (docs/policy-protocol.md)" % (hello.get("role"),))
    policy.hello = hello
    policy.run = hello.get("run") or {}
    policy.capabilities = hello.get("capabilities") or {}
    policy.config = hello.get("config", {})
    policy.job = hello.get("job") or {}
    size = policy.run.get("window")
    maxlen = size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None
    policy.window = collections.deque(maxlen=maxlen)
    policy.detail = collections.deque(maxlen=maxlen)
    policy.tick = 0
    policy.now_s = 0
    policy.start(hello)
    ready: Dict[str, Any] = {"type": "ready", "protocol": PROTOCOL}
    if policy.name:
        ready["name"] = str(policy.name)
    ready["requires"] = [str(k) for k in policy.requires]
    return ready


def _observe(policy: Policy, obs: Dict[str, Any]) -> Dict[str, Any]:
    """Take in one observation, call step, and return the actions message."""
    samples = obs.get("samples") or []
    detail = obs.get("detail")
    if detail is None:
        detail = [None] * len(samples)  # keeps self.detail aligned with self.window
    elif len(detail) != len(samples):
        raise ProtocolError("observation %r has %d samples but %d detail entries"
                            % (obs.get("tick"), len(samples), len(detail)))
    policy.window.extend(samples)
    policy.detail.extend(detail)
    policy.tick = obs["tick"]
    policy.now_s = obs["now_s"]
    policy.job = obs["job"]
    actions = policy.step(policy.now_s, list(policy.window), policy.job)
    items = []
    for i, a in enumerate(actions or []):
        if not isinstance(a, Action):
            raise TypeError("%s.step returned %r as action %d: build actions with Action.set_checkpoint_interval, "
                            "Action.rescale, Action.trigger_savepoint or Action.note" % (type(policy).__name__, a, i))
        items.append(a.to_dict())
    return {"type": "actions", "tick": obs["tick"], "actions": items}


def run(policy: Policy, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> None:
    """Speak protocol 1 for ``policy`` until goodbye or the end of input.

    Reads hello from ``stdin`` (default: ``sys.stdin``), calls
    ``policy.start`` and replies ready; then, for each observation, appends
    its samples to ``policy.window``, calls ``policy.step`` and replies with
    its actions under the observation's tick, flushing after every line. On
    goodbye it calls ``policy.stop(reason)`` and returns; at the end of input
    it returns. An exception (in the policy, or a ProtocolError for a message
    it cannot take) propagates: run it as the main program so that the
    traceback goes to stderr and the process exits non-zero, which streamtwin
    reports with that stderr.

    While it writes to the process's standard output (``stdout`` omitted or
    ``sys.stdout``), ``print`` in the policy goes to standard error instead,
    so that it cannot break the protocol.
    """
    serve(policy, stdin, stdout, _begin, "observation", _observe)


def serve(target: Any, stdin: Optional[TextIO], stdout: Optional[TextIO], begin: Any, kind: str, handle: Any) -> None:
    """The JSON-lines loop of both protocols (policies and forecasters).

    ``begin(target, hello)`` answers hello, ``handle(target, message)``
    every ``kind`` message; goodbye calls ``target.stop`` and returns, as
    does the end of input. ``print`` goes to stderr while the loop writes
    to the real stdout.
    """
    if stdin is None:
        stdin = sys.stdin
        _utf8(stdin)
    if stdout is None:
        stdout = sys.stdout
        _utf8(stdout)
    saved = sys.stdout
    guard = stdout is saved
    if guard:
        sys.stdout = sys.stderr
    try:
        started = False
        while True:
            line = stdin.readline()
            if not line:
                return  # end of input: streamtwin is gone or closed our stdin
            if not line.strip():
                continue
            message = _parse(line)
            got = message["type"]
            if got == "goodbye":
                if started:
                    target.stop(str(message.get("reason", "")))
                return
            if not started:
                if got != "hello":
                    raise ProtocolError("streamtwin sent %r before hello" % got)
                _write(stdout, begin(target, message))
                started = True
            elif got == kind:
                _write(stdout, handle(target, message))
            else:
                raise ProtocolError("streamtwin sent an unexpected %r message" % got)
    finally:
        if guard:
            sys.stdout = saved

