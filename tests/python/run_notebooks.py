#!/usr/bin/env python3
"""Execute the analysis notebooks headless and fail if any cell errors.

Usage:
  .venv/bin/python tests/python/run_notebooks.py --run DIR --sweep DIR --variants DIR --out DIR
                   [--timeout SECONDS] [--keep OUT_DIR] [NOTEBOOK ...]

Each notebook in notebooks/ runs in a fresh kernel, with its working directory
set to notebooks/ and its input folder passed through the environment:

  notebooks/single-run.ipynb         STREAMTWIN_RUN       <- --run      (a run folder)
  notebooks/sweep-analysis.ipynb     STREAMTWIN_SWEEP     <- --sweep    (a sweep folder with runs.parquet)
  notebooks/policy-comparison.ipynb  STREAMTWIN_VARIANTS  <- --variants (a folder of variant run folders)
  notebooks/python-api.ipynb         STREAMTWIN_OUT       <- --out      (where its runs go; it makes them)

Folders are relative to the current directory. An option left out leaves the
variable as it is (unset: the notebook's default under runs/).

The kernel is ipykernel of the Python running this script (the venv's), taken
from the ipykernel package itself: no kernel spec is looked up in ~/.local,
JUPYTER_PATH or the system, and IPython's profile and Jupyter's connection
files go to a temporary directory. Notebooks execute in memory; the committed
files are never written (--keep writes executed copies elsewhere). A committed
notebook that still carries outputs also fails: clear them before saving.

Prints the error of the failing cell and ends with
"notebooks: N passed, M failed". Exits 1 if any notebook failed, 2 on bad usage.
"""

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from traitlets import default
from traitlets.config import Config

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"

# notebook -> (environment variable, command-line option)
NOTEBOOKS = {
    "single-run.ipynb": ("STREAMTWIN_RUN", "run"),
    "sweep-analysis.ipynb": ("STREAMTWIN_SWEEP", "sweep"),
    "policy-comparison.ipynb": ("STREAMTWIN_VARIANTS", "variants"),
    "python-api.ipynb": ("STREAMTWIN_OUT", "out"),
}

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class VenvKernelManager(AsyncKernelManager):
    """Starts only the native kernel of the installed ipykernel package, with
    sys.executable (this venv's Python): kernel_dirs=[] means no kernel spec
    is looked up in ~/.local, JUPYTER_PATH, sys.prefix or the system."""

    @default("kernel_spec_manager")
    def _venv_kernel_spec_manager(self):
        return KernelSpecManager(kernel_dirs=[])


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", metavar="DIR", help="run folder for single-run.ipynb")
    p.add_argument("--sweep", metavar="DIR", help="sweep folder for sweep-analysis.ipynb")
    p.add_argument("--variants", metavar="DIR", help="variants folder for policy-comparison.ipynb")
    p.add_argument("--out", metavar="DIR", help="output folder of python-api.ipynb (it runs the twin itself)")
    p.add_argument("--timeout", type=float, default=120, help="seconds per cell (default 120)")
    p.add_argument("--keep", metavar="OUT_DIR", help="also write the executed notebooks into OUT_DIR")
    p.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                   help=f"run only these (default: all of {', '.join(NOTEBOOKS)})")
    args = p.parse_args(argv)
    for name in args.notebooks:
        if Path(name).name not in NOTEBOOKS:
            p.error(f"unknown notebook {name!r}; known: {', '.join(NOTEBOOKS)}")
    return args


def stored_outputs(nb):
    """Cells of a committed notebook that still carry outputs or execution counts."""
    return [i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and (c.get("outputs") or c.get("execution_count") is not None)]


def failing_cell_report(nb):
    """Source and error of the first cell whose outputs hold an error (after a failed run)."""
    for i, c in enumerate(nb.cells):
        for out in c.get("outputs", []) if c.cell_type == "code" else []:
            if out.get("output_type") == "error":
                tb = ANSI.sub("", "\n".join(out.get("traceback", [])))
                return f"cell {i}:\n{c.source}\n----\n{tb}"
    return None


def run_notebook(path, env, timeout, keep_dir, socket_prefix):
    nb = nbformat.read(path, as_version=4)
    dirty = stored_outputs(nb)
    if dirty:
        raise RuntimeError(f"{path.name} is saved with outputs in cells {dirty}; clear them before saving")

    # On POSIX the kernel talks over Unix sockets in the temporary directory
    # rather than unencrypted localhost TCP.
    config = Config()
    if os.name == "posix":
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = socket_prefix
    # The client owns the kernel manager, so it shuts the kernel down after the notebook.
    client = NotebookClient(nb, kernel_manager_class=VenvKernelManager, kernel_name="python3", config=config,
                            timeout=timeout, startup_timeout=120, resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute(env=env)
    except Exception as e:  # CellExecutionError, CellTimeoutError, DeadKernelError, ...
        report = failing_cell_report(nb) or ANSI.sub("", f"{type(e).__name__}: {e}")
        raise RuntimeError(report) from None
    finally:
        if keep_dir:
            keep_dir.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, keep_dir / path.name)


def main(argv):
    args = parse_args(argv)
    names = [Path(n).name for n in args.notebooks] or list(NOTEBOOKS)
    keep_dir = Path(args.keep).resolve() if args.keep else None

    with tempfile.TemporaryDirectory(prefix="streamtwin-nb-") as tmp:
        # Connection files are written by this process: keep them (and the
        # kernels' IPython profile) out of the home directory.
        os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(tmp, "runtime")
        os.environ["IPYTHONDIR"] = os.path.join(tmp, "ipython")
        base_env = dict(os.environ)
        base_env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"  # headless, figures in memory
        base_env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # quiet debugpy warning on kernel start

        passed = failed = 0
        start_all = time.monotonic()
        for name in names:
            var, opt = NOTEBOOKS[name]
            env = dict(base_env)
            folder = getattr(args, opt)
            if folder is not None:
                env[var] = str(Path(folder).resolve())
            start = time.monotonic()
            try:
                run_notebook(NOTEBOOK_DIR / name, env, args.timeout, keep_dir,
                             socket_prefix=os.path.join(tmp, f"kernel-{Path(name).stem}"))
            except Exception as e:
                failed += 1
                print(f"FAIL {name} ({time.monotonic() - start:.1f} s) {var}={env.get(var, '(default)')}")
                print("  " + str(e).replace("\n", "\n  "), flush=True)
            else:
                passed += 1
                print(f"ok   {name} ({time.monotonic() - start:.1f} s)", flush=True)

    print(f"({time.monotonic() - start_all:.1f} s)")
    print(f"notebooks: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
