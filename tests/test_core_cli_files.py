"""What a user meets on every command, through the console script: standard input feeds at
most one input (one line, exit 2; empty or too-full stdin named as such), an output file that
is one of the inputs is refused before anything is written, Ctrl-C exits 130 with one line and
no output file, and the version comes from the package metadata (--version, -V)."""

from __future__ import annotations

import shutil
import signal
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
from helpers import console, run_cli

from splicedalign.core.commandline import write_output
from splicedalign.core.errors import EXIT_INPUT, EXIT_INTERRUPTED, InputError

TWO = ">a\nACGTACGTAC\n>b\nACGTTCGTAC\n"


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"base": ">b\nACGTACGTAC\n", "target": ">t\nACGTAC\n", "exons": "first\tlast\n2\t7\n",
             "query": ">q\nMKVLAAGW\n", "db": ">d1\nMKVLSAGW\n>d2\nWWAGM\n", "pair": TWO}
    out = {}
    for name, text in paths.items():
        out[name] = tmp_path / (name + (".tsv" if name == "exons" else ".fa"))
        out[name].write_text(text)
    return out


# every command with each of its inputs; stdin may feed one of them, never two
def _commands(f: dict[str, Path]) -> dict[str, list[str]]:
    return {
        "align": ["align", "--base", str(f["base"]), "--exons", str(f["exons"]), "--target", str(f["target"])],
        "stats": ["stats", "--base", str(f["base"]), "--exons", str(f["exons"]), "--target", str(f["target"])],
        "primer": ["primer", "--alpha", str(f["base"]), "--beta", str(f["target"]), "-k", "2"],
        "nw": ["nw", "--seq1", str(f["base"]), "--seq2", str(f["target"])],
        "nw-pair": ["nw", "--pair", str(f["pair"])],
        "sw": ["sw", "--query", str(f["query"]), "--db", str(f["db"])],
    }


def _with_stdin(argv: list[str], *flags: str) -> list[str]:
    return [("-" if i and argv[i - 1] in flags else a) for i, a in enumerate(argv)]


@pytest.mark.parametrize("command, flags", [
    ("nw", ("--seq1", "--seq2")), ("sw", ("--query", "--db")), ("primer", ("--alpha", "--beta")),
    ("align", ("--base", "--target")), ("stats", ("--exons", "--target")),
])
def test_stdin_offered_to_two_inputs_is_one_line_exit_2(command, flags, files):
    r = console(*_with_stdin(_commands(files)[command], *flags), stdin=TWO)
    assert r.returncode == EXIT_INPUT and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        f"splicedalign: error: {flags[0]} and {flags[1]}: standard input ('-') can feed only one input; "
        "give the others as files"]


def test_stdin_feeds_one_input_and_says_when_it_is_empty_or_holds_two_records(files):
    ok = console(*_with_stdin(_commands(files)["nw"], "--seq1"), "-q", "--format", "tsv",
                 stdin=">a\nACGTACGTAC\n")
    assert ok.returncode == 0 and ok.stderr == "" and ok.stdout.count("\n") == 2, ok.stderr
    empty = console(*_with_stdin(_commands(files)["sw"], "--query"), stdin="")
    assert empty.returncode == EXIT_INPUT
    assert empty.stderr.strip() == "splicedalign: error: standard input: no FASTA record (nothing piped in?)"
    two = console(*_with_stdin(_commands(files)["nw"], "--seq2"), stdin=TWO)
    assert two.returncode == EXIT_INPUT
    assert two.stderr.strip() == "splicedalign: error: standard input: 2 FASTA records, expected exactly one (a, b)"
    both = console("nw", "--pair", "-", "-q", "--format", "tsv", stdin=TWO)
    assert both.returncode == 0 and both.stdout.count("\n") == 2, both.stderr


@pytest.mark.parametrize("command", ["align", "primer", "nw", "nw-pair", "sw"])
def test_output_naming_an_input_is_refused_and_the_input_left_untouched(command, files):
    argv = _commands(files)[command]
    for i, arg in enumerate(argv):
        if arg.startswith("--") and i + 1 < len(argv) and Path(argv[i + 1]).exists():
            before = Path(argv[i + 1]).read_bytes()
            code, stdout, stderr = run_cli(*argv, "-o", argv[i + 1])
            assert code == EXIT_INPUT and stdout == ""
            assert stderr.strip().splitlines() == [
                f"splicedalign: error: {argv[i + 1]}: output file is the input {arg}; choose another output "
                "file (the input is left as it is)"]
            assert Path(argv[i + 1]).read_bytes() == before


def test_output_through_a_link_to_an_input_is_refused(files, tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(files["db"])
    code, _, stderr = run_cli(*_commands(files)["sw"], "-o", str(link))
    assert code == EXIT_INPUT and "is the input --db" in stderr
    assert files["db"].read_text().startswith(">d1")


def test_output_is_written_whole_or_not_at_all(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("old")
    out.chmod(0o640)
    write_output(str(out), "new\n")
    assert out.read_text() == "new\n" and out.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary left beside it

    with pytest.raises(TypeError):  # writing fails half-way (as on Ctrl-C): nothing is left
        write_output(str(tmp_path / "new.txt"), 5)  # type: ignore[arg-type]
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    with pytest.raises(InputError, match="cannot write output"):
        write_output(str(tmp_path / "no" / "x.txt"), "x")


def test_ctrl_c_during_a_solve_exits_130_with_one_line_and_no_output_file(tmp_path):
    """SIGINT once the child says it is solving (its first progress line, written after a pair of
    the batch is done, 2 s into the solve) with ~2 min of the batch left: the solve cannot end
    first, however late the signal comes."""
    seed = 23
    import random

    rng = random.Random(seed)
    print("seed", seed)
    # the pure-NumPy reference takes ~0.6 s a pair of 60,000 x 20 (a Python step per row of a),
    # ~30 MB of tables a pair; 200 pairs: ~2 min
    a, b = ("".join(rng.choices("ACGT", k=length)) for length in (60_000, 20))
    (tmp_path / "pairs.fa").write_text(f">a\n{a}\n>b\n{b}\n" * 200)
    out = tmp_path / "out.json"
    exe = shutil.which("splicedalign") or "splicedalign"
    # the child starts as from a terminal: SIGINT at its default. A shell's background job (a suite run
    # as `pytest ... &` from a script) has SIGINT ignored, the child inherits that, and Python then installs
    # no KeyboardInterrupt: Ctrl-C does nothing there, as the shell means (what failed under load before)
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen([exe, "nw", "--solver", "reference", "--score-only", "--pairs",
                                 str(tmp_path / "pairs.fa"), "-o", str(out)], stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, inherited)
    assert proc.stderr is not None
    try:
        first = proc.stderr.readline()  # logged just before solving
        assert "200 pair(s)" in first and "solver reference" in first, first
        progress = proc.stderr.readline()  # the first progress line: the solve has run 2 s and goes on
        assert "nw 200 pairs (reference): " in progress and "/200 pairs" in progress, progress
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        assert proc.wait(timeout=60) == EXIT_INTERRUPTED, rest
    finally:
        proc.kill()
        proc.wait()
    assert rest.strip().splitlines() == ["splicedalign: interrupted"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.fa"]


def test_version_comes_from_the_package_metadata_and_V_works():
    for flag in ("--version", "-V"):
        r = console(flag)
        assert r.returncode == 0 and r.stdout.strip() == f"splicedalign {version('splicedalign')}", r.stderr
