"""Prepared databases: a FASTA file encoded once into a folder ``<fasta>.swdb`` (``sw-makedb``,
or written beside a large FASTA on its first search): ``codes.npy`` (uint8, memory-mapped on
opening), ``offsets.npy``, ``order.npy`` (sequence indices, longest first: the GPU's launch
order), ``ids.txt`` and ``meta.json`` (format, the source's size and modification time: a
changed FASTA makes its copy stale and it is read again). Codes do not depend on the matrix
(matrices.ALPHABET), so one copy serves every matrix.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.workloads.sw.records import Database, longest_first

log = logging.getLogger("splicedalign")
FORMAT = "splicedalign-swdb-1"
SUFFIX = ".swdb"
AUTO_RESIDUES = 20_000_000  # FASTA databases this large get a prepared copy beside them


def _stamp(fasta: Path) -> dict:
    st = fasta.stat()
    return {"source": fasta.name, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _meta(folder: Path) -> dict | None:
    try:
        meta = json.loads((folder / "meta.json").read_text())
    except (OSError, ValueError):
        return None
    return meta if meta.get("format") == FORMAT else None


def find(path: str | Path) -> Path | None:
    """The prepared folder for ``path``: the folder itself, or a fresh ``<path>.swdb``."""
    p = Path(path)
    if str(path) == "-":
        return None
    if p.is_dir():
        if _meta(p) is None:
            raise InputError(str(p), f"not a prepared database (no {FORMAT} meta.json); run 'splicedalign sw-makedb'")
        return p
    beside = p.with_name(p.name + SUFFIX)
    meta = _meta(beside) if beside.is_dir() else None
    if meta is None:
        return None
    try:
        fresh = p.exists() and all(meta.get(k) == v for k, v in _stamp(p).items())
    except OSError:
        fresh = False
    if not fresh:
        log.info("%s is older than %s: reading the FASTA", beside, p)
        return None
    return beside


def save(db: Database, folder: Path, fasta: Path | None = None) -> Path:
    """Write ``db`` as a prepared folder (atomically: a temporary folder renamed)."""
    tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
    tmp.mkdir(parents=True, exist_ok=True)
    np.save(tmp / "codes.npy", db.codes)
    np.save(tmp / "offsets.npy", db.offsets)
    np.save(tmp / "order.npy", longest_first(db.lengths).astype(np.int32))
    (tmp / "ids.txt").write_text("\n".join(db.ids) + "\n")
    meta = {"format": FORMAT, "sequences": len(db), "residues": db.residues, **(_stamp(fasta) if fasta else {})}
    (tmp / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    if folder.exists():
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()
    tmp.rename(folder)
    return folder


def save_beside(db: Database, fasta: Path) -> Path | None:
    folder = fasta.with_name(fasta.name + SUFFIX)
    try:
        save(db, folder, fasta)
    except OSError as exc:
        log.info("could not cache the prepared database beside %s: %s", fasta, exc)
        return None
    log.info("prepared database cached as %s (later searches open it directly)", folder)
    return folder


def open_db(folder: Path) -> Database:
    meta = _meta(folder)
    if meta is None:
        raise InputError(str(folder), "not a prepared database")
    try:
        # copy-on-write, not "r": nothing writes the codes, but numba types a read-only array apart, and
        # a search of a prepared database compiled its kernels again beside a FASTA's (~4 s on first use)
        codes = np.load(folder / "codes.npy", mmap_mode="c")
        offsets = np.load(folder / "offsets.npy")
        order = np.load(folder / "order.npy")
        ids = tuple((folder / "ids.txt").read_text().split("\n")[: meta["sequences"]])
    except (OSError, ValueError) as exc:
        raise InputError(str(folder), f"damaged prepared database: {exc}") from None
    if len(ids) != meta["sequences"] or offsets.size != len(ids) + 1:
        raise InputError(str(folder), "damaged prepared database: counts differ from meta.json")
    return Database(ids, codes, offsets, order)
