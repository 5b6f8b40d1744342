"""Reading a query file and a database file (FASTA, protein letters checked against the
matrix's alphabet: one-line InputError naming file, line, record and position)."""

from __future__ import annotations

from pathlib import Path

from splicedalign.core.seqio import no_record, read_fasta
from splicedalign.workloads.sw.matrices import validator
from splicedalign.workloads.sw.records import Database, Query, query_from_record


def load_queries(path: str | Path, matrix_name: str = "blosum62") -> list[Query]:
    records = read_fasta(path, validator(matrix_name))
    if not records:
        raise no_record(path)
    return [query_from_record(r, matrix_name, str(path)) for r in records]


def load_database(path: str | Path, matrix_name: str = "blosum62") -> Database:
    records = read_fasta(path, validator(matrix_name))
    if not records:
        raise no_record(path)
    return Database.from_records(records, matrix_name, str(path))


def write_fasta(path: str | Path, ids, seqs: list[str], width: int = 60) -> None:
    with open(path, "w") as handle:
        for rid, seq in zip(ids, seqs):
            handle.write(f">{rid}\n")
            for k in range(0, len(seq), width):
                handle.write(seq[k: k + width] + "\n")
