"""Richer candidate exons, still exact: a gene finder's exons plus their boundaries moved to
nearby splice signals, merged with any other source and deduplicated.

A gene finder (AUGUSTUS, GENSCAN) often has the right exon with a boundary a few bases off
(NAGNAG acceptors), or misses a boundary whose signal is non-canonical (GC-AG, AT-AC introns).
``shifted_exons`` adds, for every exon, the intervals whose start is the exon's own or lies
just after an acceptor dinucleotide (default ``AG``; ``AC`` for AT-AC introns), and whose end
is the exon's own or lies just before a donor dinucleotide (default ``GT``, ``GC``; ``AT``),
within ``window`` bases of the original boundary. The defaults (GT-AG and GC-AG introns, 3 bp)
are what helped or did no harm on the bundled annotated cases; wider windows and AT-AC signals
let a divergent target's chance matches pull boundaries off (``docs/spliced.md``).
Only splice boundaries move: a start that follows an acceptor, an end that precedes a donor
and is no stop codon; a first exon's start codon and a last exon's stop stay where the gene
finder put them (moving them lets the chain run into the cDNA's untranslated ends).
Intron pairing (GT-AG, GC-AG, AT-AC) is not imposed per exon: a chain takes any donor with
any acceptor, as Gelfand's algorithm has no intron model. Shifted intervals must keep an open
reading frame (no stop codon in at least one frame, a stop codon ending the exon allowed),
as every coding exon has one. ``merge`` joins candidate lists and drops repeated intervals,
keeping the first one's attributes and the names of every source that gave it.

The chain stays the exact optimum over the larger set; the cost is K (cells grow with the
sum of exon lengths), which ``docs/spliced.md`` reports per case.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.exons.signals import STOPS
from splicedalign.workloads.spliced.exons.strand import exon_strand, flip_exon, reverse_complement
from splicedalign.workloads.spliced.records import Exon


@dataclass(frozen=True)
class ShiftParams:
    window: int = 3  # bases a boundary may move either way
    donors: tuple[str, ...] = ("GT", "GC")  # first two intron bases: the exon ends before them
    acceptors: tuple[str, ...] = ("AG",)  # last two intron bases: the exon starts after them
    min_length: int = 3
    open_frame: bool = True  # shifted intervals keep an open reading frame
    max_exons: int = 50_000

    def __post_init__(self) -> None:
        if self.window < 0:
            raise InputError("candidates", f"shift window must be >= 0, got {self.window}")
        bad = [m for m in self.donors + self.acceptors if len(m) != 2 or set(m.upper()) - set("ACGT")]
        if bad:
            raise InputError("candidates", f"splice signals are dinucleotides of ACGT, got {', '.join(bad)}")


def _positions(seq: str, motifs: Sequence[str]) -> list[int]:
    """0-based starts of every dinucleotide of ``motifs`` in ``seq`` (upper case)."""
    wanted = {m.upper() for m in motifs}
    return [i for i in range(len(seq) - 1) if seq[i:i + 2] in wanted]


def _stop_free(seq: str, first: int, last: int) -> bool:
    """Some frame of [first, last] (1-based) has no stop codon, except one ending at ``last``."""
    for r in range(3):
        if all(seq[p:p + 3] not in STOPS for p in range(first - 1 + r, last - 5, 3)):
            return True
    return False


def _shift_forward(seq: str, exons: Sequence[Exon], params: ShiftParams) -> list[Exon]:
    """``shifted_exons`` for exons on the forward strand of ``seq``."""
    # an exon starting at p (1-based) follows an acceptor at 0-based p-3..p-2;
    # one ending at q (1-based) precedes a donor at 0-based q..q+1
    starts = [i + 3 for i in _positions(seq, params.acceptors)]
    ends = _positions(seq, params.donors)
    acceptors = {m.upper() for m in params.acceptors}
    donors = {m.upper() for m in params.donors}
    w, out = params.window, []
    for index, e in enumerate(exons):
        firsts, lasts = {e.first}, {e.last}
        # only splice boundaries move: a start after an acceptor (not a first exon's start
        # codon), an end before a donor that is no stop codon (not a last exon's end)
        if e.first >= 3 and seq[e.first - 3:e.first - 1] in acceptors:
            firsts.update(starts[bisect_left(starts, e.first - w):bisect_right(starts, e.first + w)])
        if seq[e.last:e.last + 2] in donors and seq[e.last - 3:e.last] not in STOPS:
            lasts.update(ends[bisect_left(ends, e.last - w):bisect_right(ends, e.last + w)])
        for f in sorted(firsts):
            for last in sorted(lasts):
                if (f, last) == (e.first, e.last) or last - f + 1 < params.min_length or last > len(seq):
                    continue
                if params.open_frame and not _stop_free(seq, f, last):
                    continue
                out.append(Exon(f, last, {"strand": exon_strand(e), "source": "shifted", "from": index,
                                          "shift": f"{f - e.first:+d},{last - e.last:+d}"}))
    return out


def shifted_exons(base: str, exons: Sequence[Exon], params: ShiftParams = ShiftParams()) -> list[Exon]:
    """Every exon's variants with boundaries moved to nearby splice signals (not the exons
    themselves), on the exon's own strand, in forward coordinates of ``base``. Attributes:
    ``strand``, ``source`` ``shifted``, ``from`` (index of the exon in ``exons``), ``shift``."""
    seq = base.upper()
    m = len(seq)
    plus = [e for e in exons if exon_strand(e) == "+"]
    minus = [flip_exon(e, m) for e in exons if exon_strand(e) == "-"]
    index_plus = [i for i, e in enumerate(exons) if exon_strand(e) == "+"]
    index_minus = [i for i, e in enumerate(exons) if exon_strand(e) == "-"]
    out = [Exon(e.first, e.last, {**e.attrs, "from": index_plus[e.attrs["from"]]})
           for e in _shift_forward(seq, plus, params)]
    if minus:
        for e in _shift_forward(reverse_complement(seq), minus, params):
            back = flip_exon(e, m)
            out.append(Exon(back.first, back.last, {**back.attrs, "from": index_minus[e.attrs["from"]]}))
    if len(out) > params.max_exons:
        raise InputError("candidates", f"{len(out)} shifted candidate exons, more than max_exons="
                         f"{params.max_exons}; narrow the shift window")
    return out


def merge(*sources: Iterable[Exon]) -> list[Exon]:
    """The candidate lists joined, each (first, last, strand) once: the first occurrence's
    attributes, with ``sources`` naming every source attribute that gave the interval."""
    seen: dict[tuple[int, int, str], tuple[Exon, list[str]]] = {}
    for exons in sources:
        for e in exons:
            key = (e.first, e.last, exon_strand(e))
            name = str(e.attrs.get("source", "input"))
            if key in seen:
                names = seen[key][1]
                if name not in names:
                    names.append(name)
            else:
                seen[key] = (e, [name])
    return [Exon(e.first, e.last, {**e.attrs, "sources": "+".join(names)}) for e, names in seen.values()]


def richer_candidates(base: str, exons: Sequence[Exon], params: ShiftParams = ShiftParams(),
                      *others: Iterable[Exon]) -> list[Exon]:
    """A gene finder's exons, their shifted variants and any ``others`` (e.g. splice-signal
    candidates), merged and deduplicated; the gene finder's exons come first, in their order."""
    return merge(exons, shifted_exons(base, exons, params), *others)
