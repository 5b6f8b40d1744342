"""Reading a data set's files the fast way gives what reading row by row gave: exon tables
(whole columns, the first bad row's error), manifests (file checks by folder listing), FASTA
(letters checked on their bytes), a base's cases sharing one exon sequence and bounds array, exon
tables as columns (``Exons``)."""

from __future__ import annotations

import os
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import parse_fasta
from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.datasets import (
    _path_text,
    case_id_problem,
    case_ids_ok,
    manifest_rows,
    read_manifest,
    write_dataset,
)
from splicedalign.workloads.spliced.exons.strand import strand_cases, strand_index, strand_view
from splicedalign.workloads.spliced.exons.tsv import STRANDS, read_exon_tsv, read_table
from splicedalign.workloads.spliced.load import CaseFiles
from splicedalign.workloads.spliced.records import Exons, exon_bounds


def _row_by_row(text: str, m: int) -> list[tuple[int, int, dict[str, str]]]:
    """What the table means, read the plain way (blank/'#' lines skipped, fields stripped)."""
    lines = [line for line in text.split("\n") if line.strip() and not line.startswith("#")]
    header = [h.strip() for h in lines[0].split("\t")]
    out = []
    for line in lines[1:]:
        row = dict(zip(header, (f.strip() for f in line.split("\t"))))
        first, last = int(row.pop("first")), int(row.pop("last"))
        assert 1 <= first <= last <= m
        if "strand" in row:
            row["strand"] = STRANDS[row["strand"]]
        out.append((first, last, row))
    return out


@pytest.mark.parametrize("round_", range(3))  # a fresh seed each round, drawn at run time (ids stay stable)
def test_exon_table_columns_as_rows(tmp_path, round_):
    seed = random.randrange(10**6)
    print("seed", seed)
    rng = random.Random(seed)
    m = 500
    columns = rng.choice([["first", "last"], ["name", "first", "last", "strand"], ["last", "score", "first"]])
    lines = ["\t".join(columns)]
    for _ in range(rng.randrange(1, 40)):
        first = rng.randrange(1, m)
        values = {"first": str(first), "last": str(rng.randrange(first, m + 1)), "name": f"e{rng.randrange(99)}",
                  "strand": rng.choice(list(STRANDS)), "score": f"{rng.random():.2f}"}
        fields = [values[c] for c in columns]
        if rng.random() < 0.2:  # padded fields, and the lines a table may hold between rows
            fields = [f" {f} " for f in fields]
        lines.append("\t".join(fields))
        if rng.random() < 0.2:
            lines.append(rng.choice(["", "# a comment", "\t" * (len(columns) - 1), "  "]))
    text = "\n".join(lines) + "\n"
    (tmp_path / "e.tsv").write_text(text)
    got = [(e.first, e.last, dict(e.attrs)) for e in read_exon_tsv(tmp_path / "e.tsv", m)]
    assert got == _row_by_row(text, m)
    assert all(list(e.attrs) == [c for c in columns if c not in ("first", "last")]
               for e in read_exon_tsv(tmp_path / "e.tsv", m))


@pytest.mark.parametrize("text", [
    "first\tlast\n1\t3\n2\t5\n", "first\tlast\n1\t3\n2\t5", "\nfirst\tlast\n20\t12\n",
    "# made by x\nfirst\tlast\n\n1\t2\n#\n3\t4\n\n", "first\tlast\n1\t3\n2\t5\t7\n", "first\tlast\n1\n2\t5\t7\n",
    "first\tlast\n\t\n1\t2\n", " first\tlast \n 1\t2\n\n3\t4\n", "\n\n", "first\tlast\n",
])
def test_table_lines_and_widths(tmp_path, text):
    """Rows (fields, line numbers) and the first row of another width, in a table read by
    whole-text splits (no line to skip or strip) or line by line: what a plain row loop says."""
    (tmp_path / "t.tsv").write_text(text)
    kept = [(i, line) for i, line in enumerate(text.split("\n"), 1) if line.strip() and not line.startswith("#")]
    try:
        table = read_table(tmp_path / "t.tsv", "table", ())
    except InputError as exc:
        got = str(exc)
    else:
        got = [(table.header_line, list(table.header)), *((i, list(f)) for i, f in table.rows)]
    if not kept:
        assert got == f"{tmp_path / 't.tsv'}: empty table (no header)"
        return
    rows = [(i, [f.strip() for f in line.split("\t")]) for i, line in kept]
    bad = next(((i, len(f)) for i, f in rows[1:] if len(f) != len(rows[0][1])), None)
    assert got == (rows if bad is None else
                   f"{tmp_path / 't.tsv'}:line {bad[0]}: {bad[1]} columns, header has {len(rows[0][1])}")


@pytest.mark.parametrize("rows, line, problem", [
    (["1\t5\t+", "2\t3\tx", "z\t4\t+"], 3, "strand must be +, - or . (or empty), got 'x'"),
    (["1\t5\t+", "9\t4\t+", "z\t4\tx"], 3, "exon first=9 > last=4"),
    (["1\t5\t+", "1.5\t4\tx"], 3, "first must be an integer, got '1.5'"),
    (["1\t5\t+", f"1\t{'9' * 30}\t+"], 3, f"exon last={'9' * 30} is beyond the base sequence (length 100)"),
    (["0\t5\t+"], 2, "exon first=0 is below 1 (coordinates are 1-based)"),
])
def test_exon_table_first_bad_row_named(tmp_path, rows, line, problem):
    (tmp_path / "e.tsv").write_text("first\tlast\tstrand\n" + "\n".join(rows) + "\n")
    with pytest.raises(InputError) as err:
        read_exon_tsv(tmp_path / "e.tsv", 100)
    assert str(err.value) == f"{tmp_path / 'e.tsv'}:line {line}: {problem}"


def test_manifest_files_checked_by_folder(tmp_path):
    """Past the names that make a folder worth listing, a missing file, a folder named as a
    file, and a link to a file are found as a stat would find them."""
    for sub in ("t", "other"):
        (tmp_path / sub).mkdir()
    (tmp_path / "b.fa").write_text(">b\nACGT\n")
    (tmp_path / "e.tsv").write_text("first\tlast\n1\t2\n")
    for i in range(30):
        (tmp_path / "t" / f"{i}.fa").write_text(">t\nAC\n")
    os.symlink(tmp_path / "t" / "0.fa", tmp_path / "t" / "link.fa")
    (tmp_path / "t" / "dir.fa").mkdir()
    header = "case\tbase\ttarget\texons\n"

    def manifest(targets: list[str]) -> list:
        rows = "".join(f"c{i}\tb.fa\t{t}\te.tsv\n" for i, t in enumerate(targets))
        (tmp_path / "cases.tsv").write_text(header + rows)
        return read_manifest(tmp_path / "cases.tsv")

    names = [f"t/{i}.fa" for i in range(30)]
    assert [e.target for e in manifest([*names, "t/link.fa"])] == [tmp_path / n for n in (*names, "t/link.fa")]
    for bad in ("t/missing.fa", "t/dir.fa", "t/", "t/0.fa/x", "other/0.fa"):
        with pytest.raises(InputError) as err:
            manifest([*names, bad])
        assert str(err.value) == (f"{tmp_path / 'cases.tsv'}:line 32: case c30: target file {bad} not found"
                                  f" (looked for {tmp_path / bad})")


def test_path_text_as_pathlib_joins():
    seed = random.randrange(2**32)
    print("seed", seed)
    rng = random.Random(seed)
    parts = ["a", "b.fa", ".", "..", "", "x y", ".hidden", "t"]
    for root in (Path("."), Path("/"), Path("data/set"), Path("/tmp/x"), Path("..")):
        for _ in range(300):
            name = ("/" if rng.random() < 0.1 else "") + "/".join(rng.choice(parts) for _ in range(rng.randint(1, 4)))
            if name.strip("/"):
                assert _path_text(root, str(root), name) == str(root / name), (seed, root, name)


def test_case_ids_checked_at_once_as_one_by_one():
    """datasets.case_ids_ok (a manifest's ids at once) says what case_id_problem says of each."""
    seed = random.randrange(2**32)
    print("seed", seed)
    rng = random.Random(seed)
    parts = ["a", "c1", ".", "..", "", " ", "\t", "/", "\\", "|", "x.y", "\u00a0"]
    for _ in range(2_000):
        ids = ["".join(rng.choice(parts) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 4))]
        assert case_ids_ok(ids) == (not any(map(case_id_problem, ids))), (seed, ids)


@pytest.mark.parametrize("row, problem", [
    ("c2\tb.fa\t\te.tsv", "missing target"),
    ("c 2\tb.fa\tt.fa\te.tsv", "case id 'c 2' cannot be a file name"),
    ("..\tb.fa\tt.fa\te.tsv", "case id '..' cannot be a file name"),
    ("a/b\tb.fa\tt.fa\te.tsv", "case id 'a/b' cannot be a file name"),
    ("c1\tb.fa\tt.fa\te.tsv", "duplicate case id 'c1'"),
    ("c2\tb.fa\tt.fa\te.tsv\txyz", "case c2: unknown exon_format 'xyz'"),
    ("c2\tb.fa\tt.fa\te.tsv\ttsv\t\t*", "case c2: exon_strand must be + or -, got '*'"),
    ("c2\tb.fa\tt.fa\te.tsv\ttsv\tno.tsv", "case c2: true_exons file no.tsv not found"),
    ("c2\tno.fa\tt.fa\te.tsv", "case c2: base file no.fa not found"),
])
def test_manifest_first_bad_row_named(tmp_path, row, problem):
    """A bad row among good ones: its line and problem, as the row loop says them (whole columns
    are checked first; any problem falls back to it)."""
    for name, text in (("b.fa", ">b\nACGT\n"), ("t.fa", ">t\nAC\n"), ("e.tsv", "first\tlast\n1\t2\n")):
        (tmp_path / name).write_text(text)
    width = 7
    rows = ["c0\tb.fa\tt.fa\te.tsv", "c1\tb.fa\tt.fa\te.tsv", row, "c3\tno.fa\tt.fa\te.tsv"]
    text = "case\tbase\ttarget\texons\texon_format\ttrue_exons\texon_strand\n" + "".join(
        r + "\t" * (width - 1 - r.count("\t")) + "\n" for r in rows)
    (tmp_path / "cases.tsv").write_text(text)
    with pytest.raises(InputError) as err:
        manifest_rows(tmp_path / "cases.tsv")
    assert err.value.where == "line 4" and err.value.problem.startswith(problem), err.value
    rows[2] = "c2\tb.fa\tt.fa\te.tsv\t\t\t-"
    rows.pop()
    (tmp_path / "cases.tsv").write_text("case\tbase\ttarget\texons\texon_format\ttrue_exons\texon_strand\tnote\n"
                                        + "".join(r + "\t" * (width - 1 - r.count("\t")) + "\tn\n" for r in rows))
    got = manifest_rows(tmp_path / "cases.tsv")
    assert got.strands == [None, None, "-"] and got.formats == ["tsv"] * 3 and got.extra == {"note": ["n"] * 3}
    assert got.base == [str(tmp_path / "b.fa")] * 3 and got.true_exons == [None] * 3
    assert [e.strand for e in read_manifest(tmp_path / "cases.tsv")] == [None, None, "-"]


def test_fasta_letters_checked_on_bytes_as_on_text(caplog):
    data = b">a one\nACGT\nac gt\n>b\nNNNN\n>c\nMKVRSWHDBN\n>d\nAC\nA5\n"
    with pytest.raises(InputError) as err:
        parse_fasta(data, "x.fa")
    assert str(err.value).startswith("x.fa:line 10: ")  # the bad letter's line, after three records
    records = parse_fasta(data[: data.index(b">d")], "x.fa")
    assert [(r.id, r.description, r.seq) for r in records] == [
        ("a", "a one", "ACGTacgt"), ("b", "b", "NNNN"), ("c", "c", "MKVRSWHDBN")]
    assert "record 'c' is" in caplog.text and "ambiguity codes" in caplog.text  # a protein's warning still said


def test_cases_of_a_base_share_exons_and_bounds(tmp_path):
    """Every target's case of a base and strand holds the same exons and one read-only
    bounds array, equal to the exons' (first, last); the cases are those the generator made."""
    made = synthetic.paper_set(11, bases=6)
    files = CaseFiles()
    loaded = [c for e in read_manifest(write_dataset(made, tmp_path)) for c in
              files.cases(e.base, e.exons, e.target, e.exon_format, e.case)]
    assert [(c.name, c.strand, c.bounds.tolist()) for c in loaded if c.strand == "+"] == [
        (c.name, "+", c.bounds.tolist()) for c in made]
    by_base: dict[tuple, list] = {}
    for c in loaded:
        by_base.setdefault((c.base_id, c.strand), []).append(c)
        assert c.bounds.tolist() == [[e.first, e.last] for e in c.exons] and not c.bounds.flags.writeable
        assert c.bounds.dtype == np.int64
    assert any(len(group) > 1 for group in by_base.values())
    for group in by_base.values():
        assert all(c.exons is group[0].exons and c.bounds is group[0].bounds and c.base is group[0].base
                   for c in group)


def test_exon_columns_read_as_their_records(tmp_path):
    """An exon table comes as columns (``Exons``) that behave as the tuple of their ``Exon``
    records (equal, same hash, repr, items, slices, pickled); each strand's view of them and the
    cases made of them are what the records themselves give (strand attribute flipped on '-')."""
    seed = random.randrange(10**6)
    print("seed", seed)
    rng = random.Random(seed)
    m = 300
    lines = ["name\tfirst\tlast\tstrand"]
    for i in range(40):
        first = rng.randrange(1, m)
        strand = "+-"[i] if i < 2 else rng.choice(list(STRANDS))  # both strands have exons
        lines.append(f"e{i}\t{first}\t{rng.randrange(first, m + 1)}\t{strand}")
    (tmp_path / "e.tsv").write_text("\n".join(lines) + "\n")
    exons = read_exon_tsv(tmp_path / "e.tsv", m)
    assert isinstance(exons, Exons) and exons._items is None
    one = exons[-3]  # one item made alone: the records are not
    assert exons._items is None and (one.first, one.last, one.attrs) == tuple(exons.bounds[-3]) + (
        {"name": "e37", "strand": exons.column("strand")[-3]},)
    records = tuple(exons)
    assert records == exons and exons == records and hash(exons) == hash(records) and repr(exons) == repr(records)
    assert exons[2:5] == records[2:5] and [dict(e.attrs) for e in exons] == [dict(e.attrs) for e in records]
    back = pickle.loads(pickle.dumps(exons))
    assert back == exons and [e.attrs for e in back] == [e.attrs for e in records]
    assert not back.bounds.flags.writeable and exon_bounds(exons).tolist() == exon_bounds(records).tolist()
    base = "".join(rng.choice("ACGT") for _ in range(m))
    by_strand = strand_index(records)
    assert strand_index(exons) == by_strand
    for strand in "+-":
        view, plain = (strand_view(base, ex, strand, by_strand[strand]) for ex in (exons, records))
        assert isinstance(view.exons, Exons) and view.bounds is view.exons.bounds
        assert (view.seq, view.index, view.exons) == (plain.seq, plain.index, plain.exons)
        assert [e.attrs for e in view.exons] == [e.attrs for e in plain.exons]
        assert view.bounds.tolist() == [[e.first, e.last] for e in plain.exons]
    cases = strand_cases("c", base, exons, "ACGT", ("+", "-"))
    assert cases == strand_cases("c", base, records, "ACGT", ("+", "-"))
    assert all(c.bounds is c.exons.bounds for c in cases)
    assert [c.meta for c in cases] == [c.meta for c in strand_cases("c", base, records, "ACGT", ("+", "-"))]


def test_fasta_white_space_and_other_checks():
    """Letters padded by any white space (CRLF, tabs, spaces) read as before; a '>' inside a
    line is a letter, not a header; a caller's own check sees every record's letters."""
    data = b">a\r\nAC GT\r\n\tac\n>b x\nA>C\n"
    with pytest.raises(InputError) as err:
        parse_fasta(data, "x.fa")
    assert str(err.value).startswith("x.fa:line 5: non-nucleotide letter '>'")
    seen = []
    records = parse_fasta(data, "x.fa", lambda seq, source, rid: seen.append((seq, source, rid)))
    assert [(r.id, r.seq) for r in records] == [("a", "ACGTac"), ("b", "A>C")]
    assert seen == [("ACGTac", "x.fa:line 1", "a"), ("A>C", "x.fa:line 4", "b")]
    with pytest.raises(InputError, match="record 'e' has no sequence"):
        parse_fasta(b">e\n \t\r\n", "x.fa")


def test_whole_files_read_as_python_reads_them(tmp_path):
    """read_bytes/read_text (four system calls for a regular file) give what ``open`` gives: empty
    files, a pipe, a file whose size says 0 (/proc), CRLF and CR newlines, a folder's error."""
    from splicedalign.core.seqio import _read_all, open_text, read_bytes, read_text

    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "mixed.tsv").write_bytes(b"a\r\nb\rc\n\xff\r")
    assert read_bytes(tmp_path / "empty") == b""
    assert read_text(tmp_path / "mixed.tsv") == open_text(tmp_path / "mixed.tsv").read() == "a\nb\nc\n\ufffd\n"
    if os.path.exists("/proc/self/status"):
        assert read_bytes("/proc/self/status").startswith(b"Name:")
    reader, writer = os.pipe()
    os.write(writer, b"x" * 50_000)
    os.close(writer)
    assert _read_all(reader) == b"x" * 50_000
    os.close(reader)
    with pytest.raises(InputError) as err:
        read_bytes(tmp_path)
    assert str(err.value) == f"{tmp_path}: cannot read file: Is a directory"
