"""A call run in a forked child process while this one goes on: what a fresh command-line process
does to read its input while it imports its solver (numba, CuPy). Both hold the interpreter, so
a thread cannot overlap them; a child process runs on another core. The child sends back its
result (or its exception) and the ``splicedalign`` log records it made, pickled into an unnamed
file both processes hold (a memfd): it writes them whole and ends while the parent is still busy,
where a pipe (64 KB) held it until the parent read, then passed the answer 64 KB at a time (a
paper-shaped set's 12.6 MB: 12-15 ms of the parent's wait on the CPU machine). The parent says
the records first, in order, then returns or raises.

Only in the console script's process (ENABLED) and on Linux (fork is the platform's way;
elsewhere, or with other threads running, where a fork is unsafe, the call simply runs
in-process when its result is asked for).
"""

from __future__ import annotations

import logging
import mmap
import os
import pickle
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
LOGGER = "splicedalign"
# Set by the console script (splicedalign.cli.run), a short process of its own; elsewhere (the
# CLI's main called in-process, as tests do; a library caller) calls run in-process, where the
# caller's own state (patched functions, captured streams) sees them.
ENABLED = False


class _Kept(logging.Handler):
    """The child's log records, kept to be said by the parent (formatted there)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        record.msg, record.args, record.exc_info = record.getMessage(), None, None  # picklable
        self.records.append(record)


def _child(call: Callable[[], Any], fd: int) -> None:
    """In the child: run ``call``, write (records, ok, value) into the file ``fd`` and end at
    once (os._exit: no atexit handlers, no buffers of the parent's flushed twice)."""
    try:
        log = logging.getLogger(LOGGER)
        kept = _Kept()
        for handler in log.handlers[:]:
            log.removeHandler(handler)
        log.addHandler(kept)
        try:
            payload: tuple = (True, call())
        except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
            payload = (False, exc)
        try:
            data = pickle.dumps((kept.records, *payload), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
            data = pickle.dumps((kept.records, False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        with os.fdopen(fd, "wb") as answer:
            answer.write(data)
    finally:
        os._exit(0)


def _shared_file() -> int:
    """An unnamed file for the child's answer: a memfd (Linux), else a temporary file."""
    try:
        return os.memfd_create("splicedalign-answer", os.MFD_CLOEXEC)
    except (AttributeError, OSError):  # no memfd here
        import tempfile  # here only: its import (random, shutil) is a fresh process's cost

        with tempfile.TemporaryFile() as file:  # unlinked already; its descriptor kept open
            return os.dup(file.fileno())


def start(call: Callable[[], T]) -> Callable[[], T]:
    """``call`` started in a forked child process; returns ``wait``, which gives its result in
    this process (or raises its exception), after saying its log records. Where forking is not
    safe (not Linux, other threads running) or not ENABLED, ``wait`` is ``call`` itself; a child
    that dies without an answer has ``wait`` run ``call`` here."""
    if not ENABLED or not sys.platform.startswith("linux") or threading.active_count() > 1:
        return call
    fd = _shared_file()
    pid = os.fork()
    if pid == 0:
        _child(call, fd)

    def wait() -> T:
        try:
            _, status = os.waitpid(pid, 0)
            size = os.fstat(fd).st_size
            if not size or os.waitstatus_to_exitcode(status) != 0:
                # the child died before it had answered whole (killed, out of memory): here then
                return call()
            with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as answer:
                records, ok, value = pickle.loads(answer)
        finally:
            os.close(fd)
        for record in records:
            logging.getLogger(record.name).handle(record)
        if not ok:
            raise value
        return value

    return wait
