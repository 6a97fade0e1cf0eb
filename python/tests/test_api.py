"""The notebook API (python/streamtwin) against the real streamtwin binary:
bin/streamtwin of the checkout (make build), or $STREAMTWIN_BIN."""

import json
import os
from pathlib import Path

import pytest

import streamtwin
from streamtwin import _cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def in_checkout(streamtwin_bin, monkeypatch):
    monkeypatch.chdir(REPO)  # scenarios/… as a user of a checkout names them


def test_run_reads_the_run_as_pandas(tmp_path):
    r = streamtwin.run("scenarios/demo.yaml", out=tmp_path / "demo")
    assert isinstance(r, streamtwin.Run)
    assert r.dir == tmp_path / "demo"
    # The demo: 2 h at 1 s samples, two TaskManager kills.
    assert len(r.timeseries) == 7200
    assert {"time_s", "input_rate", "throughput", "lag", "latency_p99_ms"} <= set(r.timeseries.columns)
    assert (r.events["kind"] == "fault").sum() == 2
    assert r.summary == json.loads((tmp_path / "demo" / "summary.json").read_text())
    assert r.summary["faults"] == 2


def test_seed_and_reproducibility(tmp_path):
    a = streamtwin.run("scenarios/demo.yaml", seed=7, out=tmp_path / "a")
    b = streamtwin.run("scenarios/demo.yaml", seed=7, out=tmp_path / "b")
    c = streamtwin.run("scenarios/demo.yaml", seed=8, out=tmp_path / "c")
    assert a.summary["seed"] == 7 and c.summary["seed"] == 8
    assert (a.dir / "timeseries.parquet").read_bytes() == (b.dir / "timeseries.parquet").read_bytes()


def test_variants(tmp_path):
    runs = streamtwin.run("scenarios/ci-variants.yaml", out=tmp_path / "v")
    assert isinstance(runs, streamtwin.Runs)
    assert list(runs) == ["ci10", "ci30", "ci60", "ci120"]  # the scenario's order
    table = runs.summaries()
    assert list(table.index) == list(runs)
    # A longer checkpoint interval loses more work to a kill: slower recovery.
    assert table["recovery_mean_s"].is_monotonic_increasing
    one = streamtwin.run("scenarios/ci-variants.yaml", out=tmp_path / "one", variant="ci30")
    assert isinstance(one, streamtwin.Run) and one.summary["variant"] == "ci30"


def test_scenario_as_dict(tmp_path):
    sc = {"name": "from-python", "duration": "10m", "workload": {"shape": "constant", "rate": "20000/s"}}
    r = streamtwin.run(sc, out=tmp_path / "d")
    assert r.summary["scenario"] == "from-python"
    assert r.summary["duration_s"] == 600
    assert not list(Path.cwd().glob(".streamtwin-scenario-*")), "the temporary scenario file is removed"


def test_bad_input_carries_the_message(tmp_path):
    with pytest.raises(streamtwin.BadInput) as e:
        streamtwin.run({"name": "x", "duration": "bogus"}, out=tmp_path / "x")
    assert e.value.code == 2
    assert str(e.value) == 'the scenario dict: duration: invalid duration "bogus"; write e.g. 30s, 2h or 1d'
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nduration: 2h\nworkload: {shape: constant, rate: 1000/s}\njob:\n  parallelism: -3\n")
    with pytest.raises(streamtwin.BadInput) as e:
        streamtwin.run(bad, out=tmp_path / "y")
    assert str(e.value).startswith(f"{bad}:5: job.parallelism")  # file, line and field
    with pytest.raises(TypeError):
        streamtwin.run(42)


def test_sweep(tmp_path):
    spec = {
        "scenario": str(REPO / "scenarios" / "sweep-base.yaml"),
        "replications": 2,
        "parameters": {"job.checkpoint.interval": ["10s", "60s"]},
    }
    s = streamtwin.sweep(spec, out=tmp_path / "s", workers=2)
    assert len(s) == 4 and list(s.runs["job.checkpoint.interval"].unique()) == [10, 60]
    runs = list(s)
    assert all(isinstance(r, streamtwin.Run) for r in runs)
    assert runs[0].summary["seed"] == s.runs["seed"][0]
    with pytest.raises(ValueError, match="needs out="):
        streamtwin.sweep(spec)


def test_binary_errors(monkeypatch, tmp_path):
    monkeypatch.setenv("STREAMTWIN_BIN", str(tmp_path / "nothing"))
    with pytest.raises(FileNotFoundError, match="STREAMTWIN_BIN"):
        _cli.binary()
    # No binary anywhere and no Go: the error says what to install.
    monkeypatch.delenv("STREAMTWIN_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(_cli, "_built", None)
    with pytest.raises(FileNotFoundError, match="Go is not installed"):
        _cli.binary()
    # Outside any checkout there is nothing to build from.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_cli, "_repository", lambda start: None)
    with pytest.raises(FileNotFoundError, match="put it on PATH"):
        _cli.binary()


def test_compare(tmp_path):
    a = streamtwin.run("scenarios/demo.yaml", out=tmp_path / "a")
    b = streamtwin.run("scenarios/demo.yaml", seed=43, out=tmp_path / "b")
    same = streamtwin.compare(a.dir, a.dir)
    assert set(same["status"]) == {"same"} and same.attrs["beyond"] == 0
    df = streamtwin.compare(a.dir, b.dir, rel=0.01)
    assert list(df.columns) == ["run", "figure", "a", "b", "diff", "rel", "tol_rel", "tol_abs", "informational", "status"]
    row = df.set_index("figure").loc["recovery_mean_s"]
    assert row["a"] == a.summary["recovery_mean_s"] and row["b"] == b.summary["recovery_mean_s"]
    assert abs(row["diff"] - (row["b"] - row["a"])) < 1e-9
    assert df.attrs["beyond"] == (df["status"] == "BEYOND").sum() > 0
    assert "wall_time_s" not in set(df["figure"])  # never compared
    with pytest.raises(streamtwin.BadInput, match="no such|not"):
        streamtwin.compare(tmp_path / "missing", a.dir)


def test_builds_its_own_binary(monkeypatch, tmp_path):
    """As from a fresh clone: no streamtwin on PATH, Go installed, the
    checkout around the current folder: the API builds the binary once
    (into the cache folder, never into the checkout) and runs it."""
    import shutil

    go = shutil.which("go")
    if go is None:
        pytest.skip("Go is not installed")
    monkeypatch.delenv("STREAMTWIN_BIN")
    monkeypatch.setenv("PATH", os.path.dirname(go))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(_cli, "_built", None)
    exe = _cli.binary()
    assert exe.parent == tmp_path / "cache" / "streamtwin" and os.access(exe, os.X_OK)
    assert _cli.binary() == exe  # once per process
    r = streamtwin.run("scenarios/demo.yaml", out=tmp_path / "demo")
    assert r.summary["faults"] == 2
