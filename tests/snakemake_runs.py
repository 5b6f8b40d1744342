"""``snakemake ARGS`` for the tests, each run a fork of one process per test process that has
imported Snakemake and its libraries: the ``snakemake`` console script's ``main`` with the given
argument list, working folder and environment, its stdout and stderr captured. A fresh
``snakemake -n`` spent ~1.2 of its ~1.7 CPU s importing them (2-core machine); the suite runs
~50. Only Snakemake's own imports and its third-party libraries are loaded before the fork: the
Snakefile and the package's modules it imports are read in each run, as the console script reads
them. Tests that look at what a fresh process imports run the console script itself."""

from __future__ import annotations

import atexit
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

SNAKEMAKE = shutil.which("snakemake")

# The server: reads one request a line (id, argv, cwd, env, out, err), forks a waiter that forks
# the run and writes (id, exit status) back on the server's stdout when the run ends; runs go on
# side by side. Every process is waited for, so the runs' CPU time counts in the test process's
# children's (what `time pytest` reports).
SERVER = r"""
import json, os, sys
import jsonschema, pandas, smart_open, yaml
import snakemake.api, snakemake.cli, snakemake.dag, snakemake.jobs, snakemake.persistence, snakemake.workflow
snakemake.cli.get_argument_parser()  # (its plugin registries: each collects its plugins once a process)

answers = os.fdopen(os.dup(1), "w")
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
waiters = set()
for line in sys.stdin:
    request = json.loads(line)
    waiter = os.fork()
    if waiter:
        waiters.add(waiter)
        waiters -= {w for w in waiters if os.waitpid(w, os.WNOHANG)[0]}  # (the ended ones reaped)
        continue
    pid = os.fork()
    if pid == 0:  # the run: the console script's main, ending as it ends
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        for fd, path in ((1, request["out"]), (2, request["err"])):
            os.dup2(os.open(path, os.O_WRONLY | os.O_TRUNC), fd)
        answers.close()
        sys.argv = ["snakemake", *request["argv"]]
        sys.exit(snakemake.cli.main())
    _, status = os.waitpid(pid, 0)
    answers.write(json.dumps([request["id"], os.waitstatus_to_exitcode(status)]) + "\n")
    answers.flush()
    os._exit(0)
for waiter in waiters:  # (their CPU time counted in this process's children's, and so in the caller's)
    os.waitpid(waiter, 0)
"""


class _Server:
    """The forking process of this test process, started at its first run."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.ids = itertools.count()
        self.lock = threading.Lock()
        self.done: dict[int, int] = {}
        self.closed = False  # the server's answers ended (it died: every waiting run raises)
        self.ended = threading.Condition(self.lock)
        threading.Thread(target=self._read, daemon=True).start()
        atexit.register(self.close)

    def close(self) -> None:
        """End the server once its runs have ended (and wait for it)."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            key, code = json.loads(line)
            with self.lock:
                self.done[key] = code
                self.ended.notify_all()
        with self.lock:
            self.closed = True
            self.ended.notify_all()

    def run(self, argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory() as folder:
            out, err = Path(folder, "out"), Path(folder, "err")
            out.touch()
            err.touch()
            with self.lock:
                key = next(self.ids)
                assert self.process.stdin is not None
                self.process.stdin.write(json.dumps({"id": key, "argv": argv, "cwd": str(cwd), "env": env,
                                                     "out": str(out), "err": str(err)}) + "\n")
                self.process.stdin.flush()
                while key not in self.done:
                    if self.closed:
                        raise RuntimeError(f"snakemake server ended (exit status {self.process.wait()})")
                    self.ended.wait()
                code = self.done.pop(key)
            return subprocess.CompletedProcess(["snakemake", *argv], code, out.read_text(), err.read_text())


_server: _Server | None = None
_starting = threading.Lock()


def snakemake(*argv: str, cwd: Path | str | None = None, env: dict[str, str] | None = None
              ) -> subprocess.CompletedProcess:
    """``snakemake ARGV`` run in ``cwd`` (default: this process's) with ``env`` (default: this
    process's environment), as ``subprocess.run(..., capture_output=True, text=True)`` gives it."""
    global _server
    with _starting:
        if _server is None:
            _server = _Server()
    return _server.run(list(argv), Path(cwd or os.getcwd()), dict(os.environ if env is None else env))
