"""Candidate-exon readers on every real fixture (expected values read off the reports by
hand), malformed inputs (errors name the file and line), and the minus-strand helper."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from Bio.Seq import Seq

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.exons import EXON_READERS, read_exons
from splicedalign.workloads.spliced.exons.signals import SignalParams, signal_exons
from splicedalign.workloads.spliced.exons.strand import flip_interval, on_strand, reverse_complement

DATA = Path(__file__).parent / "data"
GENSCAN = DATA / "genscan"


def spans(exons):
    return [(e.first, e.last, e.attrs["strand"]) for e in exons]


def test_every_format_is_registered():
    assert {"tsv", "genscan", "gff", "gff3", "gtf", "augustus", "bed12", "bed12-cds", "signals"} <= set(EXON_READERS)


# --- GENSCAN -------------------------------------------------------------------------------
def test_genscan_bioperl_report():
    exons = read_exons(GENSCAN / "genomic-seq.genscan", 168628, "genscan")
    assert len(exons) == 37  # genes 2 (3 exons), 3 (3), 8 (31); Prom/PlyA rows are not exons
    kinds = [e.attrs["type"] for e in exons]
    assert (kinds.count("Init"), kinds.count("Intr"), kinds.count("Term")) == (2, 32, 3)
    assert sum(e.attrs["strand"] == "-" for e in exons) == 34
    by_id = {e.attrs["id"]: e for e in exons}
    assert (by_id["2.03"].first, by_id["2.03"].last, by_id["2.03"].attrs["strand"]) == (10463, 10642, "-")
    assert (by_id["3.01"].first, by_id["3.01"].last, by_id["3.01"].attrs["strand"]) == (18680, 18726, "+")
    assert (by_id["8.01"].first, by_id["8.01"].last) == (167857, 168007)
    assert by_id["8.31"].attrs["score"] == 0.986 and by_id["8.31"].attrs["tscr"] == 1.74
    assert "8.00" not in by_id and "2.04" not in by_id  # gene 8 is 5'-partial; 2.04 is PlyA


def _peptide(report: str, gene: int) -> str:
    block = re.search(rf"GENSCAN_predicted_peptide_{gene}\|\d+_aa\n(.*?)\n\n", report, re.S).group(1)
    return block.replace("\n", "")


@pytest.mark.parametrize("gene,strand", [(2, "-"), (3, "+")])
def test_genscan_exons_translate_to_its_peptides(gene, strand):
    """Minus-strand mapping checked end to end: reverse-complement the base, map the exons,
    splice, translate; GENSCAN's own peptide must come out."""
    base = "".join(gzip.open(GENSCAN / "genomic-seq.fasta.gz", "rt").read().splitlines()[1:])
    exons = [e for e in read_exons(GENSCAN / "genomic-seq.genscan", len(base), "genscan")
             if e.attrs["id"].startswith(f"{gene}.")]
    oriented, mapped = on_strand(base, exons, strand)
    assert len(mapped) == 3 and all(e.attrs["strand"] == "+" for e in mapped)
    cds = "".join(oriented[e.first - 1:e.last] for e in mapped)
    report = (GENSCAN / "genomic-seq.genscan").read_text()
    assert str(Seq(cds).translate()).rstrip("*") == _peptide(report, gene)


def test_genscan_web_server_layout():
    exons = read_exons(GENSCAN / "test.genscan", 12217, "genscan")
    assert spans(exons) == [
        (2223, 3020, "+"), (4249, 4605, "+"),
        (6829, 7297, "-"), (7730, 7888, "-"), (8029, 8185, "-"), (8278, 8546, "-"), (8647, 8789, "-"),
        (10209, 11313, "+"), (11850, 11924, "+"),  # gene 3 is 3'-partial (no Term)
    ]
    assert {e.attrs["set"] for e in exons} == {"optimal"}  # its -subopt section is empty


def test_genscan_no_genes_and_bioruby_report():
    assert read_exons(GENSCAN / "no-genes.genscan", 780, "genscan") == []
    exons = read_exons(GENSCAN / "sample.report", 12942, "genscan")
    assert len(exons) == 8 and {e.attrs["strand"] for e in exons} == {"+"}
    assert (exons[0].first, exons[0].last, exons[0].attrs["score"]) == (1664, 1774, 0.997)
    assert (exons[-1].first, exons[-1].last, exons[-1].attrs["type"]) == (9720, 9839, "Term")


def test_genscan_suboptimal_rows_constructed_fixture():
    exons = read_exons(GENSCAN / "subopt.constructed.genscan", 12217, "genscan")
    sub = [e for e in exons if e.attrs["set"] == "suboptimal"]
    assert len(exons) == 12
    assert [(e.attrs["id"], e.first, e.last, e.attrs["strand"], e.attrs["type"]) for e in sub] == [
        ("S.001", 2850, 3020, "+", "Intr"), ("S.002", 6901, 7297, "-", "Term"), ("S.003", 10209, 10950, "+", "Sngl")]


def _damaged(tmp_path, edit) -> tuple[Path, int]:
    lines = (GENSCAN / "sample.report").read_text().splitlines(keepends=True)
    row = next(i for i, l in enumerate(lines) if l.strip().startswith("1.02"))
    lines = edit(lines, row)
    path = tmp_path / "bad.genscan"
    path.write_text("".join(lines))
    return path, row + 1


@pytest.mark.parametrize("edit,message", [
    (lambda ls, i: ls[:i] + [ls[i].rsplit(None, 1)[0] + "\n"] + ls[i + 1:], "Intr row has 12 columns, expected 13"),
    (lambda ls, i: ls[:i] + [ls[i].replace("Intr", "Exon")] + ls[i + 1:], "unknown GENSCAN feature type 'Exon'"),
    (lambda ls, i: ls[:i] + [ls[i].replace(" 179 ", " 178 ")] + ls[i + 1:], "Len=178 but Begin..End spans 179 bp"),
    (lambda ls, i: ls[:i] + [ls[i].replace(" + ", " - ")] + ls[i + 1:], "- strand row with Begin=2042, End=2220"),
    (lambda ls, i: ls[:i] + ["garbage in the table\n"] + ls[i + 1:], "unexpected line in the optimal exon table"),
])
def test_genscan_malformed_row_names_line(tmp_path, edit, message):
    path, line = _damaged(tmp_path, edit)
    with pytest.raises(InputError, match=re.escape(f"{path}:line {line}: {message}")):
        read_exons(path, 12942, "genscan")


def test_genscan_truncated_report(tmp_path):
    path, line = _damaged(tmp_path, lambda ls, i: ls[: i + 1])
    with pytest.raises(InputError, match=rf"line {line}: report ends inside the exon table.*truncated"):
        read_exons(path, 12942, "genscan")


def test_genscan_wrong_base_and_not_a_report(tmp_path):
    with pytest.raises(InputError, match=r"sample.report:line 3: report is for a 12942 bp sequence"):
        read_exons(GENSCAN / "sample.report", 12000, "genscan")
    with pytest.raises(InputError, match="not a GENSCAN report"):
        read_exons(DATA / "augustus" / "augustus_hsIL10_1k.gff", 6892, "genscan")


# --- GFF / GTF (AUGUSTUS) ------------------------------------------------------------------
def test_augustus_sampled_alternatives():
    exons = read_exons(DATA / "augustus" / "augustus_hsIL10_1k_sampling.gff", 6892, "augustus")
    assert sorted(spans(exons)) == [(2033, 2125, "-"), (3226, 3291, "-"), (4304, 4456, "-"), (4753, 4809, "-"),
                                    (4753, 4812, "-"), (5668, 5832, "-"), (5788, 5832, "-")]
    scores = {(e.first, e.last): (e.attrs["score"], e.attrs["transcripts"]) for e in exons}
    assert scores[(2033, 2125)] == (1.0, 5)  # in all 5 sampled transcripts, posterior 1
    assert scores[(5788, 5832)][0] == 0.01


def test_augustus_plain_gtf_without_scores():
    exons = read_exons(DATA / "augustus" / "augustus_hsIL10_1k.gff", 6892, "gtf")
    assert spans(exons) == [(2033, 2125, "-"), (3226, 3291, "-"), (4304, 4456, "-"), (4753, 4809, "-")]
    assert all(e.attrs["score"] is None for e in exons)


def test_gff3_exon_fallback_and_errors(tmp_path):
    good = tmp_path / "t.gff3"
    good.write_text("##gff-version 3\nchr\tdemo\tmRNA\t5\t60\t.\t+\t.\tID=t1\n"
                    "chr\tdemo\texon\t5\t20\t.\t+\t.\tParent=t1\nchr\tdemo\texon\t40\t60\t0.5\t+\t.\tParent=t1\n"
                    "##FASTA\n>chr\nACGT\n")
    assert spans(read_exons(good, 100, "gff3")) == [(5, 20, "+"), (40, 60, "+")]
    bad = tmp_path / "bad.gff3"
    for text, message in [
        ("chr\tdemo\tCDS\t5\t20\t.\t+\n", "line 1: 7 tab-separated columns, GFF/GTF has 9"),
        ("chr\tdemo\tCDS\t5\tx\t.\t+\t0\t.\n", "line 1: start/end must be integers"),
        ("#c\nchr\tdemo\tCDS\t5\t200\t.\t+\t0\t.\n", "line 2: exon last=200 is beyond the base sequence"),
        ("a\td\tCDS\t5\t20\t.\t+\t0\t.\nb\td\tCDS\t5\t20\t.\t+\t0\t.\n", "features on 2 sequences"),
    ]:
        bad.write_text(text)
        with pytest.raises(InputError, match=re.escape(f"{bad}:") + ".*" + re.escape(message)):
            read_exons(bad, 100, "gff")


# --- BED12 ---------------------------------------------------------------------------------
BED = Path(__file__).resolve().parents[1] / "resources" / "sources" / "pyfaidx-tests" / "gene.bed12"


def test_bed12_blocks_and_coding_parts():
    blocks = read_exons(BED, 40000, "bed12")
    assert spans(blocks) == [(6011, 6168, "-"), (11206, 11332, "-"), (11872, 11981, "-"),
                             (13921, 13995, "-"), (22328, 22407, "-"), (30898, 31420, "-")]
    coding = read_exons(BED, 40000, "bed12-cds")
    assert (coding[0].first, coding[-1].last) == (6013, 31270)
    assert sum(e.length for e in coding) == 921  # the 306-aa ORF + stop (data/SOURCES.md)


def test_bed12_errors(tmp_path):
    bad = tmp_path / "bad.bed"
    bad.write_text("track name=x\nchr\t0\t100\tt\t0\t+\t0\t100\t0\t2\t10,10,\t0,\n")
    with pytest.raises(InputError, match=r"bad.bed:line 2: blockCount 2 but 2 sizes and 1 starts"):
        read_exons(bad, 1000, "bed12")
    bad.write_text("chr\t0\t100\tt\t0\t+\n")
    with pytest.raises(InputError, match=r"line 1: 6 columns, BED12 has 12"):
        read_exons(bad, 1000, "bed12")


# --- splice signals ------------------------------------------------------------------------
def test_signals_hand_made():
    # acceptor CAG at 1-3, exon 4-15 (no stop in frame 0), donor GTAAG at 16-20
    seq = "CAG" + "ACCTACCTACCT" + "GTAAG" + "CCCCCC"
    exons = signal_exons(seq, SignalParams(min_length=5, max_length=50))
    assert (4, 15) in [(e.first, e.last) for e in exons]
    internal = [e for e in exons if e.attrs["type"] == "internal"]
    assert [(e.first, e.last) for e in internal] == [(4, 15)]


def test_signals_on_real_slice_obey_their_rules():
    path = Path(__file__).resolve().parents[1] / "resources" / "sources" / "bioperl-run" / "exonerate_genomic.fa"
    exons = read_exons(path, 3101, "signals")
    seq = "".join(path.read_text().splitlines()[1:]).upper()
    assert 100 < len(exons) <= SignalParams().max_exons
    for e in exons:
        assert 10 <= e.length <= 400
        if e.attrs["type"] in ("internal", "last"):
            assert re.fullmatch("[CT]AG", seq[e.first - 4:e.first - 1])
        if e.attrs["type"] in ("internal", "first"):
            assert re.match("GT[AG]AG", seq[e.last:e.last + 5])
        if e.attrs["type"] in ("first", "single"):
            assert seq[e.first - 1:e.first + 2] == "ATG"
    with pytest.raises(InputError, match="more than max_exons=10"):
        signal_exons(seq, SignalParams(max_exons=10))
    with pytest.raises(InputError, match="signals format reads the base FASTA itself"):
        read_exons(path, 3000, "signals")


# --- strand helper -------------------------------------------------------------------------
def test_flip_and_reverse_complement():
    assert reverse_complement("AACGTn") == "nACGTT"
    assert flip_interval(1, 3, 10) == (8, 10)
    assert flip_interval(*flip_interval(4, 7, 10), 10) == (4, 7)
    with pytest.raises(ValueError):
        on_strand("ACGT", [], ".")


# --- TSV tables: strand column, no csv field-size limit -------------------------------------
def test_tsv_strand_column_and_long_fields(tmp_path):
    note = "n" * 300_000  # past the csv module's 131,072-character field limit
    (tmp_path / "e.tsv").write_text(f"first\tlast\tstrand\tnote\n1\t4\t-\t{note}\n2\t5\t.\tx\n3\t6\t\ty\n")
    exons = read_exons(tmp_path / "e.tsv", 10)
    assert [(e.first, e.last, e.attrs["strand"]) for e in exons] == [(1, 4, "-"), (2, 5, "+"), (3, 6, "+")]
    assert exons[0].attrs["note"] == note


def test_strand_cases_map_rows_back():
    from splicedalign.workloads.spliced.exons.strand import strand_cases
    from splicedalign.workloads.spliced.records import Exon

    exons = [Exon(1, 3, {"strand": "-"}), Exon(5, 8), Exon(2, 9, {"strand": "-"})]
    plus, minus = strand_cases("c", "ACGTACGTAC", exons, "ACG", ("+", "-"))
    assert (plus.strand, [(e.first, e.last) for e in plus.exons], plus.input_index(0)) == ("+", [(5, 8)], 1)
    assert minus.base == reverse_complement("ACGTACGTAC")
    assert [(e.first, e.last) for e in minus.exons] == [(8, 10), (2, 9)]
    assert [minus.forward_interval(e.first, e.last) for e in minus.exons] == [(1, 3), (2, 9)]
    assert [minus.input_index(k) for k in range(2)] == [0, 2]
    with pytest.raises(InputError, match="no candidate exon on the '-' strand"):
        strand_cases("c", "ACGT", [Exon(1, 2)], "A", ("-",))
