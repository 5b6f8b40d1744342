"""Typed records: scoring, candidate exons, test cases and solver results (SPEC §1, §7)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from functools import cached_property
from typing import Any, NamedTuple, TypeVar, overload

import numpy as np

from splicedalign.core.alphabet import encode_base, encode_target
from splicedalign.core.errors import InputError

# How the target's ends are scored (SPEC §2): "global" (the paper's objective: every target
# letter is aligned, leading/trailing ones against gaps at ``gap`` each) or "free" (semi-global
# on the target: leading and trailing target letters may stay unaligned at no cost, as the
# untranslated ends of a cDNA that no candidate exon covers).
TARGET_ENDS = ("global", "free")


@dataclass(frozen=True)
class Scoring:
    """w(a, b) = match if a == b else mismatch; every gap symbol costs ``gap`` (subtracted);
    ``target_ends`` says whether the target's leading/trailing letters are paid for (global)
    or free (SPEC §2)."""

    match: int = 1
    mismatch: int = -1
    gap: int = 2
    target_ends: str = "global"

    def __post_init__(self) -> None:
        for name in ("match", "mismatch", "gap"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise InputError("scoring", f"{name} must be an integer, got {value!r}")
        if self.gap < 0:
            raise InputError("scoring", f"gap is a cost (subtracted) and must be >= 0, got {self.gap}")
        if self.target_ends not in TARGET_ENDS:
            raise InputError("scoring", f"target_ends must be one of {', '.join(TARGET_ENDS)},"
                             f" got {self.target_ends!r}")

    @property
    def free_ends(self) -> bool:
        return self.target_ends == "free"

    @property
    def lead(self) -> int:
        """Cost of each target letter before the chain's first exon (the chain-start term
        -lead*j of every entry row): ``gap`` with global ends, 0 with free ends."""
        return 0 if self.free_ends else self.gap

    @classmethod
    def from_mapping(cls, d: Mapping[str, Any]) -> Scoring:
        default = cls()
        return cls(*(int(d.get(k, getattr(default, k))) for k in ("match", "mismatch", "gap")),
                   target_ends=str(d.get("target_ends", default.target_ends)))

    def as_dict(self) -> dict[str, int | str]:
        return {"match": int(self.match), "mismatch": int(self.mismatch), "gap": int(self.gap),
                "target_ends": self.target_ends}


def exon_problem(first: int, last: int, m: int) -> str | None:
    """Why [first, last] is not a valid exon of a base of length m, or None."""
    if first < 1:
        return f"exon first={first} is below 1 (coordinates are 1-based)"
    if first > last:
        return f"exon first={first} > last={last}"
    if last > m:
        return f"exon last={last} is beyond the base sequence (length {m})"
    return None


@dataclass(frozen=True)
class Exon:
    """A candidate exon: 1-based inclusive forward-strand interval of the base, plus attributes
    (strand, source, score, ... as the exon source gave them)."""

    first: int
    last: int
    attrs: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def length(self) -> int:
        return self.last - self.first + 1


R = TypeVar("R")


class _Records(Sequence[R]):
    """A sequence held as arrays whose items are records made on first access (``records``, a
    tuple): it equals, hashes and prints as that tuple; two of a kind compare by their arrays
    (``_same``)."""

    __slots__ = ()

    @property
    def records(self) -> tuple[R, ...]:
        raise NotImplementedError

    def _same(self, other: Any) -> bool:
        raise NotImplementedError

    def __iter__(self) -> Iterator[R]:
        return iter(self.records)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, type(self)):
            return self is other or self._same(other)
        if isinstance(other, tuple):
            return self.records == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.records)

    def __repr__(self) -> str:
        return repr(self.records)


class Exons(_Records[Exon]):
    """Candidate exons held as columns: an immutable sequence that equals, hashes and prints as
    the tuple of its ``Exon`` records, which are made on first access (all at once; one item
    alone by index), so that a data set's loader hands arrays, not one object per exon (the
    paper-shaped set's 14,287 ``Exon`` with their attrs dicts: ~13 of its ~75 ms of reading).

    ``bounds``: (K, 2) int64, read-only, each exon's (first, last); ``names`` the attribute
    names and ``columns`` their values, one sequence of K per name (exon k's attrs are
    ``dict(zip(names, (column[k] for column in columns)))``). Cases of one base and strand share
    one ``Exons`` and its ``bounds`` (``TestCase.bounds``)."""

    __slots__ = ("bounds", "names", "columns", "_items")

    def __init__(self, bounds: np.ndarray, names: Sequence[str] = (), columns: Sequence[Sequence[Any]] = ()) -> None:
        if bounds.dtype != np.int64 or bounds.ndim != 2 or bounds.shape[1] != 2 or len(names) != len(columns) \
                or any(len(c) != len(bounds) for c in columns):
            raise ValueError("Exons: bounds must be (K, 2) int64 with one column of K values per name")
        bounds.flags.writeable = False
        self.bounds, self.names, self.columns = bounds, tuple(names), tuple(columns)
        self._items: tuple[Exon, ...] | None = None

    def column(self, name: str) -> Sequence[Any] | None:
        """The values of attribute ``name``, or None when the exons have no such attribute."""
        return self.columns[self.names.index(name)] if name in self.names else None

    def take(self, index: Sequence[int]) -> Exons:
        """The exons ``index``, in that order (these exons themselves when that is all, in order)."""
        if len(index) == len(self) and list(index) == list(range(len(self))):
            return self
        return Exons(self.bounds[list(index)], self.names, [[c[i] for i in index] for c in self.columns])

    @property
    def records(self) -> tuple[Exon, ...]:
        """The ``Exon`` records, made once."""
        if self._items is None:
            first, last = self.bounds.T.tolist()
            attrs = [dict(zip(self.names, values)) for values in zip(*self.columns)] if self.names else [
                {} for _ in first]
            self._items = tuple(map(Exon, first, last, attrs))
        return self._items

    def __len__(self) -> int:
        return len(self.bounds)

    @overload
    def __getitem__(self, i: int) -> Exon: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Exon, ...]: ...

    def __getitem__(self, i):
        if self._items is None and not isinstance(i, slice):  # one exon (an output's chain): not all K
            first, last = self.bounds[i].tolist()
            return Exon(first, last, {name: c[i] for name, c in zip(self.names, self.columns)})
        return self.records[i]

    def _same(self, other: Exons) -> bool:  # Exon equality is (first, last): the bounds
        return bool(np.array_equal(self.bounds, other.bounds))

    def __reduce__(self):
        return _exons, (self.bounds.tobytes(), self.names, self.columns)


def _exons(bounds: bytes, names: tuple[str, ...], columns: tuple[Sequence[Any], ...]) -> Exons:
    """Unpickles Exons (a raw int64 buffer pickles several times faster than an array)."""
    return Exons(np.frombuffer(bounds, dtype=np.int64).reshape(-1, 2), names, columns)


def exon_bounds(exons: Sequence[Exon]) -> np.ndarray:
    """(K, 2) int64: each exon's (first, last), in order (``TestCase.bounds``, a loader's array)."""
    if isinstance(exons, Exons):
        return exons.bounds.copy()
    return np.fromiter([v for e in exons for v in (e.first, e.last)], dtype=np.int64,
                       count=2 * len(exons)).reshape(-1, 2)


# The (exons, exon_bounds, m) found consistent and within the base, by the ids of the tuple and
# the array (held here, so that the ids stay theirs), the last CHECKED_KEEP, oldest first: a data
# set's loader hands the same tuple and array to every target's case of a base and strand, so
# they are checked once per base and strand, not once per case, also where each target's cases
# of the two strands alternate (one slot would hold only the last strand's).
CHECKED_KEEP = 8
_checked: dict[tuple[int, int], tuple[tuple[Exon, ...] | Exons, np.ndarray, int]] = {}


def _bounds_checked(exons: tuple[Exon, ...] | Exons, bounds: np.ndarray, m: int) -> bool:
    held = _checked.get((id(exons), id(bounds)))
    return held is not None and held[2] == m


def _check_bounds(name: str, exons: tuple[Exon, ...] | Exons, bounds: np.ndarray, m: int) -> bool:
    """Whether ``bounds`` (made read-only here) lie within a base of length m; ValueError
    unless they are the exons' (first, last) as (K, 2) int64."""
    if not (bounds.dtype == np.int64 and bounds.shape == (len(exons), 2)
            and (isinstance(exons, Exons) and (exons.bounds is bounds or np.array_equal(exons.bounds, bounds))
                 or all(e.first == f and e.last == g for e, (f, g) in zip(exons, bounds.tolist())))):
        raise ValueError(f"{name}: exon_bounds are not the exons' (first, last)")
    first, last = bounds[:, 0], bounds[:, 1]
    if not ((1 <= first).all() and (first <= last).all() and (last <= m).all()):
        return False
    bounds.flags.writeable = False
    _checked[id(exons), id(bounds)] = (exons, bounds, m)
    if len(_checked) > CHECKED_KEEP:
        _checked.pop(next(iter(_checked)), None)
    return True


@dataclass(frozen=True)
class TestCase:
    """One spliced-alignment instance: base sequence, candidate exons, target.

    Solvers see forward-strand intervals of ``base`` only. A minus-strand case (SPEC §1) holds
    the reverse-complemented base and its exons' mapped intervals, with ``meta["strand"] == "-"``;
    ``forward_interval`` maps its intervals back to the base as given, and
    ``meta["input_index"]`` (when set) maps its exons to their rows in the exon file.

    ``bounds`` holds each exon's (first, last) as one array. A loader that has them as an array
    passes it (``exon_bounds``, checked against ``exons``; the cases of one base share it), so
    that solvers flattening a data set read one array per base instead of K ``Exon`` objects
    (the paper-shaped set's 12,800: ~4 ms of a first GPU solve); else it is made on first use.
    """

    __test__ = False  # not a pytest class

    name: str
    base: str
    target: str
    exons: tuple[Exon, ...] | Exons  # a sequence of Exon given as is: a tuple
    base_id: str = "base"
    target_id: str = "target"
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    exon_bounds: InitVar[np.ndarray | None] = None  # (K, 2) int64 (first, last) of ``exons``: ``bounds``

    def __post_init__(self, exon_bounds: np.ndarray | None) -> None:
        if not self.base:
            raise InputError(self.name, "empty base sequence")
        if not self.target:
            raise InputError(self.name, "empty target sequence")
        if not self.exons:
            raise InputError(self.name, "no candidate exons")
        if isinstance(self.exons, Exons):  # columns: records made when asked for, bounds shared
            if exon_bounds is None:
                exon_bounds = self.exons.bounds
        else:
            object.__setattr__(self, "exons", tuple(self.exons))
        m = len(self.base)
        if exon_bounds is None:
            if all(1 <= e.first <= e.last <= m for e in self.exons):  # the common case, inline (a data set's cases)
                return
        elif _bounds_checked(self.exons, exon_bounds, m) or _check_bounds(self.name, self.exons, exon_bounds, m):
            object.__setattr__(self, "bounds", exon_bounds)
            return
        for i, e in enumerate(self.exons):
            problem = exon_problem(e.first, e.last, m)
            if problem:
                raise InputError(self.name, problem, where=f"exon {i + 1}")

    @property
    def m(self) -> int:
        return len(self.base)

    @property
    def n(self) -> int:
        return len(self.target)

    @property
    def K(self) -> int:
        return len(self.exons)

    @property
    def strand(self) -> str:
        """Strand of the base the exons code on: '+' (base as given) or '-' (base reversed)."""
        return self.meta.get("strand", "+")

    def forward_interval(self, first: int, last: int) -> tuple[int, int]:
        """[first, last] of this case's base, on the forward strand of the base as given."""
        return (first, last) if self.strand == "+" else (self.m - last + 1, self.m - first + 1)

    def input_index(self, k: int) -> int:
        """The 0-based row in the exon source of this case's exon k."""
        index = self.meta.get("input_index")
        return k if index is None else int(index[k])

    @cached_property
    def bounds(self) -> np.ndarray:
        """(K, 2) int64, read-only: each exon's (first, last), in input order."""
        out = exon_bounds(self.exons)
        out.flags.writeable = False
        return out

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling (a case read in a child process): the fields and cached values as pickled,
        ``bounds`` read-only again (pickling loses NumPy's read-only flag)."""
        self.__dict__.update(state)
        bounds = state.get("bounds")
        if bounds is not None:
            bounds.flags.writeable = False

    @cached_property
    def order(self) -> np.ndarray:
        """Input indices of the exons sorted by (first, last): the solvers' exon order."""
        return np.lexsort((self.bounds[:, 1], self.bounds[:, 0]))

    @cached_property
    def first_sorted(self) -> np.ndarray:
        return self.bounds[self.order, 0]

    @cached_property
    def last_sorted(self) -> np.ndarray:
        return self.bounds[self.order, 1]

    @cached_property
    def by_last(self) -> np.ndarray:
        """Positions in (first, last) order sorted by last: the order exons join the running-max
        fold of predecessors (SPEC §2)."""
        return np.argsort(self.last_sorted, kind="stable")

    @cached_property
    def base_codes(self) -> np.ndarray:
        return encode_base(self.base, self.name, self.base_id)

    @cached_property
    def target_codes(self) -> np.ndarray:
        return encode_target(self.target, self.name, self.target_id)

    @cached_property
    def exon_length_sum(self) -> int:
        """Σ|b_k| (from the bounds as given: the sum needs no exon order, whose sort a case's
        cost for a --devices split would otherwise pay on every call)."""
        bounds = self.bounds
        return int((bounds[:, 1] - bounds[:, 0]).sum()) + len(bounds)

    @property
    def cells(self) -> int:
        """n * Σ|b_k| (SPEC §2)."""
        return self.n * self.exon_length_sum


class CaseColumns(NamedTuple):
    """What a solver reads of each case of a data set, as arrays (CaseSet): each case's target
    length, base and exon list; the exon lists once each, in input order."""
    n: np.ndarray           # (C,) target lengths
    base_index: np.ndarray  # (C,) each case's base in ``bases``
    bases: tuple[str, ...]  # the bases, each used
    source: np.ndarray      # (C,) each case's exon list, not decreasing
    list_start: np.ndarray  # (U+1,) list i's exons at bounds[list_start[i]:list_start[i + 1]]
    bounds: np.ndarray      # (X, 2) int64: the lists' exons' (first, last), each list in its input order

    def cells(self) -> np.ndarray:
        """(C,) each case's TestCase.cells, n * Σ|b_k|: the sums once per list."""
        return self.n * list_sums(self.bounds[:, 1] - self.bounds[:, 0] + 1, self.list_start, self.source)


def list_sums(values: np.ndarray, start: np.ndarray, source: np.ndarray) -> np.ndarray:
    """(C,) the sum of ``values`` (one per exon of lists laid out at ``start``: list i's at
    [start[i], start[i + 1])) over the exons of each case, whose list is ``source``: summed once
    per list, not per case (CaseColumns, gpu.flat.ExonLists)."""
    if not source.size:
        return np.zeros(0, values.dtype)
    return np.add.reduceat(values, start[:-1])[source]


def same_exons(a: tuple[Exon, ...] | Exons, b: tuple[Exon, ...] | Exons) -> bool:
    """Whether a case with exons ``b`` takes the exon list of the case before it, with ``a``
    (gpu.flat.FlatCases.of, CaseSetMaker): the same tuple, or an equal one with the same first Exon."""
    return a is b or (len(a) == len(b) and a[0] is b[0] and a == b)


def used_bases(base_index: np.ndarray, bases: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...]]:
    """(``base_index`` renumbered, the bases it uses) of cases whose bases are ``bases[base_index]``:
    the unused bases left out, the others in their order."""
    used = np.zeros(len(bases), dtype=bool)
    used[base_index] = True
    if used.all():
        return base_index, bases
    return np.cumsum(used, dtype=np.int64)[base_index] - 1, tuple(map(bases.__getitem__, np.flatnonzero(used).tolist()))


class CaseSet(tuple):
    """Test cases, an immutable sequence (a tuple), with their CaseColumns, made by what made the
    cases from what it had at hand (``synthetic.paper_set`` and the loaders, by CaseSetMaker): a
    solver's split of a never-seen data set (gpu.flat.FlatCases.of) reads the columns instead of
    the case objects (the paper-shaped
    set's 1,010 objects and their exon lists' detection: that split 1.3 -> 0.5 ms on the H200 host,
    what is left is the lists' sort). The columns must be the cases': only their makers build a
    CaseSet. A slice of it is a plain tuple; ``window`` keeps the columns."""

    columns: CaseColumns

    def __new__(cls, cases: Sequence[TestCase], columns: CaseColumns) -> CaseSet:
        self = super().__new__(cls, cases)
        C = len(self)
        if not (columns.n.shape == columns.base_index.shape == columns.source.shape == (C,)
                and columns.list_start.size == (int(columns.source[-1]) + 2 if C else 1)
                and columns.bounds.shape == (int(columns.list_start[-1]), 2)):
            raise ValueError("CaseSet: columns of another number of cases or exons")
        self.columns = columns
        return self

    def __reduce__(self):
        return CaseSet, (tuple(self), self.columns)

    def window(self, a: int, b: int) -> CaseSet:
        """Cases [a, b) (0 <= a < b <= len) with their columns."""
        if a == 0 and b == len(self):
            return self
        c = self.columns
        source = c.source[a:b]
        lo, hi = int(source[0]), int(source[-1]) + 1
        start = c.list_start[lo:hi + 1]
        base_index, bases = used_bases(c.base_index[a:b], c.bases)
        return CaseSet(tuple.__getitem__(self, slice(a, b)), CaseColumns(
            c.n[a:b], base_index, bases, source - lo, start - start[0], c.bounds[start[0]:start[-1]]))

    @staticmethod
    def join(parts: Sequence[CaseSet]) -> CaseSet:
        """The cases of ``parts`` (at least one), part after part, with their columns (each
        part's lists and bases its own)."""
        columns = [p.columns for p in parts]
        lists = np.cumsum([0] + [c.list_start.size - 1 for c in columns])
        exons = np.cumsum([0] + [int(c.list_start[-1]) for c in columns])
        bases = np.cumsum([0] + [len(c.bases) for c in columns])
        return CaseSet([case for p in parts for case in p], CaseColumns(
            np.concatenate([c.n for c in columns]), np.concatenate([c.base_index + o for c, o in zip(columns, bases)]),
            sum((c.bases for c in columns), ()), np.concatenate([c.source + o for c, o in zip(columns, lists)]),
            np.concatenate([[0]] + [c.list_start[1:] + o for c, o in zip(columns, exons)]).astype(np.int64),
            np.concatenate([c.bounds for c in columns]).reshape(-1, 2)))


class CaseSetMaker:
    """A CaseSet made by a loader as it makes its cases (load.CaseFiles' callers): each case's
    columns taken when it is made, its objects still in cache, as gpu.flat.FlatCases.of would
    take them of the cases as a list: the bases by identity in first-use order, a case sharing the
    exon list of the case before it where ``same_exons``, each list's bounds read once. A loaded
    paper-shaped set then reaches the solver's split with its columns, as the generator's does."""

    def __init__(self, cases: Iterable[TestCase] = ()) -> None:
        self._cases: list[TestCase] = []
        self._n: list[int] = []
        self._base: list[int] = []
        self._source: list[int] = []
        self._index: dict[int, int] = {}  # id(base) -> its number (the cases hold the bases)
        self._bases: list[str] = []
        self._lists: list[np.ndarray] = []  # each exon list's bounds
        self._exons: tuple[Exon, ...] | Exons | None = None  # the last case's
        self.add(cases)

    def add(self, cases: Iterable[TestCase]) -> None:
        """Cases made, in order, after those added before."""
        for case in cases:
            exons, base = case.exons, case.base
            if self._exons is None or not same_exons(self._exons, exons):
                self._lists.append(case.bounds)
            self._exons = exons
            b = self._index.get(id(base))
            if b is None:
                b = self._index[id(base)] = len(self._bases)
                self._bases.append(base)
            self._cases.append(case)
            self._n.append(len(case.target))
            self._base.append(b)
            self._source.append(len(self._lists) - 1)

    def __len__(self) -> int:
        return len(self._cases)

    def made(self) -> CaseSet:
        """The cases added, with their columns."""
        start = np.zeros(len(self._lists) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in self._lists], out=start[1:])
        bounds = np.concatenate(self._lists) if self._lists else np.zeros((0, 2), np.int64)
        return CaseSet(self._cases, CaseColumns(
            np.array(self._n, dtype=np.int64), np.array(self._base, dtype=np.int64), tuple(self._bases),
            np.array(self._source, dtype=np.int64), start, bounds))


# Alignment op codes (one byte per aligned column) and their CIGAR letters.
OP_MATCH, OP_MISMATCH, OP_DEL, OP_INS = 0, 1, 2, 3
OP_LETTERS = "=XDI"  # indexed by op code


_OP_TO_LETTER = bytes.maketrans(bytes(range(len(OP_LETTERS))), OP_LETTERS.encode())
_RUNS = re.compile("|".join(f"{re.escape(letter)}+" for letter in OP_LETTERS))


def cigar_of(ops: bytes) -> str:
    """Run-length CIGAR of forward-order op codes, e.g. '3=1X2D'. (A regex over the letters:
    about twice as fast as NumPy run finding on exon-sized paths.)"""
    return "".join([f"{len(run)}{run[0]}" for run in _RUNS.findall(ops.translate(_OP_TO_LETTER).decode("ascii"))])


@dataclass(frozen=True)
class ExonAlignment:
    """How one exon of the chain aligns to the target.

    ``ops`` holds one op code per alignment column (OP_MATCH, OP_MISMATCH, OP_DEL: base letter
    against a gap, OP_INS: target letter against a gap); ``cigar`` spells them with '=', 'X',
    'D', 'I', built on first use (solvers return many alignments that are never printed).
    With global target ends, target letters aligned to gaps before the first exon are leading
    'I's of the first exon, so the exons' target spans tile 1..n. With free ends the spans
    tile the aligned part of the target only: the first exon starts at the first target letter
    it aligns (or that follows the free leading letters), the last ends where the alignment
    ends. ``target_end < target_start`` when the exon consumed no target letter.
    """

    index: int  # input index of the exon
    first: int
    last: int
    target_start: int
    target_end: int
    ops: bytes = field(repr=False)

    @cached_property
    def cigar(self) -> str:
        return cigar_of(self.ops)


class ExonAlignments(_Records[ExonAlignment]):
    """A chain's per-exon alignments in chain order: an immutable sequence that equals, hashes
    and prints as the tuple of its ``ExonAlignment`` records.

    It is a window ``[start, stop)`` on arrays a whole batch shares: ``fields`` (rows of index,
    first, last, target_start, target_end, int64), ``bounds`` (exon i's ops are
    ``ops[bounds[i]:bounds[i + 1]]``) and one ``ops`` buffer, so that a traced batch costs one
    object per case; the records are made on first access, all at once, because a batch's
    alignments are mostly never read one by one. Pickling keeps only the window's own data.
    """

    __slots__ = ("_fields", "_bounds", "_ops", "_start", "_stop", "_items")

    def __init__(self, fields: np.ndarray, bounds: np.ndarray, ops: bytes, start: int = 0,
                 stop: int | None = None) -> None:
        self._fields, self._bounds, self._ops = fields, bounds, ops
        self._start, self._stop = start, len(fields) if stop is None else stop
        self._items: tuple[ExonAlignment, ...] | None = None

    @property
    def records(self) -> tuple[ExonAlignment, ...]:
        """The ``ExonAlignment`` records, made once."""
        if self._items is None:
            a, b = self._start, self._stop
            bounds, ops = self._bounds[a:b + 1].tolist(), self._ops
            self._items = tuple(ExonAlignment(*row, ops[bounds[i]:bounds[i + 1]])
                                for i, row in enumerate(self._fields[a:b].tolist()))
        return self._items

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, i: int) -> ExonAlignment: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[ExonAlignment, ...]: ...

    def __getitem__(self, i):
        return self.records[i]

    def _window(self) -> tuple[np.ndarray, np.ndarray, bytes]:
        """Own fields, op bounds from 0, own ops: what equality compares and pickling keeps."""
        a, b = self._start, self._stop
        lo, hi = int(self._bounds[a]), int(self._bounds[b])
        return self._fields[a:b], self._bounds[a:b + 1] - lo, self._ops[lo:hi]

    def _same(self, other: ExonAlignments) -> bool:
        if len(self) != len(other):
            return False
        (f, b, o), (g, c, p) = self._window(), other._window()
        return o == p and bool(np.array_equal(f, g)) and bool(np.array_equal(b, c))

    def __reduce__(self):
        fields, bounds, ops = self._window()
        return _exon_alignments, (np.ascontiguousarray(fields).tobytes(), bounds.tobytes(), ops)


def _exon_alignments(fields: bytes, bounds: bytes, ops: bytes) -> ExonAlignments:
    """Unpickles ExonAlignments (raw int64 buffers pickle several times faster than arrays)."""
    return ExonAlignments(np.frombuffer(fields, dtype=np.int64).reshape(-1, 5), np.frombuffer(bounds, dtype=np.int64),
                          ops)


@dataclass(frozen=True)
class Result:
    """What a solver returns for one test case."""

    case: str
    solver: str
    score: int
    cells: int
    seconds: float
    chain: tuple[int, ...] | None = None  # input indices of the chain's exons, in order
    alignment: Sequence[ExonAlignment] | None = None  # ExonAlignments from every solver
    last_row_scores: np.ndarray | None = field(default=None, compare=False)  # input order
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def of_fields(cls, fields: dict[str, Any]) -> Result:
        """The Result whose fields are ``fields`` (every field's name, the dict taken as it is),
        made without the frozen dataclass's per-field ``object.__setattr__``: solvers make
        thousands per batch, each from a copy of one template (outputs.pending)."""
        r = object.__new__(cls)
        object.__setattr__(r, "__dict__", fields)
        return r

    @property
    def mcups(self) -> float:
        return self.cells / self.seconds / 1e6 if self.seconds > 0 else float("nan")
