"""Actions: what a policy's ``step`` returns, one JSON object each in the reply.

Build them with the constructors, which check their arguments the way
streamtwin does, so a wrong value fails in the policy (with a traceback on
stderr) instead of as an invalid reply::

    Action.set_checkpoint_interval(30, reason="load is low")
    Action.rescale(4, reason="lag grows")
    Action.rescale_vertices({"Source: Kafka": 4, "Sink: Kafka: Writer": 1}, reason="the sink idles")
    Action.trigger_savepoint(reason="before the deploy")
    Action.note("at the optimum already")

``to_dict`` gives the JSON object exactly as docs/policy-protocol.md lists it
(``kind``, then ``interval_s``, ``parallelism`` or ``vertices``, then
``reason``), with no other field.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Dict, Optional, Union

SET_CHECKPOINT_INTERVAL = "set_checkpoint_interval"
RESCALE = "rescale"
RESCALE_VERTICES = "rescale_vertices"
TRIGGER_SAVEPOINT = "trigger_savepoint"
NOTE = "note"

#: Every action kind of protocol 1, in the order the docs list them.
ACTION_KINDS = (SET_CHECKPOINT_INTERVAL, RESCALE, RESCALE_VERTICES, TRIGGER_SAVEPOINT, NOTE)


def _interval(seconds: Any) -> Union[int, float]:
    """A checkpoint interval in seconds: a finite number > 0 (an int stays an int)."""
    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real):
        raise TypeError("set_checkpoint_interval: interval must be a number of seconds, got %r" % (seconds,))
    value: Union[int, float] = int(seconds) if isinstance(seconds, numbers.Integral) else float(seconds)
    if not math.isfinite(value) or value <= 0:
        raise ValueError("set_checkpoint_interval: interval must be > 0 s, got %r" % (seconds,))
    return value


def _parallelism(parallelism: Any, what: str = "rescale: parallelism") -> int:
    """A parallelism: an integer >= 1 (a float such as 4.0 is taken as 4, 4.5 is refused)."""
    if isinstance(parallelism, bool) or not isinstance(parallelism, numbers.Real):
        raise TypeError("%s must be an integer, got %r" % (what, parallelism))
    if not isinstance(parallelism, numbers.Integral):
        f = float(parallelism)
        if not f.is_integer():
            raise ValueError("%s must be an integer, got %r" % (what, parallelism))
        parallelism = f
    value = int(parallelism)
    if value < 1:
        raise ValueError("%s must be >= 1, got %r" % (what, parallelism))
    return value


def _vertices(vertices: Any) -> Dict[str, int]:
    """Vertices of their own parallelism: a non-empty mapping of operator name to parallelism."""
    if not isinstance(vertices, dict) or not vertices:
        raise TypeError("rescale_vertices: vertices must be a non-empty dict of operator name -> parallelism, got %r" % (vertices,))
    out: Dict[str, int] = {}
    for name, p in vertices.items():
        if not isinstance(name, str):
            raise TypeError("rescale_vertices: vertex names must be strings, got %r" % (name,))
        out[name] = _parallelism(p, "rescale_vertices: vertex %r" % name)
    return out


@dataclass(frozen=True)
class Action:
    """One request of a policy, with the reason it is taken.

    Make one with the class methods; ``interval_s`` is set only for
    set_checkpoint_interval, ``parallelism`` only for rescale and
    ``vertices`` only for rescale_vertices.
    """

    kind: str
    reason: str = ""
    interval_s: Optional[Union[int, float]] = None
    parallelism: Optional[int] = None
    vertices: Optional[Dict[str, int]] = None

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ValueError("unknown action kind %r (allowed: %s)" % (self.kind, ", ".join(ACTION_KINDS)))
        if not isinstance(self.reason, str):
            raise TypeError("%s: reason must be a string, got %r" % (self.kind, self.reason))
        if self.kind == SET_CHECKPOINT_INTERVAL:
            object.__setattr__(self, "interval_s", _interval(self.interval_s))
        elif self.interval_s is not None:
            raise ValueError("%s: takes no interval_s" % self.kind)
        if self.kind == RESCALE:
            object.__setattr__(self, "parallelism", _parallelism(self.parallelism))
        elif self.parallelism is not None:
            raise ValueError("%s: takes no parallelism" % self.kind)
        if self.kind == RESCALE_VERTICES:
            object.__setattr__(self, "vertices", _vertices(self.vertices))
        elif self.vertices is not None:
            raise ValueError("%s: takes no vertices" % self.kind)

    @classmethod
    def set_checkpoint_interval(cls, seconds: Union[int, float], reason: str = "") -> "Action":
        """Stop the job with a savepoint and resubmit it with a checkpoint interval of ``seconds`` (> 0)."""
        return cls(SET_CHECKPOINT_INTERVAL, reason, interval_s=seconds)

    @classmethod
    def rescale(cls, parallelism: int, reason: str = "") -> "Action":
        """Change the job's parallelism (>= 1), the way the scenario's job.rescale.mode says."""
        return cls(RESCALE, reason, parallelism=parallelism)

    @classmethod
    def rescale_vertices(cls, vertices: Dict[str, int], reason: str = "") -> "Action":
        """Give job vertices their own parallelism (operator name -> parallelism >= 1); the others keep the job's."""
        return cls(RESCALE_VERTICES, reason, vertices=vertices)

    @classmethod
    def trigger_savepoint(cls, reason: str = "") -> "Action":
        """Take a savepoint while the job runs."""
        return cls(TRIGGER_SAVEPOINT, reason)

    @classmethod
    def note(cls, reason: str) -> "Action":
        """Change nothing: the reason is recorded as a decision (a policy_decision event)."""
        return cls(NOTE, reason)

    def to_dict(self) -> Dict[str, Any]:
        """The action as the JSON object of the protocol, fields in the documented order."""
        d: Dict[str, Any] = {"kind": self.kind}
        if self.kind == SET_CHECKPOINT_INTERVAL:
            d["interval_s"] = self.interval_s
        elif self.kind == RESCALE:
            d["parallelism"] = self.parallelism
        elif self.kind == RESCALE_VERTICES:
            d["vertices"] = dict(self.vertices or {})
        d["reason"] = self.reason
        return d
