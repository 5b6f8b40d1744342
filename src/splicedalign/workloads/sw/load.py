"""Reading a query file and a database (FASTA, plain or .gz, protein letters checked against
the alphabet: one-line InputError naming file, line, record and position; or a prepared
database, prepared.py). Queries that look like DNA are an error naming them; database records
that do are one warning naming them; duplicate database ids are an error naming them."""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import no_record, read_fasta
from splicedalign.workloads.sw import prepared
from splicedalign.workloads.sw.matrices import ALPHABET, validator
from splicedalign.workloads.sw.records import Database, Query, query_from_record

log = logging.getLogger("splicedalign")
NUCLEOTIDE_SHARE = 0.9  # a record whose letters are at least this share A, C, G, T, N looks like DNA
NUCLEOTIDE_CODES = np.array([ALPHABET.index(c) for c in "ACGTN"], dtype=np.uint8)


def looks_nucleotide(codes: np.ndarray) -> bool:
    """At least NUCLEOTIDE_SHARE of the letters are A, C, G, T or N (U reads as X; proteins
    have ~25% A, C, G, T; records under 20 letters are not judged)."""
    return codes.size >= 20 and np.isin(codes, NUCLEOTIDE_CODES).mean() >= NUCLEOTIDE_SHARE


def nucleotide_like(db: Database) -> np.ndarray:
    """looks_nucleotide of every sequence at once (indices)."""
    lengths = db.lengths
    if not len(db) or not db.residues:
        return np.zeros(0, dtype=np.int64)
    lut = np.zeros(256, dtype=np.int64)
    lut[NUCLEOTIDE_CODES] = 1
    hits = lut[db.codes]
    starts = db.offsets[:-1]
    counts = np.add.reduceat(hits, np.minimum(starts, hits.size - 1))
    counts[lengths == 0] = 0
    return np.flatnonzero((lengths >= 20) & (counts >= NUCLEOTIDE_SHARE * lengths))


def _names(ids: list[str], limit: int = 5) -> str:
    return ", ".join(repr(i) for i in ids[:limit]) + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def load_queries(path: str | Path, matrix_name: str = "blosum62") -> list[Query]:
    records = read_fasta(path, validator(matrix_name))
    if not records:
        raise no_record(path)
    queries = [query_from_record(r, matrix_name, str(path)) for r in records]
    dna = [q.id for q in queries if looks_nucleotide(q.codes)]
    if dna:
        raise InputError(str(path), f"query record(s) {_names(dna)} look like DNA "
                                    f"(>= {NUCLEOTIDE_SHARE:.0%} A, C, G, T, N): sw searches proteins; "
                                    "translate them first")
    return queries


def check_database(db: Database, source: str) -> None:
    """Duplicate ids: an error naming them; DNA-looking records: one warning naming them."""
    if len(set(db.ids)) != len(db.ids):
        dup = [i for i, n in Counter(db.ids).items() if n > 1]
        raise InputError(source, f"duplicate database id(s) {_names(dup)}: hits would be ambiguous;"
                                 " make the ids (first word of each header) unique")
    dna = [db.ids[k] for k in nucleotide_like(db).tolist()]
    if dna:
        log.warning("%s: %d database record(s) look like DNA (>= %.0f%% A, C, G, T, N), searched as protein: %s",
                    source, len(dna), 100 * NUCLEOTIDE_SHARE, _names(dna))


def read_database_fasta(path: str | Path, matrix_name: str = "blosum62") -> Database:
    records = read_fasta(path, validator(matrix_name))
    if not records:
        raise no_record(path)
    db = Database.from_records(records, matrix_name, str(path))
    check_database(db, str(path))
    return db


def load_database(path: str | Path, matrix_name: str = "blosum62") -> Database:
    """A prepared database (its folder, or the fresh one cached beside the FASTA), else the
    FASTA read and checked; large FASTA files get their prepared copy written beside them
    (prepared.AUTO_RESIDUES) so the next search opens it in well under a second."""
    ready = prepared.find(path)
    if ready is not None:
        return prepared.open_db(ready)
    db = read_database_fasta(path, matrix_name)
    if str(path) != "-" and db.residues >= prepared.AUTO_RESIDUES:
        prepared.save_beside(db, Path(path))
    return db


def write_fasta(path: str | Path, ids, seqs: list[str], width: int = 60) -> None:
    with open(path, "w") as handle:
        for rid, seq in zip(ids, seqs):
            handle.write(f">{rid}\n")
            for k in range(0, len(seq), width):
                handle.write(seq[k: k + width] + "\n")
