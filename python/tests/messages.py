"""Protocol messages for the tests, a conversation helper, and the schema check.

Every message the tests send to a policy or read back from one goes through
``validate``: docs/policy-protocol.schema.json must accept it.
"""

import io
import json
import os

import jsonschema

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_PATH = os.path.join(REPO, "docs", "policy-protocol.schema.json")
DOC_PATH = os.path.join(REPO, "docs", "policy-protocol.md")
EXAMPLE_PATH = os.path.join(REPO, "examples", "python", "load_ci_policy.py")

with open(SCHEMA_PATH, encoding="utf-8") as f:
    SCHEMA = json.load(f)

VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _validator_for(definition):
    sub = {k: v for k, v in SCHEMA.items() if k != "oneOf"}
    sub["$ref"] = "#/$defs/" + definition
    return jsonschema.Draft202012Validator(sub)


DEF_VALIDATORS = {name: _validator_for(name) for name in SCHEMA["$defs"]}


def validate(message):
    """Raise jsonschema.ValidationError unless message is a valid protocol-1 message.

    The message's own $defs entry is checked first, for a readable error,
    then the top-level oneOf.
    """
    kind = message.get("type") if isinstance(message, dict) else None
    if kind in ("hello", "ready", "observation", "actions", "goodbye"):
        DEF_VALIDATORS[kind].validate(message)
    VALIDATOR.validate(message)


def is_valid(message, definition=None):
    v = DEF_VALIDATORS[definition] if definition else VALIDATOR
    return v.is_valid(message)


def sample(time_s, input_rate=50000.0, **over):
    """One per-second row, every column of timeseries.parquet."""
    s = {
        "time_s": float(time_s), "input_rate": input_rate, "throughput": input_rate, "output_rate": input_rate,
        "capacity": 150000.0, "lag": 1200.0, "end_offset": 1.0e6 + time_s, "committed_offset": 9.9e5,
        "latency_mean_ms": 120.5, "latency_p50_ms": 100.0, "latency_p99_ms": 480.0, "latency_marker_p99_ms": None,
        "checkpoint_interval_s": 60, "parallelism": 2, "workers": 2, "cpu_busy_mean": 0.41, "cpu_busy_max": 0.52,
        "backpressure": 0.0, "job_state": "RUNNING", "recovering": False,
    }
    s.update(over)
    return s


def samples(start, rates, **over):
    """Consecutive samples from time_s = start + 1, one per rate."""
    return [sample(start + i + 1, r, **over) for i, r in enumerate(rates)]


def detail(i=0):
    return {
        "taskmanagers": [{"index": 0, "cpu_busy": 0.4, "source_throughput": 25000.0 + i},
                         {"index": 1, "cpu_busy": 0.5, "source_throughput": 25000.0}],
        "operators": [{"name": "source", "parallelism": 2, "source": True, "input_rate": 50000.0,
                       "output_rate": 50000.0, "busy_max": 0.3, "keyed": False, "max_parallelism": 128,
                       "partitions": 8},
                      {"name": "window", "parallelism": 2, "source": False, "input_rate": 50000.0,
                       "output_rate": 10.0, "busy_max": 0.6, "keyed": True, "max_parallelism": 128,
                       "partitions": 0}],
    }


def job(state="RUNNING", checkpoint_interval_s=60, parallelism=2, **over):
    j = {"state": state, "uptime_s": 100.0, "parallelism": parallelism, "checkpoint_interval_s": checkpoint_interval_s,
         "last_checkpoint": {"id": 3, "completed_at_s": 95.0, "duration_s": 1.25, "size_bytes": 1.5e7},
         "restarts": 0, "faults": 0}
    j.update(over)
    return j


def hello(window=600, config=None, seed=42, detail=False, backend="sim", **over):
    h = {
        "type": "hello", "protocol": 1,
        "run": {"scenario": "demo", "variant": "", "seed": seed, "duration_s": 3600.0, "backend": backend,
                "interval_s": 10.0, "window": window, "metric_interval_s": 1.0, "detail": False},
        "capabilities": {"actions": ["note", "rescale", "set_checkpoint_interval", "trigger_savepoint"],
                         "detail": detail, "max_parallelism": 0, "rescale_from_checkpoint": True},
        "config": {} if config is None else config,
        "job": job(uptime_s=0.0, last_checkpoint=None),
    }
    h.update(over)
    return h


def observation(tick, rows, job_status=None, now_s=None, details=None):
    o = {"type": "observation", "tick": tick, "now_s": float(tick * 10) if now_s is None else now_s,
         "samples": rows, "job": job() if job_status is None else job_status}
    if details is not None:
        o["detail"] = details
    return o


def goodbye(reason="end of run"):
    return {"type": "goodbye", "reason": reason}


def lines(messages):
    """The stdin of a policy: one compact JSON line per message, each checked against the schema."""
    out = []
    for m in messages:
        validate(m)
        out.append(json.dumps(m, separators=(",", ":")) + "\n")
    return "".join(out)


def replies(text):
    """Parse a policy's stdout: complete lines only, each a valid protocol message."""
    assert text == "" or text.endswith("\n"), "half a line on stdout: %r" % text[-80:]
    msgs = [json.loads(line) for line in text.splitlines()]
    for m in msgs:
        validate(m)
    return msgs


def converse(policy, messages):
    """Run the policy over messages in memory; return its replies (validated)."""
    from streamtwin_policy import run

    out = io.StringIO()
    run(policy, stdin=io.StringIO(lines(messages)), stdout=out)
    return replies(out.getvalue())
