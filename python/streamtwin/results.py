"""Run and sweep folders as pandas objects.

A run folder holds timeseries.parquet (one row per sample), events.parquet
(one row per event) and summary.json (the run's figures); a sweep folder
runs.parquet (a row per run: its parameters and summary figures) and
runs/<run_id>/. docs/results.md defines every column; these classes read
the files as they are, nothing is recomputed in Python.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Iterator


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - the package depends on it
        raise ImportError("streamtwin's results need pandas and pyarrow: pip install pandas pyarrow") from e
    return pandas


class Run:
    """One run folder: ``dir``, and its ``timeseries``, ``events`` (pandas
    DataFrames) and ``summary`` (a dict, as summary.json), read on first use."""

    def __init__(self, dir):
        self.dir = Path(dir)
        if not (self.dir / "summary.json").is_file():
            raise FileNotFoundError(f"{self.dir}: not a run folder (no summary.json)")

    def __repr__(self) -> str:
        s = self.summary
        name = s.get("scenario", "?") + (("/" + s["variant"]) if s.get("variant") else "")
        return f"Run({name!r}, dir={str(self.dir)!r})"

    @cached_property
    def summary(self) -> dict:
        return json.loads((self.dir / "summary.json").read_text())

    @cached_property
    def timeseries(self):
        return _pandas().read_parquet(self.dir / "timeseries.parquet")

    @cached_property
    def events(self):
        return _pandas().read_parquet(self.dir / "events.parquet")


class Runs(dict):
    """The runs of a scenario's variants, by variant name (in the
    scenario's order)."""

    def summaries(self):
        """One row per variant: its summary figures (the nested ones, such
        as the QoS, flattened to ``qos.…`` columns)."""
        pd = _pandas()
        return pd.json_normalize([r.summary for r in self.values()]).set_index(pd.Index(list(self), name="variant"))


class Sweep:
    """A sweep folder: ``runs`` (runs.parquet, one row per run) and each
    run by its id (``sweep["r000000"]``, or iterate)."""

    def __init__(self, dir):
        self.dir = Path(dir)
        if not (self.dir / "runs.parquet").is_file():
            raise FileNotFoundError(f"{self.dir}: not a sweep folder (no runs.parquet)")

    def __repr__(self) -> str:
        return f"Sweep(dir={str(self.dir)!r}, runs={len(self.runs)})"

    @cached_property
    def runs(self):
        return _pandas().read_parquet(self.dir / "runs.parquet")

    def __getitem__(self, run_id: str) -> Run:
        return Run(self.dir / "runs" / run_id)

    def __iter__(self) -> Iterator[Run]:
        for rid in self.runs["run_id"]:
            yield self[rid]

    def __len__(self) -> int:
        return len(self.runs)
