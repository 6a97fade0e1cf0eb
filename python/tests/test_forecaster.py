"""Forecaster and run_forecaster: the loop, the reply bytes, the checks, the schema, and the numpy example.

Every message the tests send to a forecaster or read back from one is checked
against docs/forecaster-protocol.schema.json.
"""

import importlib.util
import io
import json
import math
import os
import re
import subprocess
import sys
import textwrap

import jsonschema
import pytest

import streamtwin_policy
from messages import REPO
from streamtwin_policy import ForecastError, Forecaster, ProtocolError, check_quantiles, run_forecaster

SCHEMA_PATH = os.path.join(REPO, "docs", "forecaster-protocol.schema.json")
DOC_PATH = os.path.join(REPO, "docs", "forecaster-protocol.md")
EXAMPLE_PATH = os.path.join(REPO, "examples", "python", "numpy_forecaster.py")

with open(SCHEMA_PATH, encoding="utf-8") as f:
    SCHEMA = json.load(f)

TYPES = ["hello", "ready", "forecast", "quantiles", "error", "goodbye"]
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _validator_for(definition):
    sub = {k: v for k, v in SCHEMA.items() if k != "oneOf"}
    sub["$ref"] = "#/$defs/" + definition
    return jsonschema.Draft202012Validator(sub)


DEF_VALIDATORS = {name: _validator_for(name) for name in SCHEMA["$defs"]}


def validate(message):
    """Raise jsonschema.ValidationError unless message is a valid message (its own $defs entry first, for a readable error)."""
    kind = message.get("type") if isinstance(message, dict) else None
    if kind in DEF_VALIDATORS:
        DEF_VALIDATORS[kind].validate(message)
    VALIDATOR.validate(message)


def is_valid(message, definition=None):
    return (DEF_VALIDATORS[definition] if definition else VALIDATOR).is_valid(message)


def hello(config=None, **over):
    h = {"type": "hello", "protocol": 1, "role": "forecaster", "config": {} if config is None else config}
    h.update(over)
    return h


def forecast(call, history, horizon, levels=(0.1, 0.5, 0.9)):
    return {"type": "forecast", "id": call, "history": list(history), "horizon": horizon, "levels": list(levels)}


def goodbye(reason="close"):
    return {"type": "goodbye", "reason": reason}


def lines(messages):
    out = []
    for m in messages:
        validate(m)
        out.append(json.dumps(m, separators=(",", ":")) + "\n")
    return "".join(out)


def replies(text):
    assert text == "" or text.endswith("\n"), "half a line on stdout: %r" % text[-80:]
    msgs = [json.loads(line) for line in text.splitlines()]
    for m in msgs:
        validate(m)
    return msgs


def converse(forecaster, messages):
    out = io.StringIO()
    run_forecaster(forecaster, stdin=io.StringIO(lines(messages)), stdout=out)
    return replies(out.getvalue())


class Echo(Forecaster):
    """Answers last + (k+1)·level; records what it is told."""

    name = "echo"

    def __init__(self):
        self.calls = []
        self.stopped = []
        self.started = None

    def start(self, hello):
        self.started = {"hello": hello, "config": self.config}

    def quantiles(self, history, horizon, levels):
        self.calls.append({"id": self.call, "history": history, "horizon": horizon, "levels": levels})
        last = history[-1] if history else 0.0
        return [[last + (k + 1) * level for k in range(horizon)] for level in levels]

    def stop(self, reason):
        self.stopped.append(reason)


# --- the loop ----------------------------------------------------------------

def test_exported():
    for name in ["Forecaster", "ForecastError", "run_forecaster", "check_quantiles"]:
        assert name in streamtwin_policy.__all__ and hasattr(streamtwin_policy, name)


def test_hello_gets_ready_and_start_sees_config():
    f = Echo()
    out = converse(f, [hello(config={"alphas": [0.5], "nested": {"a": 1}})])
    assert out == [{"type": "ready", "protocol": 1, "name": "echo"}]
    assert f.started["config"] == {"alphas": [0.5], "nested": {"a": 1}}
    assert f.started["hello"]["role"] == "forecaster"


def test_ready_without_name_and_name_set_in_start():
    class Bare(Forecaster):
        def quantiles(self, history, horizon, levels):
            return [[0.0] * horizon for _ in levels]

    assert converse(Bare(), [hello()]) == [{"type": "ready", "protocol": 1}]

    class Named(Bare):
        def start(self, hello):
            self.name = "named-%d" % self.config["n"]

    assert converse(Named(), [hello(config={"n": 3})]) == [{"type": "ready", "protocol": 1, "name": "named-3"}]


def test_reply_bytes():
    out = io.StringIO()
    msgs = [hello(), forecast(1, [1, 2.5, 10], 3), forecast(2, [], 1, [0.5]), goodbye()]
    run_forecaster(Echo(), stdin=io.StringIO(lines(msgs)), stdout=out)
    assert out.getvalue() == (
        '{"type":"ready","protocol":1,"name":"echo"}\n'
        '{"type":"quantiles","id":1,"quantiles":[[10.1,10.2,10.3],[10.5,11.0,11.5],[10.9,11.8,12.7]]}\n'
        '{"type":"quantiles","id":2,"quantiles":[[0.5]]}\n'
    )
    replies(out.getvalue())


def test_requests_reach_quantiles_as_floats_and_ids_are_echoed():
    f = Echo()
    out = converse(f, [hello(), forecast(1, [1, 2], 2), forecast(2, [3.5], 1, [0.25, 0.75]), forecast(9, [4], 1)])
    assert [m["id"] for m in out[1:]] == [1, 2, 9]
    assert f.calls[0] == {"id": 1, "history": [1.0, 2.0], "horizon": 2, "levels": [0.1, 0.5, 0.9]}
    assert all(type(x) is float for x in f.calls[0]["history"])
    assert f.calls[1]["levels"] == [0.25, 0.75] and f.calls[2]["id"] == 9


def test_numpy_result_is_accepted():
    np = pytest.importorskip("numpy")

    class Arr(Forecaster):
        def quantiles(self, history, horizon, levels):
            return np.array([[l * 10 + k for k in range(horizon)] for l in levels], dtype=np.float32)

    out = converse(Arr(), [hello(), forecast(1, [1.0], 2, [0.5, 0.75])])
    assert out[1]["quantiles"] == [[5.0, 6.0], [7.5, 8.5]]


def test_forecast_error_is_an_error_reply_and_the_loop_goes_on():
    class Picky(Echo):
        def quantiles(self, history, horizon, levels):
            if len(history) < 3:
                raise ForecastError("needs 3 points, got %d" % len(history))
            return super().quantiles(history, horizon, levels)

    out = io.StringIO()
    run_forecaster(Picky(), stdin=io.StringIO(lines([hello(), forecast(1, [1], 1, [0.5]), forecast(2, [1, 2, 3], 1, [0.5])])),
                   stdout=out)
    assert out.getvalue().splitlines()[1:] == [
        '{"type":"error","id":1,"message":"needs 3 points, got 1"}',
        '{"type":"quantiles","id":2,"quantiles":[[3.5]]}',
    ]
    replies(out.getvalue())


def test_goodbye_calls_stop_and_returns():
    f = Echo()
    stdin = io.StringIO(lines([hello(), forecast(1, [1], 1), goodbye("close")]) + "never read\n")
    out = io.StringIO()
    assert run_forecaster(f, stdin=stdin, stdout=out) is None
    assert f.stopped == ["close"] and stdin.readline() == "never read\n"
    assert [m["type"] for m in replies(out.getvalue())] == ["ready", "quantiles"]


def test_eof_returns_without_stop():
    f = Echo()
    assert len(converse(f, [hello(), forecast(1, [1], 1)])) == 2 and f.stopped == []
    g = Echo()
    assert converse(g, []) == [] and g.started is None


def test_print_goes_to_stderr(capsys):
    class Chatty(Echo):
        def quantiles(self, history, horizon, levels):
            print("call", self.call)
            return super().quantiles(history, horizon, levels)

    before = sys.stdout
    run_forecaster(Chatty(), stdin=io.StringIO(lines([hello(), forecast(1, [1], 1)])))
    assert sys.stdout is before
    captured = capsys.readouterr()
    assert [m["type"] for m in replies(captured.out)] == ["ready", "quantiles"]
    assert captured.err == "call 1\n"


@pytest.mark.parametrize("text, match", [
    ("ok\n", "not JSON"),
    ('{"id": 1}\n', "not a protocol message"),
    (lines([forecast(1, [1], 1)]), "'forecast' before hello"),
    (lines([hello()]) + lines([hello()]), "unexpected 'hello'"),
    (lines([hello()]) + '{"type":"observation","tick":1}\n', "unexpected 'observation'"),
    ('{"type":"hello","protocol":1,"config":{}}\n', "role None: was it given as a policy"),
    (lines([hello()]) + '{"type":"forecast","id":0,"history":[],"horizon":1,"levels":[0.5]}\n', "id 0"),
    (lines([hello()]) + '{"type":"forecast","id":1,"history":[1,null],"horizon":1,"levels":[0.5]}\n', r"history\[1\] = None"),
    (lines([hello()]) + '{"type":"forecast","id":1,"history":[],"horizon":0,"levels":[0.5]}\n', "horizon 0"),
    (lines([hello()]) + '{"type":"forecast","id":1,"history":[],"horizon":1,"levels":[]}\n', r"levels \[\]"),
])
def test_protocol_errors(text, match):
    with pytest.raises(ProtocolError, match=match):
        run_forecaster(Echo(), stdin=io.StringIO(text), stdout=io.StringIO())


# --- checking a result ---------------------------------------------------------

@pytest.mark.parametrize("result, error, match", [
    ([[1.0, 2.0]], ValueError, "1 rows; want one per level, 2"),
    ([[1.0, 2.0], [3.0]], ValueError, r"row 1 \(level 0.9\) has 1 values; want the horizon, 2"),
    ([[1.0, 2.0], [3.0, math.nan]], ValueError, "level 0.9 at step 2 is nan"),
    ([[1.0, math.inf], [3.0, 4.0]], ValueError, "level 0.1 at step 2 is inf"),
    ([[1.0, 2.0], [3.0, 1.5]], ValueError, r"decrease across levels at step 2: level 0.9 is 1.5, below level 0.1's 2.0"),
    ([[1.0, 2.0], [3.0, "4"]], TypeError, "holds '4'"),
    ([[1.0, 2.0], [3.0, True]], TypeError, "holds True"),
    ([[1.0, 2.0], None], TypeError, "row 1"),
    (None, TypeError, "returned None"),
    ({"a": 1}, TypeError, "returned"),
])
def test_check_quantiles_refuses(result, error, match):
    with pytest.raises(error, match=match):
        check_quantiles(result, 2, [0.1, 0.9])


def test_check_quantiles_accepts_ties_ints_and_tuples():
    assert check_quantiles(((1, 2), [1, 2.5]), 2, [0.1, 0.9]) == [[1.0, 2.0], [1.0, 2.5]]


def test_bad_result_propagates_without_half_a_line():
    class Crossing(Echo):
        def quantiles(self, history, horizon, levels):
            if self.call == 2:
                return [[2.0] * horizon, [1.0] * horizon]
            return super().quantiles(history, horizon, levels)

    out = io.StringIO()
    with pytest.raises(ValueError, match="decrease across levels at step 1"):
        run_forecaster(Crossing(), stdin=io.StringIO(lines([hello(), forecast(1, [1], 1, [0.1, 0.9]),
                                                            forecast(2, [1], 1, [0.1, 0.9])])), stdout=out)
    assert [m["type"] for m in replies(out.getvalue())] == ["ready", "quantiles"]


def test_exception_exits_non_zero_with_traceback(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text(textwrap.dedent("""\
        import sys
        sys.path.insert(0, %r)
        from streamtwin_policy import Forecaster, run_forecaster

        class Boom(Forecaster):
            name = "boom"
            def quantiles(self, history, horizon, levels):
                print("forecasting", self.call)
                return [[1.0 / (2 - self.call)] * horizon for _ in levels]

        if __name__ == "__main__":
            run_forecaster(Boom())
        """ % os.path.join(REPO, "python")))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, str(script)], input=lines([hello(), forecast(1, [1], 1), forecast(2, [1], 1)]),
                       capture_output=True, text=True, timeout=60, env=env, cwd=str(tmp_path))
    assert p.returncode != 0
    assert "Traceback" in p.stderr and "ZeroDivisionError" in p.stderr
    assert "forecasting 1\nforecasting 2\n" in p.stderr
    assert replies(p.stdout) == [{"type": "ready", "protocol": 1, "name": "boom"},
                                 {"type": "quantiles", "id": 1, "quantiles": [[1.0], [1.0], [1.0]]}]


# --- the schema ----------------------------------------------------------------

def test_schema_is_a_valid_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for ref, kind in zip(SCHEMA["oneOf"], TYPES):
        assert ref == {"$ref": "#/$defs/" + kind}
        assert SCHEMA["$defs"][kind]["properties"]["type"] == {"const": kind}
    assert len(SCHEMA["oneOf"]) == len(TYPES)


def test_schema_accepts_the_messages_and_what_streamtwin_may_add():
    for m in [hello(), hello(config={"x": [1, None]}), {"type": "ready", "protocol": 1},
              {"type": "ready", "protocol": 1, "name": "n"}, forecast(1, [], 1, [0.5]), forecast(3, [1e20, -2.5], 420),
              {"type": "quantiles", "id": 1, "quantiles": [[1, 2.5]]}, {"type": "error", "id": 2, "message": "short"},
              goodbye(), dict(hello(), future=1), dict(forecast(1, [1], 1), step_s=10), dict(goodbye(), code=0)]:
        validate(m)


@pytest.mark.parametrize("message", [
    hello(role="policy"),
    {"type": "hello", "protocol": 1, "config": {}},
    hello(protocol=2),
    hello(config=[1]),
    {"type": "ready", "protocol": 2},
    {"type": "ready", "protocol": 1, "requires": []},
    forecast(0, [1], 1),
    forecast(1, [1, None], 1),
    forecast(1, [1], 0),
    forecast(1, [1], 1, []),
    forecast(1, [1], 1, [0, 0.5]),
    forecast(1, [1], 1, [0.5, 1]),
    {"type": "quantiles", "id": 1},
    {"type": "quantiles", "id": 0, "quantiles": [[1]]},
    {"type": "quantiles", "id": 1, "quantiles": []},
    {"type": "quantiles", "id": 1, "quantiles": [[]]},
    {"type": "quantiles", "id": 1, "quantiles": [[1, None]]},
    {"type": "quantiles", "id": 1, "quantiles": [[1]], "message": "extra"},
    {"type": "error", "id": 1, "message": ""},
    {"type": "error", "id": 1},
    {"type": "error", "id": 1, "message": "x", "quantiles": [[1]]},
    {"type": "goodbye"},
    {"type": "observation", "tick": 1},
])
def test_schema_refuses(message):
    assert not is_valid(message)


# --- the doc's examples --------------------------------------------------------

def _doc():
    with open(DOC_PATH, encoding="utf-8") as f:
        return f.read()


def test_doc_conversation_examples_validate():
    doc = _doc()
    section = doc[doc.index("## Conversation"):]
    block = section[section.index("```") + 3:]
    block = block[:block.index("```")]
    found = []
    for line in block.splitlines():
        if "{" in line:
            message = json.loads(line[line.index("{"):line.rindex("}") + 1])
            validate(message)
            found.append(message["type"])
    assert found == ["hello", "ready", "forecast", "quantiles", "goodbye"]
    request, reply = [json.loads(l[l.index("{"):l.rindex("}") + 1]) for l in block.splitlines() if '"id":1' in l.replace(" ", "")]
    assert check_quantiles(reply["quantiles"], request["horizon"], request["levels"]) == reply["quantiles"]


def test_doc_names_every_message_type():
    doc = _doc()
    for kind in TYPES:
        assert re.search(r"\| `%s` \|" % kind, doc), kind


# --- the numpy example ---------------------------------------------------------

@pytest.fixture(scope="module")
def example():
    pytest.importorskip("numpy")
    spec = importlib.util.spec_from_file_location("numpy_forecaster", EXAMPLE_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_on_a_line_is_the_line(example):
    out = converse(example.HoltNumpy(), [hello(), forecast(1, [3.0 * t - 7 for t in range(30)], 4)])
    assert out[0] == {"type": "ready", "protocol": 1, "name": "holt-numpy"}
    for row in out[1]["quantiles"]:
        assert row == pytest.approx([3.0 * t - 7 for t in range(30, 34)], abs=1e-9)


def test_example_rule_and_determinism(example):
    import numpy as np

    rng = np.random.default_rng(5)
    y = (100 + 0.5 * np.arange(200) + rng.normal(0, 3, 200)).tolist()
    q = np.array(example.holt_quantiles(y, 9, [0.05, 0.5, 0.95]))
    alpha, beta, level, trend, errors = example.fit_holt(np.array(y), example.ALPHAS, example.BETAS)
    steps = np.arange(1, 10)
    expect = level + steps * trend + np.quantile(errors, [0.05, 0.5, 0.95])[:, None] * np.sqrt(steps)
    assert np.allclose(q, expect, rtol=0, atol=1e-9)
    assert alpha in example.ALPHAS and beta in example.BETAS and len(errors) == 199
    # the grid's best has the least squared error of all pairs
    sse = float(np.dot(errors, errors))
    for a in (0.05, 0.5, 1.0):
        for b in (0.0, 0.5):
            assert sse <= float(np.dot(*[example.fit_holt(np.array(y), [a], [b])[4]] * 2)) + 1e-9
    again = converse(example.HoltNumpy(), [hello(), forecast(1, y, 9, [0.05, 0.5, 0.95]), forecast(2, y, 9, [0.05, 0.5, 0.95])])
    assert again[1]["quantiles"] == again[2]["quantiles"] == q.tolist()


def test_example_short_history_and_config(example):
    out = converse(example.HoltNumpy(), [hello(config={"min_history": 4}), forecast(1, [1, 2, 3], 2), forecast(2, [1, 2, 3, 4], 2)])
    assert out[1] == {"type": "error", "id": 1, "message": "holt-numpy needs at least 4 points of history, got 3"}
    assert out[2]["type"] == "quantiles"
    with pytest.raises(ValueError, match=r"unknown config keys \['alpha'\]"):
        converse(example.HoltNumpy(), [hello(config={"alpha": 0.3})])
    with pytest.raises(ValueError, match="alphas must be"):
        converse(example.HoltNumpy(), [hello(config={"alphas": [0]})])


def test_example_runs_from_anywhere(tmp_path):
    pytest.importorskip("numpy")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, EXAMPLE_PATH], input=lines([hello(), forecast(1, list(range(20)), 3), goodbye()]),
                       capture_output=True, text=True, timeout=60, env=env, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    out = replies(p.stdout)
    assert [m["type"] for m in out] == ["ready", "quantiles"] and len(out[1]["quantiles"][0]) == 3
