"""Data sets on disk: a manifest ``cases.tsv`` (columns case, query, db: FASTA paths relative to
the manifest) and its FASTA files; the synthetic sets are written from synthetic.py."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.workloads.sw import synthetic
from splicedalign.workloads.sw.load import write_fasta
from splicedalign.workloads.sw.matrices import matrix
from splicedalign.workloads.sw.records import Database, Query

SETS = {
    "tiny": "a query of 64 against 40 sequences of 20-300 letters (tests, CI)",
    "paper": "paper 003 Table III: a query of 128 against 100 sequences of each length 128 ... 8,192",
    "scaleup": "a query of 350 against 100,000 sequences of Swiss-Prot-like lengths and composition",
}
COLUMNS = ("case", "query", "db")


@dataclass(frozen=True)
class Entry:
    case: str
    query: Path
    db: Path


def read_manifest(path: str | Path) -> list[Entry]:
    path = Path(path)
    try:
        with open(path, newline="") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
    except OSError as exc:
        raise InputError(str(path), f"cannot read manifest: {exc.strerror or exc}") from None
    if rows and set(COLUMNS) - set(rows[0]):
        raise InputError(str(path), f"manifest needs columns {', '.join(COLUMNS)}")
    return [Entry(r["case"], path.parent / r["query"], path.parent / r["db"]) for r in rows]


def _text(codes: np.ndarray) -> str:
    letters = np.frombuffer(matrix("blosum62")[0].encode(), dtype=np.uint8)
    return letters[codes].tobytes().decode()


def cases(name: str, seed: int | None = None) -> list[tuple[str, Query, Database]]:
    seed = synthetic.SEED if seed is None else seed
    if name == "tiny":
        rng = np.random.default_rng(seed)
        q = synthetic.query(64, seed)
        return [("tiny", q, synthetic.database(rng.integers(20, 300, 40), seed, q, homologs=3))]
    if name == "paper":
        return [(f"len{n}", *synthetic.paper_case(n, seed)) for n in synthetic.PAPER_LENGTHS]
    if name == "scaleup":
        return [("scaleup", *synthetic.scaleup_case(seed=seed))]
    raise InputError("set", f"unknown synthetic set {name!r}; known: {', '.join(SETS)}")


def write_set(name: str, outdir: Path, seed: int | None = None) -> list[Path]:
    """Write the set's FASTA files and manifest into ``outdir``; returns the manifest path(s)."""
    outdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for case, q, db in cases(name, seed):
        write_fasta(outdir / f"{case}.query.fa", [q.id], [_text(q.codes)])
        write_fasta(outdir / f"{case}.db.fa", db.ids, [_text(db.seq(k)) for k in range(len(db))])
        rows.append((case, f"{case}.query.fa", f"{case}.db.fa"))
    manifest = outdir / "cases.tsv"
    with open(manifest, "w") as handle:
        handle.write("\t".join(COLUMNS) + "\n")
        handle.writelines("\t".join(r) + "\n" for r in rows)
    return [manifest]
