"""streamtwin from Python: run the twin, sweep it and compare results
from a notebook, as pandas objects.

    import streamtwin
    run = streamtwin.run("scenarios/demo.yaml")
    run.timeseries.plot(x="time_s", y=["input_rate", "throughput"])
    run.summary["recovery_mean_s"]

Every call runs the streamtwin command (found on PATH, or built once from
the checkout around you: see ``binary``), so a notebook and a shell give the
same bytes. A command that refuses its input raises ``BadInput`` carrying
its message (the scenario's file, line, field and allowed range).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterable, Optional, Union

from ._cli import BadInput, StreamtwinError, binary, call, scenario_file
from .results import Run, Runs, Sweep

__all__ = ["run", "sweep", "compare", "Run", "Runs", "Sweep", "StreamtwinError", "BadInput", "binary"]

PathLike = Union[str, os.PathLike]

# What `streamtwin run` prints per run: "... → DIR".
_RUN_LINE = re.compile(r"→ (.+)$")


def _call_with(args, path: Path, temporary: bool):
    """Calls the CLI on a scenario file; a temporary one (a dict) is
    removed after, and named "the scenario dict" in an error, without the
    line of a file the user never saw."""
    try:
        return call(args)
    except StreamtwinError as e:
        if temporary:
            e.message = re.sub(re.escape(str(path)) + r"(:\d+)?", "the scenario dict", e.message)
            e.args = (e.message,)
        raise
    finally:
        if temporary:
            path.unlink()


def run(
    scenario: Union[PathLike, dict],
    *,
    seed: Optional[int] = None,
    variant: Union[str, Iterable[str], None] = None,
    out: Optional[PathLike] = None,
    plot: bool = False,
    set: Optional[dict] = None,
) -> Union[Run, Runs]:
    """Simulates a scenario and returns its run.

    scenario is a YAML file or a dict of the same keys (written to a
    temporary file in the current folder, so that relative paths in it mean
    what they mean beside the notebook). seed replaces the scenario's root
    seed; variant runs only that variant (or those, a list); out is the
    output folder (default runs/<scenario name>, as the CLI's); plot also
    draws figure.png in each run folder. set maps scenario field paths to
    values, over the file's and its variants' (``--set``): a string is YAML
    text (``"30s"``), anything else is written as JSON, e.g.
    ``set={"job.checkpoint.interval": "30s", "policy": {"name": "hpa"}}``.

    A scenario without variants, or one variant asked for by name, gives a
    ``Run``; several variants a ``Runs`` (a dict of Run by variant name).
    """
    path, temporary = scenario_file(scenario, Path.cwd())
    args = ["run", str(path)]
    if seed is not None:
        args += ["--seed", str(int(seed))]
    if isinstance(variant, str):
        variant = [variant]
    for v in variant or []:
        args += ["--variant", v]
    if out is not None:
        args += ["--out", str(out)]
    if plot:
        args.append("--plot")
    for field, value in (set or {}).items():
        args += ["--set", "%s=%s" % (field, value if isinstance(value, str) else json.dumps(value))]
    done = _call_with(args, path, temporary)
    dirs = [m.group(1) for line in done.stdout.splitlines() if (m := _RUN_LINE.search(line))]
    if not dirs:
        raise StreamtwinError("run: the command named no run folder:\n" + done.stdout.strip(), 0, args)
    runs = [Run(d) for d in dirs]
    one_asked = isinstance(variant, list) and len(variant) == 1
    if one_asked or (len(runs) == 1 and not runs[0].summary.get("variant")):
        return runs[0]
    return Runs((r.summary.get("variant") or r.dir.name, r) for r in runs)


def sweep(
    spec: Union[PathLike, dict],
    *,
    out: Optional[PathLike] = None,
    workers: Optional[int] = None,
    resume: bool = False,
) -> Sweep:
    """Runs a parameter sweep (a sweep file, or a dict of its keys) and
    returns it: ``Sweep.runs`` is runs.parquet as a DataFrame, a row per run.
    resume skips the runs an interrupted sweep into out completed. A dict
    needs out; a file's sweep goes to the CLI's default, runs/sweep-<file>."""
    if isinstance(spec, dict) and out is None:
        raise ValueError("sweep: a sweep given as a dict needs out=, the folder to write it into")
    path, temporary = scenario_file(spec, Path.cwd())
    args = ["sweep", str(path)]
    if out is not None:
        args += ["--out", str(out)]
    if workers is not None:
        args += ["--workers", str(int(workers))]
    if resume:
        args.append("--resume")
    done = _call_with(args, path, temporary)
    if out is None:  # the CLI's default folder, as it reports it: "… → OUT/runs.parquet"
        m = re.search(r"→ (\S+)runs\.parquet\s*$", done.stdout + done.stderr, re.M)
        if m is None:
            raise StreamtwinError("sweep: the command did not say where it wrote the sweep; give out=", 0, args)
        out = m.group(1)
    return Sweep(out)


def compare(
    a: PathLike,
    b: PathLike,
    *,
    rel: Optional[float] = None,
    abs: Optional[float] = None,
    tolerance: Optional[PathLike] = None,
):
    """Compares two result sets figure by figure (``streamtwin compare``):
    A is the baseline, B the candidate; each a run folder, a folder of run
    folders, a sweep folder or a summary/reference JSON file.

    Returns a DataFrame with a row per (run, figure): ``a``, ``b``, ``diff``
    (b − a), ``rel`` ((b − a)/|a|), the tolerance it was held to
    (``tol_rel``, ``tol_abs``, ``informational``) and its ``status`` (same,
    ok, info, BEYOND, only in A, only in B). Figures beyond tolerance are a
    result, not an error; ``df.attrs["beyond"]`` counts them.
    """
    import io

    from .results import _pandas

    args = ["compare", str(a), str(b), "--format", "csv"]
    if rel is not None:
        args += ["--rel", repr(float(rel))]
    if abs is not None:
        args += ["--abs", repr(float(abs))]
    if tolerance is not None:
        args += ["--tolerance", str(tolerance)]
    done = call(args, ok=(0, 1))
    df = _pandas().read_csv(io.StringIO(done.stdout), keep_default_na=False, na_values=[""])
    df.attrs["beyond"] = int((df["status"] == "BEYOND").sum())
    return df
