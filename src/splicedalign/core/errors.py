"""The errors users see, and the exit status each gives on the command line."""

from __future__ import annotations

EXIT_INPUT = 2  # bad input: one line naming the file, the place and the problem
EXIT_UNAVAILABLE = 3  # the solver cannot run on this machine (e.g. a GPU solver without a GPU)
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT), as shells report it: 128 + 2


class InputError(ValueError):
    """Bad input: the message is one line naming source, location and problem."""

    def __init__(self, source: str, problem: str, where: str | None = None):
        self.source = source = "standard input" if source == "-" else source
        self.where = where
        self.problem = problem
        place = f"{source}:{where}" if where else source
        super().__init__(f"{place}: {problem}")

    def __reduce__(self):  # pickled whole (core.forked hands it from a reading process)
        return type(self), (self.source, self.problem, self.where)


class SolverUnavailable(RuntimeError):
    """The solver cannot run on this machine (e.g. no GPU); the message says why."""


class GpuMemoryError(SolverUnavailable):
    """One unit of work (a case, a pair, a query's database chunk) cannot fit in the GPU memory
    available to it; the message names what is needed and what is free (exit 3, like any solver
    that cannot run here)."""
