"""The run loop over in-memory streams, Action serialisation, and the schema."""

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

from messages import (DOC_PATH, REPO, SCHEMA, converse, detail, goodbye, hello, is_valid, job, lines, observation,
                      replies, sample, samples, validate)
from streamtwin_policy import PROTOCOL, Action, Policy, ProtocolError, run


class Recorder(Policy):
    """Records what it is told; returns the actions it is given per tick."""

    name = "recorder"
    requires = ["rescale"]

    def __init__(self, plan=None):
        self.plan = plan or {}
        self.calls = []
        self.stopped = []
        self.started = None

    def start(self, hello):
        self.started = {"hello": hello, "run": self.run, "capabilities": self.capabilities, "config": self.config,
                        "window": list(self.window), "job": self.job}

    def step(self, now_s, window, job):
        self.calls.append({"tick": self.tick, "now_s": now_s, "window": window, "job": job,
                           "detail": list(self.detail)})
        return self.plan.get(self.tick, [])

    def stop(self, reason):
        self.stopped.append(reason)


# --- hello and ready -------------------------------------------------------

def test_hello_gets_ready_with_name_and_requires():
    out = converse(Recorder(), [hello()])
    assert out == [{"type": "ready", "protocol": 1, "name": "recorder", "requires": ["rescale"]}]
    assert PROTOCOL == 1


def test_ready_without_name_and_requires():
    class Bare(Policy):
        def step(self, now_s, window, job):
            return []

    assert converse(Bare(), [hello()]) == [{"type": "ready", "protocol": 1, "requires": []}]


def test_start_sees_run_capabilities_and_config_and_may_set_name():
    h = hello(window=30, config={"high_rate": 20000, "nested": {"a": [1, 2]}}, seed=7)

    class Named(Recorder):
        def start(self, hello):
            super().start(hello)
            self.name = "named-%d" % self.run["seed"]
            self.requires = ["set_checkpoint_interval", "rescale"]

    p = Named()
    out = converse(p, [h])
    assert out == [{"type": "ready", "protocol": 1, "name": "named-7", "requires": ["set_checkpoint_interval", "rescale"]}]
    assert p.started["hello"] == h
    assert p.started["run"] == h["run"]
    assert p.started["capabilities"] == h["capabilities"]
    assert p.started["config"] == {"high_rate": 20000, "nested": {"a": [1, 2]}}
    assert p.started["window"] == []
    assert p.started["job"] == h["job"]
    assert p.window.maxlen == 30


def test_start_exception_propagates_before_ready():
    class Picky(Recorder):
        def start(self, hello):
            raise ValueError("high_rate must be > low_rate")

    out = io.StringIO()
    with pytest.raises(ValueError, match="high_rate must be"):
        run(Picky(), stdin=io.StringIO(lines([hello(), observation(1, [])])), stdout=out)
    assert out.getvalue() == ""


# --- observations ----------------------------------------------------------

def test_window_accumulates_bounded_across_ticks():
    p = Recorder()
    msgs = [hello(window=5)]
    for tick in range(1, 4):
        msgs.append(observation(tick, samples((tick - 1) * 3, [1000.0 * tick] * 3)))
    out = converse(p, msgs + [goodbye()])
    assert [m["tick"] for m in out[1:]] == [1, 2, 3]
    times = [[s["time_s"] for s in c["window"]] for c in p.calls]
    assert times == [[1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0, 6.0], [5.0, 6.0, 7.0, 8.0, 9.0]]
    assert [c["now_s"] for c in p.calls] == [10.0, 20.0, 30.0]
    assert [s["input_rate"] for s in p.calls[2]["window"]] == [2000.0, 2000.0, 3000.0, 3000.0, 3000.0]
    # step gets a copy: changing it leaves the policy's window alone
    p.calls[2]["window"].clear()
    assert len(p.window) == 5


def test_first_observation_with_more_samples_than_window():
    p = Recorder()
    converse(p, [hello(window=4), observation(1, samples(0, range(10)))])
    assert [s["input_rate"] for s in p.calls[0]["window"]] == [6, 7, 8, 9]


def test_observation_without_samples():
    p = Recorder()
    out = converse(p, [hello(), observation(1, []), observation(2, samples(0, [5.0]))])
    assert out[1:] == [{"type": "actions", "tick": 1, "actions": []}, {"type": "actions", "tick": 2, "actions": []}]
    assert [len(c["window"]) for c in p.calls] == [0, 1]


def test_tick_is_echoed_and_job_passed():
    p = Recorder()
    j = job(state="RESTARTING", checkpoint_interval_s=30, restarts=2, faults=1)
    out = converse(p, [hello(), observation(1, []), observation(2, [], j), observation(17, [], now_s=12.5)])
    assert [m["tick"] for m in out if m["type"] == "actions"] == [1, 2, 17]
    assert p.calls[1]["job"] == j and p.job["state"] == "RUNNING"
    assert p.calls[2]["now_s"] == 12.5


def test_actions_reply_bytes():
    plan = {1: [Action.set_checkpoint_interval(30, reason="low load"), Action.rescale(4, reason="lag grows"),
                Action.trigger_savepoint(reason="before deploy"), Action.note("all good \u2014 nothing to do")],
            2: None}
    out = io.StringIO()
    run(Recorder(plan), stdin=io.StringIO(lines([hello(), observation(1, []), observation(2, [])])), stdout=out)
    assert out.getvalue().splitlines()[1:] == [
        '{"type":"actions","tick":1,"actions":[{"kind":"set_checkpoint_interval","interval_s":30,"reason":"low load"},'
        '{"kind":"rescale","parallelism":4,"reason":"lag grows"},{"kind":"trigger_savepoint","reason":"before deploy"},'
        '{"kind":"note","reason":"all good \\u2014 nothing to do"}]}',
        '{"type":"actions","tick":2,"actions":[]}',
    ]
    replies(out.getvalue())


def test_step_returning_something_else_than_actions():
    class Sloppy(Policy):
        def step(self, now_s, window, job):
            return [{"kind": "note", "reason": "a dict"}]

    out = io.StringIO()
    with pytest.raises(TypeError, match="Action.note"):
        run(Sloppy(), stdin=io.StringIO(lines([hello(), observation(1, [])])), stdout=out)
    assert len(replies(out.getvalue())) == 1


def test_detail_aligned_with_window():
    p = Recorder()
    msgs = [hello(window=3, detail=True),
            observation(1, samples(0, [1.0, 2.0]), details=[detail(0), detail(1)]),
            observation(2, samples(2, [3.0, 4.0]), details=[detail(2), detail(3)])]
    converse(p, msgs)
    assert [d["taskmanagers"][0]["source_throughput"] for d in p.calls[1]["detail"]] == [25001.0, 25002.0, 25003.0]
    assert [s["input_rate"] for s in p.calls[1]["window"]] == [2.0, 3.0, 4.0]


def test_detail_is_none_for_samples_without_detail():
    p = Recorder()
    converse(p, [hello(window=4), observation(1, samples(0, [1.0, 2.0])),
                 observation(2, samples(2, [3.0]), details=[detail(3)]), observation(3, samples(3, [4.0, 5.0]))])
    assert p.calls[0]["detail"] == [None, None] and len(p.window) == 4
    assert p.calls[1]["detail"] == [None, None, detail(3)]
    assert p.calls[2]["detail"] == [None, detail(3), None, None]
    assert [s["input_rate"] for s in p.calls[2]["window"]] == [2.0, 3.0, 4.0, 5.0]


def test_detail_count_must_match_samples():
    msgs = [hello(detail=True), observation(1, samples(0, [1.0, 2.0]), details=[detail()])]
    with pytest.raises(ProtocolError, match="2 samples but 1 detail"):
        run(Recorder(), stdin=io.StringIO(lines(msgs)), stdout=io.StringIO())


# --- the end ---------------------------------------------------------------

def test_goodbye_calls_stop_and_returns():
    p = Recorder()
    stdin = io.StringIO(lines([hello(), observation(1, []), goodbye("policy reply at tick 2 (t=20s) is not valid")])
                        + "this line is never read\n")
    out = io.StringIO()
    assert run(p, stdin=stdin, stdout=out) is None
    assert p.stopped == ["policy reply at tick 2 (t=20s) is not valid"]
    assert stdin.readline() == "this line is never read\n"
    assert [m["type"] for m in replies(out.getvalue())] == ["ready", "actions"]


def test_eof_returns_without_stop():
    p = Recorder()
    out = converse(p, [hello(), observation(1, []), observation(2, [])])
    assert len(out) == 3 and p.stopped == [] and len(p.calls) == 2


def test_eof_before_hello():
    p = Recorder()
    out = io.StringIO()
    run(p, stdin=io.StringIO(""), stdout=out)
    assert out.getvalue() == "" and p.started is None and p.stopped == []


def test_goodbye_before_hello_does_not_stop():
    p = Recorder()
    assert converse(p, [goodbye("start failed")]) == []
    assert p.stopped == []


# --- failures --------------------------------------------------------------

class Boom(Recorder):
    def step(self, now_s, window, job):
        super().step(now_s, window, job)
        if self.tick == 2:
            raise ZeroDivisionError("division by zero in my policy")
        return [Action.note("tick %d fine" % self.tick)]


def test_exception_in_step_propagates_without_half_a_line():
    out = io.StringIO()
    with pytest.raises(ZeroDivisionError, match="in my policy"):
        run(Boom(), stdin=io.StringIO(lines([hello(), observation(1, []), observation(2, []), observation(3, [])])),
            stdout=out)
    msgs = replies(out.getvalue())
    assert msgs[1] == {"type": "actions", "tick": 1, "actions": [{"kind": "note", "reason": "tick 1 fine"}]}
    assert len(msgs) == 2


def test_exception_in_step_exits_non_zero_with_traceback(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text(textwrap.dedent("""\
        import sys
        sys.path.insert(0, %r)
        from streamtwin_policy import Action, Policy, run

        class Boom(Policy):
            name = "boom"
            def step(self, now_s, window, job):
                print("thinking about tick", self.tick)  # goes to stderr
                if self.tick == 2:
                    return [Action.note("ok")][5]
                return [Action.note("tick %%d" %% self.tick)]

        if __name__ == "__main__":
            run(Boom())
        """ % os.path.join(REPO, "python")))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, str(script)], input=lines([hello(), observation(1, []), observation(2, [])]),
                       capture_output=True, text=True, timeout=60, env=env, cwd=str(tmp_path))
    assert p.returncode != 0
    assert "Traceback" in p.stderr and "IndexError: list index out of range" in p.stderr
    assert "thinking about tick 1\nthinking about tick 2\n" in p.stderr
    msgs = replies(p.stdout)
    assert msgs == [{"type": "ready", "protocol": 1, "name": "boom", "requires": []},
                    {"type": "actions", "tick": 1, "actions": [{"kind": "note", "reason": "tick 1"}]}]


def test_print_goes_to_stderr(capsys):
    class Chatty(Policy):
        def start(self, hello):
            print("starting")

        def step(self, now_s, window, job):
            print("step", self.tick)
            return []

    before = sys.stdout
    run(Chatty(), stdin=io.StringIO(lines([hello(), observation(1, [])])))
    assert sys.stdout is before
    captured = capsys.readouterr()
    assert [m["type"] for m in replies(captured.out)] == ["ready", "actions"]
    assert captured.err == "starting\nstep 1\n"


@pytest.mark.parametrize("text, match", [
    ("ok\n", "not JSON"),
    ("[1, 2]\n", "not a protocol message"),
    ('{"tick": 1}\n', "not a protocol message"),
    (lines([observation(1, [])]), "'observation' before hello"),
    (lines([hello(), hello()]), "unexpected 'hello'"),
    (lines([hello()]) + '{"type":"reconfigure"}\n', "unexpected 'reconfigure'"),
    ('{"type":"hello","protocol":1,"role":"forecaster","config":{}}\n', "role 'forecaster': was it given as a forecaster"),
])
def test_protocol_errors(text, match):
    with pytest.raises(ProtocolError, match=match):
        run(Recorder(), stdin=io.StringIO(text), stdout=io.StringIO())


def test_blank_lines_are_skipped():
    out = io.StringIO()
    run(Recorder(), stdin=io.StringIO("\n" + lines([hello()]) + "  \n" + lines([observation(1, [])])), stdout=out)
    assert [m["type"] for m in replies(out.getvalue())] == ["ready", "actions"]


# --- Action ----------------------------------------------------------------

def test_action_serialisation():
    assert Action.set_checkpoint_interval(10).to_dict() == {"kind": "set_checkpoint_interval", "interval_s": 10,
                                                            "reason": ""}
    assert list(Action.set_checkpoint_interval(10, "r").to_dict()) == ["kind", "interval_s", "reason"]
    assert Action.rescale(3, reason="more").to_dict() == {"kind": "rescale", "parallelism": 3, "reason": "more"}
    assert list(Action.rescale(3).to_dict()) == ["kind", "parallelism", "reason"]
    assert Action.rescale_vertices({"map": 2, "sink": 1.0}).to_dict() == {
        "kind": "rescale_vertices", "vertices": {"map": 2, "sink": 1}, "reason": ""}
    for bad in ({}, {"map": 0}, {"map": 1.5}, [("map", 2)]):
        with pytest.raises((TypeError, ValueError)):
            Action.rescale_vertices(bad)
    assert Action.trigger_savepoint().to_dict() == {"kind": "trigger_savepoint", "reason": ""}
    assert Action.note("why").to_dict() == {"kind": "note", "reason": "why"}


def test_action_numbers():
    a = Action.set_checkpoint_interval(10)
    assert type(a.interval_s) is int and json.dumps(a.to_dict()["interval_s"]) == "10"
    b = Action.set_checkpoint_interval(2.5)
    assert type(b.interval_s) is float and json.dumps(b.to_dict()["interval_s"]) == "2.5"
    assert json.dumps(Action.set_checkpoint_interval(30.0).to_dict()["interval_s"]) == "30.0"
    r = Action.rescale(4.0)
    assert type(r.parallelism) is int and r.parallelism == 4
    assert Action.set_checkpoint_interval(1) == Action("set_checkpoint_interval", "", interval_s=1)


@pytest.mark.parametrize("make, error", [
    (lambda: Action.set_checkpoint_interval(0), ValueError),
    (lambda: Action.set_checkpoint_interval(-5), ValueError),
    (lambda: Action.set_checkpoint_interval(math.nan), ValueError),
    (lambda: Action.set_checkpoint_interval(math.inf), ValueError),
    (lambda: Action.set_checkpoint_interval("10"), TypeError),
    (lambda: Action.set_checkpoint_interval(True), TypeError),
    (lambda: Action.set_checkpoint_interval(None), TypeError),
    (lambda: Action.rescale(0), ValueError),
    (lambda: Action.rescale(-1), ValueError),
    (lambda: Action.rescale(2.5), ValueError),
    (lambda: Action.rescale(True), TypeError),
    (lambda: Action.rescale("4"), TypeError),
    (lambda: Action.note(None), TypeError),
    (lambda: Action.rescale(2, reason=3), TypeError),
    (lambda: Action("explode"), ValueError),
    (lambda: Action("note", "x", interval_s=3), ValueError),
    (lambda: Action("trigger_savepoint", parallelism=3), ValueError),
])
def test_action_refuses_bad_values(make, error):
    with pytest.raises(error):
        make()


def test_every_action_kind_validates():
    for a in [Action.set_checkpoint_interval(0.5), Action.set_checkpoint_interval(600), Action.rescale(1),
              Action.rescale(64, "r"), Action.trigger_savepoint(), Action.note("")]:
        validate({"type": "actions", "tick": 1, "actions": [a.to_dict()]})


# --- the schema ------------------------------------------------------------

def test_schema_is_a_valid_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert set(SCHEMA["$defs"]) >= {"hello", "ready", "observation", "actions", "goodbye"}
    for ref, kind in zip(SCHEMA["oneOf"], ["hello", "ready", "observation", "actions", "goodbye"]):
        assert ref == {"$ref": "#/$defs/" + kind}
        assert SCHEMA["$defs"][kind]["properties"]["type"] == {"const": kind}


def _reply(*actions):
    return {"type": "actions", "tick": 3, "actions": list(actions)}


@pytest.mark.parametrize("action", [
    {"kind": "set_checkpoint_interval", "interval_s": 0, "reason": ""},
    {"kind": "set_checkpoint_interval", "interval_s": -1},
    {"kind": "set_checkpoint_interval", "reason": "no interval"},
    {"kind": "set_checkpoint_interval", "interval_s": "30"},
    {"kind": "set_checkpoint_interval", "interval_s": 30, "reason": "x", "parallelism": 2},
    {"kind": "set_checkpoint_interval", "interval": 30},
    {"kind": "rescale", "parallelism": 0},
    {"kind": "rescale", "parallelism": 2.5},
    {"kind": "rescale"},
    {"kind": "rescale", "parallelism": 2, "why": "extra field"},
    {"kind": "trigger_savepoint", "interval_s": 3},
    {"kind": "note", "reason": 5},
    {"kind": "note", "reason": "x", "interval_s": 5},
    {"kind": "explode", "reason": "unknown kind"},
    {"reason": "no kind"},
])
def test_schema_refuses_bad_actions(action):
    assert not is_valid(_reply(action))
    assert not is_valid(action, "action")


def test_schema_refuses_bad_messages():
    assert not is_valid({"type": "ready", "protocol": 2})
    assert not is_valid({"type": "ready", "protocol": 1, "requires": ["explode"]})
    assert not is_valid({"type": "actions", "tick": 0, "actions": []})
    assert not is_valid({"type": "actions", "tick": 1})
    # streamtwin decodes a policy's messages strictly: no unknown field anywhere
    assert not is_valid({"type": "ready", "protocol": 1, "name": "x", "requires": [], "description": "extra"})
    assert not is_valid({"type": "actions", "tick": 1, "actions": [], "comment": "extra"})
    assert not is_valid(hello(config=[1, 2]))
    assert not is_valid({"type": "shout"})
    assert not is_valid(dict(hello(), protocol=2))
    bad = hello()
    bad["capabilities"]["actions"] = ["rescale"]  # note is always among them
    assert not is_valid(bad)
    assert not is_valid(observation(1, [sample(1, input_rate=None)]))
    assert not is_valid(observation(1, [sample(1, recovering="no")]))
    o = observation(1, [sample(1)])
    del o["samples"][0]["lag"]
    assert not is_valid(o)


def test_schema_allows_what_streamtwin_may_add_and_nulls():
    h = hello()
    h["future"] = {"x": 1}
    h["run"]["new_field"] = "v"
    h["capabilities"]["faults"] = True
    validate(h)
    o = observation(4, [sample(1, latency_mean_ms=None, latency_p50_ms=None, latency_p99_ms=None,
                               latency_marker_p99_ms=None, new_column=3.5)],
                    job(last_checkpoint=None, state="RESTARTING", extra="yes"), details=[detail()])
    o["detail"][0]["taskmanagers"][0]["memory"] = 0.5
    validate(o)
    validate(dict(goodbye(), exit_code=0))
    validate(hello(config={"anything": [1, "two", None]}))
    # optional fields
    validate({"type": "ready", "protocol": 1})
    validate(_reply({"kind": "note"}, {"kind": "trigger_savepoint"}, {"kind": "rescale", "parallelism": 1},
                    {"kind": "set_checkpoint_interval", "interval_s": 0.001}))


# --- the doc's examples ----------------------------------------------------

def _doc():
    with open(DOC_PATH, encoding="utf-8") as f:
        return f.read()


_ELISIONS = [(", ...}", "}"), (", …}", "}"), ("[...]", "[]"), ("[…]", "[]"), ('"tick":N', '"tick":1')]


def _complete(snippet):
    """A doc example as a message: elided parts dropped, then laid over a full message of its type."""
    text = snippet
    for old, new in _ELISIONS:
        text = text.replace(old, new)
    message = json.loads(text)
    full = {"hello": hello(), "observation": observation(1, [sample(1)])}.get(message.get("type"), {})
    return dict(full, **message), text != snippet


def test_doc_conversation_examples_validate():
    doc = _doc()
    section = doc[doc.index("## Conversation"):]
    block = section[section.index("```") + 3:]
    block = block[:block.index("```")]
    found = []
    for line in block.splitlines():
        if "{" not in line:
            continue
        snippet = line[line.index("{"):line.rindex("}") + 1]
        message, elided = _complete(snippet)
        validate(message)
        found.append((message["type"], elided))
    assert found == [("hello", True), ("ready", False), ("observation", True), ("actions", True), ("goodbye", False)]


def test_doc_inline_examples_validate():
    snippets = re.findall(r"`(\{\"(?:type|kind)\".*?\})`", _doc())
    kinds, types = [], []
    for snippet in snippets:
        message, _ = _complete(snippet)
        if "kind" in message:
            validate(_reply(message))
            kinds.append(message["kind"])
        else:
            validate(message)
            types.append(message["type"])
    assert kinds == ["set_checkpoint_interval", "rescale", "rescale_vertices", "trigger_savepoint", "note"]
    assert types == ["actions", "goodbye"]
