"""Finding, building and calling the streamtwin command.

The Python API is a thin layer over the CLI: every run, sweep and
comparison is the Go program's, so a notebook and a shell give the same
bytes. This module finds the binary (or builds it once from the
repository) and turns a failed command into an exception that carries the
command's own message (file, line and field of a scenario error).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

MODULE = "github.com/streamtwin/streamtwin"

_built: Optional[Path] = None


class StreamtwinError(Exception):
    """A streamtwin command failed.

    ``message`` is what the command printed on stderr (for a scenario, the
    file, line, field and allowed range), ``code`` its exit status: 2 for bad
    input, 1 for a failure, and ``command`` the arguments it was given.
    """

    def __init__(self, message: str, code: int, command: Sequence[str]):
        super().__init__(message)
        self.message = message
        self.code = code
        self.command = list(command)


class BadInput(StreamtwinError):
    """The command refused its input (exit status 2): a scenario, flag or
    folder it cannot use. The message names what to fix."""


def _repository(start: Path) -> Optional[Path]:
    """The streamtwin checkout that holds start, if any."""
    for d in [start, *start.parents]:
        mod = d / "go.mod"
        if mod.is_file() and mod.read_text().startswith("module " + MODULE + "\n"):
            return d
    return None


def binary() -> Path:
    """The streamtwin binary the API calls.

    In order: ``$STREAMTWIN_BIN``; ``streamtwin`` on ``PATH``; else the
    binary built once per process with ``go build`` from the streamtwin
    checkout around the current directory or around this package, into a
    cache folder (``$XDG_CACHE_HOME/streamtwin``, never into the checkout).
    """
    global _built
    if env := os.environ.get("STREAMTWIN_BIN"):
        p = Path(env)
        if not (p.is_file() and os.access(p, os.X_OK)):
            raise FileNotFoundError(f"STREAMTWIN_BIN={env}: not an executable file")
        return p
    if found := shutil.which("streamtwin"):
        return Path(found)
    if _built is not None:
        return _built
    repo = _repository(Path.cwd().resolve()) or _repository(Path(__file__).resolve().parent)
    if repo is None:
        raise FileNotFoundError(
            "no streamtwin binary: put it on PATH (in a checkout: make build, then add bin/ to PATH), "
            "set STREAMTWIN_BIN, or call the API from inside a streamtwin checkout so that it can build one"
        )
    go = shutil.which("go")
    if go is None:
        raise FileNotFoundError(
            f"no streamtwin binary on PATH, and Go is not installed to build it from {repo}: "
            "install Go >= 1.26 (https://go.dev/dl/) or put a built streamtwin on PATH"
        )
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "streamtwin"
    cache.mkdir(parents=True, exist_ok=True)
    import hashlib

    out = cache / ("streamtwin-" + hashlib.sha256(str(repo).encode()).hexdigest()[:12])
    print(f"streamtwin: building the binary from {repo} (once) …", file=sys.stderr)
    done = subprocess.run([go, "build", "-o", str(out), "./cmd/streamtwin"], cwd=repo, capture_output=True, text=True)
    if done.returncode != 0:
        raise StreamtwinError("go build failed:\n" + done.stderr.strip(), done.returncode, ["go", "build"])
    _built = out
    return out


def call(args: Sequence[str], cwd: Optional[Path] = None, ok: Sequence[int] = (0,)) -> subprocess.CompletedProcess:
    """Runs streamtwin with args; a status outside ok raises BadInput
    (status 2) or StreamtwinError."""
    cmd = [str(binary()), *args]
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode not in ok:
        msg = done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}"
        msg = msg.removeprefix("streamtwin: ")
        kind = BadInput if done.returncode == 2 else StreamtwinError
        raise kind(msg, done.returncode, args)
    return done


def scenario_file(scenario, folder: Path):
    """A path to give the CLI for scenario (a path, or a dict written as
    JSON, which is YAML, into folder) and whether the file is temporary."""
    if isinstance(scenario, (str, os.PathLike)):
        return Path(scenario), False
    if not isinstance(scenario, dict):
        raise TypeError(f"scenario: want a path or a dict, got {type(scenario).__name__}")
    import json

    # In the current folder, so that relative paths in the scenario (a
    # workload file, a profile) mean what they mean beside the notebook.
    fd, name = tempfile.mkstemp(prefix=".streamtwin-scenario-", suffix=".yaml", dir=folder)
    with os.fdopen(fd, "w") as f:
        json.dump(scenario, f, indent=1)
    return Path(name), True
