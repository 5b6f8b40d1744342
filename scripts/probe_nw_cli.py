"""A fresh `splicedalign nw` process with the time of each of its steps on stderr (seconds since
the interpreter ran this script's first line): imports, the reading started (a forked child for
`--pairs`), the set-up (_start: the CUDA driver's thread, numba imported lean), the batch in
hand, the solver (CuPy's import), the solve, the formatting, the writing; then the GPU WFA's
stats. `--in-process` reads the pairs in this process, after the set-up (no child); `--profile`
adds cProfile's costliest calls (cumulative, and by own time) from the batch in hand on (the
solver's set-up, the solve, the formatting). Used by
scripts/device_nw_batch.py --cli.

    python scripts/probe_nw_cli.py [--in-process] [--profile] nw --pairs FILE --solver gpu --format paf -o OUT -q
"""

from __future__ import annotations

import time

T0 = time.perf_counter()

import os  # noqa: E402
import sys  # noqa: E402

from splicedalign import cli  # noqa: E402
from splicedalign.core import forked  # noqa: E402
from splicedalign.workloads.nw import cli as nw_cli  # noqa: E402

MARKS: list[tuple[str, float]] = []
PROFILE: list = []  # the profiler (--profile), enabled once the batch is in hand


def mark(what: str) -> None:
    MARKS.append((what, time.perf_counter() - T0))


def timed(name: str, what: str) -> None:
    """nw.cli's ``name`` marked ``what`` when it returns."""
    call = getattr(nw_cli, name)

    def wrapped(*args, **kwargs):
        got = call(*args, **kwargs)
        mark(what)
        return got

    setattr(nw_cli, name, wrapped)


def main() -> int:
    flags = []
    while sys.argv[1:2] in (["--in-process"], ["--profile"]):
        flags.append(sys.argv.pop(1))
    in_process = "--in-process" in flags
    cli.set_up_process()
    forked.ENABLED = not in_process
    mark("imports")
    beside = nw_cli.batch_beside

    def reading(path):
        wait, child = beside(path)
        mark("reading started" + (" (a child)" if child else ""))

        def batch(allocate):
            got = wait(allocate)
            mark("batch in hand")
            if PROFILE:
                PROFILE[0].enable()
            return got
        return batch, child

    nw_cli.batch_beside = reading
    timed("_start", "set-up (driver thread, numba)")
    get = nw_cli.SOLVERS.get

    made = []

    def solver(name):
        got = get(name)
        mark("solver (CuPy import)")
        made.append(got)
        return got

    nw_cli.SOLVERS.get = solver
    timed("solve_pairs", "solve")
    write = nw_cli.write_output

    def written(*args, **kwargs):
        mark("formatted")
        write(*args, **kwargs)
        mark("written")

    nw_cli.write_output = written
    if "--profile" in flags:
        import cProfile

        PROFILE.append(cProfile.Profile())
    try:
        code = cli.main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    if PROFILE:
        import io
        import pstats

        PROFILE[0].disable()
        text = io.StringIO()
        pstats.Stats(PROFILE[0], stream=text).sort_stats("cumulative").print_stats(45)
        pstats.Stats(PROFILE[0], stream=text).sort_stats("tottime").print_stats(20)
        print("\n".join("prof: " + line for line in text.getvalue().splitlines() if line.strip()), file=sys.stderr)
    print("steps: " + " | ".join(f"{what} {at:.3f}" for what, at in MARKS), file=sys.stderr, flush=True)
    wfa = getattr(made[0], "wfa", None) if made else None
    if wfa is not None:
        print(f"stats: { {k: v for k, v in wfa.stats.items() if k != 'steps'} }", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(code or 0)


if __name__ == "__main__":
    main()
