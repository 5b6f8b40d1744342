"""Device check of the sw GPU solvers: fresh random query/database pairs against `multicore`
(linear and affine gaps, several matrices, every compiled (R, T) shape, 16- and 32-bit lanes,
multi-pass queries, a profile too large for shared memory, scores above 16 bits, a database
streamed in chunks), then the benchmark of issue 27: the CUDASW++ query set against a
Swiss-Prot-shaped database (prepared, resident), per-query GCUPS beside CUDASW++ 4.0 on the
same GPU, top-10 alignments, streaming at a quarter of the footprint, multicore against pyopal.
Full numbers go to OUT/sw_device.json; the table comes last on stdout. From the repository root:

  PYTHONPATH=src python3 scripts/device_sw.py --queries Q.fasta --cudasw4 CUDASW4_SRC
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import partial
from pathlib import Path

import numba
import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.timing import gcups, time_repeats
from splicedalign.gpu import device
from splicedalign.workloads.sw import cudasw4, prepared, synthetic
from splicedalign.workloads.sw.gpu.device_db import DeviceDatabase
from splicedalign.workloads.sw.gpu.paper import SwScanSolver
from splicedalign.workloads.sw.gpu.plan import SHAPES
from splicedalign.workloads.sw.gpu.solver import GpuSolver
from splicedalign.workloads.sw.load import load_queries
from splicedalign.workloads.sw.matrices import ALPHABET, encode
from splicedalign.workloads.sw.records import Database, Query, Scoring
from splicedalign.workloads.sw.solvers import SOLVERS, hits_of, search_many, select
from splicedalign.workloads.sw.traceback import align_many, rescore


def random_round(rng: np.random.Generator, m: int, count: int, max_len: int) -> tuple[Query, Database]:
    """A query of m letters (all 24 codes, mostly the 20 amino acids) and ``count`` sequences
    of 1..max_len letters, a fifth of them mutated windows of the query."""
    q = synthetic.residues(rng, m)
    odd = rng.random(m) < 0.03
    q[odd] = rng.integers(0, 24, int(odd.sum()))
    seqs = []
    for _ in range(count):
        n = int(rng.integers(1, max_len + 1))
        if rng.random() < 0.2:
            a = int(rng.integers(0, m))
            s = synthetic.mutate(rng, q[a: a + n], float(rng.uniform(0.05, 0.5)))
            seqs.append(s if s.size else synthetic.residues(rng, 1))
        else:
            seqs.append(synthetic.residues(rng, n))
    return Query("q", q), Database.from_codes([f"s{k}" for k in range(count)], seqs)


SCORINGS = (Scoring(), Scoring.blast(), Scoring.blast("pam30"), Scoring.blast("blosum45"), Scoring("blosum80", 2, 3))


def correctness(seed: int, rounds: int, log) -> dict:
    """GPU solvers against `multicore` (itself checked against the reference and a brute force
    in CI) on fresh random cases: every scoring of SCORINGS in turn (linear, BLAST defaults of
    three matrices, a small affine), every compiled shape, 16/32-bit lanes, multi-pass queries,
    a profile beyond shared memory, scores above 16 bits, and a database streamed in chunks."""
    rng = np.random.default_rng(seed)
    oracle = SOLVERS.get("multicore")
    scan = SwScanSolver()
    pairs, checks, bad = 0, 0, []
    cases = []
    for r in range(rounds):
        m = int(rng.choice([rng.integers(1, 64), rng.integers(64, 600), rng.integers(600, 2500)], p=[0.25, 0.55, 0.2]))
        count, max_len = int(rng.integers(30, 90)), int(rng.choice([200, 1500, 5000]))
        cases.append((f"random{r}", *random_round(rng, m, count, max_len)))
    cases.append(("long-query", *random_round(rng, 6000, 24, 3000)))
    core = np.concatenate([synthetic.residues(rng, 300), encode("W" * 3000), synthetic.residues(rng, 300)])
    over = [core, synthetic.mutate(rng, core, 0.02), synthetic.residues(rng, 80), core[:2500],
            synthetic.residues(rng, 4000)]
    cases.append(("over16", Query("w", core), Database.from_codes([f"o{k}" for k in range(len(over))], over)))
    for k, (name, q, db) in enumerate(cases):
        scorings = SCORINGS if name in ("long-query", "over16") else (SCORINGS[k % len(SCORINGS)], SCORINGS[1])
        for scoring in scorings:
            want = oracle.scores(q, db, scoring)
            solvers = [("gpu", GpuSolver()), (f"gpu{SHAPES[k % len(SHAPES)]}", GpuSolver(SHAPES[k % len(SHAPES)]))]
            if not scoring.affine:
                solvers.append(("sw-scan", scan))
            if k % 3 == 0 or name == "over16":
                solvers.append(("gpu-32bit", GpuSolver(wide_only=True)))
            for label, solver in solvers:
                got = solver.scores(q, db, scoring)
                checks += len(db)
                wrong = np.flatnonzero(got != want)
                if wrong.size:
                    bad.append({"case": name, "solver": label, "scoring": scoring.describe(), "m": q.length,
                                "wrong": int(wrong.size), "first": [int(wrong[0]), int(got[wrong[0]]),
                                                                     int(want[wrong[0]]), int(db.lengths[wrong[0]])]})
                    log(f"MISMATCH {bad[-1]}")
            pairs += len(db)
        if name == "over16":
            log(f"over16: max score {int(want.max())} (> 32767: {bool(want.max() > 32767)})")
    # streaming: three queries against a database 4x larger than the memory cap, in one call
    queries = [synthetic.query(int(n), seed) for n in (90, 700, 1600)]
    db = synthetic.database(rng.integers(1, 3000, 3000), seed, queries[1], homologs=20)
    for scoring in (Scoring(), Scoring.blast()):
        want = [oracle.scores(q, db, scoring) for q in queries]
        solver = GpuSolver()
        solver.memory_cap = solver.footprint(db) // 4
        chunks = len(solver.chunk_ranges(db))
        got = solver.scores_many(queries, db, scoring)
        checks += len(db) * len(queries)
        for q, g, w in zip(queries, got, want):
            if not np.array_equal(g, w):
                bad.append({"case": "streamed", "chunks": chunks, "scoring": scoring.describe(), "m": q.length,
                            "wrong": int(np.count_nonzero(g != w))})
                log(f"MISMATCH {bad[-1]}")
        log(f"streamed in {chunks} chunks: {scoring.describe()}")
    hits, wrong = hits_check(queries, db)
    checks += hits
    for cap in wrong:
        bad.append({"case": "hits", "cap": cap})
        log(f"MISMATCH {bad[-1]}")
    return {"seed": seed, "pairs": pairs, "checks": checks, "mismatches": bad}


def hits_check(queries, db) -> tuple[int, list]:
    """Top-10 hits with alignments (each query's started as its scores arrive), resident and
    streamed (cap a quarter of the footprint), against multicore's; every alignment re-scored:
    (hits checked, the caps that differed)."""
    scoring = Scoring.blast()
    want = search_many(queries, db, scoring, "multicore", 10, float("inf"))
    checked, wrong = 0, []
    for cap in (None, GpuSolver().footprint(db) // 4):
        got = search_many(queries, db, scoring, GpuSolver(memory_cap=cap), 10, float("inf"))
        checked += sum(len(r.hits) for r in got)
        if not (all(a.hits == b.hits and len(a.hits) == 10 for a, b in zip(got, want)) and all(
                rescore(h.alignment, q.codes, db.seq(h.index), scoring) == h.score for q, r in zip(queries, got)
                for h in r.hits)):
            wrong.append(cap)
    return checked, wrong


def swissprot_shaped(seed: int, count: int) -> Database:
    """``count`` random proteins with Swiss-Prot's length distribution (synthetic.scaleup_lengths:
    log-normal, mean ~350, clipped to 20..35,000) and amino-acid composition."""
    rng = np.random.default_rng([seed, count])
    lengths = synthetic.scaleup_lengths(rng, count)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = synthetic.residues(rng, int(offsets[-1]))
    return Database(tuple(f"sp{k}" for k in range(count)), codes, offsets)


def write_fasta_fast(path: Path, db: Database) -> None:
    letters = np.frombuffer(ALPHABET.encode(), dtype=np.uint8)
    raw = letters[db.codes].tobytes()
    off = db.offsets.tolist()
    with open(path, "wb") as handle:
        for k, rid in enumerate(db.ids):
            handle.write(b">" + rid.encode() + b"\n" + raw[off[k]: off[k + 1]] + b"\n")


def resident_batch(solver, queries, db, ddb, scoring, repeats):
    """All queries in one call against the resident database (no synchronisation between
    queries): the median wall time of the call, each query's device time inside it (CUDA events
    between the queries' launches, from the last run) and the scores."""
    marks: dict = {}

    def call():
        marks.clear()
        return solver.scores_resident_many(queries, db, ddb, scoring, marks)

    t, scores = time_repeats(call, repeats, 0)
    cp = device.cupy()
    inside = [cp.cuda.get_elapsed_time(*marks[k]) / 1e3 for k in range(len(queries))]
    return t.median, inside, scores


def resident_each(solver, queries, db, ddb, scoring, repeats):
    """Each query in a call of its own (plans, upload of its profile, its launches, the wait,
    the copy of its scores back): median seconds per query."""
    return [time_repeats(lambda q=q: solver.scores_resident(q, db, ddb, scoring), repeats, 0)[0].median
            for q in queries]


def streaming(queries, db, scoring, repeats: int, warmup: int, ddb: DeviceDatabase | None = None) -> dict:
    """Host to host, the same queries in one call: the whole database resident (one upload,
    then the searches) against a memory cap a quarter of its footprint (chunks, uploads
    overlapped); median seconds, the ratio and whether every score is the same. With ``ddb``
    (``db`` on the device) also the searches alone on it (no upload): the strict ratio."""
    solver = GpuSolver()
    res_t, res_s = time_repeats(lambda: solver.scores_many(queries, db, scoring), repeats, warmup)
    capped = GpuSolver(memory_cap=solver.footprint(db) // 4)
    st_t, st_s = time_repeats(lambda: capped.scores_many(queries, db, scoring), repeats, warmup)
    out = {"stream_chunks": len(capped.chunk_ranges(db)), "stream_queries": [q.length for q in queries],
           "stream_resident_s": res_t.median, "stream_capped_s": st_t.median,
           "stream_ratio": res_t.median / st_t.median,
           "stream_same": all(np.array_equal(a, b) for a, b in zip(res_s, st_s))}
    if ddb is not None:
        t, _ = time_repeats(lambda: solver.scores_resident_many(queries, db, ddb, scoring), repeats, warmup)
        out.update(stream_search_only_s=t.median, stream_strict_ratio=t.median / st_t.median)
    return out


# CUDASW++ 4.0's query set (its allqueries.fasta): the lengths --lean searches when no --queries
CUDASW4_LENGTHS = (144, 189, 222, 375, 464, 567, 657, 729, 850, 1000, 1500, 2005, 2504, 3005, 3564, 4061, 4548,
                   4743, 5147, 5478)


class ResidentSearch:
    """A GpuSolver's search of a resident database as search_many's solver (hits handed over
    query by query)."""
    name = "gpu"

    def __init__(self, solver: GpuSolver, ddb: DeviceDatabase) -> None:
        self.solver, self.ddb = solver, ddb

    def scores_many(self, queries, db, scoring, ready=None):
        return self.solver.scores_resident_many(queries, db, self.ddb, scoring, ready=ready)


def lean_benchmark(args, log) -> dict:
    """Issue 27's two overhead targets on the Swiss-Prot-shaped database, no peers: the 20
    queries in one call (resident) alone and with top-10 hits and their alignments (each
    query's started on the CPU as its scores arrive), and 4 queries resident against a memory
    cap a quarter of the footprint."""
    out: dict = {}
    scoring = Scoring.blast()
    t0 = time.perf_counter()
    db = swissprot_shaped(args.seed, args.sequences)
    queries = (load_queries(args.queries) if args.queries else
               [synthetic.query(n, args.seed + k) for k, n in enumerate(CUDASW4_LENGTHS)])
    out.update(sequences=len(db), residues=db.residues, generate_s=time.perf_counter() - t0,
               queries=[q.length for q in queries])
    log(f"database {len(db)} seqs {db.residues} residues ({out['generate_s']:.1f} s); queries {out['queries']}")
    cp = device.cupy()
    solver = GpuSolver()
    ddb = DeviceDatabase.upload(cp, db)
    cp.cuda.Stream.null.synchronize()
    resident = ResidentSearch(solver, ddb)
    search_many(queries, db, scoring, resident, 10, float("inf"))  # warm-up: kernels, traceback compiled
    wall, inside, scores = resident_batch(solver, queries, db, ddb, scoring, args.repeats)
    cells = sum(q.length for q in queries) * db.residues
    out.update(search_s=wall, search_gcups=gcups(cells, wall), kernels_s=sum(inside),
               query_gcups=[gcups(q.length * db.residues, t) for q, t in zip(queries, inside)])
    t, results = time_repeats(lambda: search_many(queries, db, scoring, resident, 10, float("inf")), args.repeats, 0)
    out.update(with_top10_s=t.median, top10_share=t.median / wall - 1,
               top10_exposed_s=results[0].extra["align_seconds"],
               top10_same_scores=all(np.array_equal(r.scores, s) for r, s in zip(results, scores)),
               top10_hits=sum(len(r.hits) for r in results),
               top10_rescored_ok=all(rescore(h.alignment, q.codes, db.seq(h.index), scoring) == h.score
                                     for q, r in zip(queries, results) for h in r.hits))
    t0 = time.perf_counter()  # the same alignments after the search, all at once (their CPU time on all cores)
    align_many([(q.codes, db.seq(h.index)) for q, r in zip(queries, results) for h in r.hits], scoring)
    out["top10_after_s"] = time.perf_counter() - t0
    log(f"search {wall:.3f} s ({out['search_gcups']:.0f} GCUPS); with top-10 alignments {t.median:.3f} s "
        f"(+{100 * out['top10_share']:.1f}%; left after the search {out['top10_exposed_s']:.3f} s; "
        f"after the search, not overlapped: {out['top10_after_s']:.3f} s)")
    sub = [q for q in queries if 400 <= q.length <= 3100][:4]
    out.update(streaming(sub, db, scoring, args.repeats, 1, ddb))
    log(f"streamed ({out['stream_chunks']} chunks): {100 * out['stream_ratio']:.0f}% of resident speed host to "
        f"host, {100 * out['stream_strict_ratio']:.0f}% of the resident search alone's; same {out['stream_same']}")
    if args.stream_all:  # the whole query set too: per-chunk costs weigh less beside 20 queries' search
        every = streaming(queries, db, scoring, args.repeats, 0, ddb)
        out.update({f"all_{k}": v for k, v in every.items()})
        log(f"streamed, all queries: {100 * every['stream_ratio']:.0f}% host to host, "
            f"{100 * every['stream_strict_ratio']:.0f}% of the resident search alone's; same {every['stream_same']}")
    return out


def lean_table(b: dict) -> str:
    return "\n".join([
        f"Swiss-Prot-shaped: {b['sequences']:,} seqs, {b['residues']:,} residues; BLOSUM62 11/1; {len(b['queries'])}"
        f" queries of {min(b['queries'])}..{max(b['queries'])} letters in one call, resident",
        f"search                      {b['search_s']:.3f} s = {b['search_gcups']:.0f} GCUPS"
        f" (kernels {b['kernels_s']:.3f} s)",
        "  per query inside the call (GCUPS): " + ", ".join(
            f"q{n} {g:.0f}" for n, g in zip(b["queries"], b.get("query_gcups", []))),
        f"search + top-10 alignments  {b['with_top10_s']:.3f} s = +{100 * b['top10_share']:.1f}% (target <= 10%);"
        f" left after the search {b['top10_exposed_s']:.3f} s; not overlapped it took {b['top10_after_s']:.3f} s;"
        f" {b['top10_hits']} hits, rescored ok {b['top10_rescored_ok']}, same scores {b['top10_same_scores']}",
        f"streamed, cap = footprint/4 ({b['stream_chunks']} chunks, queries {b['stream_queries']}): resident"
        f" {b['stream_resident_s']:.3f} s, streamed {b['stream_capped_s']:.3f} s = {100 * b['stream_ratio']:.0f}% of"
        f" resident speed (target >= 80%); identical scores (so hits) {b['stream_same']}",
        f"  strict: the resident search alone (database already on the device, no upload)"
        f" {b['stream_search_only_s']:.3f} s: streamed at {100 * b['stream_strict_ratio']:.0f}% of its speed",
        *([f"streamed, all {len(b['queries'])} queries ({b['all_stream_chunks']} chunks): resident"
           f" {b['all_stream_resident_s']:.3f} s, streamed {b['all_stream_capped_s']:.3f} s ="
           f" {100 * b['all_stream_ratio']:.0f}%; strict: search alone {b['all_stream_search_only_s']:.3f} s ="
           f" {100 * b['all_stream_strict_ratio']:.0f}%; identical scores {b['all_stream_same']}"]
          if "all_stream_ratio" in b else [])])


def swissprot_benchmark(args, log) -> dict:
    out: dict = {}
    scoring = Scoring.blast()
    t0 = time.perf_counter()
    db = swissprot_shaped(args.seed, args.sequences)
    out.update(sequences=len(db), residues=db.residues, generate_s=time.perf_counter() - t0)
    queries = load_queries(args.queries)
    standard = [bool(np.all(q.codes < 20)) for q in queries]
    out["queries"] = [{"id": q.id.split("|")[-1], "length": q.length, "standard_letters": st}
                      for q, st in zip(queries, standard)]
    log(f"database {len(db)} seqs {db.residues} residues; queries {[q.length for q in queries]}")
    # prepared database: written once, reopened (memory-mapped) as a search would
    folder = args.work / "swissprot.fa.swdb"
    prepared.save(db, folder)
    t0 = time.perf_counter()
    db = prepared.open_db(folder)
    out["reopen_prepared_s"] = time.perf_counter() - t0
    cp = device.cupy()
    solver = GpuSolver()
    t0 = time.perf_counter()
    ddb = DeviceDatabase.upload(cp, db)
    cp.cuda.Stream.null.synchronize()
    out["upload_s"] = time.perf_counter() - t0
    resident_batch(solver, queries, db, ddb, scoring, 1)  # warm-up: every kernel instance compiled
    align_many([(queries[0].codes[:20], db.seq(0)[:20])] * 2, scoring)  # warm-up: the traceback compiled
    wall, inside, scores = resident_batch(solver, queries, db, ddb, scoring, args.repeats)
    cells = [q.length * db.residues for q in queries]
    out["cells"] = cells
    out["gpu_total_s"] = wall  # all queries in one call: plans, uploads, every launch, the copy back
    out["gpu_total_gcups"] = gcups(sum(cells), wall)
    out["gpu_query_s"] = inside  # each query's launches inside that call (device time)
    out["gpu_query_gcups"] = [gcups(c, t) for c, t in zip(cells, inside)]
    times = resident_each(solver, queries, db, ddb, scoring, args.repeats)
    out["gpu_own_call_s"] = times  # each query in a call of its own, host work included
    out["gpu_own_call_gcups"] = [gcups(c, t) for c, t in zip(cells, times)]
    log(f"gpu resident, all queries in one call: {wall:.3f} s = {out['gpu_total_gcups']:.0f} GCUPS (kernels "
        f"{sum(inside):.3f} s); per query inside it: " + " ".join(f"{g:.0f}" for g in out["gpu_query_gcups"]))
    log(f"each query in a call of its own (sum {sum(times):.3f} s): "
        + " ".join(f"{g:.0f}" for g in out["gpu_own_call_gcups"]))
    # affine shapes: the (R, 8) that plan.choose_shape picks from, on a one-pass and a multi-pass query
    out["shapes"] = {}
    for q in [x for x in queries if x.length in (464, 2005) and args.sweep]:
        row = {}
        for shape in [s for s in SHAPES if s[1] == 8]:
            # bound now: ddb is let go below, before the whole-call timing uploads its own
            t, s_ = time_repeats(
                lambda shape=shape, q=q, ddb=ddb: GpuSolver(shape).scores_resident(q, db, ddb, scoring), 1, 1)
            row[f"{shape[0]}x{shape[1]}"] = round(gcups(q.length * db.residues, t.median)) if np.array_equal(
                s_, scores[queries.index(q)]) else "WRONG"
        out["shapes"][q.length] = row
        log(f"shapes q{q.length}: {row}")
    # top-10 hits with alignments (forced: E-value cut off) on top of the search
    t0 = time.perf_counter()
    chosen = [select(q, db, s, scoring, 10, float("inf")) for q, s in zip(queries, scores)]
    found = align_many([(q.codes, db.seq(k)) for q, c in zip(queries, chosen) for k, _, _ in c], scoring)
    out["align_top10_s"] = time.perf_counter() - t0
    n, hits = 0, []
    for q, c in zip(queries, chosen):
        hits.append(hits_of(q, db, c, scoring, found[n: n + len(c)]))
        n += len(c)
    out["align_top10_cells"] = int(sum(q.length * h.length for q, hs in zip(queries, hits) for h in hs))
    out["align_top10_share"] = out["align_top10_s"] / out["gpu_total_s"]
    out["rescored_ok"] = all(rescore(h.alignment, q.codes, db.seq(h.index), scoring) == h.score
                             for q, hs in zip(queries, hits) for h in hs)
    # the same hits with the alignments started as each query's scores arrive (search_many's way)
    t, overlapped = time_repeats(partial(search_many, queries, db, scoring, ResidentSearch(solver, ddb), 10,
                                         float("inf")), args.repeats, 0)
    out["with_top10_s"], out["top10_share"] = t.median, t.median / wall - 1
    out["rescored_ok"] = out["rescored_ok"] and all(a.hits == b for a, b in zip(overlapped, hits))
    log(f"top-10 alignments after the search: {out['align_top10_s']:.3f} s ({100 * out['align_top10_share']:.1f}%"
        f" of the search); overlapping it: {t.median:.3f} s in all (+{100 * out['top10_share']:.1f}%)")
    # the whole call as a user meets it: database upload, every query, top-10 with alignments
    del ddb
    t0 = time.perf_counter()
    results = search_many(queries, db, scoring, solver, 10, 10.0)
    out["search_many_s"] = time.perf_counter() - t0
    out["search_many_same"] = all(np.array_equal(r.scores, s) for r, s in zip(results, scores))
    # streaming: a memory cap a quarter of the database's footprint, same queries subset
    sub = [q for q in queries if 400 <= q.length <= 3100][:4]
    out.update(streaming(sub, db, scoring, 1, 0))
    log(f"streamed ({out['stream_chunks']} chunks): {100 * out['stream_ratio']:.0f}% of resident speed, "
        f"same {out['stream_same']}")
    # CUDASW++ 4.0, same database and queries, same run
    if args.cudasw4 and (args.cudasw4 / "align").exists():
        fasta = args.work / "swissprot.fa"
        write_fasta_fast(fasta, db)
        t0 = time.perf_counter()
        cudasw4.makedb(args.cudasw4, fasta, args.work / "cdb" / "db")
        out["cudasw4_makedb_s"] = time.perf_counter() - t0
        run = cudasw4.align(args.cudasw4, args.queries, args.work / "cdb" / "db", scoring, 10, args.work / "c.tsv")
        out["cudasw4"] = {"query_s": run.query_seconds, "query_gcups": run.query_gcups, "total_s": run.total_seconds,
                          "total_gcups": run.total_gcups, "wall_s": run.wall_seconds}
        (args.out / "cudasw4.log").write_text(run.log[-200_000:])
        agree = []
        index = {rid: k for k, rid in enumerate(db.ids)}
        seq = SOLVERS.get("sequential")
        for k, (q, s) in enumerate(zip(queries, scores)):
            ours = np.sort(s)[::-1][:10].tolist()
            theirs = [sc for sc, _ in run.top.get(k, [])]
            row = {"query": k, "standard_letters": standard[k], "same_top10": ours == theirs[:10],
                   "ours": ours[:3], "theirs": theirs[:3]}
            if k < 4:  # why they differ: our scores of its top hits under both gap conventions
                hits = [index[h] for _, h in run.top.get(k, [])[:3] if h in index]
                if hits:
                    sub = Database.from_codes([db.ids[h] for h in hits], [np.asarray(db.seq(h)) for h in hits])
                    row["their_hits_ours_11_1"] = seq.scores(q, sub, scoring).tolist()
                    row["their_hits_ours_10_1"] = seq.scores(q, sub, Scoring("blosum62", 10, 1)).tolist()
                    row["their_hits_index"] = hits
            agree.append(row)
            log(json.dumps(row))
        out["cudasw4_agreement"] = agree
        if args.cudasw4_defaults:  # its gap options are ignored: the same top hits with its defaults
            dflt = cudasw4.align(args.cudasw4, args.queries, args.work / "cdb" / "db", scoring, 10,
                                 args.work / "d.tsv", extra=("--dpx", "--uploadFull"), gaps=False)
            out["cudasw4_default_gaps_top3"] = {k: [sc for sc, _ in v[:3]] for k, v in list(dflt.top.items())[:4]}
            log(f"CUDASW++ with its default gaps, top 3: {out['cudasw4_default_gaps_top3']}")
        log(f"CUDASW++ 4.0: {run.total_seconds:.3f} s = "
            f"{run.total_gcups:.0f} GCUPS")
    else:
        out["cudasw4"] = None
        log("CUDASW++ 4.0 not built: skipped")
    # CPU: multicore against pyopal's threaded search, same cores, same data
    try:
        pyopal = SOLVERS.get("pyopal")
        small = db.subset(0, min(20_000, len(db)))
        q = min(queries, key=lambda x: abs(x.length - 464))
        mc = SOLVERS.get("multicore")
        t_mc, s_mc = time_repeats(lambda: mc.scores(q, small, scoring), 2, 1)
        t_po, s_po = time_repeats(lambda: pyopal.scores(q, small, scoring), 2, 1)
        out["cpu"] = {"threads": numba.config.NUMBA_NUM_THREADS, "query": q.length, "cells": q.length * small.residues,
                      "multicore_gcups": gcups(q.length * small.residues, t_mc.median),
                      "pyopal_gcups": gcups(q.length * small.residues, t_po.median),
                      "same": bool(np.array_equal(s_mc, s_po))}
        log(json.dumps(out["cpu"]))
    except SolverUnavailable as exc:
        out["cpu"] = {"note": str(exc)}
    return out


def table(res: dict) -> str:
    b = res.get("bench")
    lines = []
    if b:
        c4 = b.get("cudasw4")
        lines += [f"Swiss-Prot-shaped: {b['sequences']:,} seqs, {b['residues']:,} residues; BLOSUM62 11/1 (BLAST);"
                  f" reopen prepared {b['reopen_prepared_s']:.3f} s; upload {b['upload_s']:.3f} s",
                  "query  length  ours GCUPS  CUDASW++ GCUPS  ratio  ours (own call)  same top-10"]
        for k, q in enumerate(b["queries"]):
            theirs = c4["query_gcups"][k] if c4 and k < len(c4["query_gcups"]) else float("nan")
            same = b.get("cudasw4_agreement", [{}] * len(b["queries"]))[k].get("same_top10", "")
            lines.append(f"{k:<6} {q['length']:6}  {b['gpu_query_gcups'][k]:10.0f}  {theirs:14.0f}"
                         f"  {b['gpu_query_gcups'][k] / theirs:5.2f}  {b['gpu_own_call_gcups'][k]:15.0f}  {same}"
                         f"{'' if q['standard_letters'] else ' (non-20 letters)'}")
        total = c4["total_gcups"] if c4 else float("nan")
        lines += [f"total  {sum(q['length'] for q in b['queries']):6}  {b['gpu_total_gcups']:10.0f}  {total:14.0f}"
                  f"  {b['gpu_total_gcups'] / total:5.2f}  (ours: all 20 in one call, wall; per query: its launches)",
                  f"top-10 alignments after the search {b['align_top10_s']:.3f} s = {100 * b['align_top10_share']:.1f}%"
                  f" of it; overlapping the search +{100 * b['top10_share']:.1f}%;"
                  f" rescored ok {b['rescored_ok']}; whole call (upload, 20 queries, top 10)"
                  f" {b['search_many_s']:.2f} s",
                  f"streamed in {b['stream_chunks']} chunks (cap = 1/4): {100 * b['stream_ratio']:.0f}% of resident,"
                  f" same {b['stream_same']}", f"cpu: {b['cpu']}", f"affine shapes (GCUPS): {b.get('shapes')}",
                  f"CUDASW++ default gaps top 3: {b.get('cudasw4_default_gaps_top3')}"]
    corr = res["correctness"]
    lines.append(f"correctness: {corr['pairs']} fresh pairs ({corr['checks']} solver checks) vs multicore, "
                 f"seed {corr['seed']}: {len(corr['mismatches'])} mismatching runs")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("device_out"))
    ap.add_argument("--work", type=Path, default=Path("/tmp/sw_work"))
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--sequences", type=int, default=570_000)
    ap.add_argument("--queries", type=Path, help="the CUDASW++ query set (its allqueries.fasta)")
    ap.add_argument("--cudasw4", type=Path, help="folder with CUDASW++ 4.0's built align and makedb")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--lean", action="store_true",
                    help="only the two overhead targets (top-10 alignments, streaming) on the Swiss-Prot-shaped "
                         "database, no peers, after --rounds of the correctness check (~1 minute on an H100 host)")
    ap.add_argument("--stream-all", action="store_true",
                    help="--lean: also stream the whole query set (not only 4 of 400-3,100 letters)")
    ap.add_argument("--sweep", action="store_true", help="also time every compiled (R, 8) on q464 and q2005")
    ap.add_argument("--cudasw4-defaults", action="store_true",
                    help="also run CUDASW++ with its default gaps (its gap options are ignored: the same top hits)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    logf = open(args.out / "sw_device.log", "w")

    def log(msg: str) -> None:
        print(msg, file=logf, flush=True)
        print(msg, file=sys.stderr, flush=True)

    log(json.dumps(device.device_info()))
    log(f"seed {args.seed}")
    t0 = time.time()
    res = {"device": device.device_info(), "correctness": correctness(args.seed, args.rounds, log)}
    log(f"correctness done in {time.time() - t0:.1f} s")
    (args.out / "sw_device.json").write_text(json.dumps(res, indent=1))
    if args.lean:
        res["lean"] = lean_benchmark(args, log)
        (args.out / "sw_device.json").write_text(json.dumps(res, indent=1))
    elif not args.skip_bench and args.queries:
        if args.cudasw4:  # its build runs in the background: wait for it
            for _ in range(300):
                if (args.cudasw4 / "align").exists() or (args.cudasw4 / "build.done").exists():
                    break
                time.sleep(1)
        res["bench"] = swissprot_benchmark(args, log)
        (args.out / "sw_device.json").write_text(json.dumps(res, indent=1))
    print(lean_table(res["lean"]) + "\n" + table(res) if args.lean else table(res))
    lean_ok = not args.lean or (all(res["lean"][k] for k in ("top10_same_scores", "top10_rescored_ok", "stream_same"))
                                and res["lean"].get("all_stream_same", True))  # that one only with --stream-all
    print(f"device: {res['device']['name']}; mismatching runs: {len(res['correctness']['mismatches'])}"
          f"{'' if lean_ok else '; a --lean check FAILED'}")
    return 1 if res["correctness"]["mismatches"] or not lean_ok else 0


if __name__ == "__main__":
    sys.exit(main())
