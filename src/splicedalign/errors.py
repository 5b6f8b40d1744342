"""The one error type users see for bad input: it names the file, the place and the problem."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: the message is one line naming source, location and problem."""

    def __init__(self, source: str, problem: str, where: str | None = None):
        self.source = source
        self.where = where
        self.problem = problem
        place = f"{source}:{where}" if where else source
        super().__init__(f"{place}: {problem}")
