#!/usr/bin/env python3
"""Check that run folders written by streamtwin open in pandas and DuckDB.

Usage: check_outputs.py RUN_DIR [RUN_DIR ...]

For each run folder: timeseries.parquet and events.parquet must open with
pandas (pyarrow engine) and with DuckDB, carry the columns of results/schema.go
with the expected types, and agree on their row counts; time_s must be
strictly increasing in the timeseries; summary.json must parse and carry every
key of results/summary.go. Exits 1 naming each failure, 2 on bad usage.

The column and key lists below mirror the Go struct tags; a Go test
(results/python_sync_test.go) fails when they drift apart.
"""

import json
import math
import os
import sys

import duckdb
import pandas as pd

# results.Sample parquet tags -> DuckDB type.
SAMPLE_COLUMNS = {
    "time_s": "DOUBLE",
    "input_rate": "DOUBLE",
    "throughput": "DOUBLE",
    "output_rate": "DOUBLE",
    "capacity": "DOUBLE",
    "lag": "DOUBLE",
    "end_offset": "DOUBLE",
    "committed_offset": "DOUBLE",
    "latency_mean_ms": "DOUBLE",
    "latency_p50_ms": "DOUBLE",
    "latency_p99_ms": "DOUBLE",
    "latency_marker_p99_ms": "DOUBLE",
    "checkpoint_interval_s": "DOUBLE",
    "parallelism": "INTEGER",
    "workers": "INTEGER",
    "cpu_busy_mean": "DOUBLE",
    "cpu_busy_max": "DOUBLE",
    "backpressure": "DOUBLE",
    "job_state": "VARCHAR",
    "recovering": "BOOLEAN",
}

# results.Event parquet tags -> DuckDB type.
EVENT_COLUMNS = {
    "time_s": "DOUBLE",
    "kind": "VARCHAR",
    "taskmanager": "INTEGER",
    "checkpoint_id": "BIGINT",
    "duration_s": "DOUBLE",
    "size_bytes": "DOUBLE",
    "value": "DOUBLE",
    "reason": "VARCHAR",
}

# results.Kind* constants.
EVENT_KINDS = {
    "fault",
    "failure_detected",
    "restart",
    "taskmanager_started",
    "running",
    "recovered",
    "checkpoint_completed",
    "checkpoint_failed",
    "savepoint_completed",
    "reconfigured",
    "policy_decision",
    "policy_error",
    "unrecovered",
    "model_recovered",
    "run_end",
}

# results.Summary json tags.
SUMMARY_KEYS = [
    "scenario", "variant", "seed", "backend",
    "duration_s",
    "records_in", "records_processed", "records_replayed", "throughput_mean", "final_lag", "lag_max",
    "latency_mean_ms", "latency_p50_ms", "latency_p99_ms", "latency_steady_mean_ms",
    "latency_marker_mean_ms", "latency_coverage",
    "faults", "recoveries", "unrecovered_faults", "recovery_times_s", "recovery_mean_s",
    "recovery_median_s", "recovery_max_s", "downtime_s", "final_state",
    "checkpoints_completed", "checkpoints_failed",
    "checkpoint_duration_mean_s", "checkpoint_time_s", "checkpoint_interval_mean_s",
    "reconfigurations", "worker_seconds", "cpu_busy_mean",
    "qos",
]

# Summary keys and timeseries columns that count records: whole numbers.
COUNT_KEYS = ["records_in", "records_processed", "records_replayed", "final_lag", "lag_max"]
COUNT_COLUMNS = ["lag", "end_offset", "committed_offset"]

# Keys present only in some runs: "sink_audit" (live run --exactly-once).
OPTIONAL_OBJECT_KEYS = ["sink_audit"]

# results.QoSSummary json tags.
QOS_KEYS = [
    "latency_bound_ms", "recovery_bound_s",
    "latency_violation_seconds", "recovery_violations",
]


class CheckError(Exception):
    pass


def check_parquet(con, path, columns, need_rows):
    """Open path with pandas and DuckDB; return the pandas frame."""
    if not os.path.isfile(path):
        raise CheckError(f"{path}: missing")
    try:
        df = pd.read_parquet(path, engine="pyarrow")
    except Exception as e:  # any reader failure is the finding
        raise CheckError(f"{path}: pandas/pyarrow cannot read it: {e}") from e
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise CheckError(f"{path}: pandas sees no column(s) {missing}; has {list(df.columns)}")

    try:
        described = con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [path]).fetchall()
        (n_duck,) = con.execute("SELECT count(*) FROM read_parquet(?)", [path]).fetchone()
    except duckdb.Error as e:
        raise CheckError(f"{path}: DuckDB cannot read it: {e}") from e
    types = {row[0]: row[1] for row in described}
    for col, want in columns.items():
        got = types.get(col)
        if got is None:
            raise CheckError(f"{path}: DuckDB sees no column {col!r}; has {sorted(types)}")
        if got != want:
            raise CheckError(f"{path}: column {col!r} is {got} in DuckDB, want {want}")
    if n_duck != len(df):
        raise CheckError(f"{path}: pandas reads {len(df)} rows but DuckDB counts {n_duck}")
    if need_rows and len(df) == 0:
        raise CheckError(f"{path}: no rows")
    return df


def check_timeseries(con, path):
    df = check_parquet(con, path, SAMPLE_COLUMNS, need_rows=True)
    t = df["time_s"].to_numpy()
    if pd.isna(t).any():
        raise CheckError(f"{path}: time_s has NaN")
    bad = (t[1:] <= t[:-1]).nonzero()[0] + 1  # rows not above their predecessor
    if len(bad):
        i = int(bad[0])
        raise CheckError(
            f"{path}: time_s not strictly increasing at row {i}: "
            f"{float(t[i - 1])} then {float(t[i])} ({len(bad)} such rows)")
    # The same property through DuckDB, in file order.
    (n_bad,) = con.execute(
        "SELECT count(*) FROM (SELECT time_s - lag(time_s) OVER (ORDER BY file_row_number) AS d "
        "FROM read_parquet(?, file_row_number = true)) WHERE d <= 0", [path]).fetchone()
    if n_bad:
        raise CheckError(f"{path}: DuckDB finds {n_bad} rows where time_s does not increase")
    # Record counts are whole records (DOUBLE columns without fractions).
    for col in COUNT_COLUMNS:
        frac = df[col][(df[col] % 1) != 0]
        if len(frac):
            raise CheckError(f"{path}: {col} holds fractions of a record, e.g. {float(frac.iloc[0])!r}")
    # NaN latencies (job down) must be seen as NaN by DuckDB too: wrong
    # column statistics make DuckDB's optimizer assume there are none.
    for col in ("latency_mean_ms", "latency_p50_ms", "latency_p99_ms", "latency_marker_p99_ms"):
        (n_nan,) = con.execute(
            f"SELECT count(*) FROM read_parquet(?) WHERE isnan({col})", [path]).fetchone()
        if n_nan != int(df[col].isna().sum()):
            raise CheckError(f"{path}: {col}: DuckDB counts {n_nan} NaN, pandas {int(df[col].isna().sum())}")
    return len(df)


def check_events(con, path):
    df = check_parquet(con, path, EVENT_COLUMNS, need_rows=False)
    unknown = sorted(set(df["kind"].dropna()) - EVENT_KINDS)
    if unknown:
        raise CheckError(f"{path}: unknown event kind(s) {unknown}")
    if df["kind"].isna().any() or df["time_s"].isna().any():
        raise CheckError(f"{path}: kind and time_s must never be null")
    return len(df)


def check_summary(path):
    try:
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
    except FileNotFoundError as e:
        raise CheckError(f"{path}: missing") from e
    except (OSError, ValueError) as e:
        raise CheckError(f"{path}: does not parse as JSON: {e}") from e
    if not isinstance(s, dict):
        raise CheckError(f"{path}: top level is {type(s).__name__}, want an object")
    missing = [k for k in SUMMARY_KEYS if k not in s]
    if missing:
        raise CheckError(f"{path}: missing key(s) {missing}")
    if not isinstance(s["qos"], dict):
        raise CheckError(f"{path}: qos is {type(s['qos']).__name__}, want an object")
    missing = [k for k in QOS_KEYS if k not in s["qos"]]
    if missing:
        raise CheckError(f"{path}: qos lacks key(s) {missing}")
    for k in OPTIONAL_OBJECT_KEYS:
        if k in s and not isinstance(s[k], dict):
            raise CheckError(f"{path}: {k} is {type(s[k]).__name__}, want an object")
    if s["backend"] not in ("sim", "live"):
        raise CheckError(f"{path}: backend is {s['backend']!r}, want 'sim' or 'live'")
    if not isinstance(s["recovery_times_s"], list):
        raise CheckError(f"{path}: recovery_times_s is {s['recovery_times_s']!r}, want a list")
    for k in COUNT_KEYS:  # whole records, written as JSON integers
        if not isinstance(s[k], int):
            raise CheckError(f"{path}: {k} is {s[k]!r}, want a whole number of records")
    return s


# results.TradeoffRow and results.HostSample parquet tags: a run with a
# monitoring section (docs/monitoring.md) also has these files.
TRADEOFF_COLUMNS = {
    "sampler": "VARCHAR", "param_name": "VARCHAR", "param": "DOUBLE", "metric": "VARCHAR",
    "samples_share": "DOUBLE", "bytes_share": "DOUBLE", "mae": "DOUBLE", "mape": "DOUBLE",
    "missed_peaks": "INTEGER", "peaks": "INTEGER",
}
HOST_COLUMNS = {"time_s": "DOUBLE", "metric": "VARCHAR", "value": "DOUBLE"}


def check_monitoring(con, run_dir):
    """tradeoff.parquet, tradeoff.csv and hostmetrics.parquet agree and open in pandas and DuckDB."""
    trade = check_parquet(con, os.path.join(run_dir, "tradeoff.parquet"), TRADEOFF_COLUMNS, need_rows=True)
    csv = pd.read_csv(os.path.join(run_dir, "tradeoff.csv"))
    if list(csv.columns) != list(TRADEOFF_COLUMNS) or len(csv) != len(trade):
        raise CheckError(f"{run_dir}: tradeoff.csv has {list(csv.columns)} × {len(csv)}, tradeoff.parquet {len(trade)} rows")
    (n_csv,) = con.execute("SELECT count(*) FROM read_csv_auto(?)", [os.path.join(run_dir, "tradeoff.csv")]).fetchone()
    if n_csv != len(trade):
        raise CheckError(f"{run_dir}: DuckDB reads {n_csv} rows of tradeoff.csv, want {len(trade)}")
    bad = trade[(trade.bytes_share < 0) | (trade.bytes_share > 1) | (trade.missed_peaks > trade.peaks)]
    if len(bad):
        raise CheckError(f"{run_dir}: tradeoff rows out of range:\n{bad}")
    host = check_parquet(con, os.path.join(run_dir, "hostmetrics.parquet"), HOST_COLUMNS, need_rows=True)
    wide = host.pivot(index="time_s", columns="metric", values="value")
    if "load" not in wide.columns or set(trade.metric) - {"all"} - set(wide.columns):
        raise CheckError(f"{run_dir}: hostmetrics.parquet has metrics {list(wide.columns)}, tradeoff {sorted(set(trade.metric))}")
    return len(trade)


def check_run(con, run_dir):
    if os.path.isfile(os.path.join(run_dir, "tradeoff.parquet")):
        check_monitoring(con, run_dir)
    n_samples = check_timeseries(con, os.path.join(run_dir, "timeseries.parquet"))
    n_events = check_events(con, os.path.join(run_dir, "events.parquet"))
    s = check_summary(os.path.join(run_dir, "summary.json"))
    if not os.path.isfile(os.path.join(run_dir, "scenario.yaml")):
        raise CheckError(f"{run_dir}: scenario.yaml missing")
    dur = s["duration_s"]
    if isinstance(dur, (int, float)) and math.isfinite(dur) and dur < 0:
        raise CheckError(f"{run_dir}: summary duration_s is negative ({dur})")
    return n_samples, n_events, s


def main(argv):
    if len(argv) < 2 or any(a in ("-h", "--help") for a in argv[1:]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    con = duckdb.connect()
    passed = failed = 0
    for run_dir in argv[1:]:
        try:
            if not os.path.isdir(run_dir):
                raise CheckError(f"{run_dir}: not a directory")
            n_samples, n_events, s = check_run(con, run_dir)
        except CheckError as e:
            failed += 1
            print(f"FAIL {e}", file=sys.stderr)
            continue
        passed += 1
        print(f"ok   {run_dir}: {n_samples} samples, {n_events} events, "
              f"scenario={s['scenario']!r} variant={s['variant']!r}")
    print(f"check_outputs: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
