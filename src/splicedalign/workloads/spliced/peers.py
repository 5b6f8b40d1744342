"""Gene-structure peers side by side with ours on the annotated cases of a data set.

Peers are the installed cDNA-to-genome aligners (Debian packages ``spaln``, ``exonerate``),
run on the same base/target pairs; each predicts exons on the base, which are scored against
the annotated exons exactly as our chains are (``accuracy``: exon- and nucleotide-level
sensitivity/specificity, pooled per data set). A peer that is not installed gets rows saying
"n/a: not installed". Ours runs once per candidate-exon source (the data set's own, e.g.
AUGUSTUS; splice signals; GENSCAN where the data set ships its reports; ``shifted``: the data
set's own exons plus their splice boundaries moved to nearby signals, ``exons.merged``) and once
per scoring (``scorings``: e.g. the paper's global target ends and free ends), so the table
shows how the exact method depends on its candidates and objective; ``candidate_exons`` is K.
Seconds are wall time per case: a peer's process from start to exit, ours the solve with
traceback (no process start).

The annotated exons are coding exons, while the peers align the whole cDNA (UTR exons
included); rows marked ``cds`` clip every prediction to the annotated coding span (first
annotated base .. last annotated base) before scoring, the comparison on coding exons only.
exonerate's ``cdna2genome`` model would need each target's CDS coordinates, which the
data sets do not carry; miniprot needs a protein target, which none of them has.
"""

from __future__ import annotations

import logging
import math
import re
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.accuracy import Interval, accuracy_table, chain_intervals
from splicedalign.workloads.spliced.datasets import CaseEntry, read_manifest
from splicedalign.workloads.spliced.exons.genscan import read_genscan
from splicedalign.workloads.spliced.exons.merged import ShiftParams, richer_candidates
from splicedalign.workloads.spliced.exons.signals import signal_exons
from splicedalign.workloads.spliced.records import Scoring, TestCase
from splicedalign.workloads.spliced.solvers import get_solver

log = logging.getLogger("splicedalign")

NOT_INSTALLED = "n/a: not installed"


def _gff_exons(text: str, feature: str = "exon") -> list[tuple[int, int, str]]:
    """(first, last, strand) of every ``feature`` line of GFF text (columns 3, 4, 5, 7)."""
    out = []
    for line in text.splitlines():
        cols = line.split("\t")
        if len(cols) >= 8 and cols[2] == feature:
            out.append((int(cols[3]), int(cols[4]), cols[6]))
    return out


@dataclass(frozen=True)
class Peer:
    """An installed aligner: how to run it on (base FASTA, target FASTA) and read its exons."""

    name: str
    binary: str
    args: Callable[[Path, Path], list[str]]
    version_args: tuple[str, ...]
    version_pattern: str  # regex whose group 1 is the version, searched in stdout + stderr

    def path(self) -> str | None:
        return shutil.which(self.binary)

    def version(self) -> str | None:
        """The installed version, or None when the binary is not on PATH."""
        exe = self.path()
        if exe is None:
            return None
        proc = subprocess.run([exe, *self.version_args], capture_output=True, text=True)
        found = re.search(self.version_pattern, proc.stdout + proc.stderr)
        return found.group(1) if found else "unknown"

    def run(self, base: Path, target: Path) -> tuple[list[tuple[int, int, str]], float]:
        """Exons (first, last, strand) of its best model on the base, and wall seconds."""
        exe = self.path()
        if exe is None:
            raise FileNotFoundError(self.binary)
        t0 = time.perf_counter()
        proc = subprocess.run([exe, *self.args(base, target)], capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
            raise InputError(self.binary, f"failed on {base} / {target} (exit {proc.returncode}): {last}")
        return _gff_exons(proc.stdout), seconds


PEERS: dict[str, Peer] = {
    # spaln: cDNA vs a genomic segment, HSP search (-Q3), GFF3 gene output (-O0), its best
    # model even below its score threshold (-pw; ours always reports the best chain too)
    "spaln": Peer("spaln", "spaln", lambda b, t: ["-Q3", "-O0", "-pw", str(b), str(t)], (),
                  r"SPALN version (\S+)"),
    # exonerate: the est2genome model, best hit only, its GFF of the genomic (target) side
    "exonerate:est2genome": Peer(
        "exonerate:est2genome", "exonerate",
        lambda b, t: ["--model", "est2genome", "--bestn", "1", "--showalignment", "no", "--showvulgar", "no",
                      "--showtargetgff", "yes", str(t), str(b)],
        ("--version",), r"exonerate version (\S+)"),
}


def clip(intervals: Iterable[Interval], lo: int, hi: int) -> list[Interval]:
    """The parts of ``intervals`` within [lo, hi] (intervals outside it dropped)."""
    return [(max(f, lo), min(l, hi)) for f, l in intervals if l >= lo and f <= hi]


def _with_exons(case: TestCase, exons) -> TestCase:
    return TestCase(case.name, case.base, case.target, tuple(exons), case.base_id, case.target_id, case.meta)


def signals_case(entry: CaseEntry, case: TestCase, root: Path) -> TestCase:
    """The case with candidate exons from splice signals instead of its own (plus strand)."""
    return _with_exons(case, signal_exons(case.base, source=f"{case.name} (signals)"))


def genscan_case(entry: CaseEntry, case: TestCase, root: Path) -> TestCase:
    """The case with the plus-strand exons of the GENSCAN report its data set ships (manifest
    column ``genscan``, relative to the manifest); bases are oriented with the gene on plus."""
    report = entry.extra.get("genscan")
    if not report:
        raise InputError(entry.case, "no GENSCAN report shipped (manifest column genscan)")
    exons = [e for e in read_genscan(root / report, case.m) if e.attrs["strand"] == "+"]
    if not exons:
        raise InputError(report, "no plus-strand GENSCAN exon")
    return _with_exons(case, exons)


# Richer candidates (exons.merged): the data set's own exons plus their splice boundaries moved
# to GT/GC donors and AG acceptors within 3 bp (the defaults), or to GT/GC/AT donors and AG/AC
# acceptors within 10 bp (wide: GT-AG, GC-AG and AT-AC introns)
SHIFTS = {"shifted": ShiftParams(), "shifted-wide": ShiftParams(10, ("GT", "GC", "AT"), ("AG", "AC"))}


def shifted_case(params: ShiftParams) -> Callable[[CaseEntry, TestCase, Path], TestCase]:
    """The case with its own exons plus their splice boundaries moved to nearby signals."""
    return lambda entry, case, root: _with_exons(case, richer_candidates(case.base, case.exons, params))


def shift_label(params: ShiftParams) -> str:
    """e.g. 'shifted3 GT,GC/AG'."""
    return f"shifted{params.window} {','.join(params.donors)}/{','.join(params.acceptors)}"


# source -> (manifest entry, its loaded case, the manifest's folder) -> the case with those exons
SOURCES: dict[str, Callable[[CaseEntry, TestCase, Path], TestCase]] = {
    "manifest": lambda entry, case, root: case, "signals": signals_case, "genscan": genscan_case,
    **{name: shifted_case(params) for name, params in SHIFTS.items()}}


@dataclass(frozen=True)
class Row:
    """One prediction of one case: tool, candidate source, exons, seconds, status."""

    tool: str
    candidates: str
    case: str
    predicted: tuple[Interval, ...] | None  # None: no prediction (status says why)
    true: tuple[Interval, ...]
    other_strand: tuple[Interval, ...] = ()  # predicted on the strand opposite the annotation
    seconds: float = math.nan
    status: str = "ok"
    scoring: str = "-"  # ours: match/mismatch/gap and target ends
    candidate_exons: int | None = None  # ours: K


def scoring_label(scoring: Scoring) -> str:
    """e.g. '1/-1/2 global': match/mismatch/gap and the target ends."""
    return f"{scoring.match}/{scoring.mismatch}/{scoring.gap} {scoring.target_ends}"


def _ours(entries: Sequence[CaseEntry], root: Path, solver: str, scorings: Sequence[Scoring],
          sources: Sequence[str]) -> list[Row]:
    rows = []
    run = get_solver(solver)
    for scoring in scorings:
        run.solve(entries[0].load(), scoring, traceback=True)  # warm-up: kernels compiled or loaded
    for e in entries:
        case = e.load()
        true = tuple(case.meta["true_exons"])
        own = e.exon_format if e.exon_format != "tsv" else _source_label(case)
        label = {"manifest": own, **{name: f"{own}+{shift_label(p)}" for name, p in SHIFTS.items()}}
        for source in sources:
            name = label.get(source, source)
            try:
                variant = SOURCES[source](e, case, root)
            except InputError as exc:
                rows += [Row(f"ours:{solver}", name, case.name, None, true, status=f"n/a: {exc.problem}",
                             scoring=scoring_label(s)) for s in scorings]
                continue
            for scoring in scorings:
                result = run.solve(variant, scoring, traceback=True)
                rows.append(Row(f"ours:{solver}", name, case.name, tuple(chain_intervals(variant, result)), true,
                                seconds=result.seconds, scoring=scoring_label(scoring), candidate_exons=variant.K))
    return rows


def _source_label(case: TestCase) -> str:
    """What made the case's candidate exons (their ``source`` attribute), e.g. AUGUSTUS."""
    sources = sorted({str(e.attrs.get("source", "manifest")) for e in case.exons})
    return "+".join(s.lower() for s in sources)


def _peers(entries: Sequence[CaseEntry], peers: Sequence[Peer]) -> list[Row]:
    rows = []
    for peer in peers:
        installed = peer.path() is not None
        for e in entries:
            if not installed:
                rows.append(Row(peer.name, "-", e.case, None, (), status=NOT_INSTALLED))
                continue
            true = tuple(e.load().meta["true_exons"])
            exons, seconds = peer.run(e.base, e.target)
            # bases are oriented so the annotated gene is on the forward strand
            forward = tuple((f, l) for f, l, strand in exons if strand != "-")
            other = tuple((f, l) for f, l, strand in exons if strand == "-")
            status = "ok" if forward else "model on the minus strand" if other else "no model reported"
            rows.append(Row(peer.name, "-", e.case, forward, true, other, seconds, status))
    return rows


def species_pair(entry: CaseEntry) -> str | None:
    """'base species <- target species' from the manifest's extra columns, when it has them."""
    base, target = entry.extra.get("base_species"), entry.extra.get("target_species")
    return f"{base} <- {target}" if base and target else None


def _table(rows: Sequence[Row], versions: dict[str, str], pairs: dict[str, str] | None = None) -> pd.DataFrame:
    """Accuracy rows (per case, pooled per species pair where ``pairs`` names the cases' pairs,
    pooled per data set) for each (tool, candidates, scoring, span) with seconds."""
    pairs = pairs or {}
    frames = []
    keys = list(dict.fromkeys((r.tool, r.candidates, r.scoring) for r in rows))
    for tool, candidates, scoring in keys:
        mine = [r for r in rows if (r.tool, r.candidates, r.scoring) == (tool, candidates, scoring)]
        for span in ("all", "cds"):
            records = []
            for r in mine:
                predicted = list(r.predicted or ())
                if span == "cds" and r.true:
                    predicted = clip(predicted, min(f for f, _ in r.true), max(l for _, l in r.true))
                other = list(r.other_strand)
                if span == "cds" and r.true:
                    other = clip(other, min(f for f, _ in r.true), max(l for _, l in r.true))
                records.append({"case": r.case, "solver": tool, "predicted": predicted, "other_strand": other,
                                "true": list(r.true) if r.predicted is not None else []})
            table = accuracy_table(records)
            by_pair = [accuracy_table([r for r in records if pairs.get(r["case"]) == pair]).assign(case=pair)
                       for pair in dict.fromkeys(pairs[r["case"]] for r in records if r["case"] in pairs)]
            pooled = [t[t["scope"] == "dataset"].assign(scope="species") for t in by_pair]
            table = pd.concat([table[table["scope"] == "case"], *pooled, table[table["scope"] == "dataset"]],
                              ignore_index=True)
            seconds = {r.case: r.seconds for r in mine}
            status = {r.case: r.status for r in mine}
            ran = [v for v in seconds.values() if not math.isnan(v)]
            table["seconds"] = [(sum(ran) if ran else math.nan) if s == "dataset" else seconds.get(c, math.nan)
                                for s, c in zip(table["scope"], table["case"])]
            ks = {r.case: r.candidate_exons for r in mine if r.candidate_exons is not None}
            table["candidate_exons"] = [(sum(ks.values()) if ks else None) if s == "dataset" else ks.get(c)
                                        for s, c in zip(table["scope"], table["case"])]
            failed = Counter(s for s in status.values() if s != "ok")
            pooled_status = "; ".join(f"{n} case(s): {s}" for s, n in sorted(failed.items())) or "ok"
            table["status"] = [pooled_status if s == "dataset" else status.get(c, "ok")
                               for s, c in zip(table["scope"], table["case"])]
            if all(r.predicted is None for r in mine):  # nothing ran: one row says why
                table = table[table["scope"] == "dataset"].assign(status=mine[0].status)
            table.insert(2, "candidates", candidates)
            table.insert(3, "scoring", scoring)
            table.insert(4, "span", span)
            table.insert(5, "version", versions.get(tool, ""))
            frames.append(table.rename(columns={"solver": "tool"}))
    return pd.concat(frames, ignore_index=True)


def peers_table(manifest: str | Path, peers: Sequence[str] = tuple(PEERS), solver: str = "sequential",
                scorings: Sequence[Scoring] = (Scoring(),), sources: Sequence[str] = tuple(SOURCES)) -> pd.DataFrame:
    """Accuracy and seconds of ours (each candidate source and scoring) and each peer on the
    manifest's annotated cases (those with ``true_exons``)."""
    unknown = [p for p in peers if p not in PEERS]
    if unknown:
        raise InputError("peers", f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(PEERS)}")
    entries = [e for e in read_manifest(manifest) if e.true_exons is not None]
    if not entries:
        return pd.DataFrame([{"scope": "dataset", "tool": "-", "cases": 0,
                              "status": "n/a: no case with annotated exons (manifest column true_exons)"}])
    chosen = [PEERS[p] for p in peers]
    versions = {p.name: p.version() or NOT_INSTALLED for p in chosen}
    from splicedalign import __version__

    versions[f"ours:{solver}"] = f"splicedalign {__version__}"
    log.info("peers on %d annotated case(s): %s", len(entries),
             ", ".join(f"{k} {v}" for k, v in versions.items()))
    rows = _ours(entries, Path(manifest).parent, solver, scorings, sources) + _peers(entries, chosen)
    return _table(rows, versions, {e.case: p for e in entries if (p := species_pair(e))})


def _label(tool: str, candidates: str, scoring: str) -> str:
    """A bar's label, a few short lines: tool, candidate source (its parts), scoring."""
    parts = [tool.replace(":sequential", "")] + ([] if candidates == "-" else candidates.split(" ")) + (
        [] if scoring in ("-", "") else [scoring])
    return "\n".join(parts)


def plot_peers(table: pd.DataFrame, path: str | Path) -> None:
    """Pooled exon- and nucleotide-level sensitivity/specificity of every tool, one panel per
    span, and (where the table has species pairs) exon sensitivity per species pair on the
    annotated coding span as a grid of numbers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pooled = table[table["scope"] == "dataset"]
    pairs = table[(table["scope"] == "species") & (table["span"] == "cds")] if "span" in table else table.iloc[:0]
    measures = ["exon_sensitivity", "exon_specificity", "nt_sensitivity", "nt_specificity"]
    spans = [s for s in ("all", "cds") if "span" in pooled and (pooled["span"] == s).any()] or ["all"]
    bars = max(1, max(int((pooled["span"] == s).sum()) if "span" in pooled else len(pooled) for s in spans))
    panels = len(spans) + (not pairs.empty)
    fig, axes = plt.subplots(panels, 1, figsize=(max(7.0, 1.0 * bars), 4.8 * panels), squeeze=False)
    axes = axes[:, 0]
    for ax, span in zip(axes, spans):
        rows = pooled[pooled["span"] == span] if "span" in pooled else pooled
        labels = [_label(t, c, s) for t, c, s in zip(rows.get("tool", []), rows.get("candidates", []),
                                                      rows.get("scoring", [""] * len(rows)))]
        width = 0.8 / len(measures)
        for i, measure in enumerate(measures):
            values = rows[measure].astype(float).fillna(0) if measure in rows else [0] * len(labels)
            ax.bar([x + i * width for x in range(len(labels))], values, width, label=measure.replace("_", " "))
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))], labels, fontsize=6)
        ax.set_ylim(0, 1)
        ax.set_ylabel("sensitivity / specificity")
        ax.set_title(f"pooled over annotated cases, span {span}")
    axes[0].legend(fontsize=7, loc="lower right")
    if not pairs.empty:
        ax = axes[-1]
        keys = list(dict.fromkeys(zip(pairs["tool"], pairs["candidates"], pairs["scoring"])))
        names = list(dict.fromkeys(pairs["case"]))
        grid = [[float("nan")] * len(names) for _ in keys]
        for t, c, sc, pair, value in zip(pairs["tool"], pairs["candidates"], pairs["scoring"], pairs["case"],
                                         pairs["exon_sensitivity"].astype(float)):
            grid[keys.index((t, c, sc))][names.index(pair)] = value
        ax.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn", aspect="auto")
        for i, row in enumerate(grid):
            for j, value in enumerate(row):
                ax.text(j, i, "n/a" if math.isnan(value) else f"{value:.2f}", ha="center", va="center", fontsize=7)
        ax.set_yticks(range(len(keys)), [_label(*k).replace("\n", " ") for k in keys], fontsize=6)
        ax.set_xticks(range(len(names)), [n.replace(" <- ", "\n<- ") for n in names], fontsize=6)
        ax.set_title("exon sensitivity per species pair (base <- target), span cds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_peers(manifest: str | Path, table_path: str | Path, plot_path: str | Path | None = None,
                **kwargs) -> pd.DataFrame:
    """``peers_table`` written as TSV (ratios to 4 decimals) and, with ``plot_path``, its figure."""
    from splicedalign.workloads.spliced.accuracy import format_table

    table = peers_table(manifest, **kwargs)
    if "exon_sensitivity" in table:
        table = format_table(table).assign(seconds=lambda t: t["seconds"].round(4))
    Path(table_path).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(table_path, sep="\t", index=False)
    if plot_path is not None:
        Path(plot_path).parent.mkdir(parents=True, exist_ok=True)
        plot_peers(table, plot_path)
    return table
