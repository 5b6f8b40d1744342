"""The command line: outputs in each format, stdin, and one clear error line per bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from snakemake_runs import SNAKEMAKE, snakemake

from splicedalign.cli import main
from splicedalign.core.errors import EXIT_INPUT
from splicedalign.workloads.spliced.oracle import brute_force, chain_score
from splicedalign.workloads.spliced.records import Exon, Scoring, TestCase

BASE = ">chr_test some description\nACCGTATGT\n"  # thesis §3.5 example
TARGET = ">mrna\nCCGGT\n"
THESIS_EXONS = [(1, 2), (3, 4), (4, 5), (6, 8), (8, 9)]
EXONS = "first\tlast\tsource\n" + "".join(f"{f}\t{l}\tthesis\n" for f, l in THESIS_EXONS)


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        p = tmp_path / name
        p.write_text(text)
        return str(p)

    return write


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def align_args(files, base=BASE, exons=EXONS, target=TARGET):
    return ["align", "--base", files("b.fa", base), "--exons", files("e.tsv", exons),
            "--target", files("t.fa", target)]


def test_json_output(files, capsys):
    code, out, err = run(["-q", *align_args(files)], capsys)
    assert code == 0, err
    rec = json.loads(out)
    assert rec["score"] == 3
    case = TestCase("t", "ACCGTATGT", "CCGGT", tuple(Exon(f, l) for f, l in THESIS_EXONS))
    assert rec["chain"] == [list(THESIS_EXONS[k]) for k in rec["chain_index"]]
    assert chain_score(case, rec["chain_index"], Scoring()) == 3
    assert rec["cells"] == 5 * (2 + 2 + 2 + 3 + 2)
    for key in ("solver", "seconds", "est_seq", "est_intra", "est_intra_inter", "alignment"):
        assert key in rec
    assert rec["est_seq"] == rec["cells"]


def test_score_only_tsv_and_scoring_options(files, capsys):
    code, out, _ = run(["-q", *align_args(files), "--score-only", "--format", "tsv",
                        "--match", "2", "--mismatch", "-3", "--gap", "1"], capsys)
    assert code == 0
    header, row = out.strip().split("\n")
    assert header.split("\t")[:3] == ["case", "solver", "score"]
    case = TestCase("t", "ACCGTATGT", "CCGGT", tuple(Exon(f, l) for f, l in THESIS_EXONS))
    assert int(row.split("\t")[2]) == brute_force(case, Scoring(2, -3, 1))[0]


def test_gff3_gene_model(files, capsys, tmp_path):
    outfile = tmp_path / "model.gff3"
    code, _, _ = run(["-q", *align_args(files), "--format", "gff3", "-o", str(outfile)], capsys)
    assert code == 0
    lines = outfile.read_text().splitlines()
    assert lines[0] == "##gff-version 3"
    features = [l.split("\t") for l in lines if not l.startswith("#")]
    assert [f[2] for f in features][:2] == ["gene", "mRNA"]
    exons = [f for f in features if f[2] == "exon"]
    assert exons and all(f[0] == "chr_test" and f[6] == "+" for f in exons)
    starts = [int(f[3]) for f in exons]
    assert starts == sorted(starts)


def test_gff3_needs_traceback(files, capsys):
    code, _, err = run([*align_args(files), "--score-only", "--format", "gff3"], capsys)
    assert code == EXIT_INPUT and "gff3" in err


def test_stdin_and_console_script(tmp_path):
    (tmp_path / "e.tsv").write_text(EXONS)
    (tmp_path / "t.fa").write_text(TARGET)
    proc = subprocess.run(
        [sys.executable, "-m", "splicedalign.cli", "-q", "align", "--base", "-", "--exons",
         str(tmp_path / "e.tsv"), "--target", str(tmp_path / "t.fa"), "--score-only"],
        input=BASE, capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout)["score"] == 3


def test_unknown_solver_is_bad_input(files, capsys):
    code, _, err = run([*align_args(files), "--solver", "nope"], capsys)
    assert code == EXIT_INPUT and "unknown spliced solver 'nope'" in err
    assert "sequential" in err and "gpu" in err  # the names to choose from


def test_help_lists_subcommands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for word in ("align", "stats", "synthetic"):
        assert word in out


BAD = {
    "empty base file": (dict(base=""), "b.fa: no FASTA record"),
    "multi-record base": (dict(base=">a\nACGT\n>b\nACGT\n"), "2 FASTA records, expected exactly one"),
    "record without sequence": (dict(target=">t\n"), "record 't' has no sequence"),
    "not FASTA": (dict(base="ACGT\n"), "sequence data before the first '>'"),
    "non-nucleotide letter": (dict(target=">t\nCCXGT\n"), "non-nucleotide letter 'X' at position 3"),
    "exon beyond base": (dict(exons="first\tlast\n1\t3\n5\t10\n"),
                         "e.tsv:line 3: exon last=10 is beyond the base sequence (length 9)"),
    "first > last": (dict(exons="first\tlast\n4\t3\n"), "e.tsv:line 2: exon first=4 > last=3"),
    "zero coordinate": (dict(exons="first\tlast\n0\t3\n"), "below 1 (coordinates are 1-based)"),
    "no exons": (dict(exons="first\tlast\n"), "no exons"),
    "empty exon file": (dict(exons=""), "empty exon table"),
    "missing column": (dict(exons="start\tend\n1\t3\n"), "header lacks column(s) first, last"),
    "non-integer": (dict(exons="first\tlast\n1\tx\n"), "e.tsv:line 2: last must be an integer, got 'x'"),
    "ragged row": (dict(exons="first\tlast\n1\t3\t7\n"), "e.tsv:line 2: 3 columns, header has 2"),
    "empty target": (dict(target=""), "t.fa: no FASTA record"),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_input_one_clear_line(name, files, capsys):
    kwargs, expected = BAD[name]
    code, out, err = run(["-q", *align_args(files, **kwargs)], capsys)
    assert code == EXIT_INPUT
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("splicedalign: error: ")
    assert expected in lines[0]


def test_unreadable_file(files, capsys, tmp_path):
    args = align_args(files)
    args[args.index("--target") + 1] = str(tmp_path / "missing.fa")
    code, _, err = run(args, capsys)
    assert code == EXIT_INPUT and "missing.fa: cannot read file" in err


def test_lowercase_and_iupac_accepted_duplicates_kept(files, capsys):
    exons = "first\tlast\n1\t3\n1\t3\n6\t9\n"
    code, out, err = run([*align_args(files, base=">b\naccgtNtgt\n", exons=exons)], capsys)
    assert code == 0
    assert "1 duplicate exon interval(s) kept" in err
    assert json.loads(out)["K"] == 3


def test_manifest_one_output_holding_all(tmp_path, capsys):
    from splicedalign.workloads.spliced.datasets import bundled_manifest

    root = bundled_manifest().parent
    rows = ["case\tbase\ttarget\texons\texon_format\ttrue_exons",
            f"fau\t{root}/bases/hs_FAU.fa\t{root}/targets/hs_X65923.1.fa\t{root}/exons/hs_FAU.tsv\ttsv\t",
            f"srm\t{root}/bases/mm_Srm.fa\t{root}/targets/mm_MUSSPSYN.fa\t{root}/exons/mm_Srm.tsv\ttsv\t"]
    (tmp_path / "cases.tsv").write_text("\n".join(rows) + "\n")
    code, out, err = run(["-q", "align", "--manifest", str(tmp_path / "cases.tsv")], capsys)
    assert code == 0, err
    recs = json.loads(out)
    assert [r["case"] for r in recs] == ["fau", "srm"] and all(r["strand"] == "+" for r in recs)
    code, out, _ = run(["-q", "align", "--manifest", str(tmp_path / "cases.tsv"), "--format", "tsv"], capsys)
    lines = out.splitlines()
    assert lines[0].split("\t")[:4] == ["case", "solver", "score", "strand"]
    assert {l.split("\t")[0] for l in lines[1:]} == {"fau", "srm"}
    code, out, _ = run(["-q", "align", "--manifest", str(tmp_path / "cases.tsv"), "--score-only"], capsys)
    assert [r["score"] for r in json.loads(out)] == [r["score"] for r in recs]


def test_many_target_records(files, capsys):
    targets = TARGET + ">other\nACCGT\n"
    code, out, err = run(["-q", *align_args(files, target=targets), "--name", "thesis"], capsys)
    assert code == 0, err
    recs = json.loads(out)
    assert [r["case"] for r in recs] == ["thesis~mrna", "thesis~other"]
    assert recs[0]["score"] == 3
    case = TestCase("t", "ACCGTATGT", "ACCGT", tuple(Exon(f, l) for f, l in THESIS_EXONS))
    assert recs[1]["score"] == brute_force(case, Scoring())[0]


def test_duplicate_target_ids(files, capsys):
    code, _, err = run(["-q", *align_args(files, target=TARGET + TARGET)], capsys)
    assert code == EXIT_INPUT and "target id 'mrna' occurs 2 times" in err


REPO = __import__("pathlib").Path(__file__).resolve().parents[1]


def _snakemake(workdir, *args):
    if SNAKEMAKE is None:
        pytest.skip("snakemake not installed (pip install -e .[pipeline])")
    return snakemake("-s", str(REPO / "Snakefile"), "-d", str(workdir), "--configfile",
                     str(REPO / "config" / "config.yaml"), *args)


@pytest.mark.slow
def test_slurm_profile_dry_run(tmp_path):
    pytest.importorskip("snakemake_executor_plugin_slurm",
                        reason="snakemake-executor-plugin-slurm not installed (pip install -e .[cluster])")
    yaml = pytest.importorskip("yaml")
    proc = _snakemake(tmp_path, "--executor", "slurm", "--workflow-profile", str(REPO / "profiles" / "slurm"), "-n")
    assert proc.returncode == 0, proc.stdout[-1500:] + proc.stderr[-1500:]
    assert "This was a dry-run" in proc.stdout
    import re

    rules = {m for f in (REPO / "workflow" / "rules").glob("*.smk")
             for m in re.findall(r"^(?:rule|checkpoint) (\w+):", f.read_text(), re.M)}
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    assert set(profile.get("set-resources", {})) <= set(rules), "profile names rules the workflow lacks"


@pytest.mark.slow
def test_readme_rerun_command_reruns(tmp_path):
    """The README's "rerun one result by its path" command reruns it when it is up to date."""
    import re
    import shlex

    command = re.search(r"`(snakemake --cores 1 -f results/\S+)`", (REPO / "README.md").read_text()).group(1)
    words = shlex.split(command)  # snakemake --cores 1 -f TARGET
    target = words[-1]
    # the run narrowed to this one case (faster; the same rules and paths)
    (tmp_path / "one.yaml").write_text("workloads: [spliced]\nspliced:\n  cases:\n    include: [hs_FAU-hs_X65923.1]\n"
                                       "    max_cells: null\n    limit: null\n")
    narrow = ["--configfile", str(REPO / "config" / "config.yaml"), str(tmp_path / "one.yaml")]
    first = _snakemake(tmp_path, *narrow, "--cores", "1", "--", target)
    assert first.returncode == 0, first.stderr[-1500:]
    assert (tmp_path / target).exists()
    again = _snakemake(tmp_path, *narrow, "-n", *words[1:-1], "--", target)
    assert "spliced_case" in again.stdout and "Nothing to be done" not in again.stdout + again.stderr
