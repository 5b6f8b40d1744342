"""The spliced CPU solvers on the GPU host's CPUs, in one device call (issue 22 target 2's
multicore row): ``align --manifest <paper-shaped set> --solver multicore --format gff3`` in
fresh processes (median wall, as ``benchmarks/spliced_cold.py`` times it, with the CLI's steps
from its probe) and the same solve in-process (``multicore.solve_many`` with traceback,
median of repeats after a warm-up). With ``--before SRC`` (another checkout's ``src``) the
same CLI row runs on that code too and both GFF3 outputs must be byte-identical.

    python scripts/device_spliced_cpu.py [--seed S] [--repeats 3] [--before PATH] [--out DIR] [--bases 240]

Numba's cache is filled first by an untimed align on a 12-base set (the paper set's largest
case), as the benchmark does; the package's bytecode is written first (the install step's
half that concerns a CPU align). One table last.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

import spliced_cold as cold  # noqa: E402 - the benchmark's fresh-process helpers and CLI probe


def cli_row(src: Path, manifest: str, small: str, out: Path, repeats: int) -> dict:
    """Warm-up on the small set (numba's cache), then ``repeats`` fresh multicore gff3 aligns."""
    env = {"PYTHONPATH": str(src)}
    argv = ["--solver", "multicore", "--format", "gff3"]
    t = time.perf_counter()
    warm, proc = cold.align("--manifest", small, *argv, "-o", os.devnull, **env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    walls = []
    for _ in range(repeats):
        seconds, proc = cold.align("--manifest", manifest, *argv, "-o", str(out), **env)
        assert proc.returncode == 0, proc.stderr[-2000:]
        walls.append(seconds)
    return {"warm-up (small set, fills the cache)": warm, "walls": walls, "total": time.perf_counter() - t,
            "gff3 sha256": hashlib.sha256(out.read_bytes()).hexdigest()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=None, help="data seed (default: fresh)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--before", type=Path, help="another checkout's src: the same CLI row, GFF3 compared")
    ap.add_argument("--out", type=Path, default=Path("device_out") / "spliced_cpu")
    ap.add_argument("--bases", type=int, default=240, help="bases of the paper-shaped set (240: 1,010 cases)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time()) % 10**8
    args.out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "src" / "splicedalign")], check=False)
    from splicedalign.core.machine import cpu_model
    from splicedalign.workloads.spliced import synthetic
    from splicedalign.workloads.spliced.datasets import write_dataset

    data = Path(tempfile.mkdtemp(prefix="spliced_cpu_"))
    manifest = str(write_dataset(synthetic.paper_set(seed + 100, args.bases), data / "paper"))
    small = str(write_dataset(synthetic.paper_set(seed + 200, bases=12), data / "small"))
    print(f"# {cpu_model()}, {os.cpu_count()} CPUs; seed {seed}", flush=True)
    rows, record = [], {"seed": seed, "cpus": os.cpu_count()}
    after = cli_row(REPO / "src", manifest, small, args.out / "multicore.gff3", args.repeats)
    record["cli"] = after
    print(f"  after: {json.dumps(after)}", flush=True)
    rows.append(("CLI multicore gff3, fresh process (s)", statistics.median(after["walls"]),
                 f"min {min(after['walls']):.2f}; <= 3 s"))
    probe = cold.python(cold.CLI_PROBE, "align", "--manifest", manifest, "--solver", "multicore",
                        "--format", "gff3", "-o", os.devnull)
    record["probe"] = probe
    print("  CLI steps: " + ", ".join(f"{k} {v:.3f}" for k, v in probe["steps"].items()), flush=True)
    rows.append(("  of it: solve in the CLI probe (s)", probe["steps"]["solve"], ""))
    inproc = cold.python(cold.INPROCESS_PROBE, manifest, "multicore", args.repeats)
    record["in-process"] = inproc
    print(f"  in-process: {json.dumps(inproc)}", flush=True)
    secs = statistics.median(inproc["wall"])
    rows.append(("in-process multicore.solve_many, traceback (s)", secs,
                 f"{probe['cells'] / secs / 1e9:.1f} GCUPS; CPU {statistics.median(inproc['cpu']):.2f} s"))
    if args.before:
        before = cli_row(args.before, manifest, small, args.out / "before.gff3", 1)
        record["before"] = before
        print(f"  before: {json.dumps(before)}", flush=True)
        rows.append(("before: CLI multicore gff3 (s, one run)", before["walls"][0], ""))
        same = before["gff3 sha256"] == after["gff3 sha256"]
        rows.append(("GFF3 byte-identical to before", 1.0 if same else 0.0, "yes" if same else "NO"))
    (args.out / "spliced_cpu.json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"\n{'what':<50} {'value':>8}  note")
    for what, value, note in rows:
        print(f"{what:<50} {value:>8.3f}  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
