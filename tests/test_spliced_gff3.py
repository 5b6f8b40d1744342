"""GFF3 output is valid GFF3: a strict checker of the spec's grammar (columns, seqid and
column-9 escaping, Target and Gap syntax, unique IDs, known Parents, sequence-region bounds)
and a real parser (gffutils), on every case of the bundled set and on names full of reserved
characters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import run_cli

from splicedalign.workloads.spliced.datasets import bundled_manifest
from splicedalign.workloads.spliced.output import gff_gap, gff_seqid, gff_value
from splicedalign.workloads.spliced.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH

# https://github.com/The-Sequence-Ontology/Specifications/blob/master/gff3.md
SEQID = re.compile(r"(?:[a-zA-Z0-9.:^*$@!+_?|-]|%[0-9A-Fa-f]{2})+")
# a tag or a value: no unescaped ; = & , tab/newline/control characters; % only as %XX
TEXT = re.compile(r"(?:[^;=&,%\x00-\x1f\x7f]|%[0-9A-Fa-f]{2})+")
TARGET = re.compile(r"((?:[^;=&,% \x00-\x1f\x7f]|%[0-9A-Fa-f]{2})+) ([1-9]\d*) ([1-9]\d*)(?: ([+-]))?")
GAP = re.compile(r"[MIDFR][1-9]\d*(?: [MIDFR][1-9]\d*)*")


def check_gff3(text: str) -> list[dict]:
    """The features of ``text``; AssertionError naming the line at the first violation."""
    lines = text.split("\n")
    assert lines[0] == "##gff-version 3", "first line must be ##gff-version 3"
    assert text.endswith("\n") and lines[-1] == ""
    regions, ids, features = {}, set(), []
    for no, line in enumerate(lines[1:-1], 2):
        if line.startswith("##"):
            m = re.fullmatch(rf"##sequence-region ({SEQID.pattern}) ([1-9]\d*) ([1-9]\d*)", line)
            assert m, f"line {no}: bad pragma {line!r}"
            regions[m.group(1)] = (int(m.group(2)), int(m.group(3)))
            continue
        cols = line.split("\t")
        assert len(cols) == 9, f"line {no}: {len(cols)} columns"
        seqid, source, typ, start, end, score, strand, phase, attrs = cols
        assert SEQID.fullmatch(seqid), f"line {no}: seqid {seqid!r}"
        assert TEXT.fullmatch(source) and TEXT.fullmatch(typ), f"line {no}: source/type"
        assert start.isdigit() and end.isdigit() and 1 <= int(start) <= int(end), f"line {no}: start/end"
        lo, hi = regions[seqid]
        assert lo <= int(start) and int(end) <= hi, f"line {no}: outside ##sequence-region"
        assert score == "." or re.fullmatch(r"-?\d+(\.\d+)?", score), f"line {no}: score {score!r}"
        assert strand in "+-.?" and len(strand) == 1 and phase in (".", "0", "1", "2")
        tags = {}
        for pair in attrs.split(";"):
            assert pair.count("=") == 1, f"line {no}: attribute {pair!r} is not tag=value"
            tag, value = pair.split("=")
            assert TEXT.fullmatch(tag) and tag not in tags, f"line {no}: tag {tag!r}"
            for v in value.split(","):
                assert TEXT.fullmatch(v), f"line {no}: value {v!r} of {tag} not escaped"
            tags[tag] = value
        if "Target" in tags:
            t = TARGET.fullmatch(tags["Target"])
            assert t and int(t.group(2)) <= int(t.group(3)), f"line {no}: Target {tags['Target']!r}"
        if "Gap" in tags:
            assert GAP.fullmatch(tags["Gap"]), f"line {no}: Gap {tags['Gap']!r}"
        if "ID" in tags:
            assert tags["ID"] not in ids, f"line {no}: duplicate ID {tags['ID']}"
            ids.add(tags["ID"])
        if "Parent" in tags:
            assert all(p in ids for p in tags["Parent"].split(",")), f"line {no}: unknown Parent"
        features.append({"seqid": seqid, "type": typ, "start": int(start), "end": int(end),
                         "strand": strand, **tags})
    return features


@pytest.fixture(scope="module")
def bundled_gff3(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gff") / "bundled.gff3"
    code, _, err = run_cli("-q", "align", "--manifest", str(bundled_manifest()), "--format", "gff3", "-o", str(out))
    assert code == 0, err
    return out


def test_bundled_set_gff3_passes_the_grammar(bundled_gff3):
    features = check_gff3(bundled_gff3.read_text())
    genes = [f for f in features if f["type"] == "gene"]
    assert len(genes) == 16  # one gene model per bundled case
    exons = [f for f in features if f["type"] == "exon"]
    # every exon's Gap consumes as many target letters as its Target span holds
    for f in exons:
        if "Target" in f:
            _, start, end, _ = f["Target"].split(" ")
            consumed = sum(int(op[1:]) for op in f["Gap"].split(" ") if op[0] in "MI")
            assert consumed == int(end) - int(start) + 1
            base = sum(int(op[1:]) for op in f["Gap"].split(" ") if op[0] in "MD")
            assert base == f["end"] - f["start"] + 1


def test_bundled_set_gff3_parses_with_gffutils(bundled_gff3):
    gffutils = pytest.importorskip("gffutils", reason="gffutils not installed (pip install -e .[test])")
    db = gffutils.create_db(str(bundled_gff3), ":memory:", merge_strategy="error")
    assert db.count_features_of_type("gene") == 16
    for gene in db.features_of_type("gene"):
        (mrna,) = db.children(gene, featuretype="mRNA")
        exons = list(db.children(mrna, featuretype="exon"))
        assert exons and all(e.start >= gene.start and e.end <= gene.end for e in exons)
        assert all(e.attributes["Target"][0].split(" ")[0] == mrna.attributes["Target"][0].split(" ")[0]
                   for e in exons if "Target" in e.attributes)


def test_reserved_characters_escaped(tmp_path):
    gffutils = pytest.importorskip("gffutils", reason="gffutils not installed (pip install -e .[test])")
    (tmp_path / "b.fa").write_text(">chr 1;x=y description\nACCGTATGT\n")
    (tmp_path / "t.fa").write_text(">mrna,a&b=c%\nCCGGT\n")
    (tmp_path / "e.tsv").write_text("first\tlast\n1\t2\n3\t4\n4\t5\n6\t8\n8\t9\n")
    name = "case;ID=evil,x&y%z~w"
    code, out, err = run_cli("-q", "align", "--base", str(tmp_path / "b.fa"), "--exons", str(tmp_path / "e.tsv"),
                             "--target", str(tmp_path / "t.fa"), "--name", name, "--format", "gff3")
    assert code == 0, err
    features = check_gff3(out)
    assert features[0]["seqid"] == "chr"  # the FASTA id is the first word of the header
    assert features[0]["ID"] == "gene:case%3BID%3Devil%2Cx%26y%25z~w"
    (tmp_path / "x.gff3").write_text(out)
    db = gffutils.create_db(str(tmp_path / "x.gff3"), ":memory:")
    assert db.count_features_of_type("exon") >= 1


def test_escape_helpers():
    assert gff_seqid("a b~c|d") == "a%20b%7Ec|d"
    assert gff_value("x=1;y,z&w%\tq r") == "x%3D1%3By%2Cz%26w%25%09q r"
    # the ops of CIGAR 3I2=1X1D4=: match and mismatch runs merge into one M
    ops = bytes([OP_INS] * 3 + [OP_MATCH] * 2 + [OP_MISMATCH] + [OP_DEL] + [OP_MATCH] * 4)
    assert gff_gap(ops) == "I3 M3 D1 M4" and gff_gap(b"") == ""


def test_escape_helpers_escape_each_character_as_the_spec_says():
    """Every code point up to 0x3000 (and a few beyond), alone and inside text: a seqid keeps
    [a-zA-Z0-9.:^*$@!+_?|-] and escapes the rest as %XX of its code point; a value escapes
    ; = & , % and control characters only."""
    def seqid_char(c):
        return c if re.fullmatch(r"[a-zA-Z0-9.:^*$@!+_?|-]", c) else f"%{ord(c):02X}"

    def value_char(c):
        return f"%{ord(c):02X}" if c in ";=&,%\t\n\r" or ord(c) < 32 or ord(c) == 127 else c

    chars = [chr(i) for i in range(0x3000)] + ["\U0001F600", "\u00e9", "\u200b"]
    for c in chars:
        assert gff_seqid(f"a{c}b") == f"a{seqid_char(c)}b" and gff_value(f"a{c}b") == f"a{value_char(c)}b", repr(c)
    text = "".join(chars)
    assert gff_seqid(text) == "".join(map(seqid_char, text)) and gff_value(text) == "".join(map(value_char, text))


def test_minus_strand_gene_model_is_valid(tmp_path):
    """A minus-strand model: '-' in column 7, ascending start <= end, Gap still parses."""
    base = "TTTT" + "ACGGATCCAT" + "GGGGGGGG" + "TTACCAGTGA" + "AAAA"
    from splicedalign.workloads.spliced.exons.strand import reverse_complement

    exons = [(5, 14), (23, 32)]
    target = reverse_complement(base[22:32]) + reverse_complement(base[4:14])
    (tmp_path / "b.fa").write_text(f">b\n{base}\n")
    (tmp_path / "t.fa").write_text(f">t\n{target}\n")
    (tmp_path / "e.tsv").write_text("first\tlast\tstrand\n" + "".join(f"{f}\t{l}\t-\n" for f, l in exons))
    code, out, err = run_cli("-q", "align", "--base", str(tmp_path / "b.fa"), "--exons", str(tmp_path / "e.tsv"),
                             "--target", str(tmp_path / "t.fa"), "--format", "gff3")
    assert code == 0, err
    ex = [f for f in check_gff3(out) if f["type"] == "exon"]
    assert [(f["start"], f["end"], f["strand"], f["Target"], f["Gap"]) for f in ex] == [
        (23, 32, "-", "t 1 10 +", "M10"), (5, 14, "-", "t 11 20 +", "M10")]
